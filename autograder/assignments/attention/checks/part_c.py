"""Hidden checks, Part C: split_heads, merge_heads and MultiHeadAttention."""
from __future__ import annotations

from typing import Any

import torch

from autograder.grading.worker.api import StudentAPI
from autograder.assignments.attention.checks.module_support import (
    PROJECTIONS, Params, attention_state, build_reference, build_student, expect_attention, expect_match, expect_parameter_gradients, forward_checked, merge_interleaved, merge_no_transpose, mha_scores, mha_variants, reload_student, split_interleaved, split_no_transpose, split_size_for_count, unmerged, vjp_checked,
)
from autograder.grading.checks.plugin import PROPERTY, SHAPE, CheckFailure, check
from autograder.assignments.attention.checks.remote_grad import FAST_MODE
from autograder.assignments.attention.checks.support import fail_with, B, DH, E, H, LK, LQ, OTHER_RATE, backward_pair, expect_gradients, expect_pair, expect_shape, expect_rule, expect_tensor, grad_of, blocked_key_counts, randn, random_mask, reference, rounding_error, values_close
from autograder.assignments.attention.rules import MHA_OWN
from autograder.grading.worker.client import StudentError, StudentException
from autograder.grading.worker.protocol import Handle

OUT, WEIGHTS = (B, LQ, E), (B, H, LQ, LK)  # (2, 4, 21), (2, 3, 4, 5)
SELF_WEIGHTS = (B, H, LQ, LQ)
MHA = "MultiHeadAttention.forward"


def _split_variants(x: torch.Tensor, heads: int) -> list[tuple[str, torch.Tensor]]:
    return [("split_no_transpose", split_no_transpose(x, heads)), ("split_interleaved", split_interleaved(x, heads)),
            ("split_size_for_count", split_size_for_count(x, heads))]


def _merge_variants(x: torch.Tensor) -> list[tuple[str, torch.Tensor]]:
    return [("merge_no_transpose", merge_no_transpose(x)), ("merge_interleaved", merge_interleaved(x))]


def _mha(student: StudentAPI, gen: torch.Generator, seed: int, dropout: float = 0.0, bias: bool = True, training: bool = False) -> tuple[dict, Handle]:
    state = attention_state(gen, E, bias=bias)
    kwargs = {"dropout": dropout} if dropout else {}
    if not bias:
        kwargs["bias"] = False
    return state, build_student(student, "MultiHeadAttention", (E, H), state, seed, kwargs, training)


# --------------------------------------------------------------------------------------------- C.1
@check("C.1", 1, "split_heads: (B, S, H·Dh) -> (B, H, S, Dh)", kind=SHAPE)
def test_split_heads_shape(student: StudentAPI, gen):
    x = randn(gen, B, LQ, E)
    expect_shape(student.call("split_heads", x, H), "split_heads", (B, H, LQ, DH), dict(_split_variants(x, H)))


@check("C.1", 0.5, "split_heads: head i holds the features [i·Dh, (i+1)·Dh)")
def test_split_heads_values(student: StudentAPI, gen):
    x = randn(gen, B, LQ, E)
    expect_match(student.call("split_heads", x, H), reference().split_heads(x, H), "split_heads", _split_variants(x, H))


@check("C.1", 0.5, "split_heads: gradients reach x", kind=PROPERTY, gate="split_heads_values")
def test_split_heads_gradients(student: StudentAPI, gen):
    x = randn(gen, B, LQ, E)
    expect_gradients(student, "split_heads", [x, H], randn(gen, B, H, LQ, DH), {0: "x"}, (B, H, LQ, DH), variants=dict(_split_variants(x, H)))


@check("C.1", 1, "split_heads: other sizes, one head, many heads, and x's dtype kept")
def test_split_heads_other_sizes(student: StudentAPI, gen):
    for shape, heads in (((1, 6, 12), 4), ((3, 2, 10), 1), ((2, 3, 8), 8)):
        x = randn(gen, *shape)
        expect_match(student.call("split_heads", x, heads), reference().split_heads(x, heads), f"split_heads on {shape} with {heads} heads", _split_variants(x, heads))
    for dtype in (torch.float64, torch.float32, torch.float16, torch.bfloat16):  # C.3's checks run in float64 (qa43s b26: x.float()); half kept too (qa52o o06)
        x = randn(gen, B, LQ, E, dtype=dtype)
        expect_tensor(student.call("split_heads", x, H), f"split_heads on {dtype}", (B, H, LQ, DH), dtype)


