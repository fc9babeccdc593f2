"""Soak run: grade a long batch (correct, buggy and hostile submissions) and watch the grader.

    python bench/soak.py [--n 1000] [--jobs 2] [--parts A,B] [--out bench/RESULTS.md | --no-write]

Runs `attnkit grade-batch` once over N submissions and samples, every second, the memory of the
grader's own processes (the batch process, its pool processes, their worker templates and whatever
else they fork; not the keepers and workers, which run student code). Memory is the proportional
set size (PSS: a page shared by k processes counts 1/k in each), so the sum is what they hold
together. (A first version summed RSS, which counts a page shared by forks once per process, and
took a fork swarm's children for the grader's while their worker was a zombie with no command
line: up to 132 processes and 5.3 GiB on a batch of 12, against 4 processes and 604 MiB PSS.)
Afterwards it reports
  - memory over time: the grader's PSS at 10 %, 50 %, 90 % of the results written and just before
    the last (the pool still runs), the growth from 10 % to that last point (flat: a few MiB, no
    trend); the peak over the whole run;
  - open descriptors of the same processes at 10 % and at that last point (a leak grows them);
  - time per submission: attnkit.json's execution_time, second tenth of the batch (the first
    holds the cold start) vs last tenth, in the order they finished; the throughput per quarter;
  - leftovers: processes of the grader (templates, keepers, workers carry its pid as their last
    argument) alive after it exited, and its scratch folders still on disk;
  - the machine's 1-minute load average over the run (the times depend on it).
The figures replace the "Soak" section of bench/RESULTS.md. Hangs (import loops, sleeping
functions) are left out of the mix: each costs its time limit and says nothing new about leaks.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import psutil

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from autograder.feedback.results import write_atomic  # noqa: E402
from autograder.grading.worker.client import SCRATCH_PREFIX  # noqa: E402

from tests.batches import EXAMPLES, REFERENCE, write_case  # noqa: E402

DEFAULT_OUT = REPO / "bench" / "RESULTS.md"
SAMPLE_S = 1.0
DEFAULT_N = 1000
TEMPLATE_MARK = "autograder.grading.worker.template"
SECTION_START, SECTION_END = "<!-- soak:start -->", "<!-- soak:end -->"
# The mix, per cycle of 20 submissions: 8 reference copies, 6 examples (other styles, buggy), 6 hostile.
CYCLE, REFERENCES, EXAMPLE_COUNT = 20, 8, 6
HOSTILE_PAYLOADS = (
    "exit_at_import", "segfault", "memory_hog", "sys_exit_in_function", "output_flood", "fork_swarm", "daemon",
    "tensor_subclass", "pickle_payload", "lone_surrogate", "giant_integer_reply", "forged_plot", "huge_file",
    "expanded_view", "kill_parent", "patch_comparisons",
)
BROKEN = ("garbage", "broken_notebook", "zip_escape", "empty", "tags_seven")  # one entry each (tests/batches.py)


# ---------------------------------------------------------------------------------------------
# the inbox
# ---------------------------------------------------------------------------------------------
def make_inbox(inbox: Path, count: int, marker: Path) -> dict[str, int]:
    """N submissions in the mix; returns how many of each kind."""
    inbox.mkdir(parents=True)
    examples = sorted(p for p in EXAMPLES.iterdir() if p.suffix in (".py", ".ipynb"))
    hostile = [*HOSTILE_PAYLOADS, *BROKEN]
    kinds = {"reference": 0, "example": 0, "hostile or broken": 0}
    for number in range(count):
        stem, slot = f"s{number:04d}", number % CYCLE
        if slot < REFERENCES:
            shutil.copyfile(REFERENCE, inbox / f"{stem}.py")
            kinds["reference"] += 1
        elif slot < REFERENCES + EXAMPLE_COUNT:
            example = examples[number % len(examples)]
            shutil.copyfile(example, inbox / f"{stem}{example.suffix}")
            kinds["example"] += 1
        else:
            name = hostile[number % len(hostile)]
            write_case(inbox, stem, name, MARKER=marker)
            kinds["hostile or broken"] += 1
    return kinds


# ---------------------------------------------------------------------------------------------
# watching the grader
# ---------------------------------------------------------------------------------------------
@dataclass
class Sample:
    seconds: float
    done: int
    pss_mib: float  # the batch process + pool processes + templates (+ their short-lived forks)
    processes: int
    fds: int  # open descriptors of those processes
    load: float  # the machine's 1-minute load average


@dataclass
class Watch:
    root: psutil.Process
    out: Path
    samples: list[Sample] = field(default_factory=list)
    pids: set[int] = field(default_factory=set)  # every grader process seen (batch, pool)
    stop: threading.Event = field(default_factory=threading.Event)

    def grader_processes(self) -> list[psutil.Process]:
        """The batch process, its pool processes and their templates (no keepers, no workers)."""
        try:
            tree = [self.root, *self.root.children(recursive=True)]
        except psutil.Error:
            return []
        commands: dict[int, str] = {}  # a zombie's command line is empty
        for process in tree:
            try:
                commands[process.pid] = " ".join(process.cmdline())
            except psutil.Error:
                continue

        def forked(pid: int) -> bool:
            """A template, keeper or worker (they carry the template's command line), or a zombie: a
            worker that exited while its pid namespace is torn down leaves its children to count."""
            return pid in commands and (not commands[pid] or TEMPLATE_MARK in commands[pid])

        kept = []
        for process in tree:
            try:  # a template's parent is a grader; a keeper's is a template; a worker's a keeper
                if commands.get(process.pid) and not (forked(process.pid) and forked(process.ppid())):
                    kept.append(process)
            except psutil.Error:
                continue
        return kept

    def run(self, started: float) -> None:
        while not self.stop.is_set():
            processes = self.grader_processes()
            pss = fds = 0
            for process in processes:
                try:
                    pss += process.memory_full_info().pss
                    fds += process.num_fds()
                    if TEMPLATE_MARK not in " ".join(process.cmdline()):
                        self.pids.add(process.pid)
                except psutil.Error:
                    continue
            done = sum(1 for _ in self.out.glob("*/attnkit.json"))
            if processes:
                self.samples.append(Sample(round(time.monotonic() - started, 1), done, pss / 2**20, len(processes), fds, os.getloadavg()[0]))
            self.stop.wait(SAMPLE_S)


def leftovers(graders: set[int]) -> list[str]:
    found = []
    for process in psutil.process_iter(["pid", "cmdline", "status"]):
        argv = process.info["cmdline"] or []
        if process.info["status"] != psutil.STATUS_ZOMBIE and argv and TEMPLATE_MARK in " ".join(argv) and argv[-1].isdigit() and int(argv[-1]) in graders:
            found.append(f"{process.info['pid']} {' '.join(argv)[-60:]}")
    return found


# ---------------------------------------------------------------------------------------------
# figures
# ---------------------------------------------------------------------------------------------
def at_progress(samples: list[Sample], share: float, total: int) -> Sample:
    wanted = share * total
    return next((s for s in samples if s.done >= wanted), samples[-1])


def execution_times(out: Path) -> list[float]:
    """execution_time of every result, in the order the results were written."""
    files = sorted(out.glob("*/attnkit.json"), key=lambda p: p.stat().st_mtime_ns)
    return [float(json.loads(p.read_text(encoding="utf-8")).get("execution_time", 0.0)) for p in files]


def throughput(samples: list[Sample], total: int) -> list[float]:
    """Submissions per minute in each quarter of the batch."""
    rates = []
    for quarter in range(4):
        start, end = at_progress(samples, quarter / 4, total), at_progress(samples, (quarter + 1) / 4, total)
        seconds = max(end.seconds - start.seconds, 1e-9)
        rates.append(60 * (end.done - start.done) / seconds)
    return rates


def report(args: argparse.Namespace, kinds: dict[str, int], samples: list[Sample], times: list[float], wall: float,
           left: list[str], stale: list[str], marker_hit: bool, code: int) -> str:
    total = args.n
    points = {share: at_progress(samples, share, total) for share in (0.1, 0.5, 0.9)}
    points[1.0] = next((s for s in reversed(samples) if s.done < total), samples[-1])  # the pool still runs (not the report)
    tenth = max(1, len(times) // 10)
    early, last = times[tenth : 2 * tenth] or times[:tenth], times[-tenth:]  # the first tenth holds the cold start
    first, last = statistics.mean(early), statistics.mean(last)
    loads = [s.load for s in samples]
    load = f"1-minute load average during the run {statistics.mean(loads):.1f} on average, {min(loads):.1f}–{max(loads):.1f}"
    rates = throughput(samples, total)
    peak = max(s.pss_mib for s in samples)
    usual = statistics.mode(s.processes for s in samples)
    lines = [
        SECTION_START,
        "## Soak",
        "",
        f"`make soak` (`bench/soak.py --n {total} --jobs {args.jobs}{f' --parts {args.parts}' if args.parts else ''}`): one `attnkit grade-batch` over "
        f"{total} submissions ({', '.join(f'{v} {k}' for k, v in kinds.items())}), {wall / 60:.1f} min, exit code {code}; "
        f"{os.cpu_count()} cores, {load}{f'; run at niceness {os.nice(0)}' if os.nice(0) else ''}."
        + (f" A smoke run: `make soak` grades {DEFAULT_N:,}." if total < DEFAULT_N else ""),
        "",
        "| measure | value |",
        "| --- | --- |",
        f"| grader memory (PSS of the batch, pool and template processes: {usual} most of the time, up to {max(s.processes for s in samples)}) at 10 / 50 / 90 % of the results and just before the last | "
        + " / ".join(f"{points[s].pss_mib:.0f}" for s in (0.1, 0.5, 0.9, 1.0)) + f" MiB (peak {peak:.0f}) |",
        f"| growth from 10 % to the last | {points[1.0].pss_mib - points[0.1].pss_mib:+.0f} MiB |",
        f"| open descriptors of those processes at 10 % / just before the last result (peak) | {points[0.1].fds} / {points[1.0].fds} ({max(s.fds for s in samples)}) |",
        f"| time per submission (attnkit.json), second tenth / last tenth of the batch | {first:.2f} s / {last:.2f} s (ratio {last / first:.2f}) |",
        "| throughput per quarter of the batch | " + " / ".join(f"{r:.1f}" for r in rates) + " submissions a minute |",
        f"| processes of the grader left after it exited | {len(left)} |",
        f"| scratch folders left | {len(stale)} |",
        f"| pickle payload executed in the grader | {'YES' if marker_hit else 'no'} |",
        "",
        f"Memory sampled every {SAMPLE_S:g} s ({len(samples)} samples). Hangs are not in the mix (each costs its time limit, nothing else).",
        SECTION_END,
    ]
    return "\n".join(lines) + "\n"


def replace_section(text: str, section: str) -> str:
    """Put the soak section into RESULTS.md, replacing an earlier one (bench/run.py keeps it)."""
    if SECTION_START in text and SECTION_END in text:
        before, rest = text.split(SECTION_START, 1)
        return before + section.rstrip("\n") + rest.split(SECTION_END, 1)[1]
    return text.rstrip("\n") + "\n\n" + section


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=DEFAULT_N, help=f"submissions (default {DEFAULT_N})")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--parts", default=None, help="grade only these parts (default all)")
    parser.add_argument("--out", default=str(DEFAULT_OUT), help="the Markdown file whose Soak section is replaced")
    parser.add_argument("--no-write", action="store_true", help="print the figures only")
    args = parser.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="attnkit-soak-"))
    try:
        marker = work / "unpickled-marker"
        kinds = make_inbox(work / "inbox", args.n, marker)
        out = work / "out"
        command = [sys.executable, "-m", "autograder.cli", "grade-batch", str(work / "inbox"), "--out", str(out), "--jobs", str(args.jobs), "--seed", "1"]
        command += ["--parts", args.parts] if args.parts else []
        started = time.monotonic()
        batch = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": str(REPO)})
        watch = Watch(psutil.Process(batch.pid), out)
        watch.pids.add(batch.pid)
        sampler = threading.Thread(target=watch.run, args=(started,), daemon=True)
        sampler.start()
        _, errors = batch.communicate()
        wall = time.monotonic() - started
        watch.stop.set()
        sampler.join()
        time.sleep(2.0)  # keepers report and exit
        left = leftovers(watch.pids)
        stale = [str(p) for pid in watch.pids for p in Path(tempfile.gettempdir()).glob(f"{SCRATCH_PREFIX}{pid}-*")]
        if batch.returncode != 0 or not watch.samples:
            print(errors[-3000:], file=sys.stderr)
            return 1
        section = report(args, kinds, watch.samples, execution_times(out), wall, left, stale, marker.exists(), batch.returncode)
        print(section)
        if not args.no_write:
            path = Path(args.out)
            write_atomic(path, replace_section(path.read_text(encoding="utf-8") if path.is_file() else "# attnkit benchmarks\n", section))
            print(f"wrote the Soak section of {path}")
        return 0 if not left and not stale and not marker.exists() else 1
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
