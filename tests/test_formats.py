"""Feedback Markdown/HTML, grades.csv, the class report, the pinned plots and the UI strings."""
from __future__ import annotations

import csv
import hashlib
import html
import io
import os
import re
import shutil
import struct
import subprocess
import sys
import warnings
import zipfile
from dataclasses import replace
from pathlib import Path

import matplotlib
import numpy as np
import pytest

from autograder.grading import plotting
from autograder.deployment.docker import GRADER_TREES
from autograder.errors import AttnkitError
from autograder.deployment.export import _source_files, _tree_files
from autograder.feedback.formats.view import first_hint
from autograder.feedback.formats.csvfile import grades_csv
from autograder.feedback.formats.dashboard import render_dashboard, render_summary
from autograder.feedback.formats.html import TEMPLATES, render_html
from autograder.feedback.formats.markdown import render_markdown
from autograder.feedback.i18n import ENV_VAR, LANGS, STRINGS, resolve_lang, t
from autograder.feedback.report import write_report
from autograder.feedback.results import BatchResult, SubmissionResult, write_json_atomic
from sample_results import (
    KEY_TOKENS,
    QUERY_TOKENS,
    SCRIPT,
    buggy_result,
    check,
    correct_result,
    errored_result,
    probe_maps,
    sample_batch,
    write_heatmaps,
    write_sample_out,
)

SECRETS = ("SECRET-MESSAGE", "SECRET-HINT", "SECRET-MISTAKE", "hidden_only_mistake")

REPO = Path(__file__).resolve().parents[1]


def png_chunks(data: bytes) -> list[bytes]:
    assert data.startswith(b"\x89PNG\r\n\x1a\n")
    chunks, offset = [], 8
    while offset < len(data):
        (length,) = struct.unpack(">I", data[offset:offset + 4])
        chunks.append(data[offset + 4:offset + 8])
        offset += 12 + length
    return chunks


# --- plotting -------------------------------------------------------------------------------------

def test_heatmap_png_is_byte_identical_for_the_same_input() -> None:
    student, _ = probe_maps()
    first = plotting.render_heatmap(student, QUERY_TOKENS, KEY_TOKENS, "probe")
    second = plotting.render_heatmap(student.copy(), QUERY_TOKENS, KEY_TOKENS, "probe")
    assert first == second


def test_heatmap_png_is_the_same_in_a_fresh_process() -> None:
    """Re-grading later (another process, another hash seed) must redraw the very same bytes."""
    code = (
        "import hashlib\n"
        "from autograder.grading.plotting import render_heatmap\n"
        "from sample_results import KEY_TOKENS, QUERY_TOKENS, probe_maps\n"
        "png = render_heatmap(probe_maps()[0], QUERY_TOKENS, KEY_TOKENS, '猫 probe')\n"
        "print(hashlib.sha256(png).hexdigest())\n"
    )
    path = os.pathsep.join([str(Path(__file__).parent), *sys.path])
    env = {**os.environ, "PYTHONHASHSEED": "12345", "PYTHONPATH": path}
    child = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert child.returncode == 0, child.stderr
    student, _ = probe_maps()
    here = hashlib.sha256(plotting.render_heatmap(student, QUERY_TOKENS, KEY_TOKENS, "猫 probe")).hexdigest()
    assert child.stdout.strip() == here


def test_heatmap_png_ignores_the_callers_matplotlib_settings() -> None:
    student, _ = probe_maps()
    before = plotting.render_heatmap(student, QUERY_TOKENS, KEY_TOKENS, "probe")
    changes = {"font.size": 22, "figure.dpi": 37, "savefig.dpi": 300, "axes.edgecolor": "red", "xtick.major.size": 12}
    with matplotlib.rc_context(changes):
        during = plotting.render_heatmap(student, QUERY_TOKENS, KEY_TOKENS, "probe")
    assert during == before


def test_heatmap_png_has_no_time_or_software_metadata() -> None:
    data = plotting.render_heatmap([[0.25, 0.75]], ["q"], ["k1", "k2"])
    chunks = png_chunks(data)
    assert b"tIME" not in chunks
    assert b"Software" not in data


def test_different_matrices_give_different_pngs() -> None:
    student, reference = probe_maps()
    assert plotting.render_heatmap(student, None, None) != plotting.render_heatmap(reference, None, None)


