"""Timing a command and the peak memory of its whole process tree.

A sampler thread sums the memory of the process and all its descendants: the resident set size
(RSS) every SAMPLE_S seconds, and the proportional set size (PSS, from /proc/PID/smaps_rollup,
slower to read) every PSS_EVERY-th sample. The peak PSS sum is what the tree really held: pages
that forked processes share count once in all. The peak RSS sum counts them once per process.
"""
from __future__ import annotations

import os
import statistics
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import psutil

SAMPLE_S = 0.1
PSS_EVERY = 5
TAIL_CHARS = 4000


class BenchError(RuntimeError):
    """A benchmark step failed; the text says which command and how."""


@dataclass(frozen=True)
class Run:
    """One measured command: wall seconds, peak memory of its tree (MiB: PSS, RSS), exit code, output tail."""

    seconds: float
    peak_mib: float  # proportional set size: a page shared by n processes counts 1/n in each
    peak_rss_mib: float  # resident set size: shared pages count in full in every process
    returncode: int
    output: str


@dataclass(frozen=True)
class Stats:
    """Median and spread of several measurements of one figure."""

    median: float
    low: float
    high: float
    count: int

    @classmethod
    def of(cls, values: list[float]) -> Stats:
        if not values:
            raise BenchError("no measurement to summarise")
        return cls(statistics.median(values), min(values), max(values), len(values))

    def scaled(self, factor: float) -> Stats:
        return Stats(self.median * factor, self.low * factor, self.high * factor, self.count)


def _tree(process: psutil.Process) -> list[psutil.Process]:
    try:
        return [process, *process.children(recursive=True)]
    except psutil.Error:
        return []


def _tree_rss(members: list[psutil.Process]) -> int:
    total = 0
    for member in members:
        try:
            total += member.memory_info().rss
        except psutil.Error:
            continue
    return total


def _tree_pss(members: list[psutil.Process]) -> int:
    total = 0
    for member in members:
        try:
            total += member.memory_full_info().pss
        except (psutil.Error, AttributeError):
            continue
    return total


def run_measured(command: list[str], *, cwd: Path, env: dict[str, str] | None = None,
                 timeout: float = 3600.0, check: bool = True) -> Run:
    """Run command to completion, sampling its process tree's memory; raise BenchError on failure."""
    with tempfile.TemporaryFile(mode="w+b") as log:
        start = time.perf_counter()
        try:
            popen = subprocess.Popen(command, cwd=cwd, env=env, stdout=log, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL)
        except OSError as error:
            raise BenchError(f"cannot start {command[0]}: {error}") from error
        process = psutil.Process(popen.pid)
        peak_rss = peak_pss = 0
        stop = threading.Event()

        def sample() -> None:
            nonlocal peak_rss, peak_pss
            count = 0
            while not stop.is_set():
                members = _tree(process)
                peak_rss = max(peak_rss, _tree_rss(members))
                if count % PSS_EVERY == 0:
                    peak_pss = max(peak_pss, _tree_pss(members))
                count += 1
                stop.wait(SAMPLE_S)

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        try:
            returncode = popen.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            _kill_tree(process)
            popen.wait()
            raise BenchError(f"{' '.join(command)} ran past {timeout:g} s and was killed") from None
        finally:
            seconds = time.perf_counter() - start
            stop.set()
            sampler.join()
        log.seek(0)
        output = log.read().decode("utf-8", "replace")
    run = Run(round(seconds, 3), round(peak_pss / 2**20, 1), round(peak_rss / 2**20, 1), returncode, output[-TAIL_CHARS:])
    if check and returncode != 0:
        raise BenchError(f"{' '.join(command)} exited {returncode} (in {cwd}):\n{run.output}")
    return run


def _kill_tree(process: psutil.Process) -> None:
    try:
        members = [*process.children(recursive=True), process]
    except psutil.Error:
        return
    for member in members:
        try:
            member.kill()
        except psutil.Error:
            continue


def load_average() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f} {five:.2f} {fifteen:.2f}"
