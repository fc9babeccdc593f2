"""Hidden checks, Part A: scores, masked softmax, scaled dot-product attention, causal mask."""
from __future__ import annotations

import math
import re
from typing import Any

import torch
import torch.nn.functional as F

from autograder.grading.worker.api import StudentAPI
from autograder.grading.checks.plugin import PROPERTY, SHAPE, CheckFailure, check
from autograder.assignments.attention.checks.remote_grad import remote_gradcheck
from autograder.assignments.attention.rules import SDPA_OWN, SOFTMAX_BY_HAND
from autograder.assignments.attention.checks.support import (
    B, DH, DV, H, LK, LQ, expect_close, expect_gradients, expect_pair, expect_rule, expect_tensor, fail_with, randn, random_mask,
    blocked_key_counts, grad_of, named_by_weights, raise_keyed_with_diagnosis, reference, values_close,
)
from autograder.assignments.attention.mistakes import diagnose
from autograder.grading.worker.client import StudentError, StudentException



def _scores_variants(q: torch.Tensor, k: torch.Tensor) -> dict[str, torch.Tensor]:
    raw = q @ k.transpose(-2, -1)
    return {"scores_no_scaling": raw, "scores_scaled_by_d": raw / q.size(-1), "scores_scaled_by_key_count": raw / math.sqrt(k.size(-2))}


def _softmax_variants(scores: torch.Tensor, mask: torch.Tensor | None) -> dict[str, Any]:
    ref = reference().masked_softmax
    other_axes = tuple(ref(scores.transpose(axis, -1)).transpose(axis, -1) for axis in range(scores.dim() - 1))  # the query axis, heads, batch
    variants: dict[str, Any] = {"softmax_wrong_axis": tuple(reversed(other_axes)) if mask is None else None}
    if mask is not None:
        variants["softmax_mask_ignored"] = ref(scores)  # the mask not used yet (qa35n F19)
        variants["mask_inverted"] = ref(scores, ~mask)  # a row the inverted mask blocks fully: zeros, as the student's code gives
        variants["mask_filled_with_zero"] = ref(scores.masked_fill(~mask, 0.0))
        variants["mask_after_softmax"] = ref(scores).masked_fill(~mask, 0.0)
    return variants


def _sdpa_variants(scores: torch.Tensor, mask: torch.Tensor | None) -> dict[str, Any]:
    """A.3's weights: the softmax's mistakes, the scores left unscaled, the mask not passed on."""
    ref = reference().masked_softmax
    variants = {key: value for key, value in _softmax_variants(scores, mask).items() if key != "softmax_mask_ignored"}  # A.3's own: sdpa_mask_ignored
    variants["scores_no_scaling"] = ref(scores * math.sqrt(DH), mask)
    if mask is not None:
        variants["sdpa_mask_ignored"] = ref(scores)
    return variants


def _no_max_subtraction(weights: torch.Tensor, scores: torch.Tensor, mask: torch.Tensor | None) -> bool:
    """Whether non-finite `weights` are those of exp() without the row maximum subtracted, in the
    scores' dtype (blocked keys filled with -inf before exp, or zeroed after it)."""
    exp = torch.exp(scores)  # (..., Lq, Lk), inf where a score overflows
    forms = [exp] if mask is None else [torch.exp(scores.masked_fill(~mask, float("-inf"))), exp * mask]
    return any(diagnose(weights, {"softmax_no_max_subtraction": e / e.sum(-1, keepdim=True)}) for e in forms)


# (dtype, scale of the scores, rtol = atol) for A.2's dtype check. float16 overflows exp() past 11:
# scores of scale 20 show a softmax that does not subtract the maximum. bfloat16 has float32's
# range but 8 bits of mantissa: a stable softmax through logsumexp rounds the log-sum to 0.25 at
# scores near 40 (weights 10 % off; qa2's st12 lost the point on 3 of 8 seeds); at scale 4 it is
# within 0.034 (3,000 draws), under the tolerance twice over.
DTYPE_CASES = ((torch.float16, 20.0, 2e-2), (torch.bfloat16, 4.0, 4e-2), (torch.float32, 20.0, 2e-2), (torch.float64, 20.0, 1e-6))
BFLOAT16_BEYOND_HALF = 1e5  # an allowed bfloat16 score that float16 cannot hold (its largest is 65504): qa43s b02


IN_PLACE_ON_LEAF = "a leaf Variable that requires grad is being used in an in-place operation"
# a line that fills the blocked scores: masked_fill(_), torch.where, fill_, full_like, scores[~mask] = ... (not a `mask` named elsewhere)
MASK_FILL_LINE = re.compile(r"masked_fill|\bwhere\s*\(|\bfill_\s*\(|\bfull(_like)?\s*\(|\]\s*=(?!=)")


def blocked_far_above(scores: torch.Tensor, mask: torch.Tensor, gap: float = 1e5) -> tuple[torch.Tensor, torch.Tensor]:
    """Scores and a mask where every row has an allowed key (the first) and a blocked one (the
    last), which in every other row scores `gap` above the row's others: the maximum a stable
    softmax subtracts is the allowed keys' one; the largest of all keys makes every allowed exp()
    0 there, in float64 too (qa35s b13; qa36h F2: 200 kept them in float64), and an additive
    mask of -1e4 lets the blocked key count (qa36h F5). In the rows between, the blocked key tells
    a mask applied after the softmax (zeros where it wins) from that mistake."""
    mask, scores = mask.clone(), scores.clone()
    mask[..., 0], mask[..., -1] = True, False
    scores[..., ::2, -1] = scores[..., ::2, :].amax(-1) + gap
    return scores, mask