@check("C.1", 1, "split_heads: works on a non-contiguous input")
def test_split_heads_noncontiguous(student: StudentAPI, gen):
    x = randn(gen, B, LQ, E)
    expect_match(student.call("split_heads", x, H, noncontiguous=(0,)), reference().split_heads(x, H), "split_heads on a non-contiguous x", _split_variants(x, H))


# --------------------------------------------------------------------------------------------- C.2
@check("C.2", 0.5, "merge_heads: (B, H, S, Dh) -> (B, S, H·Dh) with heads side by side")
def test_merge_heads_values(student: StudentAPI, gen):
    x = randn(gen, B, H, LQ, DH)
    merged = student.call("merge_heads", x)
    expect_tensor(merged, "merge_heads", (B, LQ, E))
    expect_match(merged, reference().merge_heads(x), "merge_heads", _merge_variants(x))
    for shape in ((1, H, LQ, DH), (B, H, 1, DH)):  # one sentence, one position: no axis of size 1 may go
        x = randn(gen, *shape)
        expect_match(student.call("merge_heads", x), reference().merge_heads(x), f"merge_heads on {shape}", _merge_variants(x))


@check("C.2", 0.5, "merge_heads: works on a non-contiguous input, and keeps x's dtype")
def test_merge_heads_noncontiguous(student: StudentAPI, gen):
    """The contract's "also when x is not contiguous" (C.1's check had it, where C.2's stand-in
    answered: qa35n F3), and "in x's dtype" (C.3's checks run in float64: qa43s b27)."""
    y = randn(gen, B, H, LQ, DH)
    expect_match(student.call("merge_heads", y, noncontiguous=(0,)), reference().merge_heads(y), "merge_heads on a non-contiguous x", _merge_variants(y))
    for dtype in (torch.float64, torch.float32, torch.float16, torch.bfloat16):
        y = randn(gen, B, H, LQ, DH, dtype=dtype)
        expect_tensor(student.call("merge_heads", y), f"merge_heads on {dtype}", (B, LQ, E), dtype)


@check("C.2", 1, "merge_heads: gradients reach x", kind=PROPERTY, gate="merge_heads_values")
def test_merge_heads_gradients(student: StudentAPI, gen):
    x = randn(gen, B, H, LQ, DH)
    expect_gradients(student, "merge_heads", [x], randn(gen, B, LQ, E), {0: "x"}, (B, LQ, E))


@check("C.2", 1, "merge_heads undoes split_heads, and split_heads undoes merge_heads", kind=PROPERTY, gate="merge_heads_values")
def test_split_merge_inverse(student: StudentAPI, gen):
    x = randn(gen, B, LK, E)
    split = expect_tensor(student.call("split_heads", x, H), "split_heads", (B, H, LK, DH))
    expect_match(student.call("merge_heads", split), x, "merge_heads(split_heads(x))")
    y = randn(gen, B, H, LK, DH)
    merged = expect_tensor(student.call("merge_heads", y), "merge_heads", (B, LK, E))
    expect_match(student.call("split_heads", merged, H), y, "split_heads(merge_heads(y))")


# --------------------------------------------------------------------------------------------- C.3
@check("C.3", 1, "MultiHeadAttention: W_q, W_k, W_v, W_o are nn.Linear(E, E), and self.dropout", kind=PROPERTY, gate="mha_values")
def test_mha_parameters(student: StudentAPI, seed):
    handle = student.new("MultiHeadAttention", E, H, 0.25, seed=seed)
    info = student.describe(handle, "inspecting MultiHeadAttention")
    if not info.get("module"):
        raise CheckFailure.keyed("not_a_module", where="MultiHeadAttention", kind=str(info.get("type")))
    params = {name: tuple(shape) for name, shape in info["parameters"].items()}
    for name in PROJECTIONS:
        if info["children"].get(name) != "Linear":
            raise CheckFailure.keyed("no_linear", where="MultiHeadAttention", name=name)
        for suffix, shape in (("weight", (E, E)), ("bias", (E,))):
            if params.get(f"{name}.{suffix}") != shape:
                raise CheckFailure.keyed("param_shape", where=f"MultiHeadAttention.{name}.{suffix}", expected=str(shape), got=str(params.get(f"{name}.{suffix}")))
    is_module = info["children"].get("dropout") == "Dropout" and abs(info["dropout_p"].get("dropout", -1) - 0.25) < 1e-12
    if not is_module and info["attributes"].get("dropout") not in ("float", "int"):
        raise CheckFailure.keyed("mha_no_dropout")


