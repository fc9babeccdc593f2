"""qa49: a style the grader had not seen, after the guards of rounds 35-39 (traces, profiles, the
vjp's watch, the repairs of shared helpers, the static pass).

qa49e: 23 correct files, each combining several styles the contract allows (einsum, bmm and
baddbmm, a logsumexp softmax, additive and multiplicative masks, mixins, base classes, a module
lambda, functools.partial, ModuleDict aliases, a scale buffer, a cached causal mask, NamedTuple
results, a loop over heads, setattr'd projections, ...): full marks each.

qa49s: 24 single mistakes over every task, in one unusual style (einsum scores, a logsumexp
softmax, torch.where masks, bmm, heads by stack/split), and its control: each charged once, in
its task, with the mistakes its output matches named. s24's float16 softmax is infinite, and its
message said "largest error 1.8e+308" (the largest float) instead of inf.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from autograder.feedback.results import SubmissionResult
from tests.corpus import assert_graded_as_expected, graded_corpus

QA = Path(__file__).resolve().parent / "qa"
CORRECT, SINGLE = QA / "qa49e", QA / "qa49s"


@pytest.fixture(scope="module")
def correct(tmp_path_factory) -> dict[str, SubmissionResult]:
    return graded_corpus(CORRECT, tmp_path_factory.mktemp("qa49e_out"))


@pytest.fixture(scope="module")
def single(tmp_path_factory) -> dict[str, SubmissionResult]:
    return graded_corpus(SINGLE, tmp_path_factory.mktemp("qa49s_out"))


@pytest.mark.parametrize("path", sorted(CORRECT.glob("*.py")), ids=lambda p: p.stem)
def test_each_correct_style_gets_full_marks(path, correct):
    assert_graded_as_expected(correct[path.stem], path)


@pytest.mark.parametrize("path", sorted(SINGLE.glob("*.py")), ids=lambda p: p.stem)
def test_each_single_mistake_is_charged_once_and_named_right(path, single):
    assert_graded_as_expected(single[path.stem], path)


def test_an_infinite_difference_is_reported_as_inf(single):
    checks = {c.check_id: c for c in single["s24_A2_empty_row_guard_all_not_any"].checks}
    message = checks["masked_softmax_dtypes"].message
    assert not checks["masked_softmax_dtypes"].passed and "largest error inf" in message, message
