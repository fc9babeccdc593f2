"""How long a worker waited for a CPU that others held: the time its call limits leave out.

A call's limits are wall clock. Where other processes keep every CPU busy (a neighbour's hog at
`--jobs 2` on a kernel that does not share the CPU between sessions: autogroup off, or a
container's CPU cgroup), an honest call could use up its limit waiting for a CPU. The kernel
counts that time for each thread (run_delay in /proc/<pid>/schedstat); the grader's call limit
(client.py) and the worker's cell limit (dispatcher.py) give it back while the worker has run
alone since the call began: one thread, no process of its own (live, or reaped: its CPU time
shows in the worker's), at normal priority (a worker that lowers its own, or keeps its own
processes busy, waits by its own doing: qa20 review).
"""
from __future__ import annotations

from dataclasses import dataclass

STARVED_MIN_SECONDS = 0.05  # less waiting than this is not given back (each give-back reads /proc again)
# A process's CPU time and its main thread's are read from two files, each rounded to clock ticks
# on its own (user and system time apart): a lone thread's `others` is 0 or one tick either way.
OTHERS_NOISE_TICKS = 2
STABLE_READS = 5  # tries at reading the two while the main thread's ticks stay put


@dataclass(frozen=True)
class Mark:
    """What the kernel says of a process and its main thread at one moment."""

    waited: float  # seconds the main thread has spent ready to run but waiting for a CPU
    others: int  # clock ticks of CPU its other threads and its reaped children used
    alone: bool  # one thread, no live child, normal priority and policy


def _stat(path: str) -> list[bytes]:
    """The fields of a stat file after the command's ")" (it may hold spaces)."""
    with open(path, "rb") as file:
        return file.read().rsplit(b")", 1)[1].split()


def mark(process: str, thread: str) -> Mark | None:
    """The mark of a process (`/proc/<pid>`, or `/proc/self` from inside) and its main thread
    (`/proc/<pid>/task/<pid>`, or `/proc/thread-self`); None where the kernel does not say.
    The process is read between two reads of its thread that agree: a thread that runs on
    between the reads would otherwise seem to have used CPU that another did."""
    try:
        for _ in range(STABLE_READS):
            own = _stat(f"{thread}/stat")
            fields = _stat(f"{process}/stat")
            if _stat(f"{thread}/stat")[11:13] == own[11:13]:
                break
        with open(f"{thread}/schedstat", "rb") as file:
            waited = int(file.read().split()[1]) / 1e9
        with open(f"{thread}/children", "rb") as file:
            children = bool(file.read().strip())
        # stat fields 14-17: utime, stime, cutime, cstime; 19: nice; 20: threads; 41: policy (here from field 3 on)
        used, mine = sum(int(f) for f in fields[11:15]), sum(int(f) for f in own[11:13])
        alone = not children and int(fields[17]) == 1 and int(fields[16]) <= 0 and int(fields[38]) == 0
        return Mark(waited, used - mine, alone)
    except (OSError, ValueError, IndexError):
        return None


def of_pid(pid: int | None) -> Mark | None:
    return mark(f"/proc/{pid}", f"/proc/{pid}/task/{pid}") if pid else None


def given_back(start: Mark | None, now: Mark | None) -> float:
    """Seconds of CPU wait to give back between two marks of one call: none unless the process
    ran alone all along (`ran_alone`)."""
    if start is None or now is None or not ran_alone(start, now):
        return 0.0
    return max(0.0, now.waited - start.waited)


def ran_alone(start: Mark, now: Mark) -> bool:
    """Whether nothing of the process but its main thread used CPU between two marks, as far as
    the kernel's rounding to ticks can tell."""
    return now.alone and abs(now.others - start.others) <= OTHERS_NOISE_TICKS