def _keep_row_max(scores: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """The mask with each row's largest score allowed: no row's allowed weights all underflow,
    whichever maximum (over all keys, or the allowed ones) a stable softmax subtracts."""
    return mask | F.one_hot(scores.argmax(-1), scores.size(-1)).bool()  # (..., Lq, Lk)


def _blocked_near_top(scores: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """The scores with each row's first blocked key 1 below the row's maximum: a softmax that
    ignores the mask is then off in every draw, not only where a blocked score happens to be high."""
    blocked = ~mask  # (..., Lq, Lk)
    first = F.one_hot(blocked.to(torch.uint8).argmax(-1), scores.size(-1)).bool() & blocked  # (..., Lq, Lk)
    return torch.where(first, scores.amax(-1, keepdim=True) - 1, scores)


# --------------------------------------------------------------------------------------------- A.1
def _scores(student: StudentAPI, q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
    """The student's scores; a crash on inputs that are not 3-D names the mistake of transposing
    fixed axes instead of the last two only where it shows: torch's own refusal of a 3-axis
    permute (k.permute(0, 2, 1)), or, for k.transpose(1, 2), the values of a 4-D input that it
    does not crash on. Code written for 3-D inputs only (torch.bmm, a 3-letter einsum) crashes
    as well, with the last two axes swapped right, and is not named."""
    try:
        return student.call("attention_scores", q, k)
    except StudentException as error:
        permuted = "permute" in error.text and "number of dimensions" in error.text
        if q.dim() != 3 and (permuted or _transposes_axes_1_2(student)):
            raise fail_with(f"attention_scores raised {error.kind} on {q.dim()}-D inputs", "scores_wrong_transpose") from None
        raise


def _transposes_axes_1_2(student: StudentAPI) -> bool:
    """Whether the scores of (B, H, Lq, Dh) and (B, H, Lk, Dh) inputs with H = Lk = Dh, on which
    q @ k.transpose(1, 2) does not crash, are that product's, scaled by √Dh."""
    n, gen = 3, torch.Generator().manual_seed(0)  # a generator of its own: the check's draws stay as they were
    q, k = torch.randn(2, n, 4, n, generator=gen, dtype=torch.float64), torch.randn(2, n, n, n, generator=gen, dtype=torch.float64)
    try:
        got = student.call("attention_scores", q, k)
    except StudentError:
        return False
    return isinstance(got, torch.Tensor) and bool(diagnose(got, {"scores_wrong_transpose": q @ k.transpose(1, 2) / math.sqrt(n)}))


@check("A.1", 1, "attention_scores: output shape for batched, multi-head inputs, one query or one key too", kind=SHAPE)
def test_attention_scores_shape(student: StudentAPI, gen):
    for lq, lk in ((LQ, LK), (1, LK), (LQ, 1)):  # an axis of size 1 stays (a squeeze drops it: qa41s b57)
        q, k = randn(gen, B, H, lq, DH), randn(gen, B, H, lk, DH)
        expect_tensor(_scores(student, q, k), _sized("attention_scores", lq, lk), (B, H, lq, lk))


def _sized(where: str, lq: int, lk: int) -> str:
    return where + (" with one query" if lq == 1 else "") + (" with one key" if lk == 1 else "")


@check("A.1", 2, "attention_scores: values equal q·kᵀ/√d")
def test_attention_scores_values(student: StudentAPI, gen):
    q, k = randn(gen, B, H, LQ, DH), randn(gen, B, H, LK, DH)
    expected = reference().attention_scores(q, k)
    expect_close(student.call("attention_scores", q, k), expected, "attention_scores", _scores_variants(q, k))
    q, k = randn(gen, B, H, 8, 3), randn(gen, B, H, 6, 3)  # Lq > Lk > d: d read from another axis is wrong here (qa52o o01; √8 is not a divisor a mistake names)
    expect_close(student.call("attention_scores", q, k), reference().attention_scores(q, k), "attention_scores with Lq=8, Lk=6, d=3", _scores_variants(q, k))


@check("A.1", 1, "attention_scores: works for 2-D and 5-D inputs, and on non-contiguous heads")
def test_attention_scores_any_leading_dims(student: StudentAPI, gen):
    for shape_q, shape_k in (((LQ, DH), (LK, DH)), ((2, B, H, LQ, DH), (2, B, H, LK, DH))):
        q, k = randn(gen, *shape_q), randn(gen, *shape_k)
        expect_close(_scores(student, q, k), reference().attention_scores(q, k), f"attention_scores on {len(shape_q)}-D inputs", _scores_variants(q, k))
    q, k = randn(gen, B, H, LQ, DH), randn(gen, B, H, LK, DH)  # as C.3 gives them: views of split_heads, not contiguous (qa43s b06: k.view)
    expect_close(student.call("attention_scores", q, k, noncontiguous=(0, 1)), reference().attention_scores(q, k), "attention_scores on non-contiguous q and k", _scores_variants(q, k))


@check("A.1", 1, "attention_scores: keeps float64, float32, float16 and bfloat16", kind=PROPERTY, gate="attention_scores_values")
def test_attention_scores_dtype(student: StudentAPI, gen):
    """Each dtype a later task may give it (A.3's and C.3's checks run in float64: qa43s b18)."""
    for dtype in (torch.float64, torch.float32, torch.float16, torch.bfloat16):
        q, k = randn(gen, B, LQ, DH, dtype=dtype), randn(gen, B, LK, DH, dtype=dtype)
        scores = expect_tensor(student.call("attention_scores", q, k), "attention_scores", (B, LQ, LK), dtype)
        expect_close(scores, reference().attention_scores(q.double(), k.double()), f"attention_scores on {dtype}", rtol=1e-2, atol=1e-2)  # pays on right values only


@check("A.1", 1, "attention_scores: gradients reach q and k", kind=PROPERTY, gate="attention_scores_values")
def test_attention_scores_gradients(student: StudentAPI, gen):
    q, k = randn(gen, B, H, LQ, DH), randn(gen, B, H, LK, DH)
    expect_gradients(student, "attention_scores", [q, k], randn(gen, B, H, LQ, LK), {0: "q", 1: "k"}, (B, H, LQ, LK))


# --------------------------------------------------------------------------------------------- A.2
@check("A.2", 2, "masked_softmax: values without a mask, rows sum to 1")
def test_masked_softmax_values(student: StudentAPI, gen):
    scores = randn(gen, B, H, LQ, LK, scale=3.0)
    weights = student.call("masked_softmax", scores)
    expect_close(weights, reference().masked_softmax(scores), "masked_softmax", _softmax_variants(scores, None))
    if not torch.allclose(weights.sum(-1), torch.ones(B, H, LQ, dtype=weights.dtype)):
        raise fail_with("masked_softmax: rows do not sum to 1", "softmax_wrong_axis")


@check("A.2", 2, "masked_softmax: blocked keys get exactly 0, the rest sum to 1")
def test_masked_softmax_mask(student: StudentAPI, gen):
    scores = randn(gen, B, H, LQ, LK)
    mask = random_mask(gen, B, H, LQ, LK)
    weights = expect_tensor(student.call("masked_softmax", scores, mask), "masked_softmax", (B, H, LQ, LK))
    candidates = _softmax_variants(scores, mask)
    if not torch.isnan(weights).any() and (weights.masked_select(~mask) != 0).any():  # NaN: said by expect_close
        raise_keyed_with_diagnosis(weights, candidates, "blocked_nonzero")
    expect_close(weights, reference().masked_softmax(scores, mask), "masked_softmax with a mask", candidates)


@check("A.2", 1, "masked_softmax: masks of shape (Lq, Lk) and (B, 1, 1, Lk) broadcast over (B, H, Lq, Lk)")
def test_masked_softmax_broadcast_mask(student: StudentAPI, gen):
    scores = randn(gen, B, H, LQ, LK)
    for mask in (random_mask(gen, LQ, LK), random_mask(gen, B, 1, 1, LK)):  # the last: a key-padding mask
        where = f"masked_softmax with a mask of shape {tuple(mask.shape)}"
        expect_close(student.call("masked_softmax", scores, mask), reference().masked_softmax(scores, mask), where, _softmax_variants(scores, mask.expand(B, H, LQ, LK)))


@check("A.2", 1, "masked_softmax: a fully blocked row is all zeros, never NaN (in float16 and bfloat16 too)")
def test_masked_softmax_fully_blocked(student: StudentAPI, gen):
    scores = randn(gen, LQ, LK)
    mask = random_mask(gen, LQ, LK)
    mask[1] = False
    weights = expect_tensor(student.call("masked_softmax", scores, mask), "masked_softmax", (LQ, LK))
    if torch.isnan(weights[1]).any() and not torch.isnan(weights[torch.arange(LQ) != 1]).any():
        raise fail_with("masked_softmax: a fully blocked row gives NaN", "fully_masked_nan")  # NaN elsewhere too: said by expect_close
    if weights[1].abs().sum() > 0:
        uniform = torch.allclose(weights[1].double(), torch.full((LK,), 1 / LK, dtype=torch.float64))
        if uniform:
            raise fail_with("masked_softmax: a fully blocked row is not all zeros", "fully_masked_uniform")
        raise CheckFailure.keyed("fully_blocked_not_zero")
    expect_close(weights, reference().masked_softmax(scores, mask), "masked_softmax with a fully blocked row")
    # every row blocked (a batch of padding only): a shortcut such as `if mask.any():` skips the mask
    everything = expect_tensor(student.call("masked_softmax", scores, torch.zeros_like(mask)), "masked_softmax with every key blocked", (LQ, LK))
    if torch.isnan(everything).any():
        raise fail_with("masked_softmax: a mask that blocks every key gives NaN", "fully_masked_nan")
    if everything.abs().sum() > 0:
        raise CheckFailure.keyed("fully_blocked_not_zero")
    _expect_one_key_blocked(student, gen)
    for dtype in (torch.float16, torch.bfloat16):  # kept dtypes, where a guard such as clamp(min=1e-9) is 0: 0/0
        try:  # the blocked row alone: the dtype, its other rows and a crash are masked_softmax_dtypes' subject
            row = expect_tensor(student.call("masked_softmax", scores.to(dtype), mask), f"masked_softmax on {dtype}", (LQ, LK))[1]
        except StudentException:
            continue
        if torch.isnan(row).any():
            raise fail_with(f"masked_softmax on {dtype}: a fully blocked row gives NaN", "fully_masked_nan")
        if row.abs().sum() > 0:
            raise CheckFailure.keyed("fully_blocked_not_zero")


def _expect_one_key_blocked(student: StudentAPI, gen: torch.Generator) -> None:
    """One key, blocked for one query: that row is zeros too (qa52o o02: ones whenever Lk = 1). A
    crash or a wrong shape there (a mask squeezed: qa13 b03) is the broadcast check's subject."""
    single = torch.ones(LQ, 1, dtype=torch.bool)
    single[1] = False
    try:
        weights = student.call("masked_softmax", randn(gen, LQ, 1), single)
    except StudentException:
        return
    if not isinstance(weights, torch.Tensor) or weights.shape != (LQ, 1):
        return
    if torch.isnan(weights[1]).any():
        raise fail_with("masked_softmax: a fully blocked row of one key gives NaN", "fully_masked_nan")
    if weights[1].abs().sum() > 0:
        raise CheckFailure.keyed("fully_blocked_not_zero")
    expect_close(weights, single.to(weights.dtype), "masked_softmax with one key")


@check("A.2", 1, "masked_softmax: finite gradients through a fully blocked row, and past a blocked score far above the rest")
def test_masked_softmax_fully_blocked_gradient(student: StudentAPI, gen):
    scores = randn(gen, LQ, LK)
    mask = random_mask(gen, LQ, LK)
    mask[2] = False
    grad_out = randn(gen, LQ, LK)
    try:
        result = student.vjp("masked_softmax", [scores, mask], [grad_out], wrt=[0], where="masked_softmax backward")
    except StudentException as error:  # torch's own words for an in-place change of scores that require grad
        if IN_PLACE_ON_LEAF in error.text:
            raise fail_with(f"masked_softmax raised {error.kind} on scores that require grad", "softmax_in_place") from None
        raise
    expect_tensor(result["outputs"], "masked_softmax", (LQ, LK))
    if result["grads"][0] is None:
        raise CheckFailure.keyed("no_gradient", where="masked_softmax", name="scores")
    grad = expect_tensor(result["grads"][0], "the gradient of masked_softmax", (LQ, LK))
    if not torch.isfinite(grad[2]).all() and torch.isfinite(grad[torch.arange(LQ) != 2]).all():
        blocked = result["outputs"][2] if isinstance(result["outputs"], torch.Tensor) and result["outputs"].shape == (LQ, LK) else None
        if blocked is not None and torch.equal(blocked, torch.zeros_like(blocked)):  # the values are right: only the gradient is not
            raise CheckFailure.keyed("fully_blocked_gradient_nan")
        raise fail_with("masked_softmax: the gradient is NaN or infinite when a row is fully blocked", "fully_masked_nan")
    # the gradient pays only where the values are right on these inputs (qa35n F1: a NaN row, whose gradient masked_fill zeroes)
    weights = result["outputs"]
    if torch.isnan(weights[2]).any() and not torch.isnan(weights[torch.arange(LQ) != 2]).any():
        raise fail_with("masked_softmax: a fully blocked row gives NaN", "fully_masked_nan")
    if torch.allclose(weights[2].double(), torch.full((LK,), 1 / LK, dtype=torch.float64)):  # qa36h F4: named, as the values check names it
        raise fail_with("masked_softmax: a fully blocked row is not all zeros", "fully_masked_uniform")
    expect_close(weights, reference().masked_softmax(scores, mask), "masked_softmax with a fully blocked row")
    leaf = scores.clone().requires_grad_(True)
    torch.autograd.backward(reference().masked_softmax(leaf, mask), grad_out)
    expect_close(grad, grad_of(leaf), "the gradient of masked_softmax", what="gradients")
    _expect_gradient_past_blocked_far_above(student, gen)


def _expect_gradient_past_blocked_far_above(student: StudentAPI, gen: torch.Generator) -> None:
    """A blocked score far above the allowed ones, zeroed after its exp() overflowed: right values,
    and a NaN gradient (0 · inf) that training takes everywhere (qa42s b03). Wrong values there are
    the large-scores check's to charge."""
    high, mask = blocked_far_above(randn(gen, B, LQ, LK), random_mask(gen, B, LQ, LK))
    grad_out = randn(gen, B, LQ, LK)
    where = "masked_softmax with a blocked score far above the allowed ones"
    result = student.vjp("masked_softmax", [high, mask], [grad_out], wrt=[0], where=f"{where} backward")
    leaf = high.clone().requires_grad_(True)
    expected = reference().masked_softmax(leaf, mask)
    if not values_close(expect_tensor(result["outputs"], where, (B, LQ, LK)), expected.detach()):
        return
    if result["grads"][0] is None:
        raise CheckFailure.keyed("no_gradient", where="masked_softmax", name="scores")
    grad = expect_tensor(result["grads"][0], f"the gradient of {where}", (B, LQ, LK))
    if not torch.isfinite(grad).all():  # the values are right: exp() ran on the blocked score before the mask zeroed it
        raise CheckFailure.keyed("gradient_nan_blocked_high")
    torch.autograd.backward(expected, grad_out)
    expect_close(grad, grad_of(leaf), f"the gradient of {where}", what="gradients")


@check("A.2", 1, "masked_softmax: large scores (×300, rows far below zero, a blocked score far above the rest) stay finite and correct")
def test_masked_softmax_large_logits(student: StudentAPI, gen):
    scores = randn(gen, B, LQ, LK, scale=300.0)
    weights = student.call("masked_softmax", scores.float())
    expected = reference().masked_softmax(scores.float())
    if not torch.isfinite(expect_tensor(weights, "masked_softmax", (B, LQ, LK))).all() and _no_max_subtraction(weights, scores.float(), None):
        raise fail_with("masked_softmax: large scores give NaN or inf", "softmax_no_max_subtraction")
    expect_close(weights, expected, "masked_softmax on large scores", rtol=1e-4, atol=1e-6)
    low = scores.float() - 3000.0  # every score far below zero: stable means subtracting each row's max, not capping it at 0 (qa24s b03)
    expect_close(student.call("masked_softmax", low), reference().masked_softmax(low), "masked_softmax on scores far below zero", rtol=1e-4, atol=1e-6)
    high, mask = blocked_far_above(randn(gen, B, LQ, LK, dtype=torch.float32), random_mask(gen, B, LQ, LK))
    where = "masked_softmax with a blocked score far above the allowed ones"
    weights, expected = expect_tensor(student.call("masked_softmax", high, mask), where, (B, LQ, LK)), reference().masked_softmax(high, mask)
    if not values_close(weights[:, 1::2], expected[:, 1::2], rtol=1e-4, atol=1e-6):
        return  # wrong in the rows without a high blocked score too: a mistake of the mask, which the mask checks charge
    if blocked_key_counts(weights, expected, high, mask):
        raise fail_with(f"{where} lost the allowed weights", "softmax_blocked_key_counts")
    expect_close(weights, expected, where, rtol=1e-4, atol=1e-6)


@check("A.2", 1, "masked_softmax: keeps float16, bfloat16, float32, float64 without overflow")
def test_masked_softmax_dtypes(student: StudentAPI, gen):
    for number, (dtype, scale, tolerance) in enumerate((*DTYPE_CASES, (torch.bfloat16, 4.0, 4e-2))):
        scores = randn(gen, B, LQ, LK, scale=scale)
        mask = _keep_row_max(scores, random_mask(gen, B, LQ, LK))  # this check's subject is the dtype, not blocked rows
        scores = _blocked_near_top(scores, mask)
        if number == len(DTYPE_CASES):  # bfloat16 again, each row shifted to its largest allowed score beyond float16's range
            top = scores.masked_fill(~mask, float("-inf")).amax(-1, keepdim=True)
            scores = scores - top + BFLOAT16_BEYOND_HALF
        scores = scores.to(dtype)
        try:
            weights = expect_tensor(student.call("masked_softmax", scores, mask), f"masked_softmax on {dtype}", (B, LQ, LK), dtype)
        except StudentException as error:  # torch's own words for a fill value the dtype cannot hold
            if error.kind == "RuntimeError" and "without overflow" in error.text:
                line = error.frames[-1].split(": ", 1)[-1] if error.frames else ""
                if not line or MASK_FILL_LINE.search(line):  # the fill of the blocked scores (qa33p: not clamp_min(-1e30) beside a fill of -inf)
                    raise fail_with(f"masked_softmax on {dtype} raised RuntimeError ({error.text[:100]})", "mask_fill_overflows") from None
                raise CheckFailure.keyed("constant_overflows", dtype=str(dtype), line=line[:120]) from None
            raise
        if number == len(DTYPE_CASES):  # bfloat16 holds 1e5 to within 512: no values to compare there (a logsumexp is right), only no overflow
            if not torch.isfinite(weights).all():
                raise CheckFailure.keyed("bfloat16_overflows")
            continue
        if not torch.isfinite(weights).all() and _no_max_subtraction(weights, scores, mask):
            raise fail_with(f"masked_softmax: {dtype} scores give NaN or inf", "softmax_no_max_subtraction")
        expect_close(weights, reference().masked_softmax(scores.double(), mask), f"masked_softmax on {dtype}", rtol=tolerance, atol=tolerance)


@check("A.2", 1, "masked_softmax: does not modify its input", kind=PROPERTY, gate=("masked_softmax_values", "masked_softmax_mask"))
def test_masked_softmax_no_inplace(student: StudentAPI, gen):
    scores = randn(gen, B, LQ, LK)
    mask = random_mask(gen, B, LQ, LK)
    _, (scores_after, mask_after) = student.echo_call("masked_softmax", scores, mask)
    _, (unmasked_after,) = student.echo_call("masked_softmax", scores)  # no mask: `scores` may be the caller's own
    heads = randn(gen, B, H, LQ, LK)  # 4-D, as A.3 and C.3 give them (qa52o o03: shifted in place for 4-D scores only)
    _, (heads_after,) = student.echo_call("masked_softmax", heads)
    if not (torch.equal(scores_after, scores) and torch.equal(unmasked_after, scores) and torch.equal(heads_after, heads)):
        raise CheckFailure.keyed("changed_scores", "softmax_in_place")
    if not torch.equal(mask_after, mask):
        raise CheckFailure.keyed("changed_mask")


@check("A.2", 1, "masked_softmax: gradients pass torch.autograd.gradcheck", kind=PROPERTY, gate=("masked_softmax_values", "masked_softmax_mask"))
def test_masked_softmax_gradcheck(student: StudentAPI, gen):
    scores = randn(gen, 2, 3, LK)
    mask = random_mask(gen, 2, 3, LK)
    try:
        remote_gradcheck(student, "masked_softmax", [scores], (mask,))
    except CheckFailure:
        if not _true_gradient(student, scores, mask, randn(gen, 2, 3, LK)):
            raise


def _true_gradient(student: StudentAPI, scores: torch.Tensor, mask: torch.Tensor, grad_out: torch.Tensor) -> bool:
    """Whether the student's gradient is the reference's at these scores. Finite differences in
    float64 cannot pass a softmax computed in float32 and cast back (LLaMA's way): its values are
    rounded to float32, its gradient is still the true one. A gradient that never reaches the
    scores comes back as None or zeros and is not the true one."""
    result = student.vjp("masked_softmax", [scores, mask], [grad_out], wrt=[0], where="masked_softmax backward")
    grad = result["grads"][0]
    if not isinstance(grad, torch.Tensor) or grad.shape != scores.shape:
        return False
    leaf = scores.clone().requires_grad_(True)
    torch.autograd.backward(reference().masked_softmax(leaf, mask), grad_out)
    return values_close(grad, grad_of(leaf))


@check("A.2", 1, "masked_softmax: adding a constant to a row changes nothing", kind=PROPERTY, gate="masked_softmax_values")
def test_masked_softmax_row_shift(student: StudentAPI, gen):
    scores = randn(gen, B, LQ, LK)
    shift = randn(gen, B, LQ, 1, scale=50.0)
    a, b = student.call("masked_softmax", scores), student.call("masked_softmax", scores + shift)
    expect_close(a, reference().masked_softmax(scores), "masked_softmax")  # pays on right values only
    a = expect_tensor(a, "masked_softmax", (B, LQ, LK)).to(torch.float64)  # float64: a float32 result keeps its rounding's allowance (its dtype is charged once, in the dtype check)
    expect_close(expect_tensor(b, "masked_softmax", (B, LQ, LK)), a, "masked_softmax after a row shift", rtol=1e-6, atol=1e-9)


@check("A.2", 2, "masked_softmax: written by hand (no torch.softmax / F.softmax / log_softmax / nn.Softmax)", kind=PROPERTY, gate=("masked_softmax_values", "masked_softmax_mask"))
def test_masked_softmax_by_hand(student: StudentAPI, gen):
    scores, mask = randn(gen, B, LQ, LK), random_mask(gen, B, LQ, LK)
    weights, traced = student.traced_call("masked_softmax", scores, mask)
    expect_rule(student, SOFTMAX_BY_HAND, traced)  # first: a reply tampered with has no value either
    expect_tensor(weights, "masked_softmax", (B, LQ, LK))
    expect_close(weights, reference().masked_softmax(scores, mask), "masked_softmax (the call whose operations were traced)")  # the rule pays on right values only


# --------------------------------------------------------------------------------------------- A.3
@check("A.3", 1, "scaled_dot_product_attention: returns (output, weights) with the right shapes", kind=SHAPE)
def test_sdpa_shapes(student: StudentAPI, gen):
    for lq, lk in ((LQ, LK), (1, LK), (LQ, 1)):  # an axis of size 1 stays (qa41s b56)
        q, k, v = randn(gen, B, H, lq, DH), randn(gen, B, H, lk, DH), randn(gen, B, H, lk, DV)
        where = _sized("scaled_dot_product_attention", lq, lk)
        output, weights = expect_pair(student.call("scaled_dot_product_attention", q, k, v), where)
        expect_tensor(output, f"{where} (output)", (B, H, lq, DV))
        expect_tensor(weights, f"{where} (weights)", (B, H, lq, lk))


@check("A.3", 0.5, "scaled_dot_product_attention: values with and without a mask")
def test_sdpa_values(student: StudentAPI, gen):
    q, k, v = randn(gen, B, H, LQ, DH), randn(gen, B, H, LK, DH), randn(gen, B, H, LK, DV)
    _expect_sdpa_values(student, q, k, v, (None, random_mask(gen, B, H, LQ, LK)))


# apart from the values, which A.3's properties pay on: an edge alone costs its own half point (qa50s e04, e24)
@check("A.3", 0.5, "scaled_dot_product_attention: a mask that blocks every key, masks that broadcast, 2-D and 5-D inputs")
def test_sdpa_mask_edges(student: StudentAPI, gen):
    q, k, v = randn(gen, B, H, LQ, DH), randn(gen, B, H, LK, DH), randn(gen, B, H, LK, DV)
    # every key blocked: a batch of padding only gives zeros, never a shortcut past the mask
    _expect_sdpa_values(student, q, k, v, (torch.zeros(B, H, LQ, LK, dtype=torch.bool),))
    # masks broadcast as the contract says: (B, Lq, Lk) with inputs without heads, (Lq, Lk) with heads
    q3, k3, v3 = q[:, 0], k[:, 0], v[:, 0]  # (B, L, d)
    for args, said in (((q3, k3, v3, random_mask(gen, B, LQ, LK)), "q, k, v (B, L, d) and a (B, Lq, Lk) mask"),
                       ((q, k, v, random_mask(gen, LQ, LK)), "q, k, v (B, H, L, d) and an (Lq, Lk) mask")):
        output, weights = expect_pair(student.call("scaled_dot_product_attention", *args), f"scaled_dot_product_attention with {said}")
        ref_out, ref_w = reference().scaled_dot_product_attention(*args)
        expect_close(weights, ref_w, f"scaled_dot_product_attention with {said} (weights)")
        expect_close(output, ref_out, f"scaled_dot_product_attention with {said} (output)")
    # any leading dimensions, none too: (..., L, d), the contract says (qa52o o04: torch.bmm over flatten(0, -3))
    for dims in ((), (2, B, H)):
        q, k, v = randn(gen, *dims, LQ, DH), randn(gen, *dims, LK, DH), randn(gen, *dims, LK, DV)
        said = f"{len(dims) + 2}-D q, k, v"
        output, weights = expect_pair(student.call("scaled_dot_product_attention", q, k, v), f"scaled_dot_product_attention with {said}")
        ref_out, ref_w = reference().scaled_dot_product_attention(q, k, v)
        expect_close(weights, ref_w, f"scaled_dot_product_attention with {said} (weights)")
        expect_close(output, ref_out, f"scaled_dot_product_attention with {said} (output)")


def _expect_sdpa_values(student: StudentAPI, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, masks: tuple[torch.Tensor | None, ...]) -> None:
    """A.3's output and weights with each mask; a mistake is named from the weights."""
    for mask in masks:
        output, weights = expect_pair(student.call("scaled_dot_product_attention", q, k, v, mask), "scaled_dot_product_attention")
        ref_out, ref_w = reference().scaled_dot_product_attention(q, k, v, mask)
        scores = reference().attention_scores(q, k)
        every_key_blocked = mask is not None and not mask.any()
        # every key blocked: ignoring the mask and inverting it give the same weights, so no mistake is named
        # weights that ignore the mask name that mistake only if the output does not use it either
        variants = None if every_key_blocked else {named_by_weights(key, output, ref_out): w for key, w in _sdpa_variants(scores, mask).items()}
        said = "" if mask is None else f" with a mask of shape {tuple(mask.shape)}" + (" that blocks every key" if every_key_blocked else "")
        expect_close(weights, ref_w, f"scaled_dot_product_attention{said} (weights)", variants)
        expect_close(output, ref_out, f"scaled_dot_product_attention{said} (output)")


@check("A.3", 2, "scaled_dot_product_attention: agrees with torch's F.scaled_dot_product_attention")
def test_sdpa_matches_torch(student: StudentAPI, gen):
    q, k, v = randn(gen, B, H, LQ, DH), randn(gen, B, H, LK, DV + 1)[..., :DH], randn(gen, B, H, LK, DV)
    mask = random_mask(gen, B, H, LQ, LK)
    output, _ = expect_pair(student.call("scaled_dot_product_attention", q, k, v, mask), "scaled_dot_product_attention")
    expect_close(output, F.scaled_dot_product_attention(q, k, v, attn_mask=mask), "scaled_dot_product_attention vs torch")


@check("A.3", 1, "scaled_dot_product_attention: with a causal mask, the future does not matter", kind=PROPERTY, gate="sdpa_values")
def test_sdpa_causal_future_independence(student: StudentAPI, gen):
    L = LK
    q, k, v = randn(gen, B, L, DH), randn(gen, B, L, DH), randn(gen, B, L, DV)
    mask = torch.ones(L, L, dtype=torch.bool).tril()
    k2, v2 = k.clone(), v.clone()
    k2[:, -1], v2[:, -1] = randn(gen, B, DH, scale=5.0), randn(gen, B, DV, scale=5.0)
    first, _ = expect_pair(student.call("scaled_dot_product_attention", q, k, v, mask), "scaled_dot_product_attention")
    expect_close(first, reference().scaled_dot_product_attention(q, k, v, mask)[0], "scaled_dot_product_attention with a causal mask")  # pays on right values only
    second, _ = expect_pair(student.call("scaled_dot_product_attention", q, k2, v2, mask), "scaled_dot_product_attention")
    expect_close(second[:, :-1], first[:, :-1], "scaled_dot_product_attention: outputs before the changed last position")


@check("A.3", 1, "scaled_dot_product_attention: permuting keys with their values changes nothing; batches are independent", kind=PROPERTY, gate="sdpa_values")
def test_sdpa_invariances(student: StudentAPI, gen):
    q, k, v = randn(gen, B, LQ, DH), randn(gen, B, LK, DH), randn(gen, B, LK, DV)
    perm = torch.randperm(LK, generator=gen)
    base, _ = expect_pair(student.call("scaled_dot_product_attention", q, k, v), "scaled_dot_product_attention")
    expect_close(base, reference().scaled_dot_product_attention(q, k, v)[0], "scaled_dot_product_attention")  # pays on right values only
    permuted, _ = expect_pair(student.call("scaled_dot_product_attention", q, k[:, perm], v[:, perm]), "scaled_dot_product_attention")
    expect_close(permuted, base, "scaled_dot_product_attention after permuting key/value positions")
    single, _ = expect_pair(student.call("scaled_dot_product_attention", q[:1], k[:1], v[:1]), "scaled_dot_product_attention")
    expect_close(single, base[:1], "scaled_dot_product_attention on one batch element alone")
    shifted, _ = expect_pair(student.call("scaled_dot_product_attention", q, k, v + 3.0), "scaled_dot_product_attention")
    expect_close(shifted, base + 3.0, "scaled_dot_product_attention after adding 3 to every value")


@check("A.3", 1, "scaled_dot_product_attention: gradients of the output and the weights reach q, k and v", kind=PROPERTY, gate="sdpa_values")
def test_sdpa_gradients(student: StudentAPI, gen):
    q, k, v = randn(gen, B, H, LQ, DH), randn(gen, B, H, LK, DH), randn(gen, B, H, LK, DV)
    mask = random_mask(gen, B, H, LQ, LK)
    grad_output, grad_weights = randn(gen, B, H, LQ, DV), randn(gen, B, H, LQ, LK)
    expect_gradients(student, "scaled_dot_product_attention", [q, k, v, mask], grad_output, {0: "q", 1: "k", 2: "v"}, (B, H, LQ, DV), grad_weights)


# the last of A.3's checks, as every rule's: its verdict reads what every earlier call of the function ran (expect_rule)
@check("A.3", 1, "scaled_dot_product_attention: built from your functions, not the library's attention", kind=PROPERTY, gate="sdpa_values")
def test_sdpa_no_library(student: StudentAPI, gen):
    q, k, v = randn(gen, B, LQ, DH), randn(gen, B, LK, DH), randn(gen, B, LK, DV)
    value, traced = student.traced_call("scaled_dot_product_attention", q, k, v)
    expect_rule(student, SDPA_OWN, traced)  # first: a reply tampered with has no value either
    output, weights = expect_pair(value, "scaled_dot_product_attention")
    ref_out, ref_w = reference().scaled_dot_product_attention(q, k, v)  # the rule pays on right values only
    expect_close(weights, ref_w, "scaled_dot_product_attention (weights of the call whose operations were traced)")
    expect_close(output, ref_out, "scaled_dot_product_attention (output of the call whose operations were traced)")


# --------------------------------------------------------------------------------------------- A.4
@check("A.4", 2, "causal_mask: square and rectangular masks, True where key ≤ query")
def test_causal_mask_values(student: StudentAPI, gen):
    # sizes past the small tables a model keeps (nanoGPT's block_size): "any size", the contract says;
    # 130, not 1030: a mask filled one entry at a time (a double loop, right) takes 5.6 s at 1030
    for args in ((LQ,), (LQ, LK), (LK, LQ), (33, 40), (130,), (4100, 2)):  # 4100: past the tables models keep, up to 4096 (qa52o o16, qa53d d08)
        mask = expect_tensor(student.call("causal_mask", *args), f"causal_mask{args}", (args[0], args[-1]), torch.bool, "mask_dtype")
        expected = reference().causal_mask(*args)
        if not torch.equal(mask, expected):
            upper = torch.ones_like(expected).triu()  # key >= query: the mask upside down (diagonal kept)
            if torch.equal(mask, ~expected) or torch.equal(mask, upper):
                raise fail_with(f"causal_mask{args} is wrong", "causal_mask_inverted")
            if torch.equal(mask, expected.tril(-1)):
                raise fail_with(f"causal_mask{args} is wrong", "causal_mask_strict")
            raise CheckFailure.keyed("causal_wrong", where=f"causal_mask{args}")


@check("A.4", 1, "causal_mask: matches is_causal=True of F.scaled_dot_product_attention")
def test_causal_mask_matches_torch(student: StudentAPI, gen):
    q, k, v = randn(gen, 1, LQ, DH), randn(gen, 1, LK, DH), randn(gen, 1, LK, DV)
    mask = expect_tensor(student.call("causal_mask", LQ, LK), "causal_mask", (LQ, LK), torch.bool, "mask_dtype")
    expect_close(F.scaled_dot_product_attention(q, k, v, attn_mask=mask), F.scaled_dot_product_attention(q, k, v, is_causal=True), "attention with your causal_mask vs is_causal=True")


@check("A.4", 1, "causal_mask: makes the mask on the device it is given", kind=PROPERTY, gate="causal_mask_values")
def test_causal_mask_device(student: StudentAPI, gen):
    expect_tensor(student.call("causal_mask", 3, 4, device="cpu"), "causal_mask(3, 4, device='cpu')", (3, 4), torch.bool, "mask_dtype")
    # The "meta" device holds shapes without values: any device= that is passed on reaches it, a
    # mask made on the default device does not. (A causal mask needs no value-dependent branch.)
    devices = student.call_devices("causal_mask", 3, 4, device="meta")
    if devices != ["meta"]:
        raise CheckFailure.keyed("causal_mask_device", got=devices[0] if devices else "-")
