"""The compact view of `attnkit watch`: tasks done, the first task not yet right with its
diagnosed mistake and hint, and a line per task. Plain text (no colour), one language."""
from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path

from wcwidth import wcswidth

from autograder.feedback.checkview import NOT_IMPLEMENTED_RE, message as check_message
from autograder.feedback.formats.view import first_hint, name_text, note_text
from autograder.feedback.hints import not_the_task
from autograder.feedback.i18n import t
from autograder.feedback.results import CheckResult

TASK_NAME_WIDTH = 28


@dataclass(frozen=True)
class Progress:
    """What the student sees: the latest result of every visible check, in the checks' order."""

    checks: tuple[CheckResult, ...] = ()
    notes: tuple[str, ...] = ()  # the file could not be read, or part of it could not run
    count: int = 0  # how many saves were checked

    @property
    def tasks(self) -> dict[str, tuple[CheckResult, ...]]:
        by_task: dict[str, list[CheckResult]] = {}
        for check in self.checks:
            by_task.setdefault(check.task, []).append(check)
        return {task: tuple(checks) for task, checks in by_task.items()}

    @property
    def done(self) -> list[str]:
        return [task for task, checks in self.tasks.items() if all(c.passed for c in checks)]

    @property
    def focus(self) -> str | None:
        """The first task not yet right (the one being worked on), None when all are."""
        return next((task for task, checks in self.tasks.items() if not all(c.passed for c in checks)), None)

    def merged(self, checks: list[CheckResult]) -> Progress:
        """These results in place of the same checks' earlier ones (new checks at the end)."""
        fresh = {(c.task, c.check_id): c for c in checks}
        kept = [fresh.pop((c.task, c.check_id), c) for c in self.checks]
        return replace(self, checks=(*kept, *fresh.values()))


@dataclass
class Pass:
    """One redraw: the progress so far, and what has been checked since the save."""

    progress: Progress
    checked: str  # "A.2", or "" for every task
    seconds: float  # since the save was noticed
    more: bool  # another pass follows (the other tasks)


def task_name(checks: tuple[CheckResult, ...], lang: str) -> str:
    """What a task is called: the function or class its first check names ("masked_softmax"), or
    what it is about ("trained model", in `lang`)."""
    return re.split("[:：]", name_text(checks[0], lang), maxsplit=1)[0].strip() if checks else ""


def mark(checks: tuple[CheckResult, ...]) -> str:
    passed = sum(c.passed for c in checks)
    return "✓" if passed == len(checks) else ("·" if passed == 0 else "✗")


def render_view(step: Pass, path: Path, seed: int, lang: str) -> str:
    """The view after a pass. After the first of two (the task at hand checked, the others not
    yet), only that task's results are this save's: the others are marked as being checked."""
    progress = step.progress
    tasks = progress.tasks
    pending = set(tasks) - {step.checked} if step.more and step.checked else set()
    lines = [t("watch.header", lang, path=path, seed=seed, count=progress.count)]
    lines += [f"  ! {note_text(note, lang)}" for note in progress.notes]
    if not pending:
        lines.append(t("watch.done", lang, done=len(progress.done), total=len(tasks)))
    focus = progress.focus
    if pending:  # the task just checked, if it is still not right
        focus = None if all(c.passed for c in tasks.get(step.checked, ())) else step.checked
    if focus is None and tasks and not pending:
        lines.append(t("watch.all_done", lang))
    elif focus is not None:
        checks = tasks[focus]
        failing = [c for c in checks if not c.passed]
        lines.append(t("watch.next", lang, task=focus, name=task_name(checks, lang), passed=len(checks) - len(failing), total=len(checks)))
        # headline a recognised mistake, else a failure of its own (not a property left uncounted by another)
        first = next((c for c in failing if c.mistake), None) or next((c for c in failing if c.message_key != "scoring_gated"), failing[0])
        lines.append(f"  ✗ {name_text(first, lang)}")
        if lang == "en":
            message = first.message.removesuffix(f": {first.mistake_message}") if first.mistake else first.message
            lines.append(f"    {message}")
            if first.mistake:
                lines.append(f"    {t('watch.mistake', lang)}: {first.mistake_message}")
        else:  # the check's message in lang; a diagnosed mistake is said in the catalogue's words
            lines.append(f"    {check_message(first, lang)}")
        unwritten = all(NOT_IMPLEMENTED_RE.search(c.message) for c in failing)  # a stub: the task's idea, as `check` gives it
        hint = "" if not_the_task(first) else first_hint("" if unwritten else first.check_id, first.task, lang, message_key="" if unwritten else first.message_key)  # the first tier: the idea, never code
        if hint:
            lines.append(f"    {t('watch.hint', lang)}: {hint}")
        if len(failing) > 1:
            more = t("watch.one_more_failing", lang, task=focus) if len(failing) == 2 else t("watch.more_failing", lang, count=len(failing) - 1, task=focus)
            lines.append(f"    ({more})")
    lines.append("")
    for task, checks in tasks.items():
        passed = sum(c.passed for c in checks)
        name = task_name(checks, lang)
        padded = name + " " * max(0, TASK_NAME_WIDTH - wcswidth(name))  # a Chinese character takes two columns
        lines.append(f"  … {task}  {name}" if task in pending else f"  {mark(checks)} {task}  {padded} {passed}/{len(checks)}")
    lines.append("")
    if step.more:
        lines.append(t("watch.checked_task", lang, task=step.checked, seconds=step.seconds))
    else:
        lines.append(t("watch.checked_all", lang, seconds=step.seconds, name=path.name))
    return "\n".join(lines)
