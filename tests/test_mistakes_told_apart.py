"""A mistake is named only where its output matches, and charged once, in its own check (qa2's
findings 6-8 on submissions nobody had shown the kit). Each submission's essence is a small
source edit of the reference (autograder.authoring.examples.Mutant), graded as a student's file.
"""
from __future__ import annotations

import pytest

from autograder.assignments.attention.mutants import BLOCK_ATTN, MASK_FILL, MUTANTS, SAFE_TOTAL
from autograder.authoring.examples import Mutant, apply
from autograder.feedback.results import SubmissionResult


def failed(result: SubmissionResult) -> dict[str, str]:
    """check id -> message, for every check that lost points."""
    return {c.check_id: c.message for c in result.checks if c.points < c.max_points}


# bugs/c03: blocked keys zeroed after exp (the maximum taken over every key), no guard for a row
# whose weights are all 0. A fully blocked row gives 0/0 = NaN, charged by its own check; with
# float16 scores ×20 a row's allowed keys can all underflow below a blocked maximum, which the
# dtype check named "softmax_no_max_subtraction" (the code subtracts the maximum) on 337 of 500 seeds.
MASK_AFTER_EXP = Mutant("c03_mask_after_exp", "A", (
    (MASK_FILL, "pass"),
    ("exp = torch.exp(scores - row_max)", "exp = torch.exp(scores - row_max) if mask is None else torch.exp(scores - row_max) * mask"),
    (SAFE_TOTAL, ""),
))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_nan_from_blocked_keys_is_charged_in_the_fully_blocked_check_not_the_dtype_check(seed, grade, reference_source):
    result = grade(apply(reference_source, MASK_AFTER_EXP), name="c03", seed=seed, parts={"A"})
    lost = failed(result)
    assert "masked_softmax_fully_blocked" in lost and "masked_softmax_dtypes" not in lost, lost
    assert not any("subtract each row's maximum" in message for message in lost.values()), lost


# bugs/c14: W_o forgotten, dropout right. The training-mode check explained its wrong output as
# dropout in the wrong place; dropout placement is explained only when the output without dropout
# is right, and the mistake it names is the missing W_o.
def test_a_wrong_output_is_not_explained_as_dropout_in_the_wrong_place(grade, reference_source):
    result = grade(apply(reference_source, MUTANTS["mha_no_output_projection"]), name="c14", parts={"C"})
    check = next(c for c in result.checks if c.check_id == "mha_train_dropout")
    assert not check.passed and check.message_key != "mha_dropout_not_on_weights", check.message
    assert check.mistake == "mha_no_output_projection", check.message


# bugs/c21: the block passes its mask positionally, where MultiHeadAttention takes key. Run again
# with the kit's trusted MultiHeadAttention, the mask reaches it as key: the student read the
# stand-in's internal "raised StandInError: expected floating-point tensors".
def test_what_a_trusted_stand_in_refuses_is_said_in_the_students_terms(grade, reference_source):
    source = apply(reference_source, Mutant("c21_mask_as_key", "D", ((BLOCK_ATTN, "attended, weights = self.attn(x, mask)"),)))
    result = grade(source, name="c21", parts={"D"})
    check = next(c for c in result.checks if c.check_id == "block_mask")
    assert not check.passed and "StandIn" not in check.message, check.message
    assert check.message_key == "stand_in_refused", check.message
    assert "the trusted MultiHeadAttention" in check.message and "key is a torch.bool tensor" in check.message, check.message
    assert "self.attn(x, mask)" in check.message, check.message  # the student's line


# qa3s a2_additive_inf_times_mask: the mask added as (~mask) * -inf, where 0 * -inf = NaN at every
# allowed key. The mask check said "blocked keys got a non-zero weight" (NaN != 0) and the
# fully-blocked checks named fully_masked_nan (a guard for the all-blocked row) for NaN in every row.
# NaN beyond the fully blocked row is said as NaN, and no mistake is named for it.
ADDITIVE_NAN_MASK = Mutant("a2_additive_inf_times_mask", "A", (
    (MASK_FILL, 'scores = scores + (~mask).to(scores.dtype) * float("-inf")'),
))


def test_nan_at_allowed_keys_is_said_as_nan_not_as_blocked_weight_or_a_fully_blocked_row(grade, reference_source):
    result = grade(apply(reference_source, ADDITIVE_NAN_MASK), name="a2_additive", parts={"A"})
    checks = {c.check_id: c for c in result.checks if c.task == "A.2"}
    assert checks["masked_softmax_mask"].message_key == "nan_values", checks["masked_softmax_mask"].message
    for check_id in ("masked_softmax_fully_blocked", "masked_softmax_fully_blocked_gradient"):
        check = checks[check_id]
        assert not check.passed and check.mistake != "fully_masked_nan", check.message


def test_nan_only_in_the_fully_blocked_row_is_still_named(grade, reference_source):
    result = grade(apply(reference_source, MUTANTS["fully_masked_nan"]), name="fully_masked_nan", parts={"A"})
    check = next(c for c in result.checks if c.check_id == "masked_softmax_fully_blocked")
    assert check.mistake == "fully_masked_nan", check.message