@check("C.3", 1, "MultiHeadAttention: bias=False gives projections without bias, and a module that works", kind=PROPERTY, gate="mha_values")
def test_mha_no_bias(student: StudentAPI, gen, seed):
    handle = student.new("MultiHeadAttention", E, H, bias=False, seed=seed)
    info = student.describe(handle, "inspecting MultiHeadAttention(bias=False)")
    biases = sorted(name for name in info.get("parameters", {}) if name in {f"{p}.bias" for p in PROJECTIONS})  # extra parameters are the student's own
    if biases:
        raise CheckFailure.keyed("still_has_bias", where="MultiHeadAttention(..., bias=False)", names=", ".join(biases))
    missing = [name for name in PROJECTIONS if f"{name}.weight" not in info.get("parameters", {})]
    if missing:
        raise CheckFailure.keyed("has_no", where="MultiHeadAttention(..., bias=False)", names=", ".join(missing))
    # nothing for nothing: the layers alone said yes to a forward that raised without a bias (qa42s b24, b27)
    state, handle = _mha(student, gen, seed, bias=False)
    x = randn(gen, B, LQ, E)
    where = f"MultiHeadAttention({E}, {H}, bias=False).forward"
    output, weights = forward_checked(student, handle, where, OUT, SELF_WEIGHTS, x)
    expected = build_reference("MultiHeadAttention", (E, H), state, {"bias": False})(x)
    expect_attention(output, weights, expected, where, mha_variants(state, H, x))


@check("C.3", 1, "MultiHeadAttention: ValueError when embed_dim is not divisible by num_heads", kind=PROPERTY, gate="mha_values")
def test_mha_value_error(student: StudentAPI, seed):
    try:
        student.new("MultiHeadAttention", 10, 3, seed=seed)
    except StudentException as error:
        if "ValueError" not in error.builtins:  # a subclass of its own is a ValueError too
            raise CheckFailure.keyed("wrong_exception", where="MultiHeadAttention(10, 3)", kind=error.kind) from None
        return
    raise CheckFailure.keyed("no_value_error")


@check("C.3", 1, "MultiHeadAttention: output (B, Lq, E), weights per head (B, H, Lq, Lk)", kind=SHAPE)
def test_mha_shapes(student: StudentAPI, gen, seed):
    handle = build_student(student, "MultiHeadAttention", (E, H), {}, seed)  # its own weights: shapes do not depend on them (bias=False keeps this point)
    query, key = randn(gen, B, LQ, E), randn(gen, B, LK, E)
    forward_checked(student, handle, MHA, OUT, WEIGHTS, query, key, key)
    single = build_student(student, "MultiHeadAttention", (E, 1), {}, seed)  # one head, one query: a squeeze drops an axis (qa41s b49, b55)
    forward_checked(student, single, f"MultiHeadAttention({E}, 1).forward with one query", (B, 1, E), (B, 1, 1, LK), query[:, :1], key, key)


@check("C.3", 3, "MultiHeadAttention: self-attention equals the reference with the same weights")
def test_mha_values(student: StudentAPI, gen, seed):
    state, handle = _mha(student, gen, seed)
    x = randn(gen, B, LQ, E)
    output, weights = forward_checked(student, handle, MHA, OUT, SELF_WEIGHTS, x)
    expected = build_reference("MultiHeadAttention", (E, H), state)(x)
    expect_attention(output, weights, expected, MHA, mha_variants(state, H, x))
    again = attention_state(gen, E)
    reload_student(student, handle, "MultiHeadAttention", again)
    output, weights = forward_checked(student, handle, f"{MHA} after loading other weights", OUT, SELF_WEIGHTS, x)
    expected = build_reference("MultiHeadAttention", (E, H), again)(x)
    expect_attention(output, weights, expected, f"{MHA} after loading other weights", mha_variants(again, H, x))


