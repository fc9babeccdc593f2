"""The class dashboard (self-contained HTML) and summary.md, for the instructor after a batch."""
from __future__ import annotations

from collections.abc import Sequence
from urllib.parse import quote

from autograder.assignments.attention.texts import check_name
from autograder.feedback.formats.classstats import ClassStats, class_stats
from autograder.feedback.formats.html import bar, esc, page, png_data_uri
from autograder.feedback.formats.markdown import inline
from autograder.feedback.formats.view import number, percent
from autograder.feedback.i18n import part_title, t
from autograder.grading.integrity.similarity import THRESHOLD as SIMILARITY_THRESHOLD
from autograder.grading.integrity.flags import flag_codes
from autograder.grading.integrity.similarity import Pair
from autograder.grading.plotting import render_histogram
from autograder.feedback.results import BatchResult, SubmissionResult


def feedback_href(folder: str) -> str:
    return quote(folder) + "/feedback.html"


def _table(head: Sequence[str], rows: Sequence[str], numeric: Sequence[int] = ()) -> str:
    cells = "".join(
        f'<th class="num">{esc(h)}</th>' if i in numeric else f"<th>{esc(h)}</th>" for i, h in enumerate(head)
    )
    return f"<table><tr>{cells}</tr>{''.join(rows)}</table>"


def _parts_html(stats: ClassStats, lang: str) -> str:
    rows = [
        f"<tr><td>{esc(r.part)}. {esc(part_title(r.part, lang))}</td>"
        f'<td class="num">{r.full_marks} / {r.submissions}</td><td>{bar(percent(r.full_marks, r.submissions))}</td>'
        f'<td class="num">{r.mean_percent:.1f}%</td></tr>'
        for r in stats.parts
    ]
    head = (t("feedback.part", lang), t("dash.part_full", lang), "", t("dash.part_mean", lang))
    return _table(head, rows, numeric=(1, 3))


def _checks_html(stats: ClassStats, lang: str) -> str:
    rows = [
        f"<tr><td>{esc(c.part)}</td><td>{esc(check_name(c.check_id, c.name, lang))}<br><code class=\"muted\">{esc(c.check_id)}</code></td>"
        f'<td class="num">{c.passed} / {c.total}</td><td>{bar(c.rate)}</td></tr>'
        for c in stats.checks
    ]
    head = (t("feedback.part", lang), t("feedback.check", lang), t("dash.pass_rate", lang), "")
    return _table(head, rows, numeric=(2,))


def _mistakes_html(stats: ClassStats, lang: str) -> str:
    if not stats.mistakes:
        return f"<p>{esc(t('dash.no_mistakes', lang))}</p>"
    rows = [
        f"<tr><td><b>{esc(m.key)}</b><br>{esc(m.message)}</td>"
        f'<td class="num">{m.count} / {stats.graded}</td><td>{bar(percent(m.count, stats.graded))}</td></tr>'
        for m in stats.mistakes
    ]
    return _table((t("dash.mistake", lang), t("dash.submissions", lang), ""), rows, numeric=(1,))


def _link(result: SubmissionResult, folder: str) -> str:
    return f'<a href="{esc(feedback_href(folder))}">{esc(result.submission)}</a>'


def _flags_html(batch: BatchResult, folder_of: dict[int, str], lang: str) -> str:
    flagged = [s for s in sorted(batch.submissions, key=lambda s: s.submission) if s.flags]
    if not flagged:
        return f"<p>{esc(t('dash.no_flags', lang))}</p>"
    rows = [
        f"<tr><td>{_link(s, folder_of[id(s)])}</td><td>"
        + "<br>".join(f"<b>{esc(f.code)}</b>{esc(f' (part {f.part})' if f.part else '')}: {esc(f.detail)}" for f in s.flags)
        + "</td></tr>"
        for s in flagged
    ]
    return _table((t("dash.submission", lang), t("dash.flags", lang)), rows)


def _similar_html(pairs: Sequence[Pair], lang: str) -> str:
    shown = [p for p in pairs if p.score >= SIMILARITY_THRESHOLD]
    if not shown:
        return f"<p>{esc(t('dash.no_similar', lang))}</p>"
    rows = [
        f'<tr><td>{esc(p.a)}<br>{esc(p.b)}</td><td class="num">{p.score:.2f}</td>'
        f'<td><pre>{esc(chr(10).join(p.passages_a))}</pre></td><td><pre>{esc(chr(10).join(p.passages_b))}</pre></td></tr>'
        for p in shown
    ]
    return _table((t("dash.submission", lang), t("dash.similarity", lang), "A", "B"), rows, numeric=(1,))