def test_heatmap_puts_queries_across_and_keys_down_in_0_1() -> None:
    matrix = np.arange(12, dtype=float).reshape(3, 4) / 12  # (Lq=3, Lk=4)
    figure = plotting.heatmap_figure(matrix, ["q0", "q1", "q2"], ["k0", "k1", "k2", "k3"], "t")
    ax = figure.axes[0]
    image = ax.images[0]
    assert image.get_array().shape == (4, 3)
    np.testing.assert_array_equal(image.get_array(), matrix.T)
    assert image.get_clim() == (0.0, 1.0)
    assert [label.get_text() for label in ax.get_xticklabels()] == ["q0", "q1", "q2"]
    assert [label.get_text() for label in ax.get_yticklabels()] == ["k0", "k1", "k2", "k3"]
    assert ax.get_xlabel() == "query position" and ax.get_ylabel() == "key position"
    assert len(figure.axes) == 2  # the heatmap and its colorbar


def test_difference_uses_a_diverging_symmetric_range() -> None:
    student, reference = probe_maps()
    figure = plotting.difference_figure(student, reference, QUERY_TOKENS, KEY_TOKENS)
    image = figure.axes[0].images[0]
    low, high = image.get_clim()
    assert low == -high and high == pytest.approx(np.abs(student - reference).max())
    assert image.get_cmap().name.startswith(plotting.DIFFERENCE_CMAP)
    tiny = plotting.difference_figure(reference + 1e-9, reference, None, None).axes[0].images[0]
    assert tiny.get_clim() == (-0.1, 0.1)  # noise stays pale instead of filling the colour range



def test_a_reused_figure_gives_the_same_png_as_a_new_one() -> None:
    """The renders reuse one figure per layout (values, colour range and layout redone): every
    difference and heatmap, whatever came before it, is byte for byte a new figure's PNG."""
    rng = np.random.default_rng(7)
    plotting._figures.clear()
    kept: list[int] = []
    for step, scale in enumerate([1.0, 0.02, 0.4, 3.0, 0.15, 1.0]):
        reference = rng.dirichlet(np.ones(len(KEY_TOKENS)), size=len(QUERY_TOKENS))  # (Lq, Lk)
        student = reference + scale * (rng.dirichlet(np.ones(len(KEY_TOKENS)), size=len(QUERY_TOKENS)) - reference)
        if step == 3:
            student[1, 2] = np.nan
        for lang in ("en", "zh"):
            new = plotting.figure_png(plotting.difference_figure(student, reference, QUERY_TOKENS, KEY_TOKENS, "probe", lang=lang))
            assert plotting.render_difference(student, reference, QUERY_TOKENS, KEY_TOKENS, "probe", lang=lang) == new, (step, lang)
            new = plotting.figure_png(plotting.heatmap_figure(student, QUERY_TOKENS, KEY_TOKENS, "probe", lang=lang))
            assert plotting.render_heatmap(student, QUERY_TOKENS, KEY_TOKENS, "probe", lang=lang) == new, (step, lang)
        kept = kept or [id(figure) for figure in plotting._figures.values()]
    assert sorted(id(figure) for figure in plotting._figures.values()) == sorted(kept) and len(kept) == 4  # reused, not redrawn


def test_heatmap_accepts_a_torch_tensor() -> None:
    torch = pytest.importorskip("torch")
    matrix = torch.softmax(torch.randn(3, 4, generator=torch.Generator().manual_seed(0)), dim=-1)
    assert plotting.render_heatmap(matrix, None, None) == plotting.render_heatmap(matrix.numpy(), None, None)


def test_heatmap_with_nan_cells_still_renders() -> None:
    assert png_chunks(plotting.render_heatmap([[float("nan"), 1.0], [0.5, 0.5]], None, None))


@pytest.mark.parametrize(
    ("matrix", "queries", "keys", "words"),
    [
        ([[0.5, 0.5]], ["a", "b"], ["x", "y"], "2 query tokens given for a matrix with 1 query"),
        ([0.5, 0.5], None, None, "2-D (Lq, Lk)"),
        ([[0.5, 0.5]], ["a"], ["x"], "1 key tokens given for a matrix with 2 key"),
    ],
)
def test_heatmap_rejects_bad_input_clearly(matrix, queries, keys, words: str) -> None:
    with pytest.raises(AttnkitError, match=re.escape(words)):
        plotting.render_heatmap(matrix, queries, keys)


