"""What `attnkit check` prints: the visible checks, task by task, in the student's language.

By default it stops at the first unfinished task: one line says which tasks are done, then that
task's checks with the first hint tier; failures that a diagnosed mistake probably explains are
folded under it. --task shows one task, --until stops after a task, --all lists every task.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from autograder.assignment import current, words
from autograder.errors import AttnkitError
from autograder.feedback.i18n import t

# the assignment's texts, hints and mistakes may import torch: loaded when rendering, after
# `check` has started the worker template (which imports torch meanwhile), not before it

TASK_ID_RE = re.compile(r"^[A-Z]\.\d+$")
NOT_IMPLEMENTED_RE = re.compile(r"NotImplementedError|not implemented yet")
CJK_RE = re.compile(r"[\u4e00-\u9fff]")
RAISED_RE = re.compile(r"raised (\w+): (.*)$")


def task_names() -> dict[str, str]:
    """The student's function or class of each task (the current assignment's manifest, [tasks])."""
    return current().task_names


@dataclass(frozen=True)
class Selection:
    """Which tasks `check` reports: one task, every task up to one, or all (stop at the first
    unfinished one unless show_all)."""

    task: str | None = None
    until: str | None = None
    show_all: bool = False

    def parts(self) -> frozenset[str] | None:
        """The parts whose checks must run (None: all of them)."""
        if self.task:
            return frozenset({_valid(self.task, "--task")[0]})
        if self.until:
            last = _valid(self.until, "--until")[0]
            return frozenset(part.letter for part in current().parts if part.letter <= last)
        return None


def _valid(task: str, option: str) -> str:
    """A task id (A.2), or a part's letter (F: every task of Part F)."""
    names = task_names()
    if not (TASK_ID_RE.match(task) and task in names) and not any(name.startswith(f"{task}.") for name in names):
        raise AttnkitError(t("cli.no_such_task", option=option, task=task, tasks=", ".join(names)))
    return task


def task_order(task: str) -> tuple[str, int]:
    """(part, number) of a task id; a part's letter comes after each of its tasks (--until F)."""
    part, _, number = task.partition(".")
    return part, int(number) if number else 1 << 30


def message(check, lang: str) -> str:
    """The failure in lang: a diagnosed mistake in the catalogue's words, a stub said plainly;
    otherwise the check's own message (English until the check messages have a Chinese text)."""
    from autograder.feedback.formats.view import message_text, note_text, place_text, translate_note
    from autograder.feedback.hints import CRASH_RE

    mistakes = words().mistakes
    if NOT_IMPLEMENTED_RE.search(check.message):
        name = task_names().get(check.task, "")
        owner = next((task for task, its in task_names().items() if its == name), check.task)  # F.1 runs D.1's AttentionBlock
        return t("check.not_implemented" if owner == check.task else "check.uses_not_implemented", lang, task=check.task, name=name, owner=owner)
    if check.mistake in mistakes and lang != "en":
        return mistakes[check.mistake].message(lang)
    crash = CRASH_RE.search(check.message)
    if crash and lang != "en":
        rest = check.message[crash.end():]
        line = (rest[:-1] if rest.endswith(")") else rest).partition(": ")[2]
        said = check.message.split(f"raised {crash.group(1)}: ", 1)[1].rsplit(f" ({crash.group(2)}", 1)[0]
        return t("check.crashed", lang, kind=crash.group(1), where=place_text(crash.group(2), lang), line=line, said=said)
    raised = RAISED_RE.search(check.message)
    if raised and lang != "en":
        ours = translate_note(raised.group(2), lang)  # the grader's words (a function not defined), not Python's
        return ours if ours is not None else t("check.raised", lang, kind=raised.group(1), said=raised.group(2))
    if lang != "en" and (check.message_key or CJK_RE.search(check.message)):
        return message_text(check, lang)  # the check's keyed message, in lang (autograder.feedback.messages)
    if lang != "en" and translate_note(check.message, lang):
        return note_text(check.message, lang)  # the grader's note (a file that cannot be read, ...)
    if lang != "en":
        return t("check.failed_generic", lang)
    return check.message


