"""Feedback as one self-contained HTML page: inline CSS, images as data: URIs, nothing fetched.

Every piece of text that can come from the student (printed output, error messages, names) goes
through `esc`; a Content-Security-Policy forbids scripts and any request but data: images.
"""
from __future__ import annotations

import base64
import re
from html import escape
from pathlib import Path

from autograder.feedback.formats.view import FeedbackView, caption_text, feedback_view, hint_text, message_text, name_text, number, percent
from autograder.feedback.i18n import DEFAULT_LANG, part_title, status_word, t
from autograder.feedback.results import PASSED, Artifact, SubmissionResult

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
MAX_IMAGE_BYTES = 8 * 1024 * 1024
HTML_LANG = {"en": "en", "zh": "zh-CN"}
CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'"

# Latin glyphs from the first fonts, CJK from whichever CJK font the reader's system has.
CSS = """
:root { --ok: #1f7a3a; --bad: #b3261e; --err: #a15c00; --muted: #5f6368; --line: #dadce0; }
* { box-sizing: border-box; }
body { margin: 0 auto; max-width: 1100px; padding: 24px; color: #202124; background: #fff;
  font: 15px/1.5 system-ui, -apple-system, "Segoe UI", "DejaVu Sans", "Liberation Sans", Arial,
  "Noto Sans CJK SC", "Source Han Sans SC", "WenQuanYi Zen Hei", "PingFang SC",
  "Microsoft YaHei", "Hiragino Sans GB", sans-serif; }
h1 { font-size: 26px; margin: 0 0 4px; } h2 { font-size: 20px; margin: 28px 0 8px;
  border-bottom: 1px solid var(--line); padding-bottom: 4px; } h3 { font-size: 16px; margin: 18px 0 6px; }
table { border-collapse: collapse; width: 100%; } th, td { text-align: left; padding: 6px 8px;
  border-bottom: 1px solid var(--line); vertical-align: top; } th { background: #f1f3f4; }
table.checks { table-layout: fixed; } table.checks col.status { width: 130px; }
table.checks col.points { width: 90px; }
td.num, th.num { text-align: right; white-space: nowrap; }
.score { font-size: 20px; font-weight: 600; } .muted { color: var(--muted); }
.bar { background: #e8eaed; border-radius: 4px; height: 10px; min-width: 120px; }
.bar > span { display: block; height: 100%; border-radius: 4px; background: #3b6ea8; }
.badge { display: inline-block; padding: 1px 8px; border-radius: 10px; font-size: 13px; color: #fff;
  white-space: nowrap; } .passed { background: var(--ok); } .failed { background: var(--bad); }
.error { background: var(--err); } .hidden { background: var(--muted); }
.alert { border-left: 4px solid var(--bad); background: #fce8e6; padding: 10px 14px; margin: 12px 0; }
.mistake { border-left: 4px solid var(--err); background: #fef7e0; padding: 8px 12px; margin: 8px 0; }
.detail { margin: 4px 0 0; } .detail b { font-weight: 600; }
.maps { display: flex; flex-wrap: wrap; gap: 12px; } figure { margin: 0; flex: 1 1 300px; }
figure img { width: 100%; height: auto; border: 1px solid var(--line); }
figcaption { font-size: 13px; color: var(--muted); } .missing { padding: 40px 8px; text-align: center;
  border: 1px dashed var(--line); color: var(--muted); }
pre { background: #f8f9fa; border: 1px solid var(--line); padding: 10px; overflow-x: auto;
  white-space: pre-wrap; word-break: break-word; font: 13px/1.4 "DejaVu Sans Mono", Menlo, Consolas,
  "Noto Sans Mono CJK SC", "WenQuanYi Zen Hei Mono", monospace; }
code { font-family: "DejaVu Sans Mono", Menlo, Consolas, monospace; }
"""


def esc(text: object) -> str:
    return escape(str(text), quote=True)


