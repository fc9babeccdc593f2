"""How long a worker waited for a CPU that others held: the time its call limits leave out.

A call's limits are wall clock. Where other processes keep every CPU busy (a neighbour's hog at
`--jobs 2` on a kernel that does not share the CPU between sessions: autogroup off, or a
container's CPU cgroup), an honest call could use up its limit waiting for a CPU. The kernel
counts that time for each thread (run_delay in /proc/<pid>/schedstat); the grader's call limit
(client.py) and the worker's cell limit (dispatcher.py) give it back while the worker is one
thread that has started no process, so that the CPU it waited for was not taken by its own.
"""
from __future__ import annotations

import os

STARVED_MIN_SECONDS = 0.05  # less waiting than this is not given back (each give-back reads /proc again)


def cpu_wait(pid: int | None) -> float:
    """Seconds the main thread of process `pid` has spent ready to run but waiting for a CPU;
    0.0 where the kernel does not say (or no pid is known)."""
    if not pid:
        return 0.0
    try:
        with open(f"/proc/{pid}/schedstat", "rb") as file:
            return int(file.read().split()[1]) / 1e9
    except (OSError, ValueError, IndexError):
        return 0.0


def runs_alone(pid: int | None) -> bool:
    """Whether process `pid` is one thread that has started no process (False where not known)."""
    if not pid:
        return False
    try:
        with open(f"/proc/{pid}/task/{pid}/children", "rb") as file:
            return len(os.listdir(f"/proc/{pid}/task")) == 1 and not file.read().strip()
    except OSError:
        return False
