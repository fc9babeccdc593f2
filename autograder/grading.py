"""Grading: one submission (pytest + plugin against a worker), and batches of them.

Order matters for safety: a grader process starts its WorkerFactory (the template that student
workers fork from) before it loads the hidden checks or the reference solution, so nothing
secret is ever in a worker's memory.
"""
from __future__ import annotations

import contextlib
import fcntl
import io
import multiprocessing
import multiprocessing.queues
import secrets
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable, Iterator

import pytest
import torch

from autograder.devicecheck import device_notes
from autograder.errors import AttnkitError, OutputError, SubmissionError
from autograder.integrity import record
from autograder.integrity.flags import Flag
from autograder.integrity.static import analyze
from autograder.paths import CHECKS_DIR
from autograder.results import ERROR, FAILED, PARTIAL_SUFFIX, Artifact, BatchResult, CheckResult, SubmissionResult
from autograder.shard import Shard
from autograder.submission import Submission, load_submission, output_names, submission_name
from autograder.worker.client import Budget, Student, WorkerFactory, remove_stale_scratch
from autograder.worker.launch import LaunchedTemplate, launch_template
from autograder.worker.sandbox import SandboxConfig

SUBMISSION_SUFFIXES = (".py", ".ipynb", ".zip")


@dataclass
class ArtifactSink:
    """Images that checks produce (heatmaps); written next to the results by the grader."""

    images: dict[str, bytes] = field(default_factory=dict)
    artifacts: list[Artifact] = field(default_factory=list)
    flags: list[Flag] = field(default_factory=list)  # integrity flags the checks raised (instructor only)
    render: bool = True  # False: the checks add no images (`check` and `watch` show none); flags still come

    def add(self, artifact: Artifact, images: dict[str, bytes]) -> None:
        self.images.update(images)
        self.artifacts.append(artifact)


@dataclass(frozen=True)
class GradeOptions:
    seed: int | None = None
    lang: str = "en"
    parts: frozenset[str] | None = None
    config: SandboxConfig = field(default_factory=SandboxConfig)
    budget: Budget = field(default_factory=Budget)
    prairielearn: bool = False  # also write PrairieLearn's results file (prairielearn.json)
    integrity: str = "record"  # "strict": a part with an integrity flag scores 0 (autograder.integrity.record)
    tasks: frozenset[str] | None = None  # only the checks of these tasks ("A.2"); None: every task
    visible_only: bool = False  # only the checks a student sees before the due date
    images: bool = True  # feedback images (heatmaps, differences); `check` shows none


def new_seed() -> int:
    return secrets.randbelow(2**31)


def hidden_paths() -> tuple[str, ...]:
    """Folders a worker must never see: hidden checks, reference solution and weights, the repo."""
    from autograder.paths import REFERENCE_DIR, REPO_ROOT, SOLUTION_DIR

    return tuple(str(p) for p in (CHECKS_DIR, REFERENCE_DIR, SOLUTION_DIR, REPO_ROOT / "autograder", REPO_ROOT / "solutions"))


def warm_grader(render: bool = True) -> None:
    """Load what the first checks would load (the reference, autograd's shape helpers, the
    renderer unless `render` is False) while the worker template is still starting in its own
    process."""
    from autograder.checks.support import reference

    torch.set_num_threads(1)  # tiny tensors: extra threads only spin against the worker (~10x slower on a busy machine)
    reference()
    x = torch.ones(2, requires_grad=True)
    torch.autograd.grad([x * 2], [x], [torch.ones(2)])  # grad_outputs: imports sympy once
    if render:  # matplotlib and SSIM are imported only here, or when a check renders or compares
        from autograder.heatmap import SSIM_WINDOW, ssim
        from autograder.plotting import render_heatmap

        render_heatmap(torch.eye(2), ["a", "b"], ["c", "d"], "warm-up")
        flat = torch.zeros(SSIM_WINDOW, SSIM_WINDOW, dtype=torch.float64).numpy()
        ssim(flat, flat)  # scikit-image's SSIM imports scipy.ndimage (~1 s): once, not in a student's wrong map


UNUSED_PYTEST_PLUGINS = (
    "cacheprovider", "terminal", "randomly", "unraisableexception", "threadexception", "faulthandler", "junitxml", "pastebin",
    "doctest", "logging", "legacypath", "tmpdir", "monkeypatch", "recwarn", "setuponly", "setupplan", "stepwise", "unittest",
    "debugging", "subtests", "python_path", "capture",
)