def page(title: str, body: str, lang: str) -> str:
    """A complete HTML document around `body` (already escaped)."""
    return (
        "<!DOCTYPE html>\n"
        f'<html lang="{HTML_LANG.get(lang, "en")}">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{esc(title)}</title>\n<style>{CSS}</style>\n</head>\n<body>\n{body}\n</body>\n</html>\n"
    )


def bar(share: float) -> str:
    width = min(max(share, 0.0), 100.0)
    return f'<div class="bar"><span style="width:{width:.1f}%"></span></div>'


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
    if path.stat().st_size > MAX_IMAGE_BYTES:
        return None
    data = path.read_bytes()
    return png_data_uri(data) if data.startswith(PNG_SIGNATURE) else None


def _figure(uri: str | None, caption: str, lang: str) -> str:
    if uri is None:
        inner = f'<div class="missing">{esc(t("feedback.image_missing", lang))}</div>'
    else:
        inner = f'<img src="{uri}" alt="{esc(caption)}">'
    return f"<figure>{inner}<figcaption>{esc(caption)}</figcaption></figure>"


def code_spans(text: str) -> str:
    """Escaped text in which `code` (as the message templates mark it) becomes <code>code</code>."""
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", esc(text))


def _artifact(artifact: Artifact, result_dir: Path, lang: str) -> str:
    head = esc(caption_text(artifact, lang))
    if artifact.similarity is not None:
        similarity = t("feedback.similarity", lang, value=f"{artifact.similarity:.3f}")
        head += f' <span class="muted">({esc(similarity)})</span>'
    figures = [
        _figure(image_uri(result_dir, path), t(key, lang), lang)
        for path, key in (
            (artifact.student, "feedback.heatmap_student"),
            (artifact.reference, "feedback.heatmap_reference"),
            (artifact.difference, "feedback.heatmap_difference"),
        )
        if path
    ]
    return f'<h3>{head}</h3>\n<div class="maps">{"".join(figures)}</div>'


def _parts(result: SubmissionResult, lang: str) -> str:
    rows = []
    for part in result.parts:
        share = percent(part.score, part.max_score)
        rows.append(
            f"<tr><td>{esc(part.part)}. {esc(part_title(part.part, lang))}</td>"
            f'<td class="num">{number(part.score)} / {number(part.max_score)}</td><td>{bar(share)}</td></tr>'
        )
    rows.append(
        f"<tr><th>{esc(t('feedback.total', lang))}</th>"
        f'<th class="num">{number(result.score)} / {number(result.max_score)}</th>'
        f"<th>{bar(percent(result.score, result.max_score))}</th></tr>"
    )
    head = (
        f"<tr><th>{esc(t('feedback.part', lang))}</th>"
        f"<th class=\"num\">{esc(t('feedback.points', lang))}</th><th></th></tr>"
    )
    return f"<table>{head}{''.join(rows)}</table>"


def _check_table(head: str, rows: list[str]) -> str:
    columns = '<colgroup><col class="status"><col><col class="points"></colgroup>'
    return f'<table class="checks">{columns}{head}{"".join(rows)}</table>'


