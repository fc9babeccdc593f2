"""attnkit benchmarks (`make bench`): attnkit against nbgrader and otter-grader, in one run.

1. N notebooks (correct and buggy) graded by `attnkit grade-batch`, `nbgrader autograde` and
   `otter run` (otter-grader in its own virtual environment, bench/.otter-venv);
2. `attnkit check` and `attnkit grade` on one notebook against `python -c "import torch"`;
3. Docker: the batch in one container against a container per submission;
4. scaling with the batch size and with --jobs.
Writes bench/RESULTS.md (or --out). Timings are reported, never asserted.
"""
from __future__ import annotations

import argparse
import os
import shlex
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:  # run as a script: `python bench/run.py`
    sys.path.insert(0, str(REPO))

from bench import notebooks, sections  # noqa: E402
from bench.figures import Section  # noqa: E402
from bench.measure import BenchError, load_average  # noqa: E402
from bench.report import Machine, command_output, render  # noqa: E402

PARTS = ("nbgrader", "otter", "docker", "floor", "scaling")
DEFAULT_OUT = REPO / "bench" / "RESULTS.md"
DEFAULT_OTTER_VENV = REPO / "bench" / ".otter-venv"


@dataclass(frozen=True)
class Settings:
    """What one benchmark run does, resolved from the command line (--quick sets smaller defaults)."""

    count: int
    peer_count: int
    nbgrader_floor_count: int
    docker_count: int
    jobs: int
    runs: int
    floor_runs: int
    sizes: tuple[int, ...]
    full_grid: bool
    skip: frozenset[str]
    out: Path
    workdir: Path | None
    otter_venv: Path

    @property
    def grid(self) -> tuple[tuple[int, int], ...]:
        """(submissions, jobs) pairs for scaling: every size at --jobs, and --jobs 1 at N."""
        if self.full_grid:
            return tuple((size, jobs) for size in self.sizes for jobs in sorted({1, self.jobs}))
        pairs = {(size, self.jobs) for size in self.sizes}
        if self.jobs != 1:
            pairs.add((self.count, 1))
        return tuple(sorted(pairs))


