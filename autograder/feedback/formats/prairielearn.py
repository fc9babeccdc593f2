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

from pathlib import Path
from typing import Any

from autograder.feedback.formats.gradescope import heatmap_images
from autograder.feedback.formats.view import message_text, number
from autograder.feedback.hints import first_tier
from autograder.feedback.i18n import t
from autograder.feedback.results import CheckResult, SubmissionResult

MAX_IMAGE_BYTES = 600_000  # all embedded images together (base64), well below PrairieLearn's 1 MB cap
SHOWN = "visible"  # the only visibility whose message PrairieLearn may show before the due date


def _message(check: CheckResult, lang: str, said: set[str]) -> str:
    """The check's sentences that no earlier test said already (said is updated)."""
    if check.visibility != SHOWN:
        return ""
    if check.passed:  # a passed check says something only when its points were carried forward
        return message_text(check, lang)
    idea = first_tier(check.check_id, check.task, lang) or check.hint  # the first tier: the idea, never code
    hint = f"{t('feedback.hint', lang)}: {idea}" if idea else ""
    lines = []
    for line in (check.message, check.mistake_message, hint):
        if line and line not in said:
            said.add(line)
            lines.append(line)
    return "\n".join(lines)


def not_gradable(reasons: list[str], *, output: str = "") -> dict[str, Any]:
    """A results object for a submission that could not be graded: no attempt is counted."""
    return {"gradable": False, "score": 0.0, "format_errors": reasons, "message": "\n".join(reasons),
            "output": output}


def to_prairielearn(result: SubmissionResult, *, result_dir: Path | None = None) -> dict[str, Any]:
    """The results.json object PrairieLearn expects; result_dir (optional) embeds heatmap images."""
    lang = result.lang
    if result.grader_error:
        failure = not_gradable([t("feedback.grader_error", lang, error=result.grader_error)], output=result.output)
        failure["seed"] = result.seed
        return failure
    said: set[str] = set()
    tests = [
        {
            "name": f"{check.task} {check.name}",
            "description": check.check_id,
            "points": check.points,
            "max_points": check.max_points,
            "message": _message(check, lang, said),
            "output": "",
        }
        for check in result.checks
    ]
    withheld = sum(check.visibility == "after_due_date" for check in result.checks)
    lines = [f"{t('feedback.score', lang)}: {number(result.score)} / {number(result.max_score)}"]
    if withheld:
        lines.append(t("feedback.after_due_note", lang, count=withheld))
    lines += list(result.events)
    lines.append(t("feedback.seed", lang, seed=result.seed, flag=f"--seed {result.seed}"))
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
    images = heatmap_images(result, result_dir, MAX_IMAGE_BYTES)
    if images:
        payload["images"] = [{"label": caption, "url": url} for caption, url in images]
    return payload
