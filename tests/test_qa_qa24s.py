"""qa24s's files (tests/qa/qa24s/, headers as in qa16): 22 correct files and notebooks in styles no
earlier round had (baddbmm, a dataclass SelfAttention, a functools.wraps decorator, logsumexp,
cumsum masks, a match statement, tensor_split, float64 inside, staticmethod kernels, a Chinese
notebook with a class in the C.1 cell, ...) and 37 single bugs. What was wrong before (main at
5092535), and is fixed:
- b24, b32-b35: a task function that checks its arguments (a raise, an assert) before it returns
  a helper of the submission's, which a later task calls directly, was no "plain wrapper": the
  later task was charged the same bug again (C 5/28 or 8/28 instead of 25 or 28; b33 was told
  selfattn_mask_ignored, a mistake it does not make). Checks that only raise are no work now
  (worker/standins.py passed_through).
- b03: a row max clamped at 0 made a row of scores all far below zero come out all zeros and got
  100: A.2's large-scores check now also gives every row 3000 below zero.
Not fixed, noted on issue 15: n04, the same C.1 bug in a class both tasks use (`Heads(n).split(x)`
in C.1's split_heads and in C.3), which no stand-in replaces: C.3 is charged again (C 5, fair 25).
Passing a later check whose wrong values are an earlier task's own charged mistake fixed it, but
also forgave a second, separate copy of the bug (qa5x m40: A.1 and B.1 each leave out the scale:
B.1 must be charged); telling them apart needs to know that the later task ran the earlier one's
code. Left as it is: b23 (MultiHeadAttention masks with the shared -1e4 helper itself, never handing
the mask to masked_softmax: its mask check is its own, C 26).
This test grades seed 1, these files in one batch run.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from autograder.feedback.results import SubmissionResult
from tests.corpus import assert_each_bug_in_its_own_part, assert_graded_as_expected, graded_corpus

CORPUS = Path(__file__).resolve().parent / "qa" / "qa24s"
FILES = sorted(CORPUS.glob("*.py"))
NOTEBOOKS = {  # stem -> (per-part scores, mistakes named)
    "n01_helpers_in_added_cell_used_by_a1_a2_e1": ({"A": 32, "B": 10, "C": 28, "D": 12, "E": 10, "F": 8}, set()),
    "n02_bug_a2_no_shift_helper_in_added_cell_used_by_c3": ({"A": 30, "B": 10, "C": 28, "D": 12, "E": 10, "F": 8}, {"softmax_no_max_subtraction"}),
    "n03_zh_heads_class_in_c1_cell_used_by_c2_c3": ({"A": 32, "B": 10, "C": 28, "D": 12, "E": 10, "F": 8}, set()),
    "n04_bug_c1_heads_class_split_interleaved_used_by_c3": ({"A": 32, "B": 10, "C": 5, "D": 12, "E": 10, "F": 8}, {"split_interleaved"}),  # fair: C 25
}


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> dict[str, SubmissionResult]:
    return graded_corpus(CORPUS, tmp_path_factory.mktemp("qa24s_out"))


def test_the_corpus_is_whole():
    assert len(FILES) == 55 and sorted(p.stem for p in CORPUS.glob("*.ipynb")) == sorted(NOTEBOOKS)


def test_each_bug_loses_points_in_its_own_part_only():
    assert_each_bug_in_its_own_part([p for p in FILES if not p.name.startswith("b23")])  # b23: its C.3 masks with the buggy helper itself


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_each_submission_scores_its_parts_and_names_only_its_mistakes(path, graded):
    assert_graded_as_expected(graded[path.stem], path)


@pytest.mark.parametrize("stem", sorted(NOTEBOOKS))
def test_each_notebook_scores_its_parts(stem, graded):
    parts, mistakes = NOTEBOOKS[stem]
    result = graded[stem]
    assert {p.part: p.score for p in result.parts} == parts
    assert set(result.mistakes) == mistakes
