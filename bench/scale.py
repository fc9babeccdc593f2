"""Scaling with cores: `attnkit grade-batch --jobs N` for N in a list, on M generated submissions.

    python bench/scale.py --submissions 400 --jobs 1,2,4,8,16

Standard library only, and the kit is run as `python -m autograder.cli` with the repository on
PYTHONPATH: it works on a machine with nothing but torch, numpy, matplotlib and pytest installed
(no virtual environment, no psutil). The submissions are the reference solution and realistic
one-line bugs of it (.py files), cycled; every --jobs value grades the same folder with the same
--seed, and the scores must come out identical. Prints a Markdown table: wall seconds, seconds per
submission, speed-up against the first --jobs value, and `python -c "import torch"` for scale.
"""
from __future__ import annotations

import argparse
import csv
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
REFERENCE = REPO / "solutions" / "attention" / "attention.py"
BLANK = REPO / "assignments" / "attention" / "attention.py"
# name -> (text in the reference, its replacement); each must match exactly once
BUGS = {
    "reference": None,
    "no-scale": ("return q @ k.transpose(-2, -1) / math.sqrt(d)", "return q @ k.transpose(-2, -1)"),
    "triu-mask": (".tril()", ".triu()"),
    "heads-mixed": (".reshape(B, S, num_heads, E // num_heads).transpose(1, 2)", ".reshape(B, num_heads, S, E // num_heads)"),
    "heatmap-untransposed": ("matrix.T.numpy()", "matrix.numpy()"),
}


def write_submissions(inbox: Path, count: int) -> None:
    reference = REFERENCE.read_text(encoding="utf-8")
    sources = {"blank": BLANK.read_text(encoding="utf-8")}
    for name, bug in BUGS.items():
        if bug is not None and reference.count(bug[0]) != 1:
            raise SystemExit(f"bench/scale.py: {bug[0]!r} is not in the reference exactly once; update BUGS")
        sources[name] = reference if bug is None else reference.replace(*bug)
    kinds = ["reference", "no-scale", "reference", "triu-mask", "heads-mixed", "reference", "heatmap-untransposed", "blank"]
    inbox.mkdir(parents=True)
    for index in range(count):
        kind = kinds[index % len(kinds)]
        (inbox / f"s{index:04d}-{kind}.py").write_text(sources[kind], encoding="utf-8")


def timed(command: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    done = subprocess.run(command, env=env, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} exited {done.returncode}:\n{done.stderr[-3000:]}")
    return seconds


def scores(out: Path) -> dict[str, str]:
    with open(out / "grades.csv", newline="", encoding="utf-8") as handle:
        return {row["submission"]: row["score"] for row in csv.DictReader(handle)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench/scale.py", description=__doc__.splitlines()[0])
    parser.add_argument("--submissions", type=int, default=40, help="how many submissions (default 40)")
    parser.add_argument("--jobs", default="1,2", help="comma-separated --jobs values (default 1,2)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workdir", default=None, help="keep submissions and results here (default: a temporary folder)")
    args = parser.parse_args(argv)
    jobs_list = [int(j) for j in args.jobs.split(",") if j.strip()]
    if args.submissions < 1 or not jobs_list or min(jobs_list) < 1:
        parser.error("--submissions and every --jobs value must be at least 1")
    work = Path(args.workdir) if args.workdir else Path(tempfile.mkdtemp(prefix="attnkit-scale-"))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep)}
    try:
        inbox = work / "inbox"
        if inbox.exists():
            shutil.rmtree(inbox)
        write_submissions(inbox, args.submissions)
        floor = statistics.median(timed([sys.executable, "-c", "import torch"], env) for _ in range(3))
        rows, seen = [], {}
        for jobs in jobs_list:
            out = work / f"out-j{jobs}"
            shutil.rmtree(out, ignore_errors=True)
            print(f"grade-batch --jobs {jobs}: {args.submissions} submissions ...", file=sys.stderr, flush=True)
            seconds = timed([sys.executable, "-m", "autograder.cli", "grade-batch", str(inbox), "--out", str(out),
                             "--jobs", str(jobs), "--seed", str(args.seed), "--force"], env)
            seen[jobs] = scores(out)
            rows.append((jobs, seconds))
        first_jobs, first_seconds = rows[0]
        same = all(found == seen[first_jobs] for found in seen.values())
        print(f"\nmachine: {os.cpu_count()} CPUs, {platform.python_implementation()} {platform.python_version()}, "
              f"load average {' '.join(f'{v:.2f}' for v in os.getloadavg())}; `python -c \"import torch\"`: {floor:.2f} s (median of 3)")
        print(f"{args.submissions} submissions (.py, 5 of 8 with a planted bug or blank), --seed {args.seed}\n")
        print("| --jobs | wall s | s per submission | speed-up vs --jobs {} | vs import torch |".format(first_jobs))
        print("| --- | --- | --- | --- | --- |")
        for jobs, seconds in rows:
            per = seconds / args.submissions
            print(f"| {jobs} | {seconds:.1f} | {per:.3f} | {first_seconds / seconds:.1f}× | {per / floor:.2f}× |")
        print(f"\nscores identical at every --jobs: {'yes' if same else 'NO'}")
        return 0 if same else 1
    finally:
        if not args.workdir:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
