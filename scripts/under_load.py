"""Run a command with every core busy: one CPU burner process per core, for as long as it runs.

    python scripts/under_load.py [--burners N] -- COMMAND...

Used by `make test-under-load` (the timing-sensitive tests, marker `timing`). The burners are
plain busy loops at normal priority, killed when the command ends (also on Ctrl-C); the exit
status is the command's. The load average before and after is printed.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys

BURN = "while True: pass"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--burners", type=int, default=os.cpu_count() or 1, help="busy processes (default: one per core)")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="the command, after --")
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("give the command to run after --")
    burners = [subprocess.Popen([sys.executable, "-c", BURN]) for _ in range(max(0, args.burners))]
    print(f"under load: {len(burners)} CPU burners; load average before {os.getloadavg()[0]:.2f}", flush=True)
    try:
        return subprocess.call(command)
    finally:
        for burner in burners:
            burner.kill()
        for burner in burners:
            burner.wait()
        print(f"under load: burners stopped; load average {os.getloadavg()[0]:.2f}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
