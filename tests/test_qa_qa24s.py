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
- n04 (fixed in round 25): the same C.1 bug in a class both tasks use (`Heads(n).split(x)` in C.1's
  split_heads and in C.3), which no stand-in replaces, was charged again in C.3 (C 5, fair 25). A
  later check that still fails with the stand-ins now passes when it passes against the reference
  with that earlier task's charged catalogue mistake planted, and the later task's code can run
  code of the earlier task's own (read in the worker: standins.code_reach); a second copy of the
  mistake in the later task's own code is charged again (qa5x m40: B.1 shares no code with A.1).
  The same rule charges b23 once (MultiHeadAttention masks with A.2's shared -1e4 helper itself:
  round 24 judged its mask check C.3's own, C 26; now C 28).
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
    # exp() of the unshifted scores before the mask: also a NaN gradient past a blocked score far above the rest (round 36)
    "n02_bug_a2_no_shift_helper_in_added_cell_used_by_c3": ({"A": 29, "B": 10, "C": 28, "D": 12, "E": 10, "F": 8}, {"softmax_no_max_subtraction"}),
    "n03_zh_heads_class_in_c1_cell_used_by_c2_c3": ({"A": 32, "B": 10, "C": 28, "D": 12, "E": 10, "F": 8}, set()),
    "n04_bug_c1_heads_class_split_interleaved_used_by_c3": ({"A": 32, "B": 10, "C": 25, "D": 12, "E": 10, "F": 8}, {"split_interleaved"}),
}


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> dict[str, SubmissionResult]:
    return graded_corpus(CORPUS, tmp_path_factory.mktemp("qa24s_out"))


def test_the_corpus_is_whole():
    assert len(FILES) == 55 and sorted(p.stem for p in CORPUS.glob("*.ipynb")) == sorted(NOTEBOOKS)


def test_each_bug_loses_points_in_its_own_part_only():
    assert_each_bug_in_its_own_part(FILES)


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_each_submission_scores_its_parts_and_names_only_its_mistakes(path, graded):
    assert_graded_as_expected(graded[path.stem], path)


@pytest.mark.parametrize("stem", sorted(NOTEBOOKS))
def test_each_notebook_scores_its_parts(stem, graded):
    parts, mistakes = NOTEBOOKS[stem]
    result = graded[stem]
    assert {p.part: p.score for p in result.parts} == parts
    assert set(result.mistakes) == mistakes
