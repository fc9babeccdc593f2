"""Grading one submission: pytest with the attnkit plugin runs the hidden checks against a worker.

The worker factory comes from a started `grader.Grader` (its constructor is the safety order);
batches are grading/batch.py's loop.
"""
from __future__ import annotations

import contextlib
import io
import os
import re
import secrets
import time
import warnings
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable, Protocol

import pytest
import torch

from autograder.grading.devicecheck import device_notes
from autograder.feedback.i18n import t
from autograder.feedback.messages import UNREADABLE
from autograder.errors import AttnkitError, SubmissionError
from autograder.grading.integrity import record
from autograder.grading.integrity.flags import Flag
from autograder.grading.integrity.static import analyze
from autograder.assignment import CHECK_FILE_PATTERN, current
from autograder.grading.shard import Shard
from autograder.feedback.results import ERROR, FAILED, Artifact, CheckResult, SubmissionResult
from autograder.grading.submission import Submission, load_submission, output_name, submission_digest
from autograder.grading.worker.client import Budget, Student, WorkerFactory
from autograder.grading.worker.api import StudentAPI
from autograder.grading.worker.sandbox import SandboxConfig

SUBMISSION_SUFFIXES = (".py", ".ipynb", ".zip")
CELL_PLACE_RE = re.compile(r"\bcell \d+, line \d+")  # a place in a notebook (grading/chunks.py)


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
    integrity: str = "record"  # "strict": a part with an integrity flag scores 0 (autograder.grading.integrity.record)
    tasks: frozenset[str] | None = None  # only the checks of these tasks ("A.2"); None: every task
    visible_only: bool = False  # only the checks a student sees before the due date
    images: bool = True  # feedback images (heatmaps, differences); `check` shows none
    worker_ahead: bool = False  # start the second worker (a private one) while the first works: less wall time, one more worker life (`check`)

    def cli_arguments(self) -> list[str]:
        """The `attnkit grade` / `grade-batch` options that ask for these options (a grading
        container gets them: seed, language, integrity mode, PrairieLearn file, parts). The
        budget, sandbox and task selection have no option: a container uses the defaults."""
        arguments = ["--lang", self.lang, "--integrity", self.integrity]
        if self.seed is not None:
            arguments += ["--seed", str(self.seed)]
        if self.prairielearn:
            arguments.append("--prairielearn")
        if self.parts:
            arguments += ["--parts", ",".join(sorted(self.parts))]
        return arguments


@dataclass(frozen=True)
class BatchJob:
    """What a runner grades: `todo` (path, folder name) of the batch in `directory`, into `out_dir`."""

    directory: Path
    out_dir: Path
    todo: list[tuple[Path, str]]
    options: GradeOptions  # the batch's seed is set
    force: bool = False
    shard: Shard | None = None


class Runner(Protocol):
    """Grades a batch's `todo` into its out_dir (a ResultStore's layout); yields (path, result) as each is done."""

    @property
    def lock_tag(self) -> str:
        """"" locks OUT as grade-batch does; a runner whose own grade-batch locks OUT inside takes another."""

    def run(self, job: BatchJob) -> Iterator[tuple[Path, SubmissionResult]]:
        ...


def new_seed() -> int:
    return secrets.randbelow(2**31)


def hidden_paths() -> tuple[str, ...]:
    """Folders a worker must never see: the assignment's checks, reference solution and weights, the repo."""
    from autograder.paths import REPO_ROOT

    return tuple(str(p) for p in (*current().hidden_paths(), REPO_ROOT / "autograder", REPO_ROOT / "solutions"))


def warm_grader(render: bool = True) -> None:
    """Load what the first checks would load (the reference, autograd's shape helpers, the
    renderer unless `render` is False) while the worker template is still starting in its own
    process."""
    from autograder.assignment import reference

    torch.set_num_threads(1)  # tiny tensors: extra threads only spin against the worker (~10x slower on a busy machine)
    reference()
    # what autograd.grad with grad_outputs imports (symbolic shapes, sympy), without running autograd's engine:
    # on a machine with a GPU its first run starts device threads, and a process forked after that (a
    # batch's pool) cannot use autograd ("autograd's threading in combination with fork"): every
    # gradient check of every submission failed on an H200 (the reference 90.5/100)
    from torch.fx.experimental import symbolic_shapes  # noqa: F401
    if render:  # matplotlib and SSIM are imported only here, or when a check renders or compares
        from autograder.grading.heatmap import SSIM_WINDOW, ssim
        from autograder.grading.plotting import render_heatmap

        render_heatmap(torch.eye(2), ["a", "b"], ["c", "d"], "warm-up")
        flat = torch.zeros(SSIM_WINDOW, SSIM_WINDOW, dtype=torch.float64).numpy()
        ssim(flat, flat)  # scikit-image's SSIM imports scipy.ndimage (~1 s): once, not in a student's wrong map


