"""The four measurements of `make bench`, each returning a figures.Section.

Every grader is run as its users run it, as a command: `attnkit grade-batch`, `nbgrader
autograde`, `otter run`, `attnkit check|grade`, `attnkit grade-batch --docker`.
"""
from __future__ import annotations

import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from bench import nbfloor, otter
from bench.figures import Measured, NotMeasured, Row, Scores, Section
from bench.measure import BenchError, Run, Stats, load_average, run_measured
from bench.notebooks import ASSIGNMENT, NOTEBOOK, Submission, cyclic_inbox

BIN = Path(sys.executable).parent
REPO = Path(__file__).resolve().parents[1]
ATTNKIT = str(BIN / "attnkit")
SEED = "0"
ATTNKIT_BATCH = "attnkit grade-batch --jobs {jobs}"
NBGRADER = "nbgrader autograde"
OTTER = "otter run"
FLOOR = 'python -c "import torch"'
CHECK = "attnkit check"
GRADE = "attnkit grade"
WATCH_TASK = "attnkit watch: re-check of the task at hand (save to view)"
WATCH_ALL = "attnkit watch: re-check of every visible check (save to view)"
DOCKER_ONE = "attnkit grade-batch --docker (one container)"
DOCKER_PER = "attnkit grade-batch --docker --container-per-submission"


@dataclass(frozen=True)
class Context:
    work: Path
    inbox: Path  # the N notebooks
    submissions: tuple[Submission, ...]
    course: Path | None  # the nbgrader course; None when nbgrader is skipped
    env: dict[str, str]
    jobs: int
    runs: int  # repeats of the attnkit batch of N notebooks


def _tail(text: str, lines: int = 12) -> str:
    return "\n".join(text.strip().splitlines()[-lines:])


