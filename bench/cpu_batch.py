"""CPU seconds per submission of `attnkit grade-batch`, every process of it included.

    .venv/bin/python bench/cpu_batch.py [--copies 2] [--jobs 1]

Copies examples/submissions/ `--copies` times into a temporary folder, grades them with a fresh
grader and prints the CPU per submission, read from a cpuacct cgroup (so processes that were
never reaped count too, and other work on the machine does not), the wall time per submission and
the scores. Start-up (two `import torch`) is included, spread over the batch. Needs root and a
cgroup v1 cpuacct hierarchy (bench/PROFILE.md's figures were taken with it).
"""
from __future__ import annotations

import argparse
import csv
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CGROUPS = Path("/sys/fs/cgroup/cpuacct")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--copies", type=int, default=2, help="how many times each example is graded")
    parser.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args()
    if not (CGROUPS / "cpuacct.usage").is_file() or not os.access(CGROUPS, os.W_OK):
        print(f"bench/cpu_batch.py needs a writable cpuacct cgroup at {CGROUPS} (root, cgroup v1)", file=sys.stderr)
        return 2
    examples = sorted(Path("examples/submissions").glob("*.py")) + sorted(Path("examples/submissions").glob("*.ipynb"))
    with tempfile.TemporaryDirectory(prefix="cpubatch-") as scratch:
        submissions = Path(scratch) / "submissions"
        submissions.mkdir()
        for copy in range(args.copies):
            for example in examples:
                shutil.copy(example, submissions / f"{example.stem}_{copy}{example.suffix}")
        count = len(examples) * args.copies
        group = CGROUPS / f"cpubatch-{os.getpid()}"
        group.mkdir()

        def enter_group() -> None:
            (group / "cgroup.procs").write_text(str(os.getpid()))

        started = time.monotonic()
        done = subprocess.run([".venv/bin/attnkit", "grade-batch", str(submissions), "--out", f"{scratch}/out",
                               "--jobs", str(args.jobs), "--seed", "1"],
                              capture_output=True, text=True, preexec_fn=enter_group)
        wall = time.monotonic() - started
        cpu = int((group / "cpuacct.usage").read_text()) / 1e9
        kernel = int((group / "cpuacct.usage_sys").read_text()) / 1e9
        time.sleep(0.5)  # the last processes leave the group
        try:
            group.rmdir()
        except OSError:
            pass
        print(f"rc={done.returncode} submissions={count} jobs={args.jobs} CPU/submission={cpu / count:.2f}s (kernel {kernel / count:.2f}s) "
              f"wall/submission={wall / count:.2f}s load={os.getloadavg()[0]:.1f}")
        if done.returncode:
            print(done.stdout[-2000:], done.stderr[-2000:])
        grades = Path(scratch) / "out" / "grades.csv"
        if grades.is_file():
            rows = list(csv.DictReader(grades.open(encoding="utf-8")))
            print("scores:", {row.get("submission") or row.get("name"): row.get("score") or row.get("total") for row in rows})
    return done.returncode


if __name__ == "__main__":
    sys.exit(main())
