"""The result store: one grading run's results in OUT/<name>/ (Gradescope JSON, the full model,
Markdown and HTML feedback, PrairieLearn JSON on request), written atomically, attnkit.json last.

`ResultStore` owns the file names, the rule for "already graded", loading, writing, and the lock
that lets one batch at a time write into OUT. Every grading path (local, pooled, Docker) and
`attnkit report` go through it.
"""
from __future__ import annotations

import contextlib
import errno
import fcntl
import functools
import hashlib
from collections.abc import Iterable, Iterator
from dataclasses import replace
from pathlib import Path

from autograder.assignment import current
from autograder.errors import AttnkitError, OutputError
from autograder.feedback.formats.gradescope import to_gradescope
from autograder.feedback.formats.html import render_html
from autograder.feedback.formats.markdown import render_markdown
from autograder.feedback.formats.prairielearn import to_prairielearn
from autograder.feedback.i18n import t
from autograder.feedback.results import SubmissionResult, load_submission_result, write_atomic, write_json_atomic
from autograder.grading.submission import submission_digest
from autograder.paths import PACKAGE_DIR, regular_files
from autograder.settings import (
    BATCH_LOCK_FILE, FEEDBACK_HTML, FEEDBACK_MD, GRADESCOPE_FILE, PARTIAL_SUFFIX, PRAIRIELEARN_FILE, RESULT_FILE,
)


def grader_failed(result: SubmissionResult) -> bool:
    """Whether the grader itself failed on this submission (its worker template died, a check's own
    bug): no fault of the submission and no verdict on it. A batch interrupted that way had kept
    such results for good, and a re-run skipped them: every submission left 'could not grade'."""
    internal = t("note.internal_error", kind="", text="").split(":", 1)[0]  # "internal grader error"
    return result.grader_error.startswith(internal) or any(check.message_key == "internal_error" for check in result.checks)


def grader_digest() -> str:
    """sha256 of the grader in this process: the names and bytes of the kit's package files and of
    the assignment's in use (compiled caches left out). A result another version of either wrote
    is not this grader's verdict."""
    return _digest_of(current().folder)


@functools.cache
def _digest_of(assignment: Path) -> str:
    """grader_digest for one assignment folder (a process may grade another assignment later)."""
    digest = hashlib.sha256()
    for root in dict.fromkeys((PACKAGE_DIR, assignment)):
        for file in regular_files(root):
            relative = file.relative_to(root)
            if "__pycache__" not in relative.parts:
                name, data = relative.as_posix().encode("utf-8", "surrogateescape"), file.read_bytes()
                digest.update(len(name).to_bytes(8, "big") + name + len(data).to_bytes(8, "big") + data)
    return digest.hexdigest()