def test_difference_rejects_mismatched_shapes() -> None:
    with pytest.raises(AttnkitError, match=r"shapes \(1, 2\) \(student\) and \(2, 2\)"):
        plotting.render_difference([[0.5, 0.5]], [[1.0, 0.0], [0.0, 1.0]], None, None)


def test_chinese_labels_are_drawn_with_a_cjk_font() -> None:
    if len(plotting.STYLE["font.family"]) < 2:
        pytest.skip("no CJK font installed for matplotlib (apt-get install fonts-noto-cjk or fonts-wqy-zenhei)")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # "Glyph ... missing from font(s)" would be a UserWarning
        plotting.render_heatmap([[0.2, 0.8]], ["猫"], ["我", "喜欢"], "注意力", lang="zh")


def test_histogram_is_deterministic() -> None:
    assert plotting.render_histogram([0, 55, 100, 100]) == plotting.render_histogram([0, 55, 100, 100])


# --- i18n -----------------------------------------------------------------------------------------

def test_every_ui_string_has_every_language() -> None:
    missing = [(key, lang) for key, entry in STRINGS.items() for lang in LANGS if not entry.get(lang)]
    assert missing == []


def test_ui_string_placeholders_match_across_languages() -> None:
    fields = lambda text: sorted(re.findall(r"{(\w+)}", text))  # noqa: E731
    assert [k for k, e in STRINGS.items() if fields(e["en"]) != fields(e["zh"])] == []


def test_t_formats_and_translates() -> None:
    assert t("feedback.title", "zh", name="bob") == "bob 的评分反馈"
    assert t("feedback.title", "en", name="bob") == "Feedback for bob"


def test_language_comes_from_cli_then_env_then_english(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENV_VAR, raising=False)
    assert resolve_lang(None) == "en"
    monkeypatch.setenv(ENV_VAR, "zh")
    assert resolve_lang(None) == "zh"
    assert resolve_lang("en") == "en"


def test_bad_language_says_where_it_came_from(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV_VAR, "fr")
    with pytest.raises(AttnkitError, match=f"'fr' from the {ENV_VAR} environment variable: use one of en, zh"):
        resolve_lang(None)
    with pytest.raises(AttnkitError, match="'de' from --lang"):
        resolve_lang("de")


# --- markdown -------------------------------------------------------------------------------------

def test_markdown_has_parts_checks_hints_mistake_seed_and_events() -> None:
    text = render_markdown(buggy_result())
    assert "No known mistake" in render_markdown(correct_result())
    assert "**Score: 4 / 14 (28.6%)**" in text
    assert "| A. Scaled dot-product attention | 2 / 6 |" in text
    assert "❌ failed: sdpa.values: does what the contract says (0 / 3)" in text
    assert f"Hint: {first_hint('sdpa.values', 'A.1')}" in text  # the first tier: the idea (autograder.feedback.hints)
    assert "- **A.1 attention_scores**: You divided the scores by d_model instead of sqrt(head_dim)." in text  # the task, not the catalogue's key (qa31p)
    assert "scale_by_d" not in text
    assert "`--seed 987654`" in text
    assert "- worker timed out after 10 s in split_heads; restarted" in text
    assert "⚠️ error: mha.values" in text


def test_markdown_hidden_check_shows_name_and_points_only() -> None:
    text = render_markdown(buggy_result())
    assert "sdpa: hidden probe (0 / 1) — _hidden check_" in text
    assert not [secret for secret in SECRETS if secret in text]


def test_markdown_after_due_checks_wait_for_the_flag() -> None:
    assert "AFTER-DUE-MESSAGE" not in render_markdown(buggy_result())
    assert "1 more check(s) will be shown after the due date." in render_markdown(buggy_result())
    shown = render_markdown(buggy_result(), show_after_due=True)
    assert "AFTER-DUE-MESSAGE" in shown and "after the due date" not in shown


def test_markdown_in_chinese() -> None:
    text = render_markdown(buggy_result(lang="zh"), "zh")
    assert "# bob 的评分反馈" in text
    assert "| A. 缩放点积注意力 | 2 / 6 |" in text
    assert "你把分数除以了 d_model" in text
    assert "随机种子：987654" in text