def render_check(result, lang: str, selection: Selection = Selection()) -> tuple[list[str], bool]:
    """(lines to print, every selected task done) for a graded SubmissionResult."""
    from autograder.feedback.formats.view import note_text

    visible = [c for c in result.checks if c.visibility == "visible"]
    tasks = sorted({c.task for c in visible}, key=task_order)
    if selection.task:
        tasks = [task for task in tasks if selection.task in (task, task.split(".")[0])]
    elif selection.until:
        tasks = [task for task in tasks if task_order(task) <= task_order(selection.until)]
    if not tasks:
        raise AttnkitError(t("cli.no_visible", task=selection.task or selection.until))
    by_task = {task: [c for c in visible if c.task == task] for task in tasks}
    done = [task for task in tasks if all(c.passed for c in by_task[task])]
    unfinished = [task for task in tasks if task not in done]
    lines = [_summary(done, unfinished, len(tasks), lang)]
    shown = tasks if (selection.show_all or selection.task) else unfinished[:1]
    for task in shown:
        lines.extend(_task_lines(task, by_task[task], lang))
    if unfinished and not (selection.show_all or selection.task) and len(unfinished) > 1:
        lines.append(t("check.later_hidden", lang, task=unfinished[0], count=len(unfinished) - 1))
    for event in result.events:
        lines.append(t("check.note", lang, event=note_text(event, lang)))
    passed = sum(c.passed for task in tasks for c in by_task[task])
    total = sum(len(by_task[task]) for task in tasks)
    # the file checked, by name (shown safely by the caller): `check` alone takes the file saved last
    source = Path(result.source)
    shown = source.name if source.parent.resolve() == Path.cwd().resolve() else str(source)  # another folder's (the kit's own): say which
    lines.append(t("check.totals", lang, file=shown, passed=passed, total=total, seed=result.seed))
    return lines, not unfinished


def _summary(done: list[str], unfinished: list[str], count: int, lang: str) -> str:
    if not unfinished:
        return t("check.all_done", lang, count=count)
    listed = ", ".join(done) if done else t("check.none", lang)
    return t("check.summary", lang, done=listed, ready=len(done), count=count, next=unfinished[0])


def _task_lines(task: str, checks: list, lang: str) -> list[str]:
    from autograder.feedback.formats.view import first_hint
    from autograder.feedback.hints import fold, not_the_task

    passed = sum(c.passed for c in checks)
    lines = [t("check.task_heading", lang, task=task, name=task_names().get(task, ""), passed=passed, total=len(checks))]
    for check in checks:
        if check.passed:
            lines.append(f"  {t('check.pass', lang)} {words().check_name(check.check_id, check.name, lang)}")
            if check.message:  # passed with trusted versions of earlier tasks: says which
                lines.append(f"       {message(check, lang)}")
    failed = [c for c in checks if not c.passed]
    if failed and len(failed) == len(checks) and all(NOT_IMPLEMENTED_RE.search(c.message) for c in failed):
        lines.append(f"  {t('check.fail', lang)} {message(failed[0], lang)}")
        lines.append(f"       {t('check.hint', lang, hint=first_hint('', task, lang))}")
        lines.append(f"  {t('check.more_hints', lang, task=task)}")
        return lines
    hints_shown: set[str] = set()
    for entry in fold(failed):
        check = entry.check
        lines.append(f"  {t('check.fail', lang)} {words().check_name(check.check_id, check.name, lang)}")
        lines.append(f"       {message(check, lang)}")
        if entry.folded:
            lines.append(f"       {t('check.folded', lang, count=len(entry.folded))}")
            for other in entry.folded:
                lines.append(f"         - {words().check_name(other.check_id, other.name, lang)}")
        hint = "" if not_the_task(check) else first_hint(check.check_id, check.task, lang, message_key=check.message_key)
        if hint and hint not in hints_shown:
            hints_shown.add(hint)
            lines.append(f"       {t('check.hint', lang, hint=hint)}")
    if failed:
        lines.append(f"  {t('check.more_hints', lang, task=task)}")
    return lines
