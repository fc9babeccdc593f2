"""`attnkit check` cold against `python -c "import torch"`: CPU seconds per process, the critical
path, and wall time, the two commands interleaved.

    .venv/bin/python bench/cpu_check.py [--runs 5] [PATH]

Each run goes into a cpuacct cgroup of its own (every process counts, reaped or not); a sampler
reads each process's CPU from /proc every few milliseconds and sorts the processes by role:
grader (the command), template (the fork server), keepers and workers (in spawn order: the first
worker, then Part F's private worker). The critical path is the CPU that `check` cannot overlap:
the later of the grader's and the template's CPU when the first worker is forked, then what the
grader and the workers spend after that (they take turns). Needs root and a cgroup v1 cpuacct
hierarchy, like bench/cpu_batch.py. Prints one line per run and the medians.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

CGROUPS = Path("/sys/fs/cgroup/cpuacct")
TICKS = os.sysconf("SC_CLK_TCK")
SAMPLE_SECONDS = 0.004
FLOOR = [sys.executable, "-c", "import torch"]


@dataclass
class Proc:
    pid: int
    ppid: int
    role: str = "?"
    cpu: float = 0.0  # user + system seconds, last seen
    first_seen: float = 0.0
    at_birth: tuple[float, float] = (0.0, 0.0)  # the grader's and the template's CPU when it appeared
    samples: list[tuple[float, float]] = field(default_factory=list)  # (wall since start, CPU)


@dataclass
class Sample:
    wall: float = 0.0
    cgroup_cpu: float = 0.0
    procs: dict[int, Proc] = field(default_factory=dict)
    returncode: int = 0

    @property
    def first_keeper(self) -> Proc | None:
        """The first child of the template that forked a worker (its other children: ldconfig)."""
        keepers = {p.ppid for p in self.procs.values() if p.role == "worker"}
        return min((self.procs[k] for k in keepers), key=lambda p: p.first_seen, default=None)

    @property
    def grader_at_fork(self) -> float:
        return self.first_keeper.at_birth[0] if self.first_keeper else 0.0

    @property
    def template_at_fork(self) -> float:
        return self.first_keeper.at_birth[1] if self.first_keeper else 0.0

    def role_cpu(self, role: str) -> float:
        return sum(p.cpu for p in self.procs.values() if p.role == role)

    def workers(self) -> list[float]:
        return [p.cpu for p in sorted(self.procs.values(), key=lambda p: p.first_seen) if p.role == "worker"]

    def critical_path(self) -> float:
        after = self.role_cpu("grader") - self.grader_at_fork + sum(self.workers())
        return max(self.template_at_fork, self.grader_at_fork) + after


def _stat(pid: int) -> tuple[int, float] | None:
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2:].split()
    return int(fields[1]), (int(fields[11]) + int(fields[12])) / TICKS


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def _classify(proc: Proc, procs: dict[int, Proc], grader: int, sample: Sample) -> None:
    parent = procs.get(proc.ppid)
    if proc.pid == grader:
        proc.role = "grader"
    elif parent is not None and parent.role == "template":
        proc.role = "keeper"  # or ldconfig, run by ctypes.util.find_library: no worker child
        proc.at_birth = (procs[grader].cpu if grader in procs else 0.0, parent.cpu)
    elif parent is not None and parent.role == "keeper":
        proc.role = "worker"
    elif "grading.worker.template" in _cmdline(proc.pid):
        proc.role = "template"
    else:
        proc.role = "other"


def measure(command: list[str], cwd: Path) -> Sample:
    group = CGROUPS / f"cpucheck-{os.getpid()}-{time.monotonic_ns()}"
    group.mkdir()
    sample = Sample()
    stop = threading.Event()

    def enter_group() -> None:
        (group / "cgroup.procs").write_text(str(os.getpid()))

    started = time.monotonic()
    popen = subprocess.Popen(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, preexec_fn=enter_group)

    def sampler() -> None:
        procs = sample.procs
        while not stop.is_set():
            try:
                pids = [int(p) for p in (group / "cgroup.procs").read_text().split()]
            except OSError:
                pids = []
            for pid in pids:
                stat = _stat(pid)
                if stat is None:
                    continue
                ppid, cpu = stat
                proc = procs.get(pid)
                if proc is None:
                    proc = procs[pid] = Proc(pid, ppid, first_seen=time.monotonic() - started)
                if proc.role in ("?", "other"):  # a child of the grader is "other" until it has exec'd the template
                    _classify(proc, procs, popen.pid, sample)
                proc.cpu = max(proc.cpu, cpu)
                proc.samples.append((time.monotonic() - started, proc.cpu))
            stop.wait(SAMPLE_SECONDS)

    thread = threading.Thread(target=sampler, daemon=True)
    thread.start()
    sample.returncode = popen.wait()
    sample.wall = time.monotonic() - started
    stop.set()
    thread.join()
    sample.cgroup_cpu = int((group / "cpuacct.usage").read_text()) / 1e9
    for _ in range(50):  # the last processes leave the group
        try:
            group.rmdir()
            break
        except OSError:
            time.sleep(0.1)
    return sample


def timeline(sample: Sample, step: float = 0.1) -> list[str]:
    """Per `step` seconds of wall time, the CPU each role used: who runs when."""
    roles = ["grader", "template", "keeper", "worker"]
    buckets = int(sample.wall / step) + 1
    used = {role: [0.0] * buckets for role in roles}
    for proc in sample.procs.values():
        if proc.role not in used:
            continue
        last = 0.0
        for wall, cpu in proc.samples:
            used[proc.role][min(int(wall / step), buckets - 1)] += cpu - last
            last = cpu
    lines = ["  wall  " + " ".join(f"{role:>8}" for role in roles)]
    for index in range(buckets):
        lines.append(f"{index * step:6.1f}  " + " ".join(f"{used[role][index]:8.2f}" for role in roles))
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", nargs="?", default="solutions/attention/attention.py")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--attnkit", default=".venv/bin/attnkit")
    parser.add_argument("--timeline", action="store_true", help="also print who used the CPU when, per 0.1 s, for each check run")
    args = parser.parse_args()
    if not (CGROUPS / "cpuacct.usage").is_file() or not os.access(CGROUPS, os.W_OK):
        print(f"bench/cpu_check.py needs a writable cpuacct cgroup at {CGROUPS} (root, cgroup v1)", file=sys.stderr)
        return 2
    check = [args.attnkit, "check", args.path, "--seed", "1"]
    floors: list[Sample] = []
    checks: list[Sample] = []
    for run in range(args.runs):  # interleaved: a change of load hits both alike
        floor = measure(FLOOR, Path.cwd())
        done = measure(check, Path.cwd())
        floors.append(floor)
        checks.append(done)
        workers = " + ".join(f"{w:.2f}" for w in done.workers())
        print(f"run {run + 1}: import torch {floor.wall:.2f} s wall {floor.cgroup_cpu:.2f} s CPU | check rc={done.returncode} "
              f"{done.wall:.2f} s wall {done.cgroup_cpu:.2f} s CPU: grader {done.role_cpu('grader'):.2f} "
              f"(at fork {done.grader_at_fork:.2f}), template {done.role_cpu('template'):.2f} (at fork {done.template_at_fork:.2f}), "
              f"keepers {done.role_cpu('keeper'):.2f}, workers {workers}; critical path {done.critical_path():.2f} s | "
              f"load {os.getloadavg()[0]:.1f}", flush=True)
        if args.timeline:
            print("\n".join(timeline(done)), flush=True)

    def median(values: list[float]) -> float:
        return statistics.median(values)

    torch_wall, torch_cpu = median([f.wall for f in floors]), median([f.cgroup_cpu for f in floors])
    check_wall, check_cpu = median([c.wall for c in checks]), median([c.cgroup_cpu for c in checks])
    path = median([c.critical_path() for c in checks])
    print(f"medians of {args.runs}: import torch {torch_wall:.2f} s wall, {torch_cpu:.2f} s CPU; check {check_wall:.2f} s wall "
          f"({check_wall / torch_wall:.2f}x), {check_cpu:.2f} s CPU ({check_cpu / torch_cpu:.2f}x), critical path {path:.2f} s CPU "
          f"({path / torch_cpu:.2f}x); median of per-run wall ratios {median([c.wall / f.wall for c, f in zip(checks, floors)]):.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
