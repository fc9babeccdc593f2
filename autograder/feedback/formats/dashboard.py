"""The class dashboard (self-contained HTML) and summary.md, for the instructor after a batch."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from urllib.parse import quote

from autograder.feedback.formats.classstats import class_stats
from autograder.feedback.formats.html import png_data_uri, render_page
from autograder.feedback.formats.markdown import inline
from autograder.feedback.formats.view import number, percent
from autograder.feedback.i18n import t
from autograder.feedback.formats.view import note_text, part_title
from autograder.grading.integrity.similarity import THRESHOLD as SIMILARITY_THRESHOLD
from autograder.grading.integrity.flags import flag_codes
from autograder.grading.integrity.similarity import Pair
from autograder.grading.plotting import render_histogram
from autograder.feedback.results import BatchResult, SubmissionResult


def feedback_href(folder: str) -> str:
    return quote(folder) + "/feedback.html"


@dataclass(frozen=True)
class Row:
    """A submission on the dashboard, with the link to its feedback page."""

    result: SubmissionResult
    href: str


def render_dashboard(batch: BatchResult, lang: str = "en", *, folders: Sequence[str] | None = None, similar: Sequence[Pair] = ()) -> str:
    """The class dashboard; `folders[i]` is the result folder of `batch.submissions[i]` (default: its name)."""
    folders = list(folders) if folders is not None else [s.submission for s in batch.submissions]
    if len(folders) != len(batch.submissions):
        raise ValueError(f"{len(folders)} folders given for {len(batch.submissions)} submissions")
    row_of = {id(s): Row(s, feedback_href(f)) for s, f in zip(batch.submissions, folders)}
    stats = class_stats(batch, lang)
    by_name = sorted(batch.submissions, key=lambda s: s.submission)
    return render_page(
        "dashboard.html", lang,
        title=t("dash.title", lang),
        stats=stats,
        histogram=png_data_uri(render_histogram(stats.percents, lang=lang)),
        failed=[row_of[id(s)] for s in batch.failed_to_grade],
        flagged=[row_of[id(s)] for s in by_name if s.flags],
        similar=[p for p in similar if p.score >= SIMILARITY_THRESHOLD],
        slowest=[row_of[id(s)] for s in stats.slowest],
        everyone=[row_of[id(s)] for s in by_name],
        flag_codes=flag_codes,
    )


def render_summary(batch: BatchResult, lang: str = "en") -> str:
    """summary.md: the overview, mistakes ranked, part pass rates and one line per submission."""
    stats = class_stats(batch, lang)
    lines = [
        f"# {t('dash.title', lang)}", "",
        t("dash.overview", lang, graded=stats.graded, failed=stats.failed,
          mean=f"{stats.mean:.1f}", median=f"{stats.median:.1f}"), "",
        f"## {t('dash.mistakes', lang)}", "",
    ]
    if stats.mistakes:
        lines += [f"- **{inline(m.key)}** ({m.count}/{stats.graded}): {inline(m.message)}" for m in stats.mistakes]
    else:
        lines.append(t("dash.no_mistakes", lang))
    lines += ["", f"## {t('dash.parts', lang)}", "",
              f"| {t('feedback.part', lang)} | {t('dash.part_full', lang)} | {t('dash.part_mean', lang)} |",
              "| --- | ---: | ---: |"]
    lines += [f"| {r.part}. {part_title(r.part, lang)} | {r.full_marks}/{r.submissions} | {r.mean_percent:.1f}% |"
              for r in stats.parts]
    lines += ["", f"## {t('dash.all', lang)}", "",
              f"| {t('dash.submission', lang)} | {t('feedback.score', lang)} | % "
              f"| {t('dash.seconds', lang)} | {t('dash.status_mistakes', lang)} |",
              "| --- | ---: | ---: | ---: | --- |"]
    for s in sorted(batch.submissions, key=lambda s: s.submission):
        if s.grader_error:
            reason = f"{t('status.error', lang)}: {inline(note_text(s.grader_error, lang))}"
            lines.append(f"| {inline(s.submission)} | – | – | {s.execution_time:.2f} | {reason} |")
        else:
            share = percent(s.score, s.max_score)
            lines.append(f"| {inline(s.submission)} | {number(s.score)}/{number(s.max_score)} | {share:.1f} "
                         f"| {s.execution_time:.2f} | {inline(', '.join(s.mistakes))} |")
    return "\n".join(lines) + "\n"