def parse(argv: list[str] | None) -> tuple[Settings, str]:
    parser = argparse.ArgumentParser(prog="bench/run.py", description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a short run: fewer notebooks and repeats")
    parser.add_argument("--n", type=int, default=None, help="notebooks attnkit grades (default 40; quick 4)")
    parser.add_argument("--peer-n", type=int, default=None,
                        help="of those, how many nbgrader and otter grade (default 8, one of each kind; quick 2)")
    parser.add_argument("--floor-n", type=int, default=None, help="trivial torch notebooks nbgrader grades for its floor (default 24; quick 4)")
    parser.add_argument("--docker-n", type=int, default=None, help="notebooks graded in Docker (default 10; quick 2)")
    parser.add_argument("--jobs", type=int, default=2, help="attnkit grade-batch --jobs (default 2)")
    parser.add_argument("--runs", type=int, default=None, help="repeats of the attnkit batch (default 2; quick 1)")
    parser.add_argument("--floor-runs", type=int, default=None, help="repeats of check/grade/import torch (default 5; quick 2)")
    parser.add_argument("--sizes", default=None, help="batch sizes for scaling, comma-separated (default 10,40,160; quick 2,4)")
    parser.add_argument("--full-grid", action="store_true", help="scaling: every size with --jobs 1 and 2 (default: --jobs 1 at N only)")
    parser.add_argument("--skip", default="", help=f"comma-separated parts to leave out: {','.join(PARTS)}")
    parser.add_argument("--out", default=str(DEFAULT_OUT), help="the Markdown file to write (default bench/RESULTS.md)")
    parser.add_argument("--workdir", default=None, help="keep the notebooks and results here (default: a temporary folder, removed)")
    parser.add_argument("--otter-venv", default=str(DEFAULT_OTTER_VENV), help="otter-grader's virtual environment (created if missing)")
    args = parser.parse_args(argv)
    quick = args.quick
    skip = frozenset(part.strip() for part in args.skip.split(",") if part.strip())
    unknown = skip - set(PARTS)
    if unknown:
        parser.error(f"--skip {','.join(sorted(unknown))}: unknown part; use some of {','.join(PARTS)}")
    count = args.n if args.n is not None else (4 if quick else 40)
    sizes = tuple(int(s) for s in (args.sizes or ("2,4" if quick else "10,40,160")).split(","))
    numbers = {"--n": count, "--jobs": args.jobs, **{f"--sizes {s}": s for s in sizes}}
    for name, value in numbers.items():
        if value < 1:
            parser.error(f"{name} must be at least 1, got {value}")
    settings = Settings(
        count=count,
        peer_count=min(count, args.peer_n if args.peer_n is not None else (2 if quick else 8)),
        nbgrader_floor_count=max(1, args.floor_n if args.floor_n is not None else (4 if quick else 24)),
        docker_count=min(count, args.docker_n if args.docker_n is not None else (2 if quick else 10)),
        jobs=args.jobs,
        runs=max(1, args.runs if args.runs is not None else (1 if quick else 2)),
        floor_runs=max(1, args.floor_runs if args.floor_runs is not None else (2 if quick else 5)),
        sizes=sizes,
        full_grid=args.full_grid,
        skip=skip,
        out=Path(args.out).resolve(),
        workdir=Path(args.workdir).resolve() if args.workdir else None,
        otter_venv=Path(args.otter_venv).resolve(),
    )
    return settings, shlex.join([".venv/bin/python", "bench/run.py", *argv]) if argv else "make bench"


def run(settings: Settings, command: str) -> Path:
    started = time.perf_counter()
    load_start = load_average()
    work = settings.workdir or Path(tempfile.mkdtemp(prefix="attnkit-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "PATH": f"{sections.BIN}{os.pathsep}{os.environ.get('PATH', '')}", "MPLBACKEND": "Agg"}
    notes = []
    try:
        course = None
        if "nbgrader" not in settings.skip:
            course = work / "course"
            if course.exists():
                shutil.rmtree(course)
            sections.say("setting up the nbgrader course")
            how = notebooks.init_course(course)
            notes.append(f"The nbgrader course was made by {how}, then `nbgrader generate_assignment`.")
        inbox = work / "inbox"
        if inbox.exists():
            shutil.rmtree(inbox)
        submissions = tuple(notebooks.write_submissions(inbox, settings.count, course, settings.peer_count))
        template = "nbgrader's released notebook" if course else "attnkit's student notebook (assignments/attention)"
        correct = sum(s.variant.correct for s in submissions)
        kinds = len({s.variant.name for s in submissions[:settings.peer_count]})
        notes.append(f"{settings.count} notebooks: {template} with the answer cells filled in from the reference "
                     f"solution, {correct} correct and {settings.count - correct} with one planted bug (variants "
                     f"in the scores table); nbgrader and otter grade the first {settings.peer_count} of them "
                     f"({kinds} of the {len(notebooks.VARIANTS)} variants), attnkit all.")
        ctx = sections.Context(work, inbox, submissions, course, env, settings.jobs, settings.runs)
        results: list[Section] = []
        peers, batches = sections.peers(ctx, settings.peer_count, settings.skip, settings.otter_venv, settings.nbgrader_floor_count)
        results.append(peers)
        if "floor" not in settings.skip:
            results.append(sections.floor(ctx, settings.floor_runs))
        if "docker" not in settings.skip:
            results.append(sections.docker(ctx, settings.docker_count))
        if "scaling" not in settings.skip:
            results.append(sections.scaling(ctx, settings.grid, batches))
        otter_version = _otter_version(settings)
        text = render(Machine.probe(otter_version), results, command=command, elapsed_s=time.perf_counter() - started,
                      jobs=settings.jobs, load_start=load_start, load_end=load_average(), notes=notes)
    finally:
        if settings.workdir is None:
            shutil.rmtree(work, ignore_errors=True)
    from autograder.feedback.results import write_atomic
    from bench.soak import SECTION_END, SECTION_START, replace_section  # the soak run's figures stay

    old = Path(settings.out).read_text(encoding="utf-8") if Path(settings.out).is_file() else ""
    if SECTION_START in old and SECTION_END in old:
        text = replace_section(text, SECTION_START + old.split(SECTION_START, 1)[1].split(SECTION_END, 1)[0] + SECTION_END + "\n")
    profile = REPO / "bench" / "PROFILE.md"  # measured by hand (cProfile); kept across runs
    if profile.is_file():
        text = text.rstrip("\n") + "\n\n" + profile.read_text(encoding="utf-8")
    integrity = REPO / "bench" / "INTEGRITY.md"  # bench/integrity.py --n 500, run first by `make bench`
    if integrity.is_file():
        text = text.rstrip("\n") + "\n\n" + integrity.read_text(encoding="utf-8")
    write_atomic(settings.out, text)
    return settings.out


def _otter_version(settings: Settings) -> str:
    if "otter" in settings.skip:
        return "not used (--skip otter)"
    python = settings.otter_venv / "bin" / "python"
    if not python.is_file():
        return "not installed"
    return command_output([str(python), "-c", "import otter; print(otter.__version__)"]) or "not importable"


def main(argv: list[str] | None = None) -> int:
    settings, command = parse(argv)
    try:
        out = run(settings, command)
    except BenchError as error:
        print(f"ERROR {error}", file=sys.stderr)
        return 1
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
