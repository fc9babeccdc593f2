"""PrairieLearn's external-grading results (/grade/results/results.json) from a SubmissionResult.

PrairieLearn reads `score` as a fraction in [0, 1]; `gradable: false` (with `format_errors`) marks a
submission that could not be graded at all, which costs the student no attempt. `tests` are shown by
the `<pl-external-grader-results>` element: name, description, points, max_points, message, output;
`images` take data URLs. The whole file must stay under 1 MB.
"""
from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

from autograder.hints import first_tier
from autograder.results import CheckResult, SubmissionResult

MAX_IMAGE_BYTES = 600_000  # all embedded images together, well below PrairieLearn's 1 MB cap


def _message(check: CheckResult) -> str:
    hint = first_tier(check.check_id, check.task) or check.hint  # the first tier: the idea, never code
    lines = [line for line in (check.message, check.mistake_message, hint) if line]
    return "\n".join(lines)


def _images(result: SubmissionResult, result_dir: Path | None) -> list[dict[str, str]]:
    if result_dir is None:
        return []
    images, budget = [], MAX_IMAGE_BYTES
    for artifact in result.artifacts:
        if not artifact.student:
            continue
        path = Path(result_dir) / artifact.student
        if path.suffix.lower() != ".png" or not path.is_file() or path.stat().st_size > budget:
            continue
        budget -= path.stat().st_size
        encoded = base64.b64encode(path.read_bytes()).decode("ascii")
        images.append({"label": artifact.caption or artifact.name, "url": f"data:image/png;base64,{encoded}"})
    return images


def to_prairielearn(result: SubmissionResult, *, result_dir: Path | None = None) -> dict[str, Any]:
    """The results.json object PrairieLearn expects; result_dir (optional) embeds heatmap images."""
    if result.grader_error:
        return {"gradable": False, "score": 0.0, "format_errors": [result.grader_error],
                "message": result.grader_error, "output": result.output}
    fraction = result.score / result.max_score if result.max_score > 0 else 0.0
    tests = [
        {
            "name": f"{check.task} {check.name}",
            "description": check.check_id,
            "points": check.points,
            "max_points": check.max_points,
            # PrairieLearn has no hidden tests: a hidden check shows its points, not its message.
            "message": "" if check.passed or check.visibility == "hidden" else _message(check),
            "output": "",
        }
        for check in result.checks
    ]
    summary = (f"{result.score:g} / {result.max_score:g} points"
               + "".join(f"\n{event}" for event in result.events))
    payload: dict[str, Any] = {
        "gradable": True,
        "score": round(min(1.0, max(0.0, fraction)), 6),
        "message": summary,
        "output": result.output,
        "tests": tests,
    }
    images = _images(result, result_dir)
    if images:
        payload["images"] = images
    return payload