def test_markdown_keeps_student_text_inert() -> None:
    result = replace(buggy_result(), output="```\n<img src=x onerror=alert(1)>\n````")
    text = render_markdown(result)
    fence = re.search(r"^(`{3,})text$", text, re.MULTILINE).group(1)
    assert len(fence) > 4  # longer than any backtick run in the output, so it cannot be closed early
    outside = text.replace(result.output, "")
    assert "<script" not in outside and "<img" not in outside
    assert "&lt;script>" in outside  # the message's <script> is escaped (its `>` starts nothing)


def test_markdown_for_a_submission_that_could_not_be_graded() -> None:
    text = render_markdown(errored_result())
    assert "Your submission could not be graded: the zip archive has a path that escapes it" in text
    assert "**Score: 0 / 0 (0.0%)**" in text
    assert "--seed" not in text and "Diagnosed mistakes" not in text  # nothing ran: nothing to reproduce or diagnose


# --- html -----------------------------------------------------------------------------------------

@pytest.fixture
def bob_dir(tmp_path: Path) -> Path:
    result = buggy_result()
    write_heatmaps(tmp_path, result.artifacts[0])
    return tmp_path


def test_html_escapes_everything_the_student_wrote(bob_dir: Path) -> None:
    page = render_html(buggy_result(), bob_dir)
    assert "<script" not in page.lower()
    assert "&lt;script&gt;alert(&#39;pwned&#39;)&lt;/script&gt;" in page  # Jinja2's escape (markupsafe) spells ' as &#39;
    assert "&lt;b&gt;bold?&lt;/b&gt; &amp; done" in page


def test_what_the_student_sees_carries_no_grading_time(bob_dir: Path) -> None:
    """qa20h h06: a Part F forward slept 4 + 4·W_q[0, 0] s, and the page's "Graded in 3.5 s" (and
    results.json's execution_time, to the millisecond) gave the private weight back."""
    from autograder.feedback.formats.gradescope import to_gradescope
    from autograder.feedback.formats.prairielearn import to_prairielearn

    result = replace(buggy_result(), execution_time=3.538)
    shown = render_html(result, bob_dir) + render_markdown(result) + str(to_gradescope(result)) + str(to_prairielearn(result))
    assert "3.5" not in shown and "execution_time" not in shown


def test_html_escapes_the_submission_name(bob_dir: Path) -> None:
    page = render_html(replace(buggy_result(), submission='"><svg onload=alert(1)>'), bob_dir)
    assert "<svg" not in page


def test_html_inlines_the_three_heatmaps_and_fetches_nothing(bob_dir: Path) -> None:
    page = render_html(buggy_result(), bob_dir)
    assert len(re.findall(r'<img src="data:image/png;base64,', page)) == 3
    assert "heatmaps/" not in page
    assert not re.search(r"(src|href)=\"(?!data:)", page)
    assert "Content-Security-Policy" in page and "default-src 'none'" in page
    assert "similarity 0.710" in page and "Difference (yours − reference)" in page


def test_html_does_not_inline_files_outside_the_result_folder_or_non_pngs(tmp_path: Path) -> None:
    result_dir = tmp_path / "bob"
    (result_dir / "heatmaps").mkdir(parents=True)
    (tmp_path / "secret.png").write_bytes(plotting.render_heatmap([[1.0]], None, None))
    (result_dir / "heatmaps" / "fake.png").write_text("not a png")
    artifact = replace(
        buggy_result().artifacts[0],
        student="../secret.png", reference="heatmaps/fake.png", difference="heatmaps/none.png",
    )
    page = render_html(replace(buggy_result(), artifacts=(artifact,)), result_dir)
    assert "data:image/png" not in page
    assert page.count("(image not available)") == 3


def test_html_hidden_check_shows_name_and_points_only(bob_dir: Path) -> None:
    page = render_html(buggy_result(), bob_dir)
    assert "sdpa: hidden probe" in page
    assert not [secret for secret in SECRETS if secret in page]
    assert "AFTER-DUE-MESSAGE" not in page
    assert "AFTER-DUE-MESSAGE" in render_html(buggy_result(), bob_dir, show_after_due=True)