@check("C.3", 2, "MultiHeadAttention: cross-attention (key/value of another length); key defaults to query, value to key")
def test_mha_cross_and_defaults(student: StudentAPI, gen, seed):
    state, handle = _mha(student, gen, seed)
    reference_module = build_reference("MultiHeadAttention", (E, H), state)
    query, key, value = randn(gen, B, LQ, E), randn(gen, B, LK, E), randn(gen, B, LK, E)
    output, weights = forward_checked(student, handle, MHA, OUT, WEIGHTS, query, key, value)
    expect_attention(output, weights, reference_module(query, key, value), f"{MHA} with key and value", mha_variants(state, H, query, key, value))
    output, weights = forward_checked(student, handle, f"{MHA}(query, key)", OUT, WEIGHTS, query, key)
    expect_attention(output, weights, reference_module(query, key), f"{MHA}(query, key) without value", mha_variants(state, H, query, key))
    # a value given without a key: the key defaults to the query, the value is the one given (qa52o o09)
    value = randn(gen, B, LQ, E)
    output, weights = forward_checked(student, handle, f"{MHA}(query, value=value)", OUT, SELF_WEIGHTS, query, value=value)
    expect_attention(output, weights, reference_module(query, value=value), f"{MHA}(query, value=value) without key", mha_variants(state, H, query, query, value))


@check("C.3", 2, "MultiHeadAttention: masks of shape (Lq, Lk), (B, 1, Lq, Lk) and (B, 1, 1, Lk) broadcast over heads, and a (B, H, Lq, Lk) mask gives each head its own; a query with every key blocked gets zeros; in self-attention (key and value left out) a square mask too")
def test_mha_mask(student: StudentAPI, gen, seed):
    state, handle = _mha(student, gen, seed)
    reference_module = build_reference("MultiHeadAttention", (E, H), state)
    query, key = randn(gen, B, LQ, E), randn(gen, B, LK, E)
    per_query = random_mask(gen, B, 1, LQ, LK)
    per_query[0, 0, 1] = False  # the contract: a query whose keys are all blocked gets all zeros, never NaN
    nothing = torch.zeros(B, 1, 1, LK, dtype=torch.bool)  # every key blocked: a shortcut such as `if mask.any():` skips the mask
    masks = (random_mask(gen, LQ, LK), per_query, random_mask(gen, B, 1, 1, LK), nothing)  # the third: a key-padding mask
    # The contract's mask is broadcastable to (B, H, Lq, Lk): one per head too. Drawn after the
    # others (their values are as before); query 0 of batch 0 sees only key 0 in head 0, only key 1
    # in head 1 and only key 2 in the rest, so the heads differ, and neither head 0's mask nor the
    # union of the heads' is every head's.
    per_head = random_mask(gen, B, H, LQ, LK)
    per_head[0, :, 0] = False
    per_head[0, 0, 0, 0] = per_head[0, 1, 0, 1] = True
    per_head[0, 2:, 0, 2] = True
    for mask in (*masks, per_head):
        where = f"{MHA} with a mask of shape {tuple(mask.shape)}" + (" that blocks every key" if mask is nothing else " (one per head)" if mask is per_head else "")
        output, weights = forward_checked(student, handle, where, OUT, WEIGHTS, query, key, key, mask)
        # every key blocked: ignoring the mask and inverting it give the same weights, so no mistake is named
        variants = [] if mask is nothing else mha_variants(state, H, query, key, key, mask.expand(B, H, LQ, LK))
        expect_attention(output, weights, reference_module(query, key, key, mask), where, variants)
    # Self-attention, as D.1's block calls it: key and value left out, a square mask by name (drawn
    # last: the cases above keep their values). A mask dropped or transposed only there (when key is
    # None, when Lq == Lk) is C.3's, not the block's (qa31s s01, s02, p11).
    x, square = randn(gen, B, LQ, E), random_mask(gen, LQ, LQ)
    where = f"{MHA}(x, mask=mask) with a mask of shape {tuple(square.shape)}"
    output, weights = forward_checked(student, handle, where, OUT, SELF_WEIGHTS, x, mask=square)
    expect_attention(output, weights, reference_module(x, mask=square), where, mha_variants(state, H, x, mask=square.expand(B, H, LQ, LQ)))
    # Keys of large norm that a key-padding mask blocks: in most rows one of them scores far above the
    # allowed keys, whose weights a softmax that subtracts the largest of all keys makes 0 (qa35s b54).
    far, padding = key.clone(), torch.ones(B, 1, 1, LK, dtype=torch.bool)
    far[:, -2] *= 1000.0
    far[:, -1] = -far[:, -2]
    padding[..., -2:] = False
    where = f"{MHA} with a mask of shape {tuple(padding.shape)} that blocks two keys of large norm"
    output, weights = forward_checked(student, handle, where, OUT, WEIGHTS, query, far, key, padding)
    expected = reference_module(query, far, key, padding)
    if blocked_key_counts(weights, expected[1], mha_scores(state, H, query, far), padding):
        raise fail_with(f"{where} lost the allowed weights", "softmax_blocked_key_counts")
    variants = mha_variants(state, H, query, far, key, padding.expand(B, H, LQ, LK))
    expect_attention(output, weights, expected, where, variants)


