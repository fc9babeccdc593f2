"""What a student may see of a result (visibility rules), shared by the Markdown and HTML feedback."""
from __future__ import annotations

import base64
import re
from dataclasses import dataclass
from functools import cache
from typing import Callable, Iterable, cast
from pathlib import Path

from autograder.assignment import named, words
from autograder.feedback.hints import first_tier, fold, not_the_task
from autograder.feedback.i18n import DEFAULT_LANG, NOTE_PARTS, STRINGS, t, t_of
from autograder.feedback.messages import GENERIC, UNREADABLE
from autograder.feedback.results import Artifact, CheckResult, SubmissionResult
from autograder.feedback.shown import shown


@dataclass(frozen=True)
class CheckView:
    """One check as the student sees it, in the page's language: `details` False means name and
    points only. A failure that a diagnosed mistake (or the same crash) probably explains is
    folded under that failure: `folded` says so (naming it), and it has no hint of its own."""

    check: CheckResult
    details: bool
    name: str = ""
    message: str = ""
    hint: str = ""
    folded: str = ""  # "probably for the same reason as ..." ('' when not folded)


@dataclass(frozen=True)
class FeedbackView:
    checks: tuple[CheckView, ...]
    withheld: int  # after_due_date checks not shown yet
    mistakes: tuple[tuple[str, str], ...]  # (the task it is charged in, plain-words message), each once, in check order


def check_view(check: CheckResult, show_after_due: bool) -> CheckView | None:
    """visible: everything; hidden: name and points only; after_due_date: everything once due, else nothing."""
    if check.visibility == "after_due_date":
        return CheckView(check, True) if show_after_due else None
    if check.visibility == "hidden":
        return CheckView(check, False)
    return CheckView(check, True)


def check_views(checks: Iterable[CheckResult], lang: str, details: Callable[[CheckResult], bool], assignment: str = "") -> list[CheckView]:
    """What every student-facing format shows of each check, in `lang`, in the words of
    `assignment` (the result's; "": the current one): its name, its message, its first hint tier;
    failures whose details are shown are folded (autograder.feedback.hints.fold) the same way
    `attnkit check` folds them, so that a follow-on failure adds no hint of its own."""
    checks = list(checks)
    failed = [c for c in checks if not c.passed and details(c)]
    leader: dict[int, CheckResult] = {}
    for entry in fold(failed):
        for follower in entry.folded:
            leader[id(follower)] = cast(CheckResult, entry.check)
    views = []
    for check in checks:
        name = name_text(check, lang, assignment)
        if not details(check):
            views.append(CheckView(check, False, name))
        elif id(check) in leader:
            folded = t("feedback.folded_under", lang, name=name_text(leader[id(check)], lang, assignment))
            views.append(CheckView(check, True, name, message_text(check, lang, assignment), "", folded))
        else:
            views.append(CheckView(check, True, name, message_text(check, lang, assignment), "" if check.passed else hint_text(check, lang, assignment)))
    return views


def mistake_text(key: str, fallback: str, lang: str, assignment: str = "") -> str:
    """The catalogue's plain-words text for `key` in `lang` (the assignment's mistakes); the message
    stored in the result otherwise."""
    return words(assignment).mistake_text(key, fallback, lang)


def name_text(check: CheckResult, lang: str, assignment: str = "") -> str:
    return check_title(check.check_id, check.name, lang, assignment)


def check_title(check_id: str, name: str, lang: str, assignment: str = "") -> str:
    """A check's name in lang (the assignment's texts), by id: for rows that are not CheckResults."""
    return words(assignment).check_name(check_id, name, lang)


def hint_text(check: CheckResult, lang: str, assignment: str = "") -> str:
    """The first hint tier in `lang`: the idea of the check or of its task (the assignment's hints,
    served by autograder.feedback.hints), never code; '' when there is none or the failure is not the task's."""
    return "" if not_the_task(check) else first_hint(check.check_id, check.task, lang, assignment, check.message_key)


def first_hint(check_id: str, task: str, lang: str = DEFAULT_LANG, assignment: str = "", message_key: str = "") -> str:
    """The first hint tier of a check of the assignment called `assignment` ("": the current one)."""
    return first_tier(check_id, task, lang, named(assignment).hint_tables(), message_key)


def part_title(part: str, lang: str = DEFAULT_LANG, assignment: str = "") -> str:
    """The title of `part` of the assignment called `assignment` ("": the current one) in `lang`."""
    return named(assignment).part_title(part, lang)


