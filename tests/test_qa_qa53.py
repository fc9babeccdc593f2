"""qa53: round 43's changes against work it had not seen.

qa53u (headers are the fair grades): one mistake in an earlier task that leaves the later task's
values alone (NaN on a blocked row, a dtype, a device, a 2-D input refused...) beside a later task
that is right and leans on the earlier function in a style the contract allows; each c* file is
the mistake alone. A passing check is now graded again with trusted stand-ins when a task it
leans on lost points (grading/checks/plugin.py, `_undoing`), and two stand-ins did not do what the
student's own code does, so a right later task was charged:
- u01, u18: an A.3 of the student's own that takes `dropout_p=` and `training=` (as
  F.scaled_dot_product_attention's dropout does), called by C.3 with `training=self.training`.
  The stand-in took the rate and dropped in eval mode too. It now asks the student's own A.3,
  with the call's other further arguments, whether it drops at all (standins.py, `_dropout_acts`).
- u03, u04: a MultiHeadAttention that sets `self.attn_weights = None` in __init__ and stores the
  weights in forward, which D.1 reads. The stand-in served the twin's None as a setting. An
  attribute that a method other than __init__ stores is state, not a setting, and is not served
  (worker/standins.py, `_stored_by_methods`).

qa53d (headers are the fair grades): one realistic mistake at an input the checks added in round 43,
charged once and named only where its output matches. Two went unpaid: a causal mask sliced from a
512 table (d08: the checks went up to 300; now 4100 x 2, past the tables models keep), and a map
turned by its shape whose tick labels stayed (d16: only a map whose labels turned with it was
caught; now a 6 x 3 map's cells must be the weights their labels name).

qa53e: correct files on the inputs the checks added in round 43 (2-D and 5-D attention, one key,
half precision, a value without a key, dropout's kept share on two seeds, a 6 x 3 map, colour
maps of every kind that darkens all the way): full marks.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from autograder.feedback.results import SubmissionResult
from tests.corpus import assert_graded_as_expected, graded_corpus

QA = Path(__file__).resolve().parent / "qa"
UNDO, STYLES, MISTAKES = QA / "qa53u", QA / "qa53e", QA / "qa53d"


@pytest.fixture(scope="module")
def undo(tmp_path_factory) -> dict[str, SubmissionResult]:
    return graded_corpus(UNDO, tmp_path_factory.mktemp("qa53u_out"))


@pytest.fixture(scope="module")
def styles(tmp_path_factory) -> dict[str, SubmissionResult]:
    return graded_corpus(STYLES, tmp_path_factory.mktemp("qa53e_out"))


@pytest.mark.parametrize("path", sorted(UNDO.glob("*.py")), ids=lambda p: p.stem)
def test_a_right_later_task_is_not_charged_for_an_earlier_mistake(path, undo):
    assert_graded_as_expected(undo[path.stem], path)
    assert not [c.check_id for c in undo[path.stem].checks if c.message_key == "scoring_undoes"]


@pytest.fixture(scope="module")
def mistakes(tmp_path_factory) -> dict[str, SubmissionResult]:
    return graded_corpus(MISTAKES, tmp_path_factory.mktemp("qa53d_out"))


@pytest.mark.parametrize("path", sorted(MISTAKES.glob("*.py")), ids=lambda p: p.stem)
def test_a_mistake_at_a_new_input_is_charged_once_and_named_honestly(path, mistakes):
    assert_graded_as_expected(mistakes[path.stem], path)


@pytest.mark.parametrize("path", sorted(STYLES.glob("*.py")), ids=lambda p: p.stem)
def test_a_correct_style_passes_the_new_inputs(path, styles):
    assert_graded_as_expected(styles[path.stem], path)
