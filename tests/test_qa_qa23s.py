"""qa23s's files (tests/qa/qa23s/, headers as in qa16): a task function that only hands its
parameters on to a helper of the submission's (`def attention_scores(q, k): return scaled_dot(q,
k)`), or to an object of its own class (`return _softmax(scores, mask)`), while a later task calls
that helper directly. The later task's check, graded again with a stand-in for the earlier task,
still ran the helper, and so the same bug again.
What was wrong before (main at f42378c), and is fixed:
- b01 (A.1 divides by d): A 27 and C 8/28 (75); b02 (A.2 inverts the mask): C 24/28; b03 (A.3
  drops the mask): B 8/10, told selfattn_mask_ignored ("pass it on to the attention", which it
  does); b04 (an nn.Module softmax object shared with C.3): C 8/28. The helper or object a task
  function is a plain wrapper of now stands in with it (worker/standins.py passed_through): each
  is charged in its own task only.
- n01, the notebook of b01 (the helper in A.1's answer cell, where the notebook's rules put
  helpers): 75 -> 95.
Not fixed (noted on the issue): b05 of qa23s (A.2's row max taken over the blocked keys too, so
a blocked key far above the allowed ones makes every allowed weight underflow) gets 100. A check
that blocks each row's largest key, far above the rest, also charged two files earlier QA rounds
judged correct (qa4s c11, qa7s c17: the softmax over every key, then the blocked ones zeroed and
the row renormalised): which one the contract means is a decision for its authors.
- c01, the same helper without the bug: 100 before and after.
This test grades seed 1, these files in one batch run.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from autograder.feedback.results import SubmissionResult
from autograder.grading.worker.standins import passed_through
from tests.corpus import assert_each_bug_in_its_own_part, assert_graded_as_expected, graded_corpus

CORPUS = Path(__file__).resolve().parent / "qa" / "qa23s"
FILES = sorted(CORPUS.glob("*.py"))
NOTEBOOK = CORPUS / "n01_a1_helper_in_a1_cell_used_by_c3.ipynb"


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> dict[str, SubmissionResult]:
    return graded_corpus(CORPUS, tmp_path_factory.mktemp("qa23s_out"))


def test_each_bug_loses_points_in_its_own_part_only():
    assert len(FILES) == 5
    assert_each_bug_in_its_own_part(FILES)


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_each_submission_scores_its_parts_and_names_only_its_mistakes(path, graded):
    assert_graded_as_expected(graded[path.stem], path)


def test_the_notebook_with_its_helper_in_the_answer_cell_is_charged_once(graded):
    result = graded[NOTEBOOK.stem]
    assert {p.part: p.score for p in result.parts} == {"A": 27, "B": 10, "C": 28, "D": 12, "E": 10, "F": 8}
    assert set(result.mistakes) == {"scores_scaled_by_d"}


def _scores(q, k):
    return q @ k


def _wrapper(q, k):
    """A docstring and annotations are no work."""
    return _scores(q, k)


def _reordered(q, k):
    return _scores(k, q)


def _more(q, k):
    return _scores(q, k) * 2


def _default(q, k=None):
    return _scores(q, k)


def test_a_plain_wrapper_is_told_apart_from_a_function_that_does_work():
    assert passed_through(_wrapper) is _scores and passed_through(_default) is _scores
    assert passed_through(_reordered) is None and passed_through(_more) is None and passed_through(_scores) is None
    assert passed_through(lambda q, k: _scores(q, k)) is _scores


def _checked(q, k):
    if q.shape[-1] != k.shape[-1]:
        raise ValueError("q and k differ in size")
    assert q.dtype.is_floating_point
    return _scores(q, k)


def _rebound(q, k):
    q = q.float()
    return _scores(q, k)


def _two_ways_out(q, k):
    if q is None:
        return k
    return _scores(q, k)


def _swapped(q, k):
    q, k = k, q
    return _scores(q, k)


def test_checks_before_the_call_are_no_work_but_a_rebound_parameter_or_a_second_way_out_is():
    assert passed_through(_checked) is _scores  # qa24s b24, b32-b35: a shape check, then the helper
    assert passed_through(_rebound) is None and passed_through(_two_ways_out) is None and passed_through(_swapped) is None
