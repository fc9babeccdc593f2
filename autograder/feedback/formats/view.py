"""What a student may see of a result (visibility rules), shared by the Markdown and HTML feedback."""
from __future__ import annotations

from dataclasses import dataclass

from autograder.assignments.attention.texts import GENERIC, MESSAGES, check_name, hint_tiers, render_message
from autograder.feedback.hints import first_tier
from autograder.feedback.i18n import DEFAULT_LANG, t
from autograder.feedback.results import Artifact, CheckResult, SubmissionResult


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
        from autograder.assignments.attention.mistakes import MISTAKES  # the lead's catalogue; optional until it exists
    except ModuleNotFoundError as error:
        if error.name != "autograder.assignments.attention.mistakes":
            raise  # the catalogue exists but is broken: say so instead of hiding it
        return fallback or key
    entry = MISTAKES.get(key)
    if entry is None:
        return fallback or key
    return entry.message(lang)


def name_text(check: CheckResult, lang: str) -> str:
    return check_name(check.check_id, check.name, lang)


def hint_text(check: CheckResult, lang: str) -> str:
    """The first hint tier in `lang`: the idea of the check or its task (autograder.feedback.hints), never
    code; the check's own hint tiers where the task has none; '' when there is none."""
    idea = first_tier(check.check_id, check.task, lang)
    if idea:
        return idea
    tiers = hint_tiers(check.check_id, check.hint, lang)
    return tiers[0] if tiers else ""


def message_text(check: CheckResult, lang: str) -> str:
    """What went wrong, in `lang`: rendered from the stored key and values. English text stored
    without a key is not shown on a page in another language: the mistake's text, or a generic
    sentence, stands in for it."""
    if lang == DEFAULT_LANG or not check.message:
        return check.message
    mistake = mistake_text(check.mistake, check.mistake_message, lang) if check.mistake else ""
    if check.message_key in MESSAGES:
        text = render_message(check.message_key, check.message_args, lang)
        return f"{text}：{mistake}" if mistake else text
    return mistake or GENERIC.get(lang, GENERIC[DEFAULT_LANG])


def caption_text(artifact: Artifact, lang: str) -> str:
    if lang == DEFAULT_LANG:
        return artifact.caption or artifact.name
    key = "caption.plot_attention" if artifact.name == "plot-attention" else "caption.heatmap"
    return t(key, lang, name=artifact.name)


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