def _checks(view: FeedbackView, lang: str) -> str:
    blocks: list[str] = []
    rows: list[str] = []
    current = None
    head = (
        f"<tr><th>{esc(t('feedback.status', lang))}</th><th>{esc(t('feedback.check', lang))}</th>"
        f"<th class=\"num\">{esc(t('feedback.points', lang))}</th></tr>"
    )
    for check_view in view.checks:
        check = check_view.check
        if check.part != current:
            if rows:
                blocks.append(_check_table(head, rows))
                rows = []
            current = check.part
            blocks.append(f"<h3>{esc(check.part)}. {esc(part_title(check.part, lang))}</h3>")
        points = f"{number(check.points)} / {number(check.max_points)}"
        if check_view.details:
            badge = f'<span class="badge {esc(check.status)}">{esc(status_word(check.status, lang))}</span>'
            details = ""
            message, hint = message_text(check, lang), hint_text(check, lang)
            if message:  # a passed check has one when its points were carried forward
                details += f'<p class="detail"><b>{esc(t("feedback.details", lang))}:</b> {code_spans(message)}</p>'
            if check.status != PASSED and hint:
                details += f'<p class="detail"><b>{esc(t("feedback.hint", lang))}:</b> {code_spans(hint)}</p>'
        else:
            badge = f'<span class="badge hidden">{esc(t("feedback.hidden_check", lang))}</span>'
            details = ""
        rows.append(f"<tr><td>{badge}</td><td>{code_spans(name_text(check, lang))}{details}</td><td class=\"num\">{points}</td></tr>")
    if rows:
        blocks.append(_check_table(head, rows))
    if view.withheld:
        blocks.append(f'<p class="muted">{esc(t("feedback.after_due_note", lang, count=view.withheld))}</p>')
    return "\n".join(blocks)


def render_html(
    result: SubmissionResult, result_dir: Path, lang: str = "en", *, show_after_due: bool = False
) -> str:
    """The feedback page for one submission; `result_dir` is where its artifact paths are relative to."""
    view = feedback_view(result, lang, show_after_due)
    title = t("feedback.title", lang, name=result.submission)
    share = percent(result.score, result.max_score)
    body = [
        f"<h1>{esc(title)}</h1>",
        f'<p class="score">{esc(t("feedback.score", lang))}: {number(result.score)} / '
        f"{number(result.max_score)} ({share:.1f}%)</p>{bar(share)}",
    ]
    if result.grader_error:
        error = esc(result.grader_error) if lang == DEFAULT_LANG else f"<code>{esc(result.grader_error)}</code>"
        body.append(f'<div class="alert">{esc(t("feedback.grader_error", lang, error="{error}")).replace("{error}", error)}</div>')
    if result.parts:
        body += [f"<h2>{esc(t('feedback.parts_heading', lang))}</h2>", _parts(result, lang)]
    if result.checks:  # nothing was diagnosed when nothing ran
        body.append(f"<h2>{esc(t('feedback.mistakes_heading', lang))}</h2>")
        if view.mistakes:
            body += [f'<div class="mistake"><b>{esc(key)}</b>: {esc(message)}</div>' for key, message in view.mistakes]
        else:
            body.append(f"<p>{esc(t('feedback.no_mistakes', lang))}</p>")
    heatmaps = [a for a in result.artifacts if a.kind == "heatmap"]
    if heatmaps:
        body.append(f"<h2>{esc(t('feedback.heatmaps_heading', lang))}</h2>")
        body += [_artifact(artifact, result_dir, lang) for artifact in heatmaps]
    if view.checks or view.withheld:
        body += [f"<h2>{esc(t('feedback.checks_heading', lang))}</h2>", _checks(view, lang)]
    if result.events:
        body.append(f"<h2>{esc(t('feedback.events_heading', lang))}</h2>")
        if lang == DEFAULT_LANG:
            body.append("<ul>" + "".join(f"<li>{esc(event)}</li>" for event in result.events) + "</ul>")
        else:  # the worker's own words, shown as a log
            body += [f"<p>{esc(t('feedback.log_note', lang))}</p>", f"<pre>{esc(chr(10).join(result.events))}</pre>"]
    if result.output.strip():
        body += [f"<h2>{esc(t('feedback.output_heading', lang))}</h2>", f"<pre>{esc(result.output)}</pre>"]
    if result.checks:  # nothing to reproduce when nothing ran
        seed = t("feedback.seed", lang, seed=result.seed, flag=f"--seed {result.seed}")
        body.append(f'<p class="muted">{esc(seed)}</p>')
    seconds = t("feedback.execution_time", lang, seconds=f"{result.execution_time:.1f}")
    body.append(f'<p class="muted">{esc(seconds)}</p>')
    return page(title, "\n".join(body), lang)