@check("C.3", 2, "MultiHeadAttention: agrees with torch's nn.MultiheadAttention given the same weights", visibility="after_due_date")
def test_mha_matches_torch(student: StudentAPI, gen, seed):
    """Weights drawn in torch.nn.MultiheadAttention's layout (packed q/k/v projection, then the
    output's); the reference gives torch's values here (tests/test_assignment.py holds it)."""
    in_weight, in_bias = randn(gen, 3 * E, E, scale=0.4), randn(gen, 3 * E, scale=0.4)
    state = {}
    for index, name in enumerate(("W_q", "W_k", "W_v")):
        state[f"{name}.weight"], state[f"{name}.bias"] = in_weight[index * E:(index + 1) * E].clone(), in_bias[index * E:(index + 1) * E].clone()
    state["W_o.weight"], state["W_o.bias"] = randn(gen, E, E, scale=0.4), randn(gen, E, scale=0.4)
    handle = build_student(student, "MultiHeadAttention", (E, H), state, seed)
    query, key, value = randn(gen, B, LQ, E), randn(gen, B, LK, E), randn(gen, B, LK, E)
    mask = random_mask(gen, LQ, LK)
    with torch.no_grad():
        expected = build_reference("MultiHeadAttention", (E, H), state)(query, key, value, mask)
    output, weights = forward_checked(student, handle, MHA, OUT, WEIGHTS, query, key, value, mask)
    expect_attention(output, weights, expected, f"{MHA} vs torch.nn.MultiheadAttention", mha_variants(state, H, query, key, value, mask.expand(B, H, LQ, LK)))


@check("C.3", 2, "MultiHeadAttention: dropout is off in eval mode")
def test_mha_eval_dropout_off(student: StudentAPI, gen, seed):
    state, handle = _mha(student, gen, seed, dropout=0.5)
    query = randn(gen, B, LQ, E)  # self-attention: a cross-attention or defaults bug is charged in its own check
    first, weights = forward_checked(student, handle, f"{MHA} in eval mode", OUT, SELF_WEIGHTS, query, seed=seed)
    second, _ = forward_checked(student, handle, f"{MHA} in eval mode", OUT, SELF_WEIGHTS, query, seed=seed + 1)
    if not torch.equal(first, second):
        raise fail_with(f"{MHA} in eval mode gives different outputs on two calls", "dropout_in_eval")
    expected = build_reference("MultiHeadAttention", (E, H), state, {"dropout": 0.5})(query)
    expect_attention(first, weights, expected, f"{MHA} in eval mode", mha_variants(state, H, query))


