"""qa26s's files (tests/qa/qa26s/, headers as in qa16; the notebooks' below): 46 correct files and
a notebook in styles no earlier round had (row sums as `exp @ ones`, the row max by topk, a float32
upcast and back, an additive -inf bias in C.3, an axes_grid1 colour bar, FuncFormatter labels, a
persistent buffer in the block, ...), all 100, and 49 single bugs, each charged in its own part.
What was wrong before (main at b81320e), and is fixed:
- b15: queries from W_k, values from their own W_v, was told "the same projection is used for Q, K
  and V": a mistake was named from the weights alone, which one projection for all three gives too.
  A variant's weights now name its mistake only where the call's output is that variant's as well
  (b49, a norm before the attention and after the residual, is no longer told pre-norm: its
  output is not pre-norm's). b48 (keys from W_q) is that mistake's variant; its message now says
  two or more of Q, K and V share a projection.
- b14 (bias=False in B.1) and b29 (a LayerNorm without weight and bias) lost the shapes point, which
  wrong values keep: the shapes checks of B.1, C.3 and D.1 now run the module with its own weights.
b46 casts C.3's output to float32: the contract states no dtype for it, so it costs nothing.
This test grades seed 1, these files in one batch run.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from autograder.feedback.results import SubmissionResult
from tests.corpus import assert_each_bug_in_its_own_part, assert_graded_as_expected, graded_corpus

CORPUS = Path(__file__).resolve().parent / "qa" / "qa26s"
FILES = sorted(CORPUS.glob("*.py"))
NOT_SINGLE = ("b46_",)  # no bug by the contract
NOTEBOOKS = {  # stem -> (per-part scores, mistakes named)
    "n01_correct_helpers_in_added_cell": ({"A": 32, "B": 10, "C": 28, "D": 12, "E": 10, "F": 8}, set()),
    "n02_bug_c2_merge_no_transpose_helper_cell": ({"A": 32, "B": 10, "C": 25, "D": 12, "E": 10, "F": 8}, {"merge_no_transpose"}),
}


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> dict[str, SubmissionResult]:
    return graded_corpus(CORPUS, tmp_path_factory.mktemp("qa26s_out"))


def test_the_corpus_is_whole():
    assert len(FILES) == 95 and sorted(p.stem for p in CORPUS.glob("*.ipynb")) == sorted(NOTEBOOKS)


def test_each_bug_loses_points_in_its_own_part_only():
    assert_each_bug_in_its_own_part([p for p in FILES if not p.name.startswith(NOT_SINGLE)])


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_each_submission_scores_its_parts_and_names_only_its_mistakes(path, graded):
    assert_graded_as_expected(graded[path.stem], path)


@pytest.mark.parametrize("stem", sorted(NOTEBOOKS))
def test_each_notebook_scores_its_parts(stem, graded):
    parts, mistakes = NOTEBOOKS[stem]
    result = graded[stem]
    assert {p.part: p.score for p in result.parts} == parts
    assert set(result.mistakes) == mistakes


@pytest.mark.parametrize(("stem", "shapes"), [("b14_b1_no_bias", "self_attention_shapes"), ("b29_d1_norm_without_affine", "block_shapes")])
def test_layers_made_without_parameters_keep_the_shapes_point(stem, shapes, graded):
    checks = {c.check_id: c for c in graded[stem].checks}
    assert checks[shapes].passed
    assert not any(c.passed for c in checks.values() if c.task == checks[shapes].task and c.check_id != shapes)


def test_the_shared_projection_is_named_only_where_the_output_is_its_own(graded):
    messages = [c.message for c in graded["b48_b1_keys_from_query_projection"].checks if c.mistake == "selfattn_shared_projection"]
    assert messages and all("two or more of Q, K and V" in m for m in messages)
    assert not graded["b15_b1_queries_from_key_projection"].mistakes