def message_text(check: CheckResult, lang: str, assignment: str = "") -> str:
    """What went wrong, in `lang`: rendered from the stored key and values. English text stored
    without a key is not shown on a page in another language: the mistake's text, or a generic
    sentence, stands in for it."""
    if lang == DEFAULT_LANG or not check.message:
        return check.message
    said = words(assignment)
    mistake = said.mistake_text(check.mistake, check.mistake_message, lang) if check.mistake else ""
    if check.message_key in ("student_failed", UNREADABLE):  # the worker's note (a timeout, a crash, a limit), or the loader's
        text = said.messages[check.message_key][lang].format(text=note_text(str(check.message_args.get("text", "")), lang))
        return f"{text}：{mistake}" if mistake else text
    raised_note = translate_note(str(check.message_args.get("text", "")), lang) if check.message_key == "student_raised" else None
    if raised_note:  # the worker's words about the exception (a name not defined, a message withheld)
        return said.render("student_raised", {**check.message_args, "text": "…"}, lang).replace("`…`", raised_note)
    if check.message_key in said.messages:
        text = said.render(check.message_key, check.message_args, lang)
        return f"{text}：{mistake}" if mistake else text
    return mistake or translate_note(check.message, lang) or GENERIC.get(lang, GENERIC[DEFAULT_LANG])


# ---------------------------------------------------------------------------------------------
# the grader's notes (autograder.feedback.i18n "note.*"), found again from their English text
# ---------------------------------------------------------------------------------------------
NOTE_PREFIXES = ("note.", "ended.", "load.", "refused.", "submission.", "cli.")
_FIELD = re.compile(r"\{(\w+)[^}]*\}")
FIELD_BODIES = {
    "where": "[^;]+?",  # a stage or a call: no clause of its own
    "kind": r"[A-Za-z_][\w.]*",  # a type's name: so that "{kind}: {message}" is no crash text that has a colon in it
}


@cache
def _note_patterns() -> tuple[tuple[str, re.Pattern[str]], ...]:
    """(key, the English template as a regex with a named group per argument), longest first."""
    patterns = []
    for key, texts in STRINGS.items():
        if key.startswith(NOTE_PREFIXES):
            english = texts[DEFAULT_LANG]
            pieces, end, seen = [], 0, set()
            for field in _FIELD.finditer(english):
                name = field.group(1)
                body = FIELD_BODIES.get(name, ".+?")
                pieces += [re.escape(english[end:field.start()]), f"(?P={name})" if name in seen else f"(?P<{name}>{body})"]
                seen.add(name)
                end = field.end()
            pieces.append(re.escape(english[end:]))
            patterns.append((key, re.compile("".join(pieces), re.S)))
    return tuple(sorted(patterns, key=lambda item: -len(STRINGS[item[0]][DEFAULT_LANG])))


def translate_note(text: str, lang: str, prefixes: tuple[str, ...] = NOTE_PREFIXES) -> str | None:
    """A note the grader wrote (in English), in `lang`; None when `text` is no known note."""
    text = text.strip()
    if lang == DEFAULT_LANG:
        return text
    for key, pattern in _note_patterns():
        if not key.startswith(prefixes):
            continue
        found = pattern.fullmatch(text)
        if found is None:
            continue
        args: dict[str, str] = {}
        for name, value in found.groupdict().items():
            if name in NOTE_PARTS:
                inner = translate_note(value, lang, NOTE_PARTS[name])
                if inner is None:
                    break  # not this template: its argument is no note of the kind it takes
                args[name] = inner
            elif name == "where":
                args[name] = stage_text(value, lang)
            elif name == "place":
                args[name] = place_text(value, lang)
            elif re.fullmatch(r"[\d.]+", value.strip()):  # a number, as it is
                args[name] = value
            else:
                args[name] = f"`{value}`"
        else:
            return t(key, lang, **args)
    return None


def place_text(place: str, lang: str) -> str:
    """A place in the student's file ("line 50", "cell 16, line 3": grading/chunks.py) in `lang`;
    any other text (a traceback's `attention.py:50`) as it is."""
    found = re.fullmatch(r"(?:cell (\d+), )?line (\d+)", place.strip())
    if lang == DEFAULT_LANG or found is None:
        return place
    cell, line = found.groups()
    return t("place.cell_line", lang, cell=cell, line=line) if cell else t("place.line", lang, line=line)


def note_text(text: str, lang: str) -> str:
    """A note in `lang`: translated when known, otherwise shown as the grader's words (as code)."""
    translated = translate_note(text, lang)
    if translated is not None:
        return translated
    return text if lang == DEFAULT_LANG else f"`{text}`"


