"""PrairieLearn's external-grading results (/grade/results/results.json) from a SubmissionResult.

PrairieLearn reads `score` as a fraction in [0, 1]; `gradable: false` (with `format_errors`) marks a
submission that could not be graded at all, which costs the student no attempt. `tests` are shown by
the `<pl-external-grader-results>` element: name, description, points, max_points, message, output;
`images` take data URLs. The whole file must stay under 1 MB.

PrairieLearn shows every test at once, so: a hidden check shows its points only, an
after_due_date check its points only (its message is held back), and each sentence (a diagnosed
mistake, a hint) is said once, at the first test it belongs to. The text is in the result's language.
"""
from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

from autograder.errors import AttnkitError
from autograder.feedback.shown import shown_tree
from autograder.feedback.formats.view import CheckView, check_views, note_text, number
from autograder.feedback.formats.view import heatmap_images
from autograder.feedback.i18n import DEFAULT_LANG, t
from autograder.feedback.results import SubmissionResult
from autograder.settings import PRAIRIELEARN_MAX_IMAGE_BYTES, SUBMISSION_MAX_FILE_BYTES

SHOWN = "visible"  # the only visibility whose message PrairieLearn may show before the due date


def _message(view: CheckView, lang: str, said: set[str]) -> str:
    """The check's sentences that no earlier test said already (said is updated). The diagnosed
    mistake is said once: an English message already ends with it (": <mistake>", as a Chinese one
    does with "：<mistake>"), so it gets its own line only when the message does not hold it."""
    if not view.details:
        return ""
    if view.check.passed:  # a passed check says something only when its points were carried forward
        return view.message
    hint = t("feedback.hint_line", lang, hint=view.hint) if view.hint else ""  # the first tier: the idea, never code
    mistake = view.check.mistake_message if lang == DEFAULT_LANG else ""  # other languages: in the message
    if mistake and mistake in view.message:  # said here, within the message: not again, here or later
        said.add(mistake)
        mistake = ""
    lines = []
    for line in (view.message, mistake, view.folded, hint):
        if line and line not in said:
            said.add(line)
            lines.append(line)
    return "\n".join(lines)


def not_gradable(reasons: list[str], *, output: str = "") -> dict[str, Any]:
    """A results object for a submission that could not be graded: no attempt is counted."""
    return {"gradable": False, "score": 0.0, "format_errors": reasons, "message": "\n".join(reasons),
            "output": output}


def syntax_error(source: Path) -> tuple[str, str] | None:
    """(file name, error) when the graded .py file of a submission (the file, or the one graded in
    its folder) does not parse at all; parsing runs no code. None for a notebook, a zip, a missing
    path, and for a file beside the graded one (qa34h: an unused scratch file made a graded stub
    "could not be graded")."""
    from autograder.grading.submission import load_submission

    try:
        paths = [source] if source.is_file() else [source / load_submission(source).entry] if source.is_dir() else []
    except (AttnkitError, OSError):  # nothing graded: the grader's result says why
        return None
    for path in paths:
        if path.suffix != ".py":
            continue
        try:
            if path.stat().st_size > SUBMISSION_MAX_FILE_BYTES:  # never graded: the grader said why
                continue
            ast.parse(path.read_bytes(), str(path.name))
        except SyntaxError as error:
            return path.name, f"line {error.lineno}: {error.msg}" if error.lineno else error.msg
        except (ValueError, RecursionError, MemoryError) as error:  # null bytes; an expression too deep for the parser
            return path.name, str(error)
        except OSError:  # gone or unreadable since it was graded: the grader's result says what it read
            continue
    return None


def to_prairielearn(result: SubmissionResult, *, result_dir: Path | None = None, source: Path | None = None) -> dict[str, Any]:
    """The results.json object PrairieLearn expects; result_dir (optional) embeds heatmap images.
    What the student's code printed or raised, and file names, are shown safely (feedback/shown.py).
    With `source` (the graded files): a .py file that does not compile and scores nothing cannot be
    graded at all (`gradable: false`, no attempt counted), in run-prairielearn as in a batch."""
    broken = None
    if source is not None and not result.grader_error and result.score == 0:  # a file the loader refused
        broken = syntax_error(source)  # (not UTF-8, NUL bytes...) keeps the loader's reason: it says what to fix
    if broken:
        payload = not_gradable([t("platform.syntax_error", result.lang, file=broken[0], error=broken[1])])
        payload["seed"] = result.seed
        return shown_tree(payload)
    return shown_tree(_prairielearn(result, result_dir))


def _prairielearn(result: SubmissionResult, result_dir: Path | None) -> dict[str, Any]:
    lang = result.lang
    if result.grader_error:
        failure = not_gradable([t("feedback.grader_error", lang, error=note_text(result.grader_error, lang))], output=result.output)
        failure["seed"] = result.seed
        return failure
    said: set[str] = set()
    views = check_views(result.checks, lang, lambda check: check.visibility == SHOWN, result.assignment)  # folded as on every page
    tests = [
        {
            "name": f"{view.check.task} {view.name}",
            "description": "",  # shown to the student: the check's id is the grader's, its name is in "name" (qa31p)
            "points": view.check.points,
            "max_points": view.check.max_points,
            "message": _message(view, lang, said),
            "output": "",
        }
        for view in views
    ]
    withheld = sum(check.visibility == "after_due_date" for check in result.checks)
    lines = [f"{t('feedback.score', lang)}: {number(result.score)} / {number(result.max_score)}"]
    if withheld:
        lines.append(t("feedback.after_due_note", lang, count=withheld))
    lines += [note_text(event, lang) for event in result.events]
    lines.append(t("feedback.seed_platform", lang, seed=result.seed))
    fraction = result.score / result.max_score if result.max_score > 0 else 0.0
    payload: dict[str, Any] = {
        "gradable": True,
        "score": round(min(1.0, max(0.0, fraction)), 6),
        "message": "\n".join(lines),
        "output": result.output,
        "tests": tests,
        "seed": result.seed,
        "lang": lang,
    }
    images = heatmap_images(result, result_dir, PRAIRIELEARN_MAX_IMAGE_BYTES)
    if images:
        payload["images"] = [{"label": caption, "url": url} for caption, url in images]
    return payload