# pytest < 8.4 has no such option: entry-point plugins then load (slower start, same results)
AUTOLOAD_OFF = ["--disable-plugin-autoload"] if pytest.version_tuple >= (8, 4) else []


def check_files(parts: frozenset[str] | None, tasks: frozenset[str] | None) -> list[str]:
    """The check files to collect: those of the selected parts (test_part_a.py for "A" or "A.2")
    when each has one, else the whole folder (collecting one file instead of six saves ~0.05 s)."""
    wanted = set(parts or ()) | {task.split(".")[0] for task in tasks or ()}
    files = [CHECKS_DIR / f"test_part_{part.lower()}.py" for part in sorted(wanted)]
    if not wanted or not all(f.is_file() for f in files):
        return [str(CHECKS_DIR)]
    return [str(f) for f in files]


def run_checks(
    student: Student | object, seed: int, parts: frozenset[str] | None = None, sink: ArtifactSink | None = None, *,
    tasks: frozenset[str] | None = None, visible_only: bool = False,
) -> list[CheckResult]:
    """Run the hidden checks (pytest, in this process) against a student proxy; with no sink,
    checks render no feedback images."""
    from autograder.checks.plugin import AttnkitPlugin

    plugin = AttnkitPlugin(student, seed, set(parts) if parts else None, sink, tasks=set(tasks) if tasks is not None else None, visible_only=visible_only)
    # Only the plugins the checks use; no entry-point plugins (anyio's costs ~1 s to import), no
    # assertion rewriting (checks raise CheckFailure; rewriting cost ~1 s per grader process).
    quiet = [f"-pno:{name}" for name in UNUSED_PYTEST_PLUGINS]
    fast = [*AUTOLOAD_OFF, "--assert=plain"]
    args = [*check_files(parts, tasks), *quiet, *fast, "--rootdir", str(CHECKS_DIR), "-c", str(CHECKS_DIR / "pytest.ini")]
    with contextlib.redirect_stdout(io.StringIO()):
        code = pytest.main(args, plugins=[plugin])
    if code == pytest.ExitCode.NO_TESTS_COLLECTED and (parts or tasks is not None or visible_only):
        return []  # a part without checks
    if code not in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED) or not plugin.results:
        raise AttnkitError(f"the hidden checks could not run (pytest exit code {int(code)}); is the grader installed correctly?")
    return plugin.results


def grade_submission(path: Path, factory: WorkerFactory, options: GradeOptions = GradeOptions(), name: str = "") -> tuple[SubmissionResult, dict[str, bytes]]:
    """Grade one submission. Never raises for a bad submission: the reason goes in the result.

    `name`: the submission's name in the results and its results folder (default: its file name
    without .py/.ipynb/.zip; a batch passes submission.output_names)."""
    path = Path(path)
    seed = options.seed if options.seed is not None else new_seed()
    started = time.perf_counter()
    name = name or submission_name(path)
    try:
        submission = load_submission(path)
    except SubmissionError as error:
        return _unreadable(name, path, seed, str(error), options, started), {}
    student = Student(factory, list(submission.chunks), submission.files, submission.filename, replace(options.config, hidden=hidden_paths()), options.budget)
    sink = ArtifactSink(render=options.images)
    try:
        checks = run_checks(student, seed, options.parts, sink, tasks=options.tasks, visible_only=options.visible_only)
        device = device_notes(student, options.lang, options.parts)
    finally:
        student.close()
    events = [*load_notes(student), *student.events, *submission.notes, *device]
    flags = record.merge(sink.flags, record.source_flags(analyze(submission.chunks, submission.files)), record.event_flags([*student.events, *(c.message for c in checks)]), record.audit_flags(student.audit))
    if options.integrity == "strict":
        checks = list(record.strict(tuple(checks), flags))
    return SubmissionResult(
        submission=name, source=str(path), seed=seed, checks=tuple(checks), execution_time=round(time.perf_counter() - started, 3),
        events=tuple(events), output="".join(student.output), artifacts=tuple(sink.artifacts), lang=options.lang, flags=flags,
    ), sink.images