def warm_checks() -> None:
    """What every grader process of a pool would otherwise work out on its first submission, done
    once before the pool forks them (a lone grader gains nothing): the static pass's library
    names, and each check module's `warm_up()` where it has one (the kit's renders of the
    reference maps: ~0.4 s CPU a process). Only check files inside the kit's package: pytest
    imports those under the name content_module gives them; one of another folder would be a
    second copy, or not importable alone (a relative import). A warm-up that fails is skipped:
    the checks that need what it makes meet the error themselves, as they did without it."""
    from autograder.assignment import content_module
    from autograder.grading.integrity.static import library_methods
    from autograder.paths import PACKAGE_DIR

    library_methods()
    manifest = current()
    for part in manifest.parts:
        path = manifest.check_file(part.letter)
        if not path.is_file() or PACKAGE_DIR not in path.resolve().parents:
            continue
        try:
            warm_up = getattr(content_module(path), "warm_up", None)
            if callable(warm_up):
                warm_up()
        except Exception:  # noqa: BLE001 - an optimisation never stops the grader
            continue


UNUSED_PYTEST_PLUGINS = (
    "cacheprovider", "terminal", "randomly", "unraisableexception", "threadexception", "faulthandler", "junitxml", "pastebin",
    "doctest", "logging", "legacypath", "tmpdir", "monkeypatch", "recwarn", "setuponly", "setupplan", "stepwise", "unittest",
    "debugging", "subtests", "python_path", "capture",
    "warnings",  # it wraps every check in catch_warnings (~0.2 ms each); run_checks catches them once instead
)

# pytest < 8.4 has no such option: entry-point plugins then load (slower start, same results)
AUTOLOAD_OFF = ["--disable-plugin-autoload"] if pytest.version_tuple >= (8, 4) else []


HOST_PYTEST_VARIABLES = ("PYTEST_ADDOPTS", "PYTEST_PLUGINS")  # a user's own pytest settings (-v, -x, a plugin)


@contextlib.contextmanager
def _without_host_pytest_settings() -> Iterator[None]:
    """The checks run with the grader's pytest options only: the user's PYTEST_ADDOPTS (-v needs the
    terminal plugin the checks leave out: the run would stop) and PYTEST_PLUGINS are set aside."""
    saved = {name: os.environ.pop(name) for name in HOST_PYTEST_VARIABLES if name in os.environ}
    try:
        yield
    finally:
        os.environ.update(saved)


def check_files(parts: frozenset[str] | None, tasks: frozenset[str] | None) -> list[str]:
    """The check files to collect (CHECK_FILE_PATTERN): those of the selected parts (part_a.py for "A" or "A.2")
    when each has one, else the whole folder (collecting one file instead of six saves ~0.05 s)."""
    wanted = set(parts or ()) | {task.split(".")[0] for task in tasks or ()}
    manifest = current()
    files = [manifest.check_file(part) for part in sorted(wanted)]
    if not wanted or not all(f.is_file() for f in files):
        return [str(manifest.checks_dir)]
    return [str(f) for f in files]


def run_checks(
    student: StudentAPI, seed: int, parts: frozenset[str] | None = None, sink: ArtifactSink | None = None, *,
    tasks: frozenset[str] | None = None, visible_only: bool = False,
) -> list[CheckResult]:
    """Run the hidden checks (pytest, in this process) against a student proxy; with no sink,
    checks render no feedback images."""
    from autograder.grading.checks.plugin import AttnkitPlugin

    plugin = AttnkitPlugin(student, seed, set(parts) if parts else None, sink, tasks=set(tasks) if tasks is not None else None, visible_only=visible_only)
    # Only the plugins the checks use; no entry-point plugins (anyio's costs ~1 s to import), no
    # assertion rewriting (checks raise CheckFailure; rewriting cost ~1 s per grader process).
    quiet = [f"-pno:{name}" for name in UNUSED_PYTEST_PLUGINS]
    fast = [*AUTOLOAD_OFF, "--assert=plain"]
    collect = ["-o", f"python_files={CHECK_FILE_PATTERN}"]  # the checks are part_*.py, not test_*.py
    args = [*check_files(parts, tasks), *quiet, *fast, *collect, "--rootdir", str(current().checks_dir), "-c", str(Path(__file__).parent / "checks" / "pytest.ini")]
    with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings(record=True), _without_host_pytest_settings():  # shown nowhere
        code = pytest.main(args, plugins=[plugin])
    if plugin.cannot_grade is not None:
        raise plugin.cannot_grade
    if code == pytest.ExitCode.NO_TESTS_COLLECTED and (parts or tasks is not None or visible_only):
        return []  # a part without checks
    if code not in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED) or not plugin.results:
        raise AttnkitError(f"the hidden checks could not run (pytest exit code {int(code)}); is the grader installed correctly?")
    return plugin.results


