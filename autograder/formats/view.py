"""What a student may see of a result (visibility rules), shared by the Markdown and HTML feedback."""
from __future__ import annotations

from dataclasses import dataclass

from autograder.results import CheckResult, SubmissionResult


@dataclass(frozen=True)
class CheckView:
    """One check as the student sees it: `details` False means name and points only."""

    check: CheckResult
    details: bool


@dataclass(frozen=True)
class FeedbackView:
    checks: tuple[CheckView, ...]
    withheld: int  # after_due_date checks not shown yet
    mistakes: tuple[tuple[str, str], ...]  # (key, plain-words message), each once, in check order


def check_view(check: CheckResult, show_after_due: bool) -> CheckView | None:
    """visible: everything; hidden: name and points only; after_due_date: everything once due, else nothing."""
    if check.visibility == "after_due_date":
        return CheckView(check, True) if show_after_due else None
    if check.visibility == "hidden":
        return CheckView(check, False)
    return CheckView(check, True)


def mistake_text(key: str, fallback: str, lang: str) -> str:
    """The catalogue's plain-words text for `key` in `lang`; the message stored in the result otherwise."""
    try:
        from autograder.mistakes import MISTAKES  # the lead's catalogue; optional until it exists
    except ModuleNotFoundError as error:
        if error.name != "autograder.mistakes":
            raise  # the catalogue exists but is broken: say so instead of hiding it
        return fallback or key
    entry = MISTAKES.get(key)
    if entry is None:
        return fallback or key
    return entry.message(lang)


def feedback_view(result: SubmissionResult, lang: str, show_after_due: bool = False) -> FeedbackView:
    """The checks to show and the mistakes diagnosed by checks whose details are shown."""
    views: list[CheckView] = []
    withheld = 0
    mistakes: dict[str, str] = {}
    for check in result.checks:
        view = check_view(check, show_after_due)
        if view is None:
            withheld += 1
            continue
        views.append(view)
        if view.details and check.mistake and check.mistake not in mistakes:
            mistakes[check.mistake] = mistake_text(check.mistake, check.mistake_message, lang)
    return FeedbackView(tuple(views), withheld, tuple(mistakes.items()))


def number(value: float) -> str:
    """Points without noise: 2, 1.5, 0.25."""
    return f"{round(value, 4):g}"


def percent(score: float, max_score: float) -> float:
    return round(100.0 * score / max_score, 2) if max_score > 0 else 0.0
