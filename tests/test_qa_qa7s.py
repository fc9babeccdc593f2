"""qa7s's regression corpus (tests/qa/qa7s/): Parts A-D in styles the earlier corpora lack, and single bugs.

Each file is a whole student attention.py. `c*` are correct: masks as an additive float bias
(log(mask), a 0/-inf bias tensor), *args/**kwargs forwards and keyword calls, torch.func.functional_call, recursive
split/merge, MultiHeadAttention subclassing SelfAttention, __call__ overrides and a forward alias,
unicode identifiers, a 2,500-line file, `from __future__ import annotations` with Annotated and
overload, transposed products and rsqrt, torch.linalg.vecdot, a pairwise softmax, tril_indices and
einsum permutations, plain helper classes, exp-then-zero masking, an
nn.ModuleList aliasing the named layers, nn.Identity for dropout 0, an sdpa that takes the dropout
module, unfold for the head split, a precomputed scale, F.linear in the input's dtype, a 4-D mask
made in the block, nn.Linear/LayerNorm subclasses, a forward hook keeping the last weights,
autocast off with a seeded __init__, __getattr__ delegation in the block, a 0/-inf bias made in
scaled_dot_product_attention, non-contiguous results (a transposed triu mask, a softmax computed on
the transposed scores), float32 inside with the dtype kept: 100 % of A-D.
`b*` hold one realistic bug each: points lost only in the task where the bug lives, and only the
right mistakes named, or none. b20, b36, b37, b38 return the attention weights detached: each
task's gradient check now weighs the weights as well as the output (before, they scored full
marks: only the output's gradient was checked).
c28 makes its projections with its own nn.Linear subclass (and its norm with a LayerNorm
subclass): the parameter checks of B.1, C.3 and D.1 compared class names and charged 1 point each
(B=9 C=27 D=11); the worker now names the torch.nn layer a submodule is. c33 builds its layers in
an nn.ModuleDict first and aliases them under the contract's names: the worker's describe and vjp
listed each module and parameter under its first name only (B=8 C=25 D=10); now under every name.
c34 (and b04) compute the scores in float32 for float64 inputs: a values check failed on some draws
only; values right to float32 precision now pay whatever the draw.
b06 guards the all-blocked row with clamp(min=1e-9), 0 in float16 (0/0 = NaN): it scored full
marks; A.2's fully-blocked check now also runs float16 and bfloat16.
The comment at the top of each file says what it is, its per-part scores and the mistakes the
feedback names; they hold at seeds 1, 2 and 3 (checked when the corpus was written); this test
grades seed 1.

The whole corpus is graded in one batch run (Parts A-D, seed 1, two grader processes).
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from autograder.feedback.results import SubmissionResult
from autograder.grading.batch import grade_batch
from autograder.grading.session import GradeOptions

CORPUS = Path(__file__).resolve().parent / "qa" / "qa7s"
SCORES = re.compile(r"^# Per-part scores \(A-D\): A=(\S+) B=(\S+) C=(\S+) D=(\S+)\.$", re.MULTILINE)
NAMED = re.compile(r"^# Mistakes named: (.*)\.$", re.MULTILINE)
FILES = sorted(CORPUS.glob("*.py"))
FULL = {"A": 32, "B": 10, "C": 28, "D": 12}
WEIGHTS_DETACHED = {  # submission -> the gradient check that charges it (the only check it fails)
    "b20_b1_weights_detached": "self_attention_gradients",
    "b36_a3_weights_detached": "sdpa_gradients",
    "b37_c3_weights_detached": "mha_gradients",
    "b38_d1_weights_detached": "block_gradients",
}


def _expected(path: Path) -> tuple[dict[str, float], set[str]]:
    text = path.read_text(encoding="utf-8")
    scores, named = SCORES.search(text), NAMED.search(text)
    assert scores and named, f"{path.name}: the header gives no per-part scores or named mistakes"
    mistakes = set() if named.group(1) == "none" else {m.strip() for m in named.group(1).split(",")}
    return dict(zip("ABCD", map(float, scores.groups()))), mistakes


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> dict[str, SubmissionResult]:
    out = tmp_path_factory.mktemp("qa7s_out")
    batch = grade_batch(CORPUS, out, jobs=2, options=GradeOptions(seed=1, parts=frozenset("ABCD")))
    return {result.submission: result for result in batch.submissions}


def test_the_corpus_holds_25_correct_styles_and_25_single_bugs_each_losing_points_in_one_part():
    names = [path.stem for path in FILES]
    assert sum(n.startswith("c") for n in names) >= 25 and sum(n.startswith("b") for n in names) >= 25
    for path in FILES:
        scores, named = _expected(path)
        lost = {part for part, score in scores.items() if score < FULL[part]}
        assert (not lost and not named) if path.stem.startswith("c") else len(lost) == 1, path.name


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_each_submission_scores_its_parts_and_names_only_its_mistakes(path, graded):
    result = graded[path.stem]
    assert not result.grader_error, result.grader_error
    scores, named = _expected(path)
    failures = [f"{c.task} {c.check_id}: {c.message[:160]}" for c in result.checks if not c.passed]
    assert {p.part: p.score for p in result.parts} == scores, failures
    assert set(result.mistakes) == named, failures


@pytest.mark.parametrize("name", sorted(WEIGHTS_DETACHED))
def test_weights_returned_detached_lose_the_gradient_point_of_their_own_task_only(name, graded):
    """The contract: the gradient of each result (the weights too) must be the true one."""
    lost = [c.check_id for c in graded[name].checks if c.points < c.max_points]
    assert lost == [WEIGHTS_DETACHED[name]], lost


def test_values_right_to_float32_precision_pay_whatever_the_draw():
    """b04 computes the scores in float32 for float64 inputs: an entry near 0 (a sum of larger
    terms) carries their float32 rounding, outside atol=1e-7, and a values check failed on some
    draws only (seed 2: A=30, seed 1: A=31). The dtype is charged in its own check; the values
    pay when they are right to the precision of the dtype returned, and a real error still fails."""
    import math

    import torch

    from autograder.assignments.attention.checks.support import expect_close
    from autograder.grading.checks.plugin import CheckFailure

    gen = torch.Generator().manual_seed(54)  # a draw whose float32 rounding is outside atol=1e-7
    q = torch.randn(2, 2, 3, 4, 7, generator=gen, dtype=torch.float64)
    k = torch.randn(2, 2, 3, 5, 7, generator=gen, dtype=torch.float64)
    expected = q @ k.transpose(-2, -1) / math.sqrt(7)
    in_float32 = q.float() @ k.float().transpose(-2, -1) / math.sqrt(7)
    assert not torch.allclose(in_float32.double(), expected, rtol=1e-5, atol=1e-7)
    expect_close(in_float32, expected, "attention_scores")
    expect_close(in_float32.double(), expected, "attention_scores")  # float32 inside, the dtype kept (c34)
    with pytest.raises(CheckFailure):
        expect_close(in_float32 * 1.001, expected, "attention_scores")
    with pytest.raises(CheckFailure):  # an error beyond float32 rounding still fails
        expect_close(expected + 1e-4, expected, "attention_scores")