@check("C.3", 2, "MultiHeadAttention: in training mode dropout changes the output, and the returned weights are from before dropout")
def test_mha_train_dropout(student: StudentAPI, gen, seed):
    state, handle = _mha(student, gen, seed, dropout=0.5, training=True)
    query = randn(gen, B, LQ, E)  # self-attention: a cross-attention or defaults bug is charged in its own check
    output, weights = forward_checked(student, handle, f"{MHA} in training mode", OUT, SELF_WEIGHTS, query, seed=seed)
    with torch.no_grad():
        expected_out, expected_weights = build_reference("MultiHeadAttention", (E, H), state)(query)
    if not values_close(weights, expected_weights):
        after = torch.where(weights == 0, torch.zeros_like(expected_weights), expected_weights / 0.5)
        if (weights == 0).any() and (weights != 0).any() and values_close(weights, after):
            raise fail_with(f"{MHA} in training mode returned weights that do not sum to 1", "mha_weights_after_dropout")
        expect_match(weights, expected_weights, f"{MHA} in training mode (weights)")
    if values_close(output, expected_out):
        raise CheckFailure.keyed("mha_output_without_dropout", where=f"{MHA} in training mode")
    # Where dropout acts is told from the output only when all else is right: the same weights
    # without dropout (dropout=0.0, so dropout left on in eval mode is charged in its own check).
    plain = build_student(student, "MultiHeadAttention", (E, H), state, seed, training=True)
    plain_out, plain_weights = forward_checked(student, plain, f"{MHA} without dropout", OUT, SELF_WEIGHTS, query, seed=seed)
    expect_attention(plain_out, plain_weights, (expected_out, expected_weights), f"{MHA} without dropout", mha_variants(state, H, query))
    if not dropped_weights_explain(output, state, query, p_drop=0.5):
        unscaled = dropped_weights_explain(output, state, query, p_drop=0.5, rescaled=False)  # a dropout by hand (qa35s b41)
        raise CheckFailure.keyed("mha_dropout_not_rescaled" if unscaled else "mha_dropout_not_on_weights", where=f"{MHA} in training mode")
    # ...and at another rate: a rate of its own that equals 0.5 at 0.5 (F.dropout(w, 0.5), nn.Dropout()) is not the one given (qa41s b53)
    where = f"{MHA}(dropout={OTHER_RATE}) in training mode"
    other = build_student(student, "MultiHeadAttention", (E, H), state, seed, {"dropout": OTHER_RATE}, training=True)
    other_out, _ = forward_checked(student, other, where, OUT, SELF_WEIGHTS, query, seed=seed)
    kept = kept_share(other_out, state, query, p_drop=OTHER_RATE)
    if kept is None:
        raise CheckFailure.keyed("mha_dropout_rate_unused", where=where, rate=f"{OTHER_RATE:g}")
    if not KEPT_BOUNDS[0] <= kept <= KEPT_BOUNDS[1]:  # each weight kept with probability 1 - p, not p (qa52o o08: the same at 0.5)
        raise CheckFailure.keyed("mha_dropout_keeps_rate", where=where, rate=f"{OTHER_RATE:g}", kept=f"{kept:.0%}", expected=f"{1 - OTHER_RATE:.0%}")
    _expect_mask_kept_in_training(student, handle, plain, state, query, seed)


def _expect_mask_kept_in_training(student: StudentAPI, dropping: Handle, plain: Handle, state: Params, query: torch.Tensor, seed: int) -> None:
    """The mask holds in training mode too (qa52o o15: the dropped weights made again without it).
    Asked only where the same module without dropout uses this mask right: a mistake of the mask
    alone (a shape it refuses) is the mask check's."""
    causal = torch.ones(LQ, LQ, dtype=torch.bool).tril()
    try:
        plain_out, _ = forward_checked(student, plain, f"{MHA} without dropout with a causal mask", OUT, SELF_WEIGHTS, query, mask=causal, seed=seed)
    except (CheckFailure, StudentError):
        return
    with torch.no_grad():
        if not values_close(plain_out, build_reference("MultiHeadAttention", (E, H), state)(query, mask=causal)[0]):
            return
    where = f"{MHA} in training mode with a causal mask"
    masked_out, _ = forward_checked(student, dropping, where, OUT, SELF_WEIGHTS, query, mask=causal, seed=seed)
    if kept_share(masked_out, state, query, p_drop=0.5, mask=causal) is None:
        raise CheckFailure.keyed("mha_dropout_mask_lost", where=where)


# The share of weights kept at OTHER_RATE: 0.75 expected; over C.3's 96 weights (B=2, H=3, 4 x 4)
# one standard deviation is 0.044, so these bounds are more than 5 of them away; keeping each with
# probability p keeps about 0.25.
KEPT_BOUNDS = (0.5, 0.98)


def dropped_weights_explain(output: torch.Tensor, p: Params, query: torch.Tensor, *, p_drop: float = 0.5, rescaled: bool = True) -> bool:
    """Whether output (B, S, E) = W_o(merge(dropout(weights) @ V)) for some dropout of the weights."""
    return kept_share(output, p, query, p_drop=p_drop, rescaled=rescaled) is not None