def output_text(output: str, lang: str) -> str:
    """What the student's code printed, with the grader's own lines in it (output dropped, output
    withheld) in `lang`. Control and format characters other than newline and tab are shown as
    `\\x1b`, `\\u202e` (feedback/shown.py): a terminal escape printed by the code (clear the
    screen, retitle the window) must not act in the terminal of whoever reads feedback.md."""
    output = shown(output.replace("\r\n", "\n"), keep="\n\t")
    if lang == DEFAULT_LANG:
        return output
    return "\n".join(translate_note(line, lang) or line if line.startswith("[") else line for line in output.split("\n"))


def event_notes(events: tuple[str, ...], lang: str) -> tuple[list[str], list[str]]:
    """(the events as notes in `lang`, the events no note matches: shown as the grader's log)."""
    if lang == DEFAULT_LANG:
        return list(events), []
    said = [(event, translate_note(event, lang)) for event in events]
    return [text for _, text in said if text is not None], [event for event, text in said if text is None]


def stage_text(where: str, lang: str) -> str:
    """A stage of grading ("importing your file") or a call of the student's code, in `lang`."""
    if lang == DEFAULT_LANG:
        return where
    stage = f"stage.{where}"
    if stage in STRINGS:
        return t(stage, lang)
    return f"调用 {words().where_text(where, lang)}时" if " " in where else f"调用 `{where}` 时"


def assignment_t(key: str, lang: str, assignment: str = "", **fmt: object) -> str:
    """t() in the words of `assignment` ("": the current one): its own UI strings win."""
    return t_of(words(assignment).strings, key, lang, **fmt)


def caption_text(artifact: Artifact, lang: str, assignment: str = "") -> str:
    """A heatmap's caption: the check's (English); on another page, the assignment's caption of that
    heatmap (its UI string caption.<artifact name>), else the engine's."""
    if lang == DEFAULT_LANG:
        return artifact.caption or artifact.name
    own = words(assignment).strings
    numbered = re.sub(r"\d+", "N", artifact.name)  # one caption for a family of heatmaps: probe-N-head-N, its numbers as n1, n2...
    keys = (f"caption.{artifact.name}.alone" * (not artifact.difference), f"caption.{artifact.name}", f"caption.{numbered}")
    key = next((k for k in keys if k in own), "caption.heatmap")
    numbers = {f"n{i}": n for i, n in enumerate(re.findall(r"\d+", artifact.name), start=1)}
    return t_of(own, key, lang, name=artifact.name, **numbers)


def feedback_view(result: SubmissionResult, lang: str, show_after_due: bool = False) -> FeedbackView:
    """The checks to show and the mistakes diagnosed by checks whose details are shown."""
    shown = {id(check): view for check in result.checks if (view := check_view(check, show_after_due)) is not None}
    withheld = len(result.checks) - len(shown)
    views = check_views([c for c in result.checks if id(c) in shown], lang, lambda check: shown[id(check)].details, result.assignment)
    mistakes: dict[str, tuple[str, str]] = {}  # key -> (task, message): the student reads the task, not the catalogue's key (qa31p)
    for view in views:
        check = view.check
        if view.details and check.mistake and check.mistake not in mistakes:
            task = " ".join(filter(None, (check.task, named(result.assignment).task_names.get(check.task, ""))))
            mistakes[check.mistake] = (task, mistake_text(check.mistake, check.mistake_message, lang, result.assignment))
    return FeedbackView(tuple(views), withheld, tuple(mistakes.values()))


def number(value: float) -> str:
    """Points without noise: 2, 1.5, 0.25."""
    return f"{round(value, 4):g}"


def percent(score: float, max_score: float) -> float:
    return round(100.0 * score / max_score, 2) if max_score > 0 else 0.0


def _image_caption(artifact: Artifact, lang: str) -> str:
    """The checks write captions in English; another language gets its own words and the image's name."""
    if lang == "en":
        return artifact.caption or artifact.name
    return f"{t('feedback.heatmap_student', lang)} · {artifact.name}"


def heatmap_images(result: SubmissionResult, result_dir: Path | None, budget: int) -> list[tuple[str, str]]:
    """(caption, data URL) of the student's heatmap PNGs, in order, while they fit in `budget` bytes."""
    if result_dir is None:
        return []
    images = []
    for artifact in result.artifacts:
        path = Path(result_dir) / artifact.student if artifact.student else None
        if path is None or path.suffix.lower() != ".png" or not path.is_file():
            continue
        encoded = base64.b64encode(path.read_bytes()).decode("ascii")
        if len(encoded) > budget:
            continue
        budget -= len(encoded)
        images.append((_image_caption(artifact, result.lang), f"data:image/png;base64,{encoded}"))
    return images
