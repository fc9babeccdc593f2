"""One language per page (issue 11, item 6): check names, hints and messages exist in English and
Chinese; a result stores message keys and values; `--lang zh` pages hold no English sentence."""
from __future__ import annotations

import html
import json
import re
import string
from pathlib import Path

import pytest

from autograder.assignments.attention.texts import CHECK_TEXTS, MESSAGES, render_message
from autograder.grading.checks.plugin import CheckFailure
from autograder.feedback.formats.html import render_html
from autograder.feedback.formats.markdown import render_markdown
from autograder.feedback.results import CheckResult, SubmissionResult
from autograder.assignments.attention.mutants import MUTANTS
from autograder.authoring.examples import apply

REPO = Path(__file__).resolve().parents[1]
CHECKS = REPO / "autograder" / "assignments" / "attention" / "checks"
EXAMPLES = REPO / "examples" / "submissions"
BLANK = REPO / "assignments" / "attention" / "attention.py"
# A word of prose: lower case, perhaps capitalised ("the", "Blocked"); shape symbols (B, Lq) and
# identifiers (MultiHeadAttention, W_q) are not.
ENGLISH_WORD = re.compile(r"^\(?(?:[A-Za-z]?[a-z]{2,}|a|I)[,.;:!?)]*$")
SENTENCE_WORDS = 3  # three English words in a row outside code make an English sentence


def english_runs(text: str) -> list[str]:
    """Runs of SENTENCE_WORDS or more English words in a row (code, URLs and tags removed first)."""
    runs, current = [], []
    for token in text.split():
        if ENGLISH_WORD.match(token):
            current.append(token)
            continue
        if len(current) >= SENTENCE_WORDS:
            runs.append(" ".join(current))
        current = []
    if len(current) >= SENTENCE_WORDS:
        runs.append(" ".join(current))
    return runs


def markdown_prose(text: str) -> str:
    text = re.sub(r"^(`{3,}).*?^\1", " ", text, flags=re.DOTALL | re.MULTILINE)  # fenced blocks
    return re.sub(r"(`+).+?\1", " ", text)  # code spans


def html_prose(text: str) -> str:
    text = re.sub(r"<(style|script|pre|code|title)\b.*?</\1>", " ", text, flags=re.DOTALL)
    text = re.sub(r"<[^>]+>", " ", text)
    return html.unescape(text)


def _check_ids_and_infos() -> dict[str, object]:
    """Every @check in autograder/assignments/attention/checks/part_*.py: {check id: CheckInfo}."""
    import importlib

    found = {}
    for path in sorted(CHECKS.glob("part_*.py")):
        module = importlib.import_module(f"autograder.assignments.attention.checks.{path.stem}")
        for name, function in vars(module).items():
            marks = [m for m in getattr(function, "pytestmark", []) if m.name == "attnkit_check"]
            if name.startswith("test_") and marks:
                found[name.removeprefix("test_")] = marks[0].args[0]
    return found


def test_every_check_has_a_chinese_name():
    infos = _check_ids_and_infos()
    assert len(infos) > 50
    missing = sorted(set(infos) - set(CHECK_TEXTS))
    assert not missing, f"checks without Chinese text in autograder/assignments/attention/texts.py: {missing}"
    stale = sorted(set(CHECK_TEXTS) - set(infos))
    assert not stale, f"Chinese text for checks that no longer exist: {stale}"


def test_every_message_has_both_languages_and_the_same_arguments():
    for key, templates in MESSAGES.items():
        assert set(templates) == {"en", "zh"}, key
        english_fields = {f for _, f, _, _ in string.Formatter().parse(templates["en"]) if f}
        chinese_fields = {f for _, f, _, _ in string.Formatter().parse(templates["zh"]) if f}
        assert chinese_fields <= english_fields, f"{key}: the Chinese text uses arguments the English one does not have"
        assert not english_runs(markdown_prose(templates["zh"])), f"{key}: English words in the Chinese text"


def test_a_result_stores_keys_and_values_and_renders_either_language(tmp_path):
    failure = CheckFailure.keyed("wrong_shape", where="MultiHeadAttention.forward in training mode", got="(2, 4)", expected="(2, 5)")
    check = CheckResult(
        check_id="mha_shapes", name="MultiHeadAttention: output (B, Lq, E), weights per head (B, H, Lq, Lk)", part="C", task="C.3",
        points=0.0, max_points=1.0, status="failed", message=failure.message, hint="return the weights of every head, not their average",
        message_key=failure.key, message_args=failure.values,
    )
    result = SubmissionResult(submission="alice", source="alice.py", seed=1, checks=(check,))
    stored = SubmissionResult.from_dict(json.loads(json.dumps(result.to_dict())))
    assert stored.checks[0].message_key == "wrong_shape" and stored.checks[0].message_args["got"] == "(2, 4)"
    english_page, chinese_page = render_markdown(stored, "en"), render_markdown(stored, "zh")
    assert "MultiHeadAttention.forward in training mode returned shape (2, 4), expected (2, 5)" in english_page
    assert render_message("wrong_shape", failure.values, "zh") in chinese_page
    assert "`MultiHeadAttention.forward`（训练模式） 返回的形状是 `(2, 4)`，应为 `(2, 5)`" in chinese_page
    assert not english_runs(markdown_prose(chinese_page)), english_runs(markdown_prose(chinese_page))