def new_student(submission: Submission, factory: WorkerFactory, config: SandboxConfig, budget: Budget, ahead: bool = False) -> Student:
    """The submission's Student, whose worker gets only the helper files the static pass reads (the
    ones the entry can load; every one when the pass ran out of time, when its rules earn nothing
    anyway): a file it did not read cannot run (qa29h r01). The pass is the one the checks read."""
    student = Student(factory, list(submission.chunks), submission.files, submission.filename, config, budget, ahead=ahead, kit=submission.kit, cells=submission.cells, kernel=submission.kernel)
    if submission.files:
        student.read = analyze(submission.chunks, submission.files, current().library_names(), student.own_modules, submission.cells).read
    return student


def grade_submission(path: Path, factory: WorkerFactory, options: GradeOptions = GradeOptions(), name: str = "") -> tuple[SubmissionResult, dict[str, bytes]]:
    """Grade one submission. Never raises for a bad submission: the reason goes in the result.

    `name`: the submission's name in the results and its results folder (default: its file name
    without .py/.ipynb/.zip; a batch passes submission.output_names)."""
    path = Path(path)
    seed = options.seed if options.seed is not None else new_seed()
    started = time.perf_counter()
    name = name or output_name(path)
    try:
        submission = load_submission(path)
    except SubmissionError as error:
        return _unreadable(name, path, seed, str(error), options, started), {}
    student = new_student(submission, factory, replace(options.config, hidden=hidden_paths()), options.budget, ahead=options.worker_ahead)
    sink = ArtifactSink(render=options.images)
    try:
        probed = options.parts or (frozenset(task.split(".")[0] for task in options.tasks) if options.tasks else None)
        device = device_notes(student, options.lang, probed)  # first: never in a worker that held private data
        checks = run_checks(student, seed, options.parts, sink, tasks=options.tasks, visible_only=options.visible_only)
    finally:
        student.close()
    events = [*load_notes(student, path), *student.events, *submission.notes, *device]
    events += place_notes(submission, [*events, *(c.message for c in checks)])
    flags = record.merge(sink.flags, record.source_flags(analyze(submission.chunks, submission.files, current().library_names(), student.own_modules, submission.cells)), record.event_flags([*student.events, *(c.message for c in checks)]), record.audit_flags(student.audit))
    if options.integrity == "strict":
        checks = list(record.strict(tuple(checks), flags))
    return SubmissionResult(
        submission=name, source=str(path), seed=seed, checks=tuple(checks), execution_time=round(time.perf_counter() - started, 3),
        events=tuple(events), output="".join(student.output), artifacts=tuple(sink.artifacts), lang=options.lang, flags=flags,
        assignment=current().name,
    ), sink.images


# What did not run after an error while importing, by the unit that stopped (worker/dispatcher.py).
LOAD_ERROR_CONSEQUENCES = {  # the words are in autograder.feedback.i18n ("load.*")
    ("SyntaxError", "file"): "load.syntax_file",
    ("SyntaxError", "cell"): "load.syntax_cell",
    ("SyntaxError", "statement"): "load.syntax_statement",
    ("error", "file"): "load.error_file",
    ("error", "cell"): "load.error_cell",
    ("error", "statement"): "load.error_statement",
}


def place_notes(submission: Submission, texts: list[str]) -> list[str]:
    """The note that says what "cell N, line M" counts, when the feedback on a notebook names one."""
    return [t("submission.cell_places")] if submission.cells and any(CELL_PLACE_RE.search(text) for text in texts) else []


