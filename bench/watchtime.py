"""How long `attnkit watch` takes to answer a save, measured from outside as a student sees it.

One `attnkit watch` process on a copy of a submission; the file is saved alternately with a bug
in task A.1 and fixed. Seconds from the write to the final view (every visible check), and for
each fix to the first view (the visible checks of the task being worked on, A.1; a bug saved
when every task was right is checked in one pass). Includes
the file watcher's latency (watchfiles, ~0.05 s quiet period). Standard library only.
"""
from __future__ import annotations

import os
import selectors
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

SCALE_BUG = ("return q @ k.transpose(-2, -1) / math.sqrt(d)", "return q @ k.transpose(-2, -1) / d")
VIEW_TIMEOUT = 300.0


class WatchError(RuntimeError):
    """attnkit watch did not answer as expected; the text says what it printed."""


@dataclass(frozen=True)
class Latency:
    task: list[float]  # save of the fix -> the view after the task being worked on (A.1)
    everything: list[float]  # any save -> the view after every visible check


def _views(process: subprocess.Popen, buffer: list[bytes]) -> str:
    """The next line that ends a view ("checked ..."), reading the watch's stdout."""
    selector = selectors.DefaultSelector()
    selector.register(process.stdout, selectors.EVENT_READ)
    deadline = time.monotonic() + VIEW_TIMEOUT
    while time.monotonic() < deadline:
        data = b"".join(buffer)
        if b"\n" in data:
            line, rest = data.split(b"\n", 1)
            buffer[:] = [rest]
            if line.startswith(b"checked "):
                return line.decode()
            continue
        if selector.select(timeout=1.0):
            chunk = os.read(process.stdout.fileno(), 65536)
            if not chunk:
                raise WatchError(f"attnkit watch exited {process.wait()}")
            buffer.append(chunk)
    raise WatchError(f"attnkit watch showed no view within {VIEW_TIMEOUT:g} s")


def measure(command: list[str], source: str, work: Path, saves: int, env: dict[str, str] | None = None) -> Latency:
    """command: how to run attnkit (e.g. [".venv/bin/attnkit"]); source: a correct attention.py."""
    if SCALE_BUG[0] not in source:
        raise WatchError("the reference no longer holds the planted A.1 line; update bench/watchtime.SCALE_BUG")
    work.mkdir(parents=True, exist_ok=True)
    path = work / "attention.py"
    path.write_text(source, encoding="utf-8")
    process = subprocess.Popen([*command, "watch", str(path), "--seed", "0", "--lang", "en"], stdout=subprocess.PIPE, cwd=work, env=env)
    buffer: list[bytes] = []
    task, everything = [], []
    try:
        _views(process, buffer)  # the first check (cold start: not counted)
        for index in range(saves):
            time.sleep(0.3)  # let the previous save settle (the watcher's quiet period)
            text = source.replace(*SCALE_BUG) if index % 2 == 0 else source
            saved = time.perf_counter()
            path.write_text(text, encoding="utf-8")
            line = _views(process, buffer)
            if "watching" not in line:  # a first pass (the task at hand), then the rest
                task.append(time.perf_counter() - saved)
                line = _views(process, buffer)
            everything.append(time.perf_counter() - saved)
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    return Latency(task, everything)
