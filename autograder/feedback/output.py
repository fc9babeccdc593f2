"""Writing one submission's results: Gradescope JSON, the full model, Markdown and HTML feedback."""
from __future__ import annotations

import errno
from pathlib import Path

from autograder.errors import OutputError

from autograder.feedback.formats.gradescope import to_gradescope
from autograder.feedback.formats.prairielearn import to_prairielearn
from autograder.feedback.results import SubmissionResult, write_atomic, write_json_atomic


def result_dir(out_dir: Path, result: SubmissionResult) -> Path:
    return Path(out_dir) / result.submission


def write_submission(result: SubmissionResult, images: dict[str, bytes], out_dir: Path, *, prairielearn: bool = False) -> Path:
    """Write everything for one submission into out_dir/<name>/ (each file atomically).

    attnkit.json comes last: a folder without it is not a result (a resumed batch grades it
    again). Raises OutputError naming the folder when the files cannot be written (a full disk).
    """
    folder = result_dir(out_dir, result)
    try:
        for relative, data in images.items():
            write_atomic(folder / relative, data)
        write_json_atomic(folder / "results.json", to_gradescope(result, result_dir=folder))
        if prairielearn:
            write_json_atomic(folder / "prairielearn.json", to_prairielearn(result, result_dir=folder))
        write_feedback(result, folder)
        write_json_atomic(folder / "attnkit.json", result.to_dict())  # last: its presence means "done"
    except OSError as error:
        raise OutputError(cannot_write(folder, error)) from None
    return folder


def cannot_write(folder: Path, error: OSError) -> str:
    reason = "the disk is full" if error.errno == errno.ENOSPC else (error.strerror or str(error))
    return (f"cannot write the results into {folder}: {reason}. Nothing half-written was left; free some space "
            f"(or choose another --out) and run the same command again: what was graded is kept")


def write_feedback(result: SubmissionResult, folder: Path) -> None:
    from autograder.feedback.formats.html import render_html
    from autograder.feedback.formats.markdown import render_markdown

    write_atomic(folder / "feedback.md", render_markdown(result, result.lang))
    write_atomic(folder / "feedback.html", render_html(result, folder, result.lang))
