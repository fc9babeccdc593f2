"""qa33s and qa33h: unseen styles and single bugs, and a result returned in a coarse dtype.

- qa33s (143 unseen .py files and 10 notebooks: 74 correct styles, 79 single bugs; headers set from the
  grader after the helper's review). b60: tick labels set without their positions
  (`set_xticklabels([""] + tokens)`) sit one per cell on the student's own figure, where
  matplotlib's automatic ticks happen to fall on the cells, and not on the Axes given as ax=
  (0, 0.5, 1, ...): the ax= check was charged and said "has no tick labels" (E 9). The tick-label
  check now also reads the ax= drawing and says why (E 8, as b76 without the "" gets). b97: a
  block whose dropout is its attention's (the contract: "its own nn.Dropout"), D 10.
- qa33h: a result returned in bfloat16 (or float16) was given that dtype's rounding 16 times over
  (16 eps of the largest value: 12.5 % in bfloat16), so 0.9 × the right output passed the value
  checks (C 26 of 28, D 9 of 12, A.1, A.3, B.1 alike). A coarse result is now allowed one rounding
  to its dtype beside float32's: h09-h16 are charged as their float twins are; a right result cast
  to bfloat16 or float16 keeps what it had (h01 C 27, h02 D 9).
"""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from autograder.cli import main
from autograder.feedback.formats.view import caption_text, hint_text
from autograder.feedback.report import as_reported, not_compiled
from autograder.feedback.results import BatchResult, SubmissionResult
from autograder.grading.worker.client import Budget
from tests.corpus import FULL, assert_each_bug_in_its_own_part, assert_graded_as_expected, graded_corpus

QA = Path(__file__).resolve().parent / "qa"
REFERENCE = QA.parents[1] / "solutions" / "attention" / "attention.py"
CORPUS, COARSE = QA / "qa33s", QA / "qa33h"
FILES = sorted(CORPUS.glob("*.py"))
COARSE_FILES = sorted(COARSE.glob("*.py"))
NOTEBOOKS = {  # stem -> (per-part scores, mistakes named); the rest score full marks and name nothing
    "n03_bug_d1_dropout_on_sum": ({**FULL, "D": 10}, set()),
    "n04_bug_e1_labels_swapped": ({**FULL, "E": 9}, set()),
    "n05_bug_c3_value_defaults_query": ({**FULL, "C": 26}, set()),
    "n11_bug_zh_d1_no_residual": ({**FULL, "D": 1}, {"block_no_residual"}),
}


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> dict[str, SubmissionResult]:
    return graded_corpus(CORPUS, tmp_path_factory.mktemp("qa33s_out"))


@pytest.fixture(scope="module")
def coarse(tmp_path_factory) -> dict[str, SubmissionResult]:
    return graded_corpus(COARSE, tmp_path_factory.mktemp("qa33h_out"))


def test_the_corpora_are_whole():
    notebooks = sorted(p.stem for p in CORPUS.glob("*.ipynb"))
    assert (len(FILES), len(notebooks), len(COARSE_FILES)) == (143, 10, 8) and set(NOTEBOOKS) <= set(notebooks)


def test_each_bug_loses_points_in_its_own_part_only():
    assert_each_bug_in_its_own_part(FILES + COARSE_FILES)


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_each_submission_scores_its_parts_and_names_only_its_mistakes(path, graded):
    assert_graded_as_expected(graded[path.stem], path)


@pytest.mark.parametrize("stem", sorted(p.stem for p in CORPUS.glob("*.ipynb")))
def test_each_notebook_scores_its_parts(stem, graded):
    parts, mistakes = NOTEBOOKS.get(stem, (FULL, set()))
    assert {p.part: p.score for p in graded[stem].parts} == parts
    assert set(graded[stem].mistakes) == mistakes


@pytest.mark.parametrize("path", COARSE_FILES, ids=lambda p: p.stem)
def test_a_result_in_a_coarse_dtype_is_allowed_its_rounding_not_a_wrong_value(path, coarse):
    assert_graded_as_expected(coarse[path.stem], path)


def test_tick_labels_on_automatic_ticks_are_charged_in_the_tick_label_check(graded):
    for stem in ("b60_e1_ticklabels_no_ticks", "b76_e1_ticklabels_only"):
        lost = {c.check_id for c in graded[stem].checks if c.points < c.max_points}
        assert lost == {"plot_attention_tick_labels"}, (stem, lost)
    [check] = [c for c in graded["b60_e1_ticklabels_no_ticks"].checks if c.check_id == "plot_attention_tick_labels"]
    assert "automatic ticks" in check.message and "ax.set_xticks(range(Lq), labels=...)" in check.message