def test_english_text_without_a_key_stays_off_a_chinese_page():
    check = CheckResult(check_id="mha_values", name="x", part="C", task="C.3", points=0.0, max_points=3.0, status="failed",
                        message="MultiHeadAttention.forward returned something odd that only English explains")
    page = render_markdown(SubmissionResult(submission="bob", source="bob.py", seed=1, checks=(check,)), "zh")
    assert "only English explains" not in page
    assert "这一项检查没有通过" in page


def _bugs() -> str:
    """The reference with one bug in each of Parts A, C and D."""
    source = (REPO / "solutions" / "attention" / "attention.py").read_text(encoding="utf-8")
    for key in ("mask_inverted", "split_no_transpose", "block_pre_norm"):
        source = apply(source, MUTANTS[key])
    return source


@pytest.mark.parametrize("name", ["blank", "three_bugs", "bug_heatmap_transposed", "bug_dropout_in_eval"])
def test_chinese_feedback_pages_hold_no_english_sentence(name, grade, tmp_path):
    submission = {"blank": BLANK, "three_bugs": _bugs()}.get(name, EXAMPLES / f"{name}.py")
    result = grade(submission, name=name)
    failed = [c for c in result.checks if not c.passed]
    assert failed, f"{name} should fail some checks, so that their messages are on the page"
    markdown, page = render_markdown(result, "zh", show_after_due=True), render_html(result, tmp_path, "zh", show_after_due=True)
    assert not english_runs(markdown_prose(markdown)), english_runs(markdown_prose(markdown))
    assert not english_runs(html_prose(page)), english_runs(html_prose(page))
    english = render_markdown(result, "en", show_after_due=True)
    assert english_runs(markdown_prose(english)), "the detector must find the English page's sentences"


def test_an_unreadable_figure_is_explained_in_chinese(grade, reference_source, tmp_path):
    drawing = 'image = ax.imshow(matrix.T.numpy(), cmap="Blues", vmin=0.0, vmax=1.0, aspect="auto")  # (Lk, Lq)'
    assert reference_source.count(drawing) == 1
    source = reference_source.replace(drawing, 'ax.plot([0, 1])\n    image = plt.cm.ScalarMappable(cmap="Blues")')
    result = grade(source, name="no_heatmap", parts={"E"})
    keys = {c.message_key for c in result.checks if not c.passed}
    assert keys == {"plot_no_heatmap"}, keys
    page = render_markdown(result, "zh")
    assert "上没有热力图" in page and not english_runs(markdown_prose(page)), english_runs(markdown_prose(page))


F_ONLY_BUGS = (  # right where Parts D and E look (float64 blocks, the probe's title); wrong in Part F
    ("attended, weights = self.attn(x, mask=mask)", "attended, weights = self.attn(self.norm(x) if x.dtype == torch.float32 else x, mask=mask)"),
    ("    if ax is None:\n", "    if title and title.startswith('“'):\n        return None\n    if ax is None:\n"),
)


def test_part_f_failures_are_told_in_chinese(grade, reference_source):
    """Part F's own failures (what Parts D and E did not see) are keyed messages, shown in Chinese
    with their numbers, the mistake the maps match, and why the drawing could not be read."""
    source = reference_source
    for old, new in F_ONLY_BUGS:
        assert source.count(old) == 1, old
        source = source.replace(old, new)
    result = grade(source, name="f_only_bugs", parts={"D", "E", "F"})
    assert all(c.passed for c in result.checks if c.part in "DE"), [c.message for c in result.checks if c.part in "DE" and not c.passed]
    failed = [c for c in result.checks if not c.passed]
    assert {c.task for c in failed} >= {"F.1", "F.2"}, [c.message for c in failed]
    unkeyed = [c.message for c in failed if c.message_key not in MESSAGES]
    assert not unkeyed, f"Part F messages with no Chinese text: {unkeyed}"
    page = render_markdown(result, "zh")
    section = page[page.index("### F"):]
    for check in failed:
        assert render_message(check.message_key, check.message_args, "zh") in section, check.message_key
    assert "block_pre_norm" in {c.mistake for c in failed}, "the mistake the maps match is named"
    assert "plot_attention 没有返回它所画的 Axes" in section
    assert not english_runs(markdown_prose(page)), english_runs(markdown_prose(page))


@pytest.mark.parametrize("missing, en, zh", [
    (["horizontal", "vertical"], "no label on the horizontal and vertical axes: ", "横轴和纵轴没有标签"),
    (["vertical"], "no label on the vertical axis: ", "纵轴没有标签"),
])
def test_the_axis_label_message_agrees_in_number_in_english_and_names_the_axes_in_chinese(missing, en, zh):
    """QA: "the horizontal and vertical axis has no label"."""
    from autograder.assignments.attention.checks.part_e import axes_named
    from autograder.assignments.attention.texts import english

    which = axes_named(missing)
    assert english("axis_unlabelled", which=which).startswith(en)
    assert render_message("axis_unlabelled", {"which": which}, "zh").startswith(zh)
    assert english("ticks_not_per_cell", which=which).startswith(f"the ticks of the {which} do not sit")
