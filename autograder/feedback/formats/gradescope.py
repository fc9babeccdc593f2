"""Gradescope's results.json (https://gradescope-autograders.readthedocs.io/en/latest/specs/).

Students see the top-level `output` and each test's `output`; nothing else the autograder writes
survives the container. So the top-level output is the Markdown feedback (`output_format: md`)
with the student's heatmaps embedded as data URLs, within a size budget.

Gradescope never shows a `hidden` test to students, so the top-level output does not list hidden
checks one by one either (render_markdown's `platform`): one line says how many there are and what
they are worth. Their tests say why they failed, for the course staff.
"""
from __future__ import annotations

from pathlib import Path

from autograder.feedback.formats.markdown import render_markdown
from autograder.feedback.formats.view import check_views, message_text
from autograder.feedback.formats.view import assignment_t, heatmap_images
from autograder.feedback.i18n import t
from autograder.feedback.results import PASSED, SubmissionResult
from autograder.feedback.shown import shown_tree
from autograder.settings import GRADESCOPE_MAX_IMAGE_BYTES, GRADESCOPE_MAX_OUTPUT_CHARS

STATUS = {PASSED: "passed"}
MAX_OUTPUT_CHARS = GRADESCOPE_MAX_OUTPUT_CHARS  # the Markdown text, before images


HIDDEN = "hidden"  # Gradescope's visibility of a test students never see


def _summary(result: SubmissionResult, result_dir: Path | None) -> str:
    text = render_markdown(result, result.lang, platform=True)
    if len(text) > MAX_OUTPUT_CHARS:
        text = text[:MAX_OUTPUT_CHARS] + "\n\n…\n"
    images = heatmap_images(result, result_dir, GRADESCOPE_MAX_IMAGE_BYTES)
    if images:
        text += f"\n## {assignment_t('feedback.heatmaps_heading', result.lang, result.assignment)}\n\n"
        text += "".join(f"![{caption}]({url})\n\n" for caption, url in images)
    return text


def to_gradescope(result: SubmissionResult, *, result_dir: Path | None = None) -> dict:
    """The submission in Gradescope's format: score, Markdown feedback, tests[] with visibility and tags.

    result_dir (optional): the folder holding the heatmaps, embedded in the feedback.
    """
    tests = []
    # Gradescope never shows a hidden test: failures are folded among the others, as on every page
    views = check_views(result.checks, result.lang, lambda check: check.visibility != HIDDEN, result.assignment)
    for position, view in enumerate(views, start=1):
        check = view.check
        lines = [line for line in (view.message, view.folded) if line]
        if check.visibility == HIDDEN and not check.passed:  # Gradescope shows a hidden test to the course staff only: they see why
            lines = [message_text(check, result.lang, result.assignment)]
        if view.hint:  # the first tier: the idea, never code; none when folded under another failure
            lines.append(t("feedback.hint_line", result.lang, hint=view.hint))
        tests.append(
            {
                "name": f"{check.task} {view.name}",
                "number": f"{position}",
                "score": check.points,
                "max_score": check.max_points,
                "status": STATUS.get(check.status, "failed"),
                "output": "\n".join(lines),
                "output_format": "text",
                "visibility": check.visibility,
                "tags": [f"part:{check.part}", f"task:{check.task}"] + ([f"mistake:{check.mistake}"] if check.mistake else []),
            }
        )
    # No execution_time: what a student sees carries no grading time (qa20h h06: a Part F forward
    # that slept 4 + 4·W_q[0, 0] s read a reference weight back from it); the instructor's files keep it
    return shown_tree({  # what the student's code printed or raised, and file names, shown safely
        "score": result.score,
        "max_score": result.max_score,
        "output": _summary(result, result_dir),
        "output_format": "md",
        "visibility": "visible",
        "stdout_visibility": "hidden",
        "extra_data": {"seed": result.seed, "lang": result.lang},
        "tests": tests,
    })
