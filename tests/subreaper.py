"""Run a command as a child subreaper and report what of it outlived it.

    python tests/subreaper.py REPORT.json COMMAND ARGS...

This process becomes a child subreaper (prctl PR_SET_CHILD_SUBREAPER), so any descendant of
COMMAND that is still alive (or dies) after its parent exited is re-parented here instead of to
init. SIGINT and SIGTERM are forwarded to COMMAND. When COMMAND has exited, REPORT.json gets
{"exit": its exit code, "left": [[pid, state, name], ...]}: every process re-parented here, living
or a zombie. An empty list means that everything COMMAND started had ended before it did.
"""
from __future__ import annotations

import ctypes
import json
import os
import signal
import subprocess
import sys

PR_SET_CHILD_SUBREAPER = 36


def children(pid: int) -> list[list]:
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as handle:
                stat = handle.read()
        except OSError:
            continue
        state, parent = stat[stat.rindex(")") + 2:].split()[:2]
        if int(parent) == pid:
            found.append([int(name), state, stat[stat.index("(") + 1:stat.rindex(")")]])
    return found


def main() -> int:
    report, command = sys.argv[1], sys.argv[2:]
    if ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_CHILD_SUBREAPER)")
    child = subprocess.Popen(command)
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda signum, frame: child.send_signal(signum))
    code = child.wait()
    left = [entry for entry in children(os.getpid())]
    with open(report, "w") as handle:
        json.dump({"exit": code, "left": left}, handle)
    return 0


if __name__ == "__main__":
    sys.exit(main())
