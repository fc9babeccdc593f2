"""Hints in tiers: the idea, then the operation, then the code (en + zh).

The hints themselves are the assignment's (the file its manifest names as `hints`: TASK_TIERS,
and CHECK_IDEAS for checks whose idea is not their task's; Manifest.hint_tables()); this module
serves them (autograder.feedback.formats.view.first_hint: by the assignment's name). Feedback
shows the first tier of a failed check (never code); `attnkit hint A.2` shows the next tier of the task each time it is asked, and remembers where the student is in a small state file
next to the student's file (HINT_STATE_FILE). Once a mistake is diagnosed, the other failures of
the same task are folded under it (`fold`): they are listed, without hints of their own.
"""
from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from autograder.errors import AttnkitError
from autograder.feedback.messages import UNREADABLE

HINT_STATE_FILE = ".attnkit-hints.json"  # written next to the student's file
TIER_NAMES = {
    "en": ("the idea", "the operation", "the code"),
    "zh": ("思路", "操作", "代码"),
}


@dataclass(frozen=True)
class Tiers:
    """A task's three hints, each {"en": ..., "zh": ...}."""

    idea: dict[str, str]
    operation: dict[str, str]
    code: dict[str, str]

    def tier(self, number: int, lang: str) -> str:
        chosen = (self.idea, self.operation, self.code)[number - 1]
        return chosen.get(lang) or chosen["en"]


HintTables = tuple[dict[str, Tiers], dict[str, dict[str, str]]]  # an assignment's (TASK_TIERS, CHECK_IDEAS): Manifest.hint_tables()


def tiers_for(task: str, tables: HintTables) -> Tiers:
    tiers, _ = tables
    if task not in tiers:
        if not tiers:
            raise AttnkitError(f"no task {task!r}: this assignment has no hints")
        # the words of i18n's cli.no_hint_task (shown in the student's language by cli._run); this
        # module imports no i18n: it sits under every feedback format (tests/test_layout.py)
        example = next((name for name in tiers if name.startswith(f"{task}.")), next(iter(tiers)))  # "F": F.1
        raise AttnkitError(f"no task {task}: use one of {', '.join(tiers)} (e.g. `attnkit hint {example}`)")
    return tiers[task]


def first_tier(check_id: str, task: str, lang: str, tables: HintTables, message_key: str = "") -> str:
    """The hint that feedback shows for a failed check: the idea, never code; the idea of its
    failure's message (`key:<message key>`) before the check's own."""
    tiers, ideas = tables
    idea = ideas.get(f"key:{message_key}") if message_key else None
    idea = ideas.get(check_id) if idea is None else idea
    if idea is not None:
        return idea.get(lang) or idea["en"]
    return tiers[task].tier(1, lang) if task in tiers else ""


# ---------------------------------------------------------------------------------------------
# `attnkit hint A.2`: the next tier each time, remembered next to the student's file
# ---------------------------------------------------------------------------------------------
def state_path(student_file: Path) -> Path:
    return Path(student_file).resolve().parent / HINT_STATE_FILE


def _read_state(path: Path) -> dict[str, int]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError):
        return {}  # a damaged state file starts the hints again; it holds nothing else
    return {k: v for k, v in data.items() if isinstance(k, str) and isinstance(v, int)} if isinstance(data, dict) else {}


def next_hint(task: str, student_file: Path, tables: HintTables, lang: str = "en", reset: bool = False) -> tuple[int, str]:
    """(tier number, text) of the next hint for task; the tier shown is saved in the state file."""
    tiers = tiers_for(task, tables)
    path = state_path(student_file)
    state = _read_state(path)
    if reset:
        state.pop(task, None)
    shown = min(state.get(task, 0) + 1, 3)
    state[task] = shown
    temporary = path.with_name(path.name + ".tmp")
    try:
        temporary.write_text(json.dumps(state, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        os.replace(temporary, path)
    except OSError as error:
        raise AttnkitError(  # the words of i18n's cli.hint_state
            f"cannot save the hint state in {path}: {error.strerror}; run `attnkit hint` in a folder you can write to"
        ) from None
    return shown, tiers.tier(shown, lang)


# ---------------------------------------------------------------------------------------------
# folding follow-on failures under a diagnosed mistake
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Entry:
    """A failed check as feedback shows it: with its hint, or folded under a diagnosed mistake."""

    check: object  # a CheckResult (feedback.results sits above this module)
    folded: tuple = ()  # the failures of the same task this one's mistake probably explains


CRASH_RE = re.compile(r"raised (\w+): .*\((\S+:\d+|cell \d+, line \d+) in ")  # a .py file's place, or a notebook's (grading/chunks.py)


NEVER_RAN_RE = re.compile(r"is not defined (?:in your file|as a class): .*so it never ran")  # note.not_defined_uncompiled, _unrun
NEVER_RETURNED_RE = re.compile(r"\btimed out after \d+ s in ")  # note.timed_out, and note.not_called_again after it


def not_the_task(check) -> bool:
    """Whether a failure is the file's, not the task's: its code never ran (a syntax error, the code
    above it stopped), never returned (a timeout: a loop that does not end) or the submission could
    not be read. The task's hint does not apply (qa31p: "Only the last two axes take part..." under
    a syntax error; qa33p: under a `while True`)."""
    return check.message_key == UNREADABLE or bool(NEVER_RAN_RE.search(check.message) or NEVER_RETURNED_RE.search(check.message))


def _cause(check) -> str:
    """What a failure is known to come from: its diagnosed mistake, or the line that crashed."""
    if getattr(check, "mistake", ""):
        return f"mistake:{check.mistake}"
    crash = CRASH_RE.search(getattr(check, "message", ""))
    return f"crash:{crash.group(1)}:{crash.group(2)}" if crash else ""


def _is_rule(check) -> bool:
    """A broken rule (the library called, code the grader cannot check): never explained by another failure."""
    key = getattr(check, "message_key", "")
    return key == "uses_library" or key.startswith("rule_")


def _gated(check) -> bool:
    """A property not counted because a check of its task's values failed (messages: scoring_gated)."""
    return getattr(check, "message_key", "") == "scoring_gated"


def fold(failed: Sequence) -> list[Entry]:
    """Failed checks (CheckResults) grouped. The first failure of a task with a known cause (a
    diagnosed mistake, or an exception at a line of the student's file) carries the other failures
    of that task that have no other known cause; then failures of a task with the very same message
    (a file that cannot be imported) are grouped, and a property not counted follows its task's
    first other failure. Grouped failures get no hint of their own."""
    entries: list[Entry] = []
    taken: set[int] = set()

    def group(index: int, belongs) -> None:
        followers = [j for j, other in enumerate(failed) if j != index and j not in taken and other.task == failed[index].task and belongs(other)]
        taken.update([index, *followers])
        entries.append(Entry(failed[index], tuple(failed[j] for j in followers)))

    for index, check in enumerate(failed):
        cause = _cause(check)
        if index not in taken and cause:
            group(index, lambda other, cause=cause: _cause(other) in ("", cause) and not _is_rule(other))
    for gated_pass in (False, True):  # a property not counted because a values check failed follows that failure (qa35n F7)
        for index, check in enumerate(failed):
            if index not in taken and _gated(check) == gated_pass:
                absorbs = not gated_pass and not _is_rule(check)
                group(index, lambda other, message=check.message, absorbs=absorbs: other.message == message or (absorbs and _gated(other)))
    order = {id(check): index for index, check in enumerate(failed)}
    return sorted(entries, key=lambda entry: order[id(entry.check)])

