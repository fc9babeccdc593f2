"""Feedback as one self-contained HTML page: inline CSS, images as data: URIs, nothing fetched.

The pages are Jinja2 templates (templates/), autoescaped: every piece of text that can come from
the student (printed output, error messages, names) is escaped unless the code marks it Markup
(only `code_spans`, which escapes first), and every value shown has its control and format
characters but newline and tab written as `\\x1b`, `\\u202e` (feedback/shown.py: a right-to-left
override in a file name must not turn the rest of a line around). A Content-Security-Policy forbids
scripts and any request but data: images.
"""
from __future__ import annotations

import base64
import itertools
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import jinja2
from markupsafe import Markup, escape

from autograder.feedback.formats.view import (
    CheckView, assignment_t, caption_text, check_title, event_notes, feedback_view, note_text, number, output_text, percent,
)
from autograder.feedback.i18n import status_word, t
from autograder.feedback.formats.view import part_title
from autograder.feedback.results import Artifact, SubmissionResult
from autograder.feedback.shown import shown
from autograder.settings import HTML_MAX_IMAGE_BYTES

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
HTML_LANG = {"en": "en", "zh": "zh-CN"}

TEMPLATES = Path(__file__).with_name("templates")  # Jinja2 templates and the pages' CSS (style.css)
ENVIRONMENT = jinja2.Environment(
    loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=True, undefined=jinja2.StrictUndefined,
    trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True, finalize=lambda value: _shown_value(value),
)


def _shown_value(value: object) -> object:
    """What a template shows, with shown() applied to text (Markup stays Markup: escapes are plain text)."""
    if isinstance(value, Markup):
        return Markup(shown(str(value), keep="\n\t"))
    return shown(value, keep="\n\t") if isinstance(value, str) else value


def code_spans(text: str) -> Markup:
    """Escaped text in which `code` (as the message templates mark it) becomes <code>code</code>."""
    return Markup(re.sub(r"`([^`]+)`", r"<code>\1</code>", str(escape(text))))


def _checks_by_part(checks: Iterable[CheckView]) -> list[tuple[str, list[CheckView]]]:
    """Runs of consecutive checks of one part: one table each."""
    return [(part, list(run)) for part, run in itertools.groupby(checks, key=lambda view: view.check.part)]


ENVIRONMENT.filters.update(number=number, code_spans=code_spans, groupby_part=_checks_by_part)
ENVIRONMENT.globals.update(percent=percent)


def render_page(template: str, lang: str, assignment: str = "", **context: object) -> str:
    """A page from templates/: every value is escaped unless it is Markup; `t` and the other text
    helpers speak `lang`, in the words of `assignment` ("": the current one)."""
    text = {
        "t": lambda key, **values: assignment_t(key, lang, assignment, **values),
        "part_title": lambda part: part_title(part, lang, assignment),
        "status_word": lambda status: status_word(status, lang),
        "check_name": lambda check_id, name: check_title(check_id, name, lang, assignment),
        "note_text": lambda text: note_text(text, lang),
        "output_text": lambda output: output_text(output, lang),
        "event_notes": lambda events: event_notes(events, lang),
    }
    return ENVIRONMENT.get_template(template).render(lang=lang, html_lang=HTML_LANG.get(lang, "en"), **text, **context)


def png_data_uri(data: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(data).decode("ascii")


def image_uri(result_dir: Path, relative: str) -> str | None:
    """The artifact at `relative` inside `result_dir` as a data: URI; None when absent or not a PNG there."""
    if not relative:
        return None
    root = Path(result_dir).resolve()
    path = (root / relative).resolve()
    if not path.is_relative_to(root) or not path.is_file():
        return None
    if path.stat().st_size > HTML_MAX_IMAGE_BYTES:
        return None
    data = path.read_bytes()
    return png_data_uri(data) if data.startswith(PNG_SIGNATURE) else None


@dataclass(frozen=True)
class Figure:
    uri: str | None  # None: the image is missing (or not a PNG inside the result folder)
    caption: str


@dataclass(frozen=True)
class Heatmap:
    caption: str
    similarity: float | None
    figures: tuple[Figure, ...]


def _heatmap(artifact: Artifact, result_dir: Path, lang: str, assignment: str = "") -> Heatmap:
    figures = tuple(
        Figure(image_uri(result_dir, path), t(key, lang))
        for path, key in (
            (artifact.student, "feedback.heatmap_student"),
            (artifact.reference, "feedback.heatmap_reference"),
            (artifact.difference, "feedback.heatmap_difference"),
        )
        if path
    )
    return Heatmap(caption_text(artifact, lang, assignment), artifact.similarity, figures)


def render_html(
    result: SubmissionResult, result_dir: Path, lang: str = "en", *, show_after_due: bool = False
) -> str:
    """The feedback page for one submission; `result_dir` is where its artifact paths are relative to."""
    return render_page(
        "submission.html", lang, result.assignment,
        title=t("feedback.title", lang, name=result.submission),
        result=result,
        share=percent(result.score, result.max_score),
        view=feedback_view(result, lang, show_after_due),
        heatmaps=[_heatmap(a, result_dir, lang, result.assignment) for a in result.artifacts if a.kind == "heatmap"],
    )