def kept_share(output: torch.Tensor, p: Params, query: torch.Tensor, *, p_drop: float = 0.5, rescaled: bool = True, mask: torch.Tensor | None = None) -> float | None:
    """The share of the weights kept, where output (B, S, E) = W_o(merge(dropout(weights) @ V)) for some dropout of the weights
    (with the kept weights scaled by 1/(1-p), as nn.Dropout does, unless not `rescaled`),
    in self-attention, with the weights and V the reference's (so a mistake planted there for
    `carried.reference_with` is in them too: qa27s b14, values from W_k in a helper B.1 shares).

    W_o and the reference's merge are inverted to recover the heads (B, H, S, Dh); V is recovered
    so from the reference's output for weights that send query i to key i alone. Each head row must
    be a sum of value rows weighted by w/(1-p) over some subset of the keys (every subset is tried);
    None where none is. `mask`: the weights are the masked ones (a blocked key counts as kept).
    """
    module = build_reference("MultiHeadAttention", (E, H), p)
    with torch.no_grad():
        weights = module(query, mask=mask)[1]  # (B, H, S, S)
        module.dropout = _Chosen(torch.eye(weights.size(-1), dtype=weights.dtype).expand_as(weights))
        v = _heads(module(query)[0], p, weights.shape[:3] + (DH,))  # (B, H, S, Dh)
    heads = _heads(output, p, v.shape)  # (B, H, S, Dh)
    keys = weights.size(-1)
    subsets = ((torch.arange(2**keys)[:, None] >> torch.arange(keys)) & 1).to(weights.dtype)  # (2^S, S)
    candidates = torch.einsum("sj,bhij,bhjd->sbhid", subsets, weights, v) / (1 - p_drop if rescaled else 1.0)  # (2^S, B, H, S, Dh)
    error, best = (candidates - heads).abs().amax(-1).min(0)  # (B, H, S): the best subset per row
    if not bool((error <= 1e-6 * (1 + heads.abs().amax()) + rounding_error(output, heads, recovered=True)).all()):
        return None
    return float(subsets[best].mean())


def _heads(output: torch.Tensor, p: Params, shape: torch.Size) -> torch.Tensor:
    """The heads (B, H, Lq, Dh) that W_o and the reference's merge made `output` (B, Lq, E) of."""
    flat = (output - p["W_o.bias"]).reshape(-1, E)  # (B*Lq, E) = merged @ W_oᵀ
    merged = torch.linalg.solve(p["W_o.weight"], flat.T).T.reshape(output.shape)  # (B, Lq, E)
    return unmerged(merged, shape)


class _Chosen(torch.nn.Module):
    """A dropout that gives back chosen weights, whatever it is given."""

    def __init__(self, chosen: torch.Tensor):
        super().__init__()
        self.chosen = chosen

    def forward(self, weights: torch.Tensor) -> torch.Tensor:
        return self.chosen


@check("C.3", 1, "MultiHeadAttention: gradients of the output and the weights reach W_q, W_k, W_v and W_o")
def test_mha_gradients(student: StudentAPI, gen, seed):
    state, handle = _mha(student, gen, seed)
    query = randn(gen, B, LQ, E)  # self-attention: a cross-attention or defaults bug is charged in its own check
    grads = [randn(gen, B, LQ, E), randn(gen, *SELF_WEIGHTS)]  # the output's, the weights'
    module = build_reference("MultiHeadAttention", (E, H), state)
    expected = module(query)
    result = vjp_checked(student, handle, MHA, [query], grads[0], grads[1], wrt=[0], expected=expected)
    backward_pair(expected, grads)
    expect_parameter_gradients(result, module, state, "MultiHeadAttention")


class _RemoteForward(torch.autograd.Function):
    """The student's forward (output only) as an autograd function whose backward asks the worker."""

    @staticmethod
    def forward(ctx: Any, student: Any, handle: Handle, x: torch.Tensor) -> torch.Tensor:
        ctx.student, ctx.handle = student, handle
        ctx.save_for_backward(x)
        output, _ = forward_checked(student, handle, MHA, tuple(x.shape), None, x.detach())
        ctx.dtype = output.dtype  # the contract leaves C.3's dtype open: a float32 result is compared in x's
        return output.to(x.dtype)

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> tuple:
        (x,) = ctx.saved_tensors
        result = ctx.student.vjp(ctx.handle, [x.detach()], [grad.to(ctx.dtype).contiguous(), None], wrt=[0], where=f"{MHA} backward")
        grad_x = result["grads"][0]  # None: no gradient reaches x (charged by the check)
        return None, None, grad_x.to(x.dtype) if isinstance(grad_x, torch.Tensor) else grad_x


