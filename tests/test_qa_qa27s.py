"""qa27s's files (tests/qa/qa27s/, headers as in qa16): 13 correct files (extra optional forward
arguments, named tuples returned, layers deep-copied from one prototype, a Linear subclass, a
SelfAttention built from one-head split_heads and merge_heads, ...), all 100, and 22 single bugs
in the projections, heads, dropout and norm of B.1, C.3 and D.1. What was wrong before (main at
b81320e), and is fixed:
- b18: a helper both SelfAttention and MultiHeadAttention use, scaling scores by d, cost C 20 after
  B 9; b14 and b17 (a helper or a mixin class that projects the values with W_k, used by both)
  cost C 20. A mistake charged in B.1 now answers for a failing C.3 or D.1 check where their code
  shares code of B.1's own (apart from the A tasks it calls, which have stand-ins):
  carried.SHARED_WITH, dispatcher op_shared_code's `besides`. b14 and b17 then still lost C.3's
  training-mode dropout check (2), which computed V with W_v itself: it now reads the weights and V
  from the reference (part_c.dropped_weights_explain), where the mistake is planted.
- b19-b21: a C.1 or C.2 bug cost B.1 points too where SelfAttention is built from split_heads and
  merge_heads: B.1's checks now run again with stand-ins for them (carried.EARLIER["B.1"]).
Left open: b22, a dropout helper both C.3 and D.1 use that ignores eval mode: D.1's eval-mode check
fails on two different outputs before it compares with a reference (D 10).
This test grades seed 1, these files in one batch run.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from autograder.feedback.results import SubmissionResult
from tests.corpus import assert_each_bug_in_its_own_part, assert_graded_as_expected, graded_corpus

CORPUS = Path(__file__).resolve().parent / "qa" / "qa27s"
FILES = sorted(CORPUS.glob("*.py"))
NOT_SINGLE = ("b22_",)  # left open (see above)


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> dict[str, SubmissionResult]:
    return graded_corpus(CORPUS, tmp_path_factory.mktemp("qa27s_out"))


def test_the_corpus_is_whole():
    assert len(FILES) == 35


def test_each_bug_loses_points_in_its_own_part_only():
    assert_each_bug_in_its_own_part([p for p in FILES if not p.name.startswith(NOT_SINGLE)])


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_each_submission_scores_its_parts_and_names_only_its_mistakes(path, graded):
    assert_graded_as_expected(graded[path.stem], path)


def test_a_later_check_charged_through_a_helper_b1_shares_says_where(graded):
    carried = [c for c in graded["b18_b1_shared_scores_helper_scaled_by_d"].checks if c.task == "C.3" and c.message]
    assert carried and all(c.passed and c.message == "correct given your Part B; that mistake is charged in B.1" for c in carried)
