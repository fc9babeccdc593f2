"""Feedback as Markdown, for LMS comments: score by part, checks, diagnosed mistakes, seed, events."""
from __future__ import annotations

import re

from autograder.feedback.formats.view import event_notes, feedback_view, note_text, number, output_text, percent
from autograder.feedback.i18n import status_word, t
from autograder.feedback.formats.view import part_title
from autograder.feedback.results import SubmissionResult
from autograder.feedback.shown import shown

STATUS_ICONS = {"passed": "✅", "failed": "❌", "error": "⚠️"}


def inline(text: str) -> str:
    """One line of untrusted text made inert: no raw HTML, no table breaks, no line breaks, no
    control or format characters (shown as `\\x1b`: feedback/shown.py), no link or image (a
    student's error message held `![t](http://tracker/p.png)`: an image fetched from anywhere
    whenever the feedback is viewed; `]\\(` is no link). A `>` is left as it is: inside a line it
    starts nothing, and a plain-text comment box showed `-&gt;` for a check named "... -> ..." (qa31p)."""
    text = shown(" ".join(text.split())).replace("&", "&amp;").replace("<", "&lt;")
    return " ".join(text.replace("|", "\\|").replace("](", "]\\(").split())


def fenced(text: str) -> str:
    """A code block that the text cannot close early, whatever backticks it holds; control and
    format characters but newline and tab shown as `\\x1b` (feedback/shown.py)."""
    text = shown(text, keep="\n\t")
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}text\n{text.rstrip()}\n{fence}"


def _score_line(result: SubmissionResult, lang: str) -> str:
    share = percent(result.score, result.max_score)
    return f"**{t('feedback.score', lang)}: {number(result.score)} / {number(result.max_score)} ({share:.1f}%)**"


def render_markdown(result: SubmissionResult, lang: str = "en", *, show_after_due: bool = False, platform: bool = False) -> str:
    """`platform`: for a course platform's page (Gradescope), where the submission's name is the
    platform's folder ("submission"), the student cannot run attnkit, and a hidden test is never
    shown: its check is not listed either, one line counts them (qa33p)."""
    view = feedback_view(result, lang, show_after_due)
    unlisted = [v.check for v in view.checks if platform and not v.details]
    listed = [v for v in view.checks if not (platform and not v.details)]
    title = t("feedback.title_platform", lang) if platform else t("feedback.title", lang, name=inline(result.submission))
    lines = [f"# {title}", "", _score_line(result, lang), ""]
    if result.grader_error:
        error = inline(note_text(result.grader_error, lang))
        lines += [f"> ⚠️ {t('feedback.grader_error', lang, error=error)}", ""]

    if result.parts:
        lines += [f"## {t('feedback.parts_heading', lang)}", ""]
        lines += [f"| {t('feedback.part', lang)} | {t('feedback.points', lang)} |", "| --- | ---: |"]
        for part in result.parts:
            points = f"{number(part.score)} / {number(part.max_score)}"
            lines.append(f"| {part.part}. {part_title(part.part, lang, result.assignment)} | {points} |")
        lines += [f"| **{t('feedback.total', lang)}** | **{number(result.score)} / {number(result.max_score)}** |", ""]

    if result.checks:  # nothing was diagnosed when nothing ran
        lines += [f"## {t('feedback.mistakes_heading', lang)}", ""]
        if view.mistakes:
            lines += [f"- **{inline(task)}**: {inline(message)}" for task, message in view.mistakes]
        else:
            lines.append(t("feedback.no_mistakes", lang))
        lines.append("")

    if listed:
        lines += [f"## {t('feedback.checks_heading', lang)}", ""]
        current_part = None
        for check_view in listed:
            check = check_view.check
            if check.part != current_part:
                if current_part is not None:
                    lines.append("")
                current_part = check.part
                lines += [f"### {check.part}. {part_title(check.part, lang, result.assignment)}", ""]
            icon = STATUS_ICONS.get(check.status, "•")
            points = f"{number(check.points)} / {number(check.max_points)}"
            name = inline(check_view.name)
            if not check_view.details:
                lines.append(f"- {icon} {name} ({points}) — _{t('feedback.hidden_check', lang)}_")
                continue
            lines.append(f"- {icon} {status_word(check.status, lang)}: {name} ({points})")
            if check_view.message:  # a passed check has one when its points were carried forward
                lines.append(f"  - {t('feedback.note' if check.passed else 'feedback.details', lang)}: {inline(check_view.message)}")
            if check_view.folded:
                lines.append(f"  - {inline(check_view.folded)}")
            if check_view.hint:  # none for a passed check, or one folded under another failure
                lines.append(f"  - {t('feedback.hint_line', lang, hint=inline(check_view.hint))}")
        lines.append("")
    if unlisted:
        lines += [f"_{t('feedback.hidden_checks', lang, count=len(unlisted), points=number(sum(c.max_points for c in unlisted)))}_", ""]
    if view.withheld:
        lines += [f"_{t('feedback.after_due_note', lang, count=view.withheld)}_", ""]

    if result.events:
        lines += [f"## {t('feedback.events_heading', lang)}", ""]
        notes, log = event_notes(result.events, lang)
        lines += [f"- {inline(note)}" for note in notes]
        if log:  # no note of the grader's matches: its own words, shown as a log
            lines += ["", t("feedback.log_note", lang), "", fenced("\n".join(log))]
        lines.append("")
    if result.output.strip():
        lines += [f"## {t('feedback.output_heading', lang)}", "", fenced(output_text(result.output, lang)), ""]

    if result.checks:
        lines.append(t("feedback.seed_platform", lang, seed=result.seed) if platform else t("feedback.seed", lang, seed=result.seed, flag=f"`--seed {result.seed}`"))
    return "\n".join(lines) + "\n"