def render_dashboard(batch: BatchResult, lang: str = "en", *, folders: Sequence[str] | None = None, similar: Sequence[Pair] = ()) -> str:
    """The class dashboard; `folders[i]` is the result folder of `batch.submissions[i]` (default: its name)."""
    folders = list(folders) if folders is not None else [s.submission for s in batch.submissions]
    if len(folders) != len(batch.submissions):
        raise ValueError(f"{len(folders)} folders given for {len(batch.submissions)} submissions")
    folder_of = {id(s): f for s, f in zip(batch.submissions, folders)}
    stats = class_stats(batch, lang)
    title = t("dash.title", lang)
    histogram = png_data_uri(render_histogram(stats.percents, lang=lang))
    body = [
        f"<h1>{esc(title)}</h1>",
        "<p>" + esc(t("dash.overview", lang, graded=stats.graded, failed=stats.failed,
                       mean=f"{stats.mean:.1f}", median=f"{stats.median:.1f}")) + "</p>",
        f"<h2>{esc(t('dash.histogram', lang))}</h2>",
        f'<img src="{histogram}" alt="{esc(t("dash.histogram", lang))}" style="max-width:640px;width:100%">',
        f"<h2>{esc(t('dash.mistakes', lang))}</h2>", _mistakes_html(stats, lang),
        f"<h2>{esc(t('dash.parts', lang))}</h2>", _parts_html(stats, lang),
        f"<h2>{esc(t('dash.checks', lang))}</h2>", _checks_html(stats, lang),
        f"<h2>{esc(t('dash.failed', lang))}</h2>",
    ]
    failed = batch.failed_to_grade
    if failed:
        rows = [f"<tr><td>{_link(s, folder_of[id(s)])}</td><td>{esc(s.grader_error)}</td></tr>" for s in failed]
        body.append(_table((t("dash.submission", lang), t("dash.reason", lang)), rows))
    else:
        body.append(f"<p>{esc(t('dash.none_failed', lang))}</p>")
    body += [
        f"<h2>{esc(t('dash.integrity', lang))}</h2>", _flags_html(batch, folder_of, lang),
        f"<h2>{esc(t('dash.similar', lang))}</h2>", _similar_html(similar, lang),
    ]
    slow_rows = [
        f"<tr><td>{_link(s, folder_of[id(s)])}</td><td class=\"num\">{s.execution_time:.2f}</td>"
        f"<td>{esc('; '.join(s.events))}</td></tr>"
        for s in stats.slowest
    ]
    body += [
        f"<h2>{esc(t('dash.slowest', lang))}</h2>",
        _table((t("dash.submission", lang), t("dash.seconds", lang), t("dash.events", lang)), slow_rows, numeric=(1,)),
        f"<h2>{esc(t('dash.all', lang))}</h2>",
        _table(
            (t("dash.submission", lang), t("feedback.score", lang), "%", t("dash.status_mistakes", lang), t("dash.flags", lang)),
            [_all_row(s, folder_of[id(s)], lang) for s in sorted(batch.submissions, key=lambda s: s.submission)],
            numeric=(1, 2),
        ),
    ]
    return page(title, "\n".join(body), lang)


def _all_row(result: SubmissionResult, folder: str, lang: str) -> str:
    if result.grader_error:
        status = f'<span class="badge error">{esc(t("status.error", lang))}</span>'
        dash = '<td class="num">–</td>'
        return f"<tr><td>{_link(result, folder)}</td>{dash}{dash}<td>{status}</td>{_flag_cell(result)}</tr>"
    share = percent(result.score, result.max_score)
    return (
        f'<tr><td>{_link(result, folder)}</td><td class="num">{number(result.score)} / {number(result.max_score)}</td>'
        f'<td class="num">{share:.1f}</td><td>{esc(", ".join(result.mistakes))}</td>{_flag_cell(result)}</tr>'
    )


def _flag_cell(result: SubmissionResult) -> str:
    """The integrity flag codes of a submission (details in the integrity section)."""
    return f"<td>{esc(', '.join(flag_codes(result.flags)))}</td>"


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
            reason = f"{t('status.error', lang)}: {inline(s.grader_error)}"
            lines.append(f"| {inline(s.submission)} | – | – | {s.execution_time:.2f} | {reason} |")
        else:
            share = percent(s.score, s.max_score)
            lines.append(f"| {inline(s.submission)} | {number(s.score)}/{number(s.max_score)} | {share:.1f} "
                         f"| {s.execution_time:.2f} | {inline(', '.join(s.mistakes))} |")
    return "\n".join(lines) + "\n"