# What did not run after an error while importing, by the unit that stopped (worker/dispatcher.py).
LOAD_ERROR_CONSEQUENCES = {
    ("SyntaxError", "file"): "your file could not be compiled, so none of it ran",
    ("SyntaxError", "cell"): "that cell was skipped; the other cells ran",
    ("SyntaxError", "statement"): "that top-level statement was skipped; the other statements of your file ran",
    ("error", "file"): "importing your file stopped there: nothing after that point ran, so only what was defined before it was graded",
    ("error", "cell"): "the rest of that cell did not run; the other cells did",
    ("error", "statement"): "that top-level statement did not finish; the other statements of your file ran",
}


def load_notes(student: Student) -> list[str]:
    """One note per error while importing, saying only what happened."""
    notes = []
    for error in student.load_errors:
        frames = error.get("frames")
        where = f" ({str(frames[-1])[:300]})" if isinstance(frames, list) and frames else ""
        kind, unit = str(error.get("type", "Exception"))[:100], str(error.get("unit", "file"))
        consequence = LOAD_ERROR_CONSEQUENCES.get(("SyntaxError" if kind == "SyntaxError" else "error", unit), "")
        notes.append(f"{kind}: {str(error.get('message', ''))[:500]}{where}" + (f"; {consequence}" if consequence else ""))
    return notes


def _unreadable(name: str, path: Path, seed: int, reason: str, options: GradeOptions, started: float) -> SubmissionResult:
    """A result for a submission that cannot be read: every check fails with the reason."""
    results = run_checks(_Unreadable(reason), seed, options.parts, tasks=options.tasks, visible_only=options.visible_only)
    checks = tuple(replace(c, points=0.0, status=FAILED if c.status != ERROR else ERROR, message=reason) for c in results)
    return SubmissionResult(submission=name, source=str(path), seed=seed, checks=checks, grader_error=reason, execution_time=round(time.perf_counter() - started, 3), lang=options.lang)


class _Unreadable:
    """Stands in for a submission that could not be read: every request fails with the reason."""

    def __init__(self, reason: str):
        self.reason = reason

    def __getattr__(self, name: str) -> Callable:
        from autograder.worker.client import WorkerFailure

        def fail(*args, **kwargs):
            raise WorkerFailure(self.reason)

        return fail


# ---------------------------------------------------------------------------------------------
# batches
# ---------------------------------------------------------------------------------------------
def list_submissions(directory: Path) -> list[Path]:
    directory = Path(directory)
    if not directory.is_dir():
        raise AttnkitError(f"{directory} is not a folder of submissions")
    return sorted(p for p in directory.iterdir() if not p.name.startswith("."))


_FACTORY: WorkerFactory | None = None


def _pool_init(template: LaunchedTemplate, clients: multiprocessing.queues.SimpleQueue) -> None:
    """A pool process: forked from the warm parent, it talks to the shared template through a
    control socket of its own."""
    global _FACTORY
    torch.set_num_threads(1)
    _FACTORY = WorkerFactory(template, client=clients.get())


def _pool_grade(task: tuple[str, str, str, GradeOptions]) -> dict:
    path, name, out_dir, options = task
    from autograder.output import write_submission

    result, images = grade_safely(Path(path), _FACTORY, options, name)
    write_submission(result, images, Path(out_dir), prairielearn=options.prairielearn)
    return result.to_dict()


def grade_safely(path: Path, factory: WorkerFactory | None, options: GradeOptions, name: str) -> tuple[SubmissionResult, dict[str, bytes]]:
    """grade_submission, with a grader failure on one submission turned into that submission's
    result (a batch goes on; `attnkit grade` still writes a result that says what happened)."""
    try:
        assert factory is not None, "the grader process has no worker template"
        return grade_submission(path, factory, options, name)
    except AttnkitError:
        raise  # the grader cannot grade at all (not installed right): say so, do not blame a submission
    except Exception as error:  # noqa: BLE001 - whatever it was, it is reported, not raised
        reason = f"internal grader error: {type(error).__name__}: {str(error)[:500]}"
        return SubmissionResult(submission=name, source=str(path), seed=options.seed or 0, grader_error=reason, lang=options.lang), {}


LOCK_FILE = ".attnkit-batch.lock"
STALL_MARGIN_SECONDS = 120.0  # start-up (import torch, the template) and the grader's own work


