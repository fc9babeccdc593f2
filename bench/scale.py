"""Scaling with cores: `attnkit grade-batch --jobs N` for N in a list, on M generated submissions.

    python bench/scale.py --submissions 400 --jobs 1,2,4,8,16
    python bench/scale.py --runs 1x160,16x160,16x400     (JOBSxCOUNT: the first COUNT submissions)

Standard library only, and the kit is run as `python -m autograder.cli` with the repository on
PYTHONPATH: it works on a machine with nothing but torch, numpy, matplotlib and pytest installed
(no virtual environment, no psutil). The submissions are the reference solution and realistic
one-line bugs of it (.py files), cycled; every --jobs value grades the same folder with the same
--seed, and the scores must come out identical. Prints a Markdown table: wall seconds, seconds per
submission, speed-up against the first run, and `python -c "import torch"` for scale; the time
between the first and the last result written (the results' modification times), which leaves out
the serial start and end and so compares runs of different sizes; and where that serial time goes:
from the start to the first result, and from the last one to the exit (the class report).
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
        # a line of its own: no two files alike, as in a class (the grader caches its static pass by text)
        (inbox / f"s{index:04d}-{kind}.py").write_text(f"# submission {index}\n{sources[kind]}", encoding="utf-8")


def results_window(out: Path) -> tuple[float, float]:
    """The modification times of the first and the last results.json written under out."""
    times = sorted(path.stat().st_mtime for path in out.glob("*/results.json"))
    return times[0], times[-1]


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


def parse_runs(args: argparse.Namespace, parser: argparse.ArgumentParser) -> list[tuple[int, int]]:
    """(jobs, count) per run: --runs JOBSxCOUNT,... or every --jobs value on --submissions."""
    try:
        if args.runs:
            runs = [tuple(int(n) for n in item.lower().split("x")) for item in args.runs.split(",") if item.strip()]
        else:
            runs = [(int(j), args.submissions) for j in args.jobs.split(",") if j.strip()]
    except ValueError:
        parser.error("--runs takes JOBSxCOUNT items (e.g. 1x160,16x400) and --jobs whole numbers")
    if not runs or any(len(run) != 2 or min(run) < 1 for run in runs):
        parser.error("every run needs --jobs and a number of submissions of at least 1")
    return runs  # type: ignore[return-value]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench/scale.py", description=__doc__.splitlines()[0])
    parser.add_argument("--submissions", type=int, default=40, help="how many submissions (default 40)")
    parser.add_argument("--jobs", default="1,2", help="comma-separated --jobs values (default 1,2)")
    parser.add_argument("--runs", default="", help="JOBSxCOUNT,...: each run grades the first COUNT submissions (overrides the two above)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workdir", default=None, help="keep submissions and results here (default: a temporary folder)")
    args = parser.parse_args(argv)
    runs = parse_runs(args, parser)
    work = Path(args.workdir) if args.workdir else Path(tempfile.mkdtemp(prefix="attnkit-scale-"))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep)}
    try:
        inbox = work / "inbox"
        if inbox.exists():
            shutil.rmtree(inbox)
        write_submissions(inbox, max(count for _, count in runs))
        floor = statistics.median(timed([sys.executable, "-c", "import torch"], env) for _ in range(3))
        print(f"machine: {os.cpu_count()} CPUs, {platform.python_implementation()} {platform.python_version()}, "
              f"load average {' '.join(f'{v:.2f}' for v in os.getloadavg())}; `python -c \"import torch\"`: {floor:.2f} s (median of 3)")
        print(f"submissions: .py files, 5 of every 8 with a planted bug or blank, --seed {args.seed}\n")
        print(f"| --jobs | submissions | wall s | s per submission | speed-up vs run 1 (--jobs {runs[0][0]}) | s per submission, first to last result | speed-up of that | start to first result s | last result to exit s |")
        print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |", flush=True)
        seen: dict[int, dict[str, str]] = {}
        base: tuple[float, float] = (0.0, 0.0)
        for number, (jobs, count) in enumerate(runs):  # a row as each run ends: a run cut short keeps the others
            folder = work / f"inbox-{count}"
            if not folder.exists():
                folder.mkdir()
                for path in sorted(inbox.iterdir())[:count]:
                    shutil.copy(path, folder / path.name)
            out = work / f"out-{number}-j{jobs}-n{count}"
            shutil.rmtree(out, ignore_errors=True)
            print(f"grade-batch --jobs {jobs}: {count} submissions ...", file=sys.stderr, flush=True)
            started = time.time()
            seconds = timed([sys.executable, "-m", "autograder.cli", "grade-batch", str(folder), "--out", str(out),
                             "--jobs", str(jobs), "--seed", str(args.seed), "--force"], env)
            first, last = results_window(out)
            seen[number] = scores(out)
            per, steady = seconds / count, (last - first) / max(1, count - 1)
            base = base if number else (per, steady)
            print(f"| {jobs} | {count} | {seconds:.1f} | {per:.3f} | {base[0] / per:.1f}× | {steady:.3f} | {base[1] / steady:.1f}× "
                  f"| {first - started:.1f} | {started + seconds - last:.1f} |", flush=True)
        common = set.intersection(*(set(found) for found in seen.values()))
        same = all(found[name] == seen[0][name] for found in seen.values() for name in common)
        by_kind: dict[str, set[str]] = {}
        for name, score in seen[0].items():
            by_kind.setdefault(name.split("-", 1)[1], set()).add(score)
        print(f"\nscores by kind: {', '.join(f'{kind} {sorted(found)}' for kind, found in sorted(by_kind.items()))}")
        print(f"scores identical at every run: {'yes' if same else 'NO'}")
        return 0 if same else 1
    finally:
        if not args.workdir:
            shutil.rmtree(work, ignore_errors=True)

if __name__ == "__main__":
    sys.exit(main())