class ResultStore:
    """The results of a grading run under `out_dir`: one folder per submission."""

    def __init__(self, out_dir: Path) -> None:
        self.out_dir = Path(out_dir)

    def folder(self, name: str) -> Path:
        return self.out_dir / name

    def result_file(self, name: str) -> Path:
        return self.folder(name) / RESULT_FILE

    def is_done(self, path: Path, name: str) -> bool:
        """Whether OUT/<name>/ holds a complete result of this very submission by this grader: the
        same entry name and the same content (a student who handed in again is graded again),
        written by the grader that grades now (a fixed check applies to results of the old one:
        `grader_digest`), and a verdict on it (one the grader itself failed to reach is graded
        again: `grader_failed`)."""
        try:
            result = load_submission_result(self.result_file(name))
        except (OSError, ValueError, TypeError, KeyError):
            return False
        same = Path(result.source).name == Path(path).name and bool(result.digest) and result.digest == submission_digest(Path(path))
        return same and result.grader == grader_digest() and not grader_failed(result)

    def load(self, name: str) -> SubmissionResult:
        return load_submission_result(self.result_file(name))

    def write(self, result: SubmissionResult, images: dict[str, bytes], *, prairielearn: bool = False) -> Path:
        """Write everything for one submission into OUT/<name>/ (each file atomically).

        attnkit.json comes last: a folder without it is not a result (a resumed batch grades it
        again). Raises OutputError naming the folder when the files cannot be written (a full disk).
        """
        folder = self.folder(result.submission)
        result = replace(result, grader=grader_digest())
        try:
            for relative, data in images.items():
                write_atomic(folder / relative, data)
            write_json_atomic(folder / GRADESCOPE_FILE, to_gradescope(result, result_dir=folder))
            if prairielearn:
                write_json_atomic(folder / PRAIRIELEARN_FILE, to_prairielearn(result, result_dir=folder, source=Path(result.source)))
            write_feedback(result, folder)
            write_json_atomic(folder / RESULT_FILE, result.to_dict())  # last: its presence means "done"
        except OSError as error:
            raise OutputError(cannot_write(folder, error)) from None
        return folder

    @contextlib.contextmanager
    def lock(self, tag: str = "", folders: list[str] | None = None) -> Iterator[None]:
        """One batch at a time in OUT (one per shard, `tag` "K-of-N": the shards of a batch share
        OUT); the kernel releases the lock when its holder dies, so a killed batch never blocks
        the next one. Holding it, partial files of a killed writer are removed (write_atomic's
        temporaries: nothing else writes them); a shard removes only those in its own `folders`."""
        lock = f"{BATCH_LOCK_FILE}.{tag}" if tag else BATCH_LOCK_FILE
        try:
            self.out_dir.mkdir(parents=True, exist_ok=True)
            handle = open(self.out_dir / lock, "a")
        except OSError as error:
            raise OutputError(cannot_write(self.out_dir, error)) from None
        with handle:
            try:
                fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise AttnkitError(f"another grade-batch is writing into {self.out_dir}: wait for it to finish, or give another --out") from None
            self.remove_partials(None if not tag else folders or ())
            yield

    def remove_partials(self, names: Iterable[str] | None = None) -> None:
        """Remove write_atomic's temporaries left by a killed writer: all under OUT, or in the folders
        of `names`. Files only: a submission named `x.attnkit-partial.py` has a results folder so
        named, which stopped every later run into OUT (qa25h)."""
        roots = [self.out_dir] if names is None else [self.folder(name) for name in names]
        for partial in (p for root in roots for p in root.rglob(f".*{PARTIAL_SUFFIX}")):
            if not partial.is_dir():
                partial.unlink(missing_ok=True)


def result_dir(out_dir: Path, result: SubmissionResult) -> Path:
    return ResultStore(out_dir).folder(result.submission)


def write_submission(result: SubmissionResult, images: dict[str, bytes], out_dir: Path, *, prairielearn: bool = False) -> Path:
    """ResultStore(out_dir).write(...): everything for one submission, attnkit.json last."""
    return ResultStore(out_dir).write(result, images, prairielearn=prairielearn)


def cannot_write(folder: Path, error: OSError) -> str:
    if error.errno in (errno.ENOTDIR, errno.EEXIST):  # --out, or a folder in it, is a file
        return (f"cannot write the results into {folder}: {error.strerror or error}; a file is in the way. "
                f"Give --out a folder (a new one is made), or move that file away")
    if error.errno == errno.EISDIR:  # a folder where a file goes: space is not the cause (qa23h)
        return (f"cannot write the results into {folder}: {error.filename2 or error.filename or error} is a folder where a file goes. "
                f"Move that folder away (or choose another --out) and run the same command again: what was graded is kept")
    reason = "the disk is full" if error.errno == errno.ENOSPC else (error.strerror or str(error))
    return (f"cannot write the results into {folder}: {reason}. Nothing half-written was left; free some space "
            f"(or choose another --out) and run the same command again: what was graded is kept")


def write_feedback(result: SubmissionResult, folder: Path) -> None:
    write_atomic(folder / FEEDBACK_MD, render_markdown(result, result.lang))
    write_atomic(folder / FEEDBACK_HTML, render_html(result, folder, result.lang))