def stall_seconds(budget: Budget) -> float:
    """How long a batch waits for the next result before it calls a grader process stuck: a
    submission ends within its total budget plus one import and one call that were under way."""
    return budget.total_seconds + budget.import_seconds + budget.call_seconds + STALL_MARGIN_SECONDS


@contextlib.contextmanager
def batch_lock(out_dir: Path, shard: Shard | None = None, folders: list[str] | None = None) -> Iterator[None]:
    """One batch at a time in an output folder (one per shard: the shards of a batch share it);
    the kernel releases the lock when its holder dies, so a killed batch never blocks the next
    one. Holding it, partial files of a killed writer are removed (write_atomic's temporaries:
    nothing else writes them); a shard removes only those in its own submissions' `folders`."""
    out_dir = Path(out_dir)
    lock = LOCK_FILE if shard is None else f"{LOCK_FILE}.{shard.index}-of-{shard.count}"
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        handle = open(out_dir / lock, "a")
    except OSError as error:
        from autograder.output import cannot_write

        raise OutputError(cannot_write(out_dir, error)) from None
    with handle:
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise AttnkitError(f"another grade-batch is writing into {out_dir}: wait for it to finish, or give another --out") from None
        roots = [out_dir] if shard is None else [out_dir / folder for folder in folders or ()]
        for partial in (p for root in roots for p in root.rglob(f"*{PARTIAL_SUFFIX}")):
            partial.unlink(missing_ok=True)
        yield


def is_done(path: Path, result_file: Path) -> bool:
    """Whether result_file is a complete result of this very submission (same entry name)."""
    from autograder.results import load_submission_result

    try:
        return Path(load_submission_result(result_file).source).name == path.name
    except (OSError, ValueError, TypeError, KeyError):
        return False


def grade_batch(
    directory: Path, out_dir: Path, *, jobs: int = 1, force: bool = False, options: GradeOptions = GradeOptions(),
    progress: Callable[[int, int, SubmissionResult], None] | None = None, shard: Shard | None = None,
) -> BatchResult:
    """Grade every submission in a folder (only `shard`'s share of them when given: see
    autograder/shard.py) into out_dir/<name>/ (submission.output_names); resumable unless force:
    a submission whose complete result is there is not graded again."""
    from autograder.results import load_submission_result

    paths = list_submissions(directory)
    names = output_names(paths)  # from the whole folder: every shard names a submission alike
    if shard is not None:
        paths = [p for p in paths if shard.holds(names[p])]
    seed = options.seed if options.seed is not None else new_seed()
    options = replace(options, seed=seed)
    done: dict[str, SubmissionResult] = {}
    with batch_lock(out_dir, shard, [names[p] for p in paths]):
        remove_stale_scratch()  # a killed run's folders go even when nothing is left to grade
        todo = []
        for path in paths:
            existing = Path(out_dir) / names[path] / "attnkit.json"
            if not force and existing.is_file() and is_done(path, existing):
                done[str(path)] = load_submission_result(existing)
            else:
                todo.append(path)
        tasks = [(str(p), names[p], str(out_dir), options) for p in todo]
        if tasks:
            # One template for the whole pool, started before the grader warms up (once, here):
            # the pool processes are forked warm and share it, each through its own control socket.
            processes = max(1, min(jobs, len(tasks)))
            template = launch_template(clients=processes)
            try:
                warm_grader()
                context = multiprocessing.get_context("fork")  # children share the parent's imported torch
                clients = context.SimpleQueue()
                for client in range(processes):
                    clients.put(client)
                stalled = stall_seconds(options.budget)
                with context.Pool(processes, initializer=_pool_init, initargs=(template, clients)) as pool:
                    results = pool.imap_unordered(_pool_grade, tasks)
                    for count in range(1, len(tasks) + 1):
                        try:
                            data = results.next(timeout=stalled)
                        except multiprocessing.TimeoutError:
                            raise AttnkitError(
                                f"no submission finished in {stalled:.0f} s: a grader process is stuck or died. "
                                f"Run the same command again: the {len(done)} results written are kept and the rest are graded"
                            ) from None
                        result = SubmissionResult.from_dict(data)
                        done[result.source] = result
                        if progress:
                            progress(count, len(tasks), result)
            finally:
                template.close()
    return BatchResult(tuple(done[str(p)] for p in paths if str(p) in done))