def say(message: str) -> None:
    print(f"[bench {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


# --- 1. attnkit, nbgrader and otter on the same notebooks ----------------------------------------

def attnkit_batches(ctx: Context, inbox: Path, jobs_list: tuple[int, ...], runs: int) -> dict[int, tuple[Measured, Scores]]:
    """`attnkit grade-batch` on inbox, runs times for each --jobs in jobs_list, the runs interleaved
    (j2, j1, j2, j1...) so that a change in the machine's load hits every setting alike."""
    from autograder.feedback.results import load_submission_result

    count = len([p for p in inbox.iterdir() if p.suffix == ".ipynb"])
    found: dict[int, dict[str, list]] = {jobs: {"runs": [], "inside": [], "scores": {}} for jobs in jobs_list}
    for index in range(runs):
        for jobs in jobs_list:
            out = ctx.work / f"attnkit-{inbox.name}-j{jobs}-{index}"
            say(f"{ATTNKIT_BATCH.format(jobs=jobs)}: {count} notebooks, run {index + 1}/{runs}")
            run = run_measured([ATTNKIT, "grade-batch", str(inbox), "--out", str(out), "--jobs", str(jobs), "--force",
                                "--seed", SEED], cwd=ctx.work, env=ctx.env)
            found[jobs]["runs"].append(run)
            results = [load_submission_result(path) for path in sorted(out.glob("*/attnkit.json"))]
            if len(results) != count:
                raise BenchError(f"attnkit grade-batch --jobs {jobs} wrote {len(results)} results for {count} notebooks")
            for result in results:
                if result.grader_error:
                    raise BenchError(f"attnkit could not grade {result.submission}: {result.grader_error}")
                found[jobs]["inside"].append(result.execution_time)
                variant = result.submission.split("-", 1)[1]
                found[jobs]["scores"].setdefault(variant, set()).add((result.score, result.max_score))
            shutil.rmtree(out)
    measured = {}
    for jobs, data in found.items():
        totals = [run.seconds for run in data["runs"]]
        grader = Stats.of(data["inside"])
        row = Measured(
            ATTNKIT_BATCH.format(jobs=jobs), count, Stats.of(totals), Stats.of([t / count for t in totals]),
            Stats.of([run.peak_mib for run in data["runs"]]), Stats.of([run.peak_rss_mib for run in data["runs"]]),
            derived="batch wall time / submissions",
            note=f"time inside the grader per submission (attnkit.json execution_time): {grader.median:.2f} s "
                 f"({grader.low:.2f}–{grader.high:.2f})",
        )
        scores = Scores(f"attnkit --jobs {jobs}", {v: tuple(sorted(s)) for v, s in data["scores"].items()})
        measured[jobs] = (row, scores)
    return measured


def nbgrader_autograde(ctx: Context, count: int) -> tuple[Row, Scores | None]:
    if ctx.course is None:
        return NotMeasured(NBGRADER, "skipped (--skip nbgrader)"), None
    say(f"{NBGRADER}: {count} notebooks, one run")
    started = time.time()
    run = run_measured([str(BIN / "nbgrader"), "autograde", ASSIGNMENT], cwd=ctx.course, env=ctx.env, check=False)
    if run.returncode != 0:
        return NotMeasured(NBGRADER, f"`nbgrader autograde` exited {run.returncode}: {_tail(run.output, 6)}"), None
    # nbgrader grades one notebook after the other and writes each graded notebook when done with
    # it: the gaps between those writes are the per-submission times (the first includes start-up).
    done = sorted(p.stat().st_mtime for p in ctx.course.glob(f"autograded/*/{ASSIGNMENT}/{NOTEBOOK}"))
    if len(done) != count:
        return NotMeasured(NBGRADER, f"nbgrader wrote {len(done)} graded notebooks for {count} submissions"), None
    gaps = [later - earlier for earlier, later in zip([started, *done], done)]
    measured = Measured(
        NBGRADER, count, Stats.of([run.seconds]), Stats.of(gaps), Stats.of([run.peak_mib]), Stats.of([run.peak_rss_mib]),
        derived="time between consecutive graded notebooks (the first includes start-up)",
        note=f"whole run / submissions: {run.seconds / count:.2f} s",
    )
    return measured, _nbgrader_scores(ctx.course)


def _nbgrader_scores(course: Path) -> Scores:
    from nbgrader.api import Gradebook

    scores: dict[str, set[tuple[float, float]]] = {}
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        for submission in gradebook.assignment_submissions(ASSIGNMENT):
            variant = submission.student.id.split("-", 1)[1]
            scores.setdefault(variant, set()).add((round(submission.score, 6), round(submission.max_score, 6)))
    return Scores("nbgrader", {v: tuple(sorted(s)) for v, s in scores.items()})


def otter_run(ctx: Context, submissions: tuple[Submission, ...], venv: Path) -> tuple[Row, Scores | None]:
    say(f"{OTTER}: setting up {venv}")
    env = otter.ensure_env(venv, ctx.work / "otter-install.log")
    if isinstance(env, str):
        return NotMeasured(OTTER, f"otter-grader could not be installed: {env}"), None
    autograder = otter.write_autograder(ctx.work / "otter" / "autograder.zip", _helpers_dir())
    seconds, peaks, rss = [], [], []
    scores: dict[str, set[tuple[float, float]]] = {}
    for index, submission in enumerate(submissions):
        out = ctx.work / "otter" / submission.student
        out.mkdir(parents=True)
        say(f"{OTTER}: {index + 1}/{len(submissions)} {submission.student}")
        run = run_measured(otter.run_command(env, autograder, submission.notebook, out), cwd=out, env=ctx.env, check=False)
        if run.returncode != 0 or not (out / "results.json").is_file():
            return NotMeasured(OTTER, f"`otter run` on {submission.student} exited {run.returncode}: {_tail(run.output, 6)}"), None
        seconds.append(run.seconds)
        peaks.append(run.peak_mib)
        rss.append(run.peak_rss_mib)
        scores.setdefault(submission.variant.name, set()).add(otter.read_score(out))
    measured = Measured(
        OTTER, len(submissions), Stats.of([sum(seconds)]), Stats.of(seconds), Stats.of(peaks), Stats.of(rss),
        derived="one `otter run` per submission",
        note=f"otter-grader {env.version}; its tests: {', '.join(otter.TESTS)} (1 point each)",
    )
    return measured, Scores("otter", {v: tuple(sorted(s)) for v, s in scores.items()})


def _helpers_dir() -> Path:
    from autograder.paths import RELEASE_DIR

    return RELEASE_DIR


def peers(ctx: Context, peer_count: int, skip: frozenset[str], otter_venv: Path, floor_count: int = 24) -> tuple[Section, tuple[Measured, ...]]:
    """attnkit (--jobs N and 1) on all notebooks; nbgrader and otter on the first peer_count;
    nbgrader on floor_count trivial torch notebooks (its floor, bench/nbfloor.py)."""
    load_start = load_average()
    batches = attnkit_batches(ctx, ctx.inbox, tuple(dict.fromkeys((ctx.jobs, 1))), ctx.runs)
    rows: list[Row] = [row for row, _ in batches.values()]
    scores = [batches[ctx.jobs][1]]
    nbgrader_row, nbgrader_scores = nbgrader_autograde(ctx, peer_count)
    rows.append(nbgrader_row)
    scores += [nbgrader_scores] if nbgrader_scores else []
    if ctx.course is None:
        rows.append(NotMeasured(nbfloor.LABEL, "skipped (--skip nbgrader)"))
    else:
        say(f"{nbfloor.LABEL}: {floor_count} notebooks, one run")
        rows.append(nbfloor.measure(ctx.work, floor_count, str(BIN / "nbgrader"), ctx.env))
    if "otter" in skip:
        rows.append(NotMeasured(OTTER, "skipped (--skip otter)"))
    else:
        otter_row, otter_scores = otter_run(ctx, ctx.submissions[:peer_count], otter_venv)
        rows.append(otter_row)
        scores += [otter_scores] if otter_scores else []
    section = Section("peers", tuple(rows), scores=tuple(scores), load_start=load_start, load_end=load_average())
    return section, tuple(row for row, _ in batches.values())


# --- 2. a student's check against the cost of `import torch` -----------------------------------

def floor(ctx: Context, runs: int) -> Section:
    load_start = load_average()
    notebook = ctx.submissions[0].notebook
    commands = {
        FLOOR: [sys.executable, "-c", "import torch"],
        CHECK: [ATTNKIT, "check", str(notebook), "--seed", SEED],
        GRADE: [ATTNKIT, "grade", str(notebook), "--out", str(ctx.work / "floor-out"), "--seed", SEED],
    }
    measured: dict[str, list[Run]] = {label: [] for label in commands}
    for index in range(runs):  # interleaved, so that a change of load hits all three alike
        for label, command in commands.items():
            say(f"{label}: run {index + 1}/{runs}")
            run = run_measured(command, cwd=ctx.work, env=ctx.env, check=False)
            if run.returncode not in (0, 1) or (label != CHECK and run.returncode != 0):
                raise BenchError(f"{label} exited {run.returncode}:\n{_tail(run.output)}")
            measured[label].append(run)
    rows: list[Row] = []
    for label, runs_of in measured.items():
        seconds = Stats.of([r.seconds for r in runs_of])
        codes = sorted({r.returncode for r in runs_of})
        note = f"on {notebook.name}" + (f"; exit codes {codes}" if label == CHECK else "")
        rows.append(Measured(label, 1, seconds, seconds, Stats.of([r.peak_mib for r in runs_of]),
                             Stats.of([r.peak_rss_mib for r in runs_of]), "one command", note))
    rows += watch_rows(ctx, saves=2 * max(runs, 2))
    return Section("floor", tuple(rows), load_start=load_start, load_end=load_average())


def watch_rows(ctx: Context, saves: int) -> list[Row]:
    """`attnkit watch` on attention.py: seconds from a save to the view (bench/watchtime.py)."""
    from autograder.paths import SOLUTION_DIR
    from bench.watchtime import WatchError, measure

    say(f"attnkit watch: {saves} saves")
    try:
        found = measure([ATTNKIT], (SOLUTION_DIR / "attention.py").read_text(encoding="utf-8"), ctx.work / "watch", saves, env=ctx.env)
    except WatchError as error:
        return [NotMeasured(WATCH_TASK, str(error)), NotMeasured(WATCH_ALL, str(error))]
    note = "attention.py saved alternately with a bug in A.1 and fixed; includes the file watcher's quiet period (0.05 s)"
    task, every = Stats.of(found.task), Stats.of(found.everything)
    return [Measured(WATCH_TASK, 1, task, task, None, None, "save to first view", note + "; the fixes (a first pass over A.1)"),
            Measured(WATCH_ALL, 1, every, every, None, None, "save to final view", note + "; every save")]


# --- 3. Docker: one container for the batch, or one per submission --------------------------------

DOCKER_FALLBACK = (
    "import sys; from pathlib import Path; from autograder.deployment.docker import DockerRunner; "
    "from autograder.grading.batch import grade_batch; from autograder.grading.session import GradeOptions; "
    "grade_batch(Path(sys.argv[1]), Path(sys.argv[2]), force=True, options=GradeOptions(seed=int(sys.argv[5])), "
    "runner=DockerRunner(jobs=int(sys.argv[3]), per_submission=sys.argv[4] == '1'))"
)


def _docker_cli() -> bool:
    done = subprocess.run([ATTNKIT, "grade-batch", "--help"], capture_output=True, text=True)
    return "--docker" in done.stdout and "--container-per-submission" in done.stdout


def _build_image(base_image: str) -> str:
    """Builds the grader image of this checkout (cached layers: seconds), so the containers grade
    with the code measured everywhere else; "" when built, else why not. Not timed."""
    say("attnkit docker build (not timed)")
    command = [ATTNKIT, "docker", "build", *(["--base-image", base_image] if base_image else [])]
    done = subprocess.run(command, capture_output=True, text=True, cwd=REPO)
    return "" if done.returncode == 0 else f"`{' '.join(command[1:])}` failed (exit {done.returncode}): {_tail(done.stdout + done.stderr, 4)}"


def docker(ctx: Context, count: int) -> Section:
    load_start = load_average()
    labels = (DOCKER_ONE, DOCKER_PER)
    try:
        from autograder.deployment.docker import LOCAL_BASE_IMAGE, engine_problem, image_exists
    except ImportError as error:
        return _not_measured("docker", labels, f"autograder.deployment.docker is not importable: {error}")
    problem = engine_problem()
    if problem:
        return _not_measured("docker", labels, problem)
    built = _build_image(LOCAL_BASE_IMAGE if image_exists(LOCAL_BASE_IMAGE) else "")
    if built:
        return _not_measured("docker", labels, built)
    inbox = cyclic_inbox(list(ctx.submissions[:count]), ctx.work / "docker-inbox", count)
    cli = _docker_cli()
    rows: list[Row] = []
    for label, per_submission in ((DOCKER_ONE, False), (DOCKER_PER, True)):
        out = ctx.work / f"docker-out-{int(per_submission)}"
        if cli:
            command = [ATTNKIT, "grade-batch", "--docker", str(inbox), "--out", str(out), "--jobs", str(ctx.jobs),
                       "--force", "--seed", SEED, *(["--container-per-submission"] if per_submission else [])]
        else:
            command = [sys.executable, "-c", DOCKER_FALLBACK, str(inbox), str(out), str(ctx.jobs),
                       str(int(per_submission)), SEED]
        say(f"{label}: {count} notebooks")
        run = run_measured(command, cwd=ctx.work, env=ctx.env, check=False)
        if run.returncode != 0:
            rows.append(NotMeasured(label, f"exited {run.returncode}: {_tail(run.output, 8)}"))
            continue
        graded = len(list(out.glob("*/attnkit.json")))
        if graded != count:
            rows.append(NotMeasured(label, f"wrote {graded} results for {count} submissions"))
            continue
        rows.append(Measured(label, count, Stats.of([run.seconds]), Stats.of([run.seconds / count]), None, None,
                             derived="batch wall time / submissions", note=f"--jobs {ctx.jobs}"))
    notes = ["Peak memory is not sampled here: the containers' processes belong to the Docker daemon, "
             "outside the measured process tree.",
             "Through the CLI (`attnkit grade-batch --docker`)." if cli else
             "Through grading.batch.grade_batch with deployment.docker.DockerRunner (the CLI had no `--docker` option yet)."]
    return Section("docker", tuple(rows), notes=tuple(notes), load_start=load_start, load_end=load_average())


def _not_measured(title: str, labels: tuple[str, ...], reason: str) -> Section:
    load = load_average()
    return Section(title, tuple(NotMeasured(label, reason) for label in labels), load_start=load, load_end=load)


# --- 4. scaling with the batch size and the number of jobs --------------------------------------------

def scaling(ctx: Context, grid: tuple[tuple[int, int], ...], known: tuple[Measured, ...]) -> Section:
    """grid: (submissions, jobs) pairs; known: batches already measured, reused where they fit."""
    load_start = load_average()
    reuse = {(row.submissions, row.label): row for row in known}
    rows: list[Row] = []
    for size, jobs in grid:
        label = ATTNKIT_BATCH.format(jobs=jobs)
        if (size, label) in reuse:
            rows.append(reuse[(size, label)])
            continue
        inbox = cyclic_inbox(list(ctx.submissions), ctx.work / f"scale-{size}", size)
        rows.append(attnkit_batches(ctx, inbox, (jobs,), 1)[jobs][0])
        shutil.rmtree(inbox)
    reused = sorted({row.submissions for row in known if row in rows})
    notes = tuple(f"The {size}-notebook rows are the batches of section 1, reused." for size in reused)
    return Section("scaling", tuple(rows), notes=notes, load_start=load_start, load_end=load_average())
