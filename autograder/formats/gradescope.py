"""Gradescope's results.json (https://gradescope-autograders.readthedocs.io/en/latest/specs/)."""
from __future__ import annotations

from autograder.hints import first_tier
from autograder.results import PASSED, SubmissionResult

STATUS = {PASSED: "passed"}


def to_gradescope(result: SubmissionResult) -> dict:
    """The submission in Gradescope's format: score, tests[] with visibility and tags."""
    tests = []
    for number, check in enumerate(result.checks, start=1):
        lines = [check.message] if check.message else []
        hint = first_tier(check.check_id, check.task) or check.hint  # the first tier: the idea, never code
        if hint and not check.passed:
            lines.append(f"Hint: {hint}")
        tests.append(
            {
                "name": f"{check.task} {check.name}",
                "number": f"{number}",
                "score": check.points,
                "max_score": check.max_points,
                "status": STATUS.get(check.status, "failed"),
                "output": "\n".join(lines),
                "visibility": check.visibility,
                "tags": [f"part:{check.part}", f"task:{check.task}"] + ([f"mistake:{check.mistake}"] if check.mistake else []),
            }
        )
    summary = [f"Seed {result.seed} (attnkit grade --seed {result.seed} reproduces these inputs)."]
    if result.grader_error:
        summary.insert(0, f"Your submission could not be graded: {result.grader_error}")
    summary.extend(result.events)
    return {
        "score": result.score,
        "max_score": result.max_score,
        "execution_time": result.execution_time,
        "output": "\n".join(summary),
        "visibility": "visible",
        "stdout_visibility": "hidden",
        "tests": tests,
    }