def test_html_shows_score_parts_hint_mistake_seed_events(bob_dir: Path) -> None:
    page = render_html(buggy_result(), bob_dir)
    for text in (
        "Score: 4 / 14 (28.6%)", "A. Scaled dot-product attention", html.escape(first_hint("sdpa.values", "A.1")),
        "You divided the scores by d_model", "--seed 987654", "worker timed out after 10 s in split_heads",
        '<span class="badge failed">failed</span>', '<span class="badge error">error</span>',
    ):
        assert text in page, text


def test_html_in_chinese(bob_dir: Path) -> None:
    page = render_html(buggy_result(lang="zh"), bob_dir, "zh")
    assert '<html lang="zh-CN">' in page
    assert "bob 的评分反馈" in page and "参考实现" in page and "Noto Sans CJK SC" in page


def test_html_for_a_submission_that_could_not_be_graded(tmp_path: Path) -> None:
    page = render_html(errored_result(), tmp_path)
    assert "Your submission could not be graded: the zip archive has a path that escapes it" in page


@pytest.mark.slow
def test_every_template_ships_in_the_wheel_and_every_export(tmp_path: Path) -> None:
    templates = sorted(TEMPLATES.iterdir())
    assert {p.name for p in templates} >= {"base.html", "submission.html", "dashboard.html", "style.css"}
    source = tmp_path / "source"
    shutil.copytree(REPO / "autograder", source / "autograder", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(REPO / "pyproject.toml", source)
    subprocess.run([sys.executable, "-m", "pip", "wheel", str(source), "--no-deps", "--no-build-isolation", "-q", "-w", str(tmp_path)],
                   check=True, capture_output=True, cwd=tmp_path)
    with zipfile.ZipFile(next(tmp_path.glob("attnkit-*.whl"))) as wheel:
        unshipped = sorted({f"autograder/feedback/formats/templates/{p.name}" for p in templates} - set(wheel.namelist()))
    assert not unshipped, f"not in the wheel (pyproject.toml [tool.setuptools.package-data]): {unshipped}"
    for export, files in (("gradescope", _source_files()), ("prairielearn and grade --docker", _tree_files(REPO, GRADER_TREES))):
        missing = sorted(set(templates) - {p.resolve() for p in files})
        assert not missing, f"{export} leaves out {missing}"


# --- csv ------------------------------------------------------------------------------------------

def test_grades_csv_columns_are_stable() -> None:
    rows = list(csv.reader(io.StringIO(grades_csv(sample_batch()))))
    assert rows[0] == [
        "submission", "student_id", "score", "max_score", "percent",
        "part_A", "part_B", "part_C", "part_D", "part_E", "part_F", "part_S",
        "status", "grader_error", "seed", "execution_time", "integrity_flags",
    ]
    assert rows[0] == next(csv.reader(io.StringIO(grades_csv(BatchResult((correct_result(),))))))


def test_grades_csv_rows() -> None:
    rows = {r["submission"]: r for r in csv.DictReader(io.StringIO(grades_csv(sample_batch())))}
    assert list(rows) == ["alice", "bob", "carol"]
    assert (rows["bob"]["score"], rows["bob"]["max_score"], rows["bob"]["percent"]) == ("4", "14", "28.57")
    assert (rows["bob"]["part_A"], rows["bob"]["part_C"], rows["bob"]["part_D"]) == ("2", "0", "")
    assert rows["bob"]["status"] == "graded" and rows["bob"]["seed"] == "987654"
    carol = rows["carol"]
    assert carol["status"] == "error" and carol["score"] == "" and carol["percent"] == ""
    assert carol["grader_error"].startswith("the zip archive has a path that escapes it")


def test_grades_csv_neutralises_formulas_in_names() -> None:
    batch = BatchResult((correct_result('=HYPERLINK("http://x")'),))
    row = next(csv.DictReader(io.StringIO(grades_csv(batch))))
    assert row["submission"] == "'=HYPERLINK(\"http://x\")"


def test_grades_csv_appends_unknown_parts_after_known_ones() -> None:
    result = SubmissionResult("dave", "/d.py", 1, checks=(check("extra.one", "X"),))
    header = grades_csv(BatchResult((result,))).splitlines()[0].split(",")
    assert header.index("part_X") == header.index("part_S") + 1


# --- report / dashboard ---------------------------------------------------------------------------

def test_write_report_writes_everything(tmp_path: Path) -> None:
    write_sample_out(tmp_path)
    index = write_report(tmp_path)
    assert index == tmp_path / "index.html"
    for name in ("alice", "bob", "carol"):
        assert (tmp_path / name / "feedback.html").is_file() and (tmp_path / name / "feedback.md").is_file()
        assert f'href="{name}/feedback.html"' in index.read_text()
    assert (tmp_path / "grades.csv").read_text() == grades_csv(sample_batch())
    assert "| bob | 4/14 | 28.6 |" in (tmp_path / "summary.md").read_text()
    assert not list(tmp_path.rglob(".*"))  # no temporary files left behind by the atomic writes


def test_dashboard_ranks_mistakes_by_how_many_made_them() -> None:
    twice = replace(buggy_result("erin"), checks=buggy_result().checks[:2])
    batch = BatchResult((*sample_batch().submissions, twice))
    page = render_dashboard(batch)
    assert page.index("scale_by_d") < page.index("hidden_only_mistake")
    assert re.search(r"scale_by_d</b><br>You divided.*?2 / 3", page)
    assert "3 graded, 1 failed to grade" in page


def test_dashboard_lists_failures_with_reasons_and_slowest_first() -> None:
    page = render_dashboard(sample_batch())
    failed = page[page.index("Failed to grade"):page.index("Slowest submissions")]
    assert "carol" in failed and "the zip archive has a path that escapes it" in failed
    slowest = page[page.index("Slowest submissions"):page.index("All submissions")]
    assert slowest.index("bob") < slowest.index("alice") < slowest.index("carol")
    assert len(re.findall(r'<img src="data:image/png;base64,', page)) == 1


def test_dashboard_pass_rates() -> None:
    page = render_dashboard(sample_batch())
    assert re.search(r"sdpa\.values</code></td><td class=\"num\">1 / 2</td>", page)
    assert re.search(r"B\. Q/K/V projections</td><td class=\"num\">2 / 2</td>", page)


def test_dashboard_uses_the_mistake_catalogue_when_there_is_one(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The catalogue is the assignment's (its manifest's `mistakes` file), found through the manifest."""
    (tmp_path / "manifest.toml").write_text('name = "catalogued"\ntitle = "C"\nstudent_file = "c.py"\nsolution = "c.py"\n'
                                            'mistakes = "mistakes.py"\n[parts.A]\ntitle = "A"\npoints = 1\n')
    (tmp_path / "mistakes.py").write_text("class Mistake:\n    def message(self, lang):\n        return f'catalogue text in {lang}'\n\n\n"
                                          "MISTAKES = {'scale_by_d': Mistake()}\n")
    monkeypatch.setenv("ATTNKIT_ASSIGNMENT", str(tmp_path))
    assert "catalogue text in zh" in render_dashboard(sample_batch(), "zh")
    assert "catalogue text in en" in render_summary(sample_batch())


def test_dashboard_escapes_names_and_reasons() -> None:
    hostile = errored_result("<script>x</script>")
    page = render_dashboard(BatchResult((hostile, replace(errored_result(), grader_error=SCRIPT))))
    assert "<script" not in page.lower()


def test_report_turns_an_unreadable_result_into_a_listed_failure(tmp_path: Path) -> None:
    write_sample_out(tmp_path)
    (tmp_path / "mallory").mkdir()
    (tmp_path / "mallory" / "attnkit.json").write_text("{not json")
    write_json_atomic(tmp_path / "oscar" / "attnkit.json", {**correct_result("oscar").to_dict(), "schema": 99})
    write_report(tmp_path)
    index = (tmp_path / "index.html").read_text()
    assert "could not read" in index and "JSONDecodeError" in index
    assert "has result schema 99" in index
    assert "could not be graded: could not read" in (tmp_path / "mallory" / "feedback.md").read_text()


def test_report_of_an_empty_folder_says_what_to_do(tmp_path: Path) -> None:
    with pytest.raises(AttnkitError, match="no graded submissions in .*: run `attnkit grade-batch"):
        write_report(tmp_path)
    with pytest.raises(AttnkitError, match="is not a folder"):
        write_report(tmp_path / "missing")
    (tmp_path / "alice.py").write_text("x = 1\n", encoding="utf-8")  # qa21p: the folder of submissions, given by mistake
    with pytest.raises(AttnkitError, match=r"it holds submissions: give `attnkit report` the --out folder that `attnkit grade-batch .* --out OUT` wrote"):
        write_report(tmp_path)


def test_report_rejects_an_unknown_language(tmp_path: Path) -> None:
    write_sample_out(tmp_path)
    with pytest.raises(AttnkitError, match="unsupported language 'fr'"):
        write_report(tmp_path, "fr")


def test_report_in_chinese(tmp_path: Path) -> None:
    write_sample_out(tmp_path, "zh")
    index = write_report(tmp_path, "zh").read_text()
    assert "班级总览" in index and "已评分 2 份，无法评分 1 份" in index
    assert "诊断出的错误" in (tmp_path / "bob" / "feedback.html").read_text()


@pytest.mark.parametrize("said", [
    "![t](http://tracker.invalid/p.png)",  # qa6h: an image fetched from anywhere whenever the feedback is viewed
    "[click](javascript:alert(1))",
    "[a]b](<http://tracker.invalid>)",
])
def test_a_students_text_in_markdown_feedback_holds_no_link_or_image(said):
    from autograder.feedback.formats.markdown import inline

    shown = inline(f"causal_mask raised ValueError: {said}")
    assert "](" not in shown and "<http" not in shown, shown


def test_a_passed_checks_carried_forward_note_is_a_note_not_what_went_wrong(tmp_path: Path) -> None:
    """qa21p: a Part F check that passed with trusted versions of earlier tasks showed its note
    under "What went wrong:" (the page, the markdown), though nothing went wrong in it."""
    carried = check("trained_maps_match", "F", message="correct given your Part D; that mistake is charged in D.1")
    failed = check("sdpa.values", "A", "failed", message="the values differ")
    result = replace(correct_result(), checks=(carried, failed))
    for page in (render_markdown(result), render_html(result, tmp_path)):
        text = re.sub(r"<[^>]+>", "", page)
        assert "Note: correct given your Part D" in text and "What went wrong: the values differ" in text
        assert "What went wrong: correct given" not in text


def test_platform_feedback_asks_nothing_the_student_cannot_run() -> None:
    """qa31p F9: on Gradescope and PrairieLearn the student cannot run `attnkit grade --seed`: the
    seed is said as the instructor's, and the page is not titled after the platform's folder."""
    from autograder.feedback.formats.gradescope import to_gradescope
    from autograder.feedback.formats.prairielearn import to_prairielearn

    result = replace(buggy_result(), submission="submission")
    for text in (to_gradescope(result)["output"], to_prairielearn(result)["message"]):
        assert "--seed" not in text and "987654 (your instructor can grade your work again with it" in text
    assert to_gradescope(result)["output"].startswith("# Feedback\n") and "Feedback for submission" not in to_gradescope(result)["output"]
    assert "`--seed 987654`" in render_markdown(result)  # the local page: the instructor's own command


def test_markdown_leaves_an_arrow_in_a_check_name_as_it_is() -> None:
    """qa31p F7: `-&gt;` reached plain-text LMS comment boxes; `<` is still made inert."""
    check = replace(buggy_result().checks[0], name="merge_heads: (B, H, S, Dh) -> (B, S, H·Dh)")
    text = render_markdown(replace(buggy_result(), checks=(check, *buggy_result().checks[1:])))
    assert "(B, H, S, Dh) -> (B, S, H·Dh)" in text and "-&gt;" not in text


def test_the_class_summary_and_dashboard_say_why_a_file_was_not_graded_in_their_language() -> None:
    """qa39p 4: `report --lang zh` left a grader error in English in summary.md and index.html."""
    from autograder.feedback.formats.dashboard import render_dashboard, render_summary
    from autograder.feedback.i18n import t
    from autograder.feedback.results import BatchResult, SubmissionResult

    error = t("submission.nul", "en", file="dave.py", student_file="attention.py")
    batch = BatchResult((SubmissionResult(submission="dave", source="dave.py", seed=1, grader_error=error),))
    chinese = t("submission.nul", "zh", file="`dave.py`", student_file="`attention.py`")
    for page in (render_summary(batch, "zh"), render_dashboard(batch, "zh")):
        assert "不是文本文件" in page and "is not a text file" not in page, page
    assert chinese.split("；")[0] in render_summary(batch, "zh")