def test_a_constant_float16_cannot_hold_is_named_where_it_is(tmp_path, capsys):
    """qa33p 11: clamp_min(-1e30) beside a fill of -inf was told "fill with float('-inf')"."""
    path = tmp_path / "clamped.py"
    path.write_text(REFERENCE.read_text(encoding="utf-8").replace(
        "row_max = torch.where(torch.isfinite(row_max), row_max, torch.zeros_like(row_max)).detach()",
        "row_max = row_max.clamp_min(-1e30).detach()"), encoding="utf-8")
    assert main(["check", str(path), "--task", "A.2", "--seed", "1"]) == 1
    printed = capsys.readouterr().out
    assert "FAIL masked_softmax: keeps float16, bfloat16, float32, float64 without overflow" in printed
    assert "a number in `row_max = row_max.clamp_min(-1e30).detach()` does not fit in torch.float16" in printed
    assert "filled with a number float16 cannot hold" not in printed
    path.write_text(REFERENCE.read_text(encoding="utf-8").replace('float("-inf"))  # (..., Lq, Lk)', "-1e9)"), encoding="utf-8")
    assert main(["check", str(path), "--task", "A.2", "--seed", "1"]) == 1
    assert "The blocked scores are filled with a number float16 cannot hold" in capsys.readouterr().out



@pytest.mark.timing
def test_a_function_that_never_returns_costs_one_timeout_and_gets_no_task_hint(grade):
    """qa33p 19: a `while True` in A.1 timed out twice (its forward, then its backward) and each
    failure carried the task's idea as a hint ("Only the last two axes take part..."); a device
    probe that hangs stops the probing (it cost one timeout a probe)."""
    source = REFERENCE.read_text(encoding="utf-8")
    start = source.index("### BEGIN SOLUTION", source.index("def attention_scores"))
    source = source[:start] + "### BEGIN SOLUTION\n    while True:\n        pass\n" + source[start + len("### BEGIN SOLUTION\n"):]
    result = grade(source, name="a1_hangs", tasks=frozenset({"A.1"}), budget=Budget(call_seconds=3, import_seconds=30, total_seconds=300))
    failed = [c for c in result.checks if c.task == "A.1" and not c.passed]
    assert failed and all("timed out after 3 s in attention_scores" in c.message for c in failed), [c.message for c in failed]
    assert [e for e in result.events if "timed out" in e] == ["timed out after 3 s in attention_scores"], result.events
    assert not [hint_text(c, "en") for c in failed if hint_text(c, "en")]


def test_a_folder_handed_in_with_the_chinese_notebook_gets_chinese_feedback(tmp_path, monkeypatch):
    """qa33p 17: Gradescope grades its submission folder; a hand-in of attention.zh.ipynb got English."""
    monkeypatch.delenv("ATTNKIT_LANG", raising=False)
    folder = tmp_path / "submission"
    folder.mkdir()
    shutil.copy(QA.parents[1] / "assignments" / "attention" / "attention.zh.ipynb", folder)
    assert main(["grade", str(folder), "--out", str(tmp_path / "out"), "--seed", "1", "--parts", "A"]) == 0
    assert "的评分反馈" in (tmp_path / "out" / "submission" / "feedback.md").read_text(encoding="utf-8").splitlines()[0]


def test_the_heatmap_caption_promises_a_difference_only_where_one_is_drawn(grade):
    """qa33p 12: a transposed map (no difference can be drawn) was captioned "... minus those weights"."""
    examples = QA.parents[1] / "examples" / "submissions"
    for name, drawn in (("bug_heatmap_transposed", False), ("einsum_style", True)):
        result = grade(examples / f"{name}.py", name=name, parts={"E"})
        [artifact] = [a for a in result.artifacts if a.name == "plot-attention"]
        assert bool(artifact.difference) == drawn, name
        assert ("minus" in caption_text(artifact, "en"), "减去" in caption_text(artifact, "zh")) == (drawn, drawn), name


# qa34h: the red team of this round's fixes
RED = QA / "qa34h"


def test_a_scratch_file_beside_the_graded_file_does_not_make_the_hand_in_ungradable(grade):
    """s01: the released stubs beside a Python 2 scratch file nothing imports were reported "could
    not be graded" (the file that does not compile was any .py of the folder): the stubs are graded, 0."""
    result = grade(RED / "s01_stubs_plus_broken_scratch", name="s01", parts={"A"})
    assert result.score == 0 and not result.grader_error
    assert not_compiled(result) == "" and as_reported(BatchResult((result,))).submissions[0].grader_error == ""


def test_a_map_drawn_another_way_on_the_given_axes_is_charged_as_what_it_is(grade):
    """g01: transposed only when ax= is given was charged as tick labels on automatic ticks."""
    result = grade(RED / "g01_transposed_on_given_ax.py", name="g01", parts={"E"})
    [lost] = [c for c in result.checks if c.points < c.max_points]
    assert lost.check_id == "plot_attention_tick_labels" and lost.mistake == "heatmap_transposed", lost.message