MISSING_MODULE_RE = re.compile(r"No module named '([A-Za-z_]\w*)'")


def load_notes(student: Student, path: Path | None = None) -> list[str]:
    """One note per error while importing, saying only what happened; and, for a file graded on
    its own (`path`), when the module it could not import is a file beside it, that it was not
    handed in with it (Jupyter found it there; the grader has only the file)."""
    notes = []
    for error in student.load_errors:
        frames = error.get("frames")
        frame = str(frames[-1])[:300] if isinstance(frames, list) and frames else ""
        where = f" ({frame})" if frame else ""
        kind, unit = str(error.get("type", "Exception"))[:100], str(error.get("unit", "file"))
        consequence = LOAD_ERROR_CONSEQUENCES.get(("SyntaxError" if kind == "SyntaxError" else "error", unit), "")
        message = f"{str(error.get('message', ''))[:500]}{where}"
        if kind == "CellTimeLimit":  # worker/dispatcher.py: a notebook cell (or a .py file's statement) stopped, the others ran
            notes.append(t("note.cell_time_limit" if unit == "cell" else "note.statement_time_limit", seconds=str(error.get("message", ""))[:10], frame=frame or "?"))
            continue
        notes.append(t("note.load_error", kind=kind, message=message, consequence=t(consequence)) if consequence else t("note.load_error_bare", kind=kind, message=message))
        missing = MISSING_MODULE_RE.match(str(error.get("message", ""))) if kind == "ModuleNotFoundError" else None
        if missing and path is not None and path.is_file() and any((path.parent / f).is_file() for f in (f"{missing[1]}.py", f"{missing[1]}/__init__.py")):
            notes.append(t("note.helper_not_handed_in", module=missing[1], file=path.name))
        elif missing:  # what the public checks' pytest says of it too (conftest.py; qa35n F10)
            notes.append(t("note.module_not_promised", module=missing[1]))
    return notes


def _unreadable(name: str, path: Path, seed: int, reason: str, options: GradeOptions, started: float) -> SubmissionResult:
    """A result for a submission that cannot be read: every check fails with the reason."""
    results = run_checks(_Unreadable(reason), seed, options.parts, tasks=options.tasks, visible_only=options.visible_only)
    checks = tuple(replace(c, points=0.0, status=FAILED if c.status != ERROR else ERROR, message=reason, message_key=UNREADABLE, message_args={"text": reason})
                   for c in results)
    return SubmissionResult(submission=name, source=str(path), seed=seed, checks=checks, grader_error=reason, execution_time=round(time.perf_counter() - started, 3), lang=options.lang, assignment=current().name)


class _Unreadable:
    """Stands in for a submission that could not be read: every request fails with the reason."""

    def __init__(self, reason: str):
        self.reason = reason
        self.chunks: list[tuple[int, str]] = []  # StudentAPI's source fields: nothing was read
        self.files: dict[str, str] = {}
        self.stand_ins_active: tuple[str, ...] = ()  # Part F asks; without it, __getattr__ gave a function

    def __getattr__(self, name: str) -> Callable:
        from autograder.grading.worker.client import WorkerFailure

        def fail(*args, **kwargs):
            raise WorkerFailure(self.reason)

        return fail


def grade_safely(path: Path, factory: WorkerFactory | None, options: GradeOptions, name: str) -> tuple[SubmissionResult, dict[str, bytes]]:
    """grade_submission, with a grader failure on one submission turned into that submission's
    result (a batch goes on; `attnkit grade` still writes a result that says what happened)."""
    digest = submission_digest(path)  # before grading: what was graded, should the file change meanwhile
    try:
        assert factory is not None, "the grader process has no worker template"
        result, images = grade_submission(path, factory, options, name)
    except AttnkitError:
        raise  # the grader cannot grade at all (not installed right): say so, do not blame a submission
    except Exception as error:  # noqa: BLE001 - whatever it was, it is reported, not raised
        return failed_result(path, name, options, t("note.internal_error", kind=type(error).__name__, text=str(error)[:500]), digest), {}
    return replace(result, digest=digest), images


def failed_result(path: Path, name: str, options: GradeOptions, reason: str, digest: str) -> SubmissionResult:
    """The result of a submission the grader could not grade: `reason` says why; `digest`: of what was graded."""
    return SubmissionResult(submission=name, source=str(path), seed=options.seed or 0, grader_error=reason, lang=options.lang,
                            assignment=current().name, digest=digest)