@check("C.3", 1, "MultiHeadAttention: gradients pass torch.autograd.gradcheck", visibility="hidden", kind=PROPERTY, gate="mha_values")
def test_mha_gradcheck(student: StudentAPI, gen, seed):
    small_e, small_h = 6, 2
    state = attention_state(gen, small_e)
    handle = build_student(student, "MultiHeadAttention", (small_e, small_h), state, seed)
    x = randn(gen, 1, 3, small_e).requires_grad_(True)
    output, _ = forward_checked(student, handle, MHA, tuple(x.shape), None, x.detach())
    # finite differences of a float32 result need a larger step and tolerance (a dropped term is still O(1))
    eps, atol, rtol = (1e-6, 1e-5, 1e-3) if output.dtype == torch.float64 else (1e-3, 1e-3, 1e-2)
    try:
        ok = torch.autograd.gradcheck(lambda t: _RemoteForward.apply(student, handle, t), (x,), eps=eps, atol=atol, rtol=rtol, raise_exception=False, fast_mode=FAST_MODE)
    except RuntimeError as error:
        raise CheckFailure.keyed("gradients_failed", where="MultiHeadAttention", text=str(error)[:200]) from None
    if not ok and not _true_input_gradient(student, handle, x.detach(), build_reference("MultiHeadAttention", (small_e, small_h), state), randn(gen, *output.shape).to(output.dtype)):
        raise CheckFailure.keyed("gradcheck_failed", where="MultiHeadAttention")


def _true_input_gradient(student: StudentAPI, handle: Handle, x: torch.Tensor, module: torch.nn.Module, grad_out: torch.Tensor) -> bool:
    """Whether the student's gradient with respect to x is the reference module's. As in A.2's
    gradcheck: finite differences in float64 cannot pass a forward computed in float32 inside and
    cast back (a float64 result, float32 rounding); its gradient is still the true one."""
    result = student.vjp(handle, [x], [grad_out, None], wrt=[0], where=f"{MHA} backward")
    grad = result["grads"][0]
    if not isinstance(grad, torch.Tensor) or grad.shape != x.shape:
        return False
    leaf = x.clone().requires_grad_(True)
    output, _ = module(leaf)
    torch.autograd.backward(output, grad_out.to(output.dtype))
    return values_close(grad, grad_of(leaf))


@check("C.3", 1, "MultiHeadAttention: permuting query positions permutes the output; batch elements are independent", visibility="hidden", kind=PROPERTY, gate="mha_values")
def test_mha_invariances(student: StudentAPI, gen, seed):
    _, handle = _mha(student, gen, seed)
    x = randn(gen, B, LQ, E)
    perm = torch.randperm(LQ, generator=gen)
    out, weights = forward_checked(student, handle, MHA, OUT, SELF_WEIGHTS, x)
    out_p, weights_p = forward_checked(student, handle, MHA, OUT, SELF_WEIGHTS, x[:, perm])
    expect_match(out_p, out[:, perm], f"{MHA} after permuting the positions (output)")
    expect_match(weights_p, weights[:, :, perm][..., perm], f"{MHA} after permuting the positions (weights)")
    key = randn(gen, B, LK, E)
    cross, _ = forward_checked(student, handle, MHA, OUT, WEIGHTS, x, key, key)
    cross_p, _ = forward_checked(student, handle, MHA, OUT, WEIGHTS, x[:, perm], key, key)
    expect_match(cross_p, cross[:, perm], f"{MHA} after permuting the query positions")
    single, _ = forward_checked(student, handle, MHA, (1, LQ, E), (1, H, LQ, LQ), x[1:])
    expect_match(single, out[1:], f"{MHA} on one batch element alone")


@check("C.3", 1, "MultiHeadAttention: built from your functions, not the library's attention", kind=PROPERTY, gate="mha_values")
def test_mha_no_library(student: StudentAPI, gen, seed):
    state, handle = _mha(student, gen, seed)
    x = randn(gen, B, LQ, E)
    result = student.method(handle, "forward", x, where=MHA, trace=True)
    expect_rule(student, MHA_OWN, result)
    output, weights = expect_pair(result.get("value") if isinstance(result, dict) else result, MHA)
    expected = build_reference("MultiHeadAttention", (E, H), state)(x)  # the rule pays on right values only
    expect_match(weights, expected[1], f"{MHA} (weights of the call whose operations were traced)")
    expect_match(output, expected[0], f"{MHA} (output of the call whose operations were traced)")
