"""Hidden checks, Part B: single-head self-attention with Q/K/V projections (SelfAttention)."""
from __future__ import annotations

import math

import torch

from autograder.grading.worker.api import StudentAPI
from autograder.assignments.attention.checks.module_support import (
    Params, attention_state, build_reference, build_student, expect_match, expect_parameter_gradients, forward_checked, linear, reload_student, vjp_checked, weights_of,
)
from autograder.grading.checks.plugin import PROPERTY, SHAPE, CheckFailure, check
from autograder.assignments.attention.checks.support import (
    B, DH, LK, backward_pair, blocked_key_counts, expect_pair, expect_rule, expect_tensor, fail_with, randn, random_mask, reference,
)
from autograder.assignments.attention.rules import SELF_ATTENTION_OWN

D, S = DH, LK  # (B, S, D) = (2, 5, 7): all sizes distinct
NAMES = ("W_q", "W_k", "W_v")


def _setup(student: StudentAPI, gen, seed, mask: bool = False):
    state = attention_state(gen, D, NAMES)
    handle = build_student(student, "SelfAttention", (D,), state, seed)
    x = randn(gen, B, S, D)
    return state, handle, x, (_mask_with_a_blocked_query(gen) if mask else None)


def _mask_with_a_blocked_query(gen: torch.Generator) -> torch.Tensor:
    """A random (B, S, S) mask in which one query of the first sequence has every key blocked: its
    weights are zeros, so its output is 0 (weights @ W_v(x)), which W_v applied after the
    weighted sum (W_v(weights @ x), equal while each row sums to 1) turns into W_v's bias."""
    mask = random_mask(gen, B, S, S)
    mask[0, S // 2] = False
    return mask


def _self_attention(p: Params, x: torch.Tensor, mask: torch.Tensor | None, projections=NAMES, scale: float | None = None, use_mask: bool = True, axis: int = -1):
    q, k, v = (linear(p, name, x) for name in projections)  # (B, S, D) each
    scores = q @ k.transpose(-2, -1) / (math.sqrt(D) if scale is None else scale)  # (B, S, S)
    softmax = reference().masked_softmax
    weights = softmax(scores, mask if use_mask else None) if axis == -1 else softmax(scores.transpose(-2, -1)).transpose(-2, -1)
    return weights @ v, weights


def _variants(p: Params, x: torch.Tensor, mask: torch.Tensor | None) -> list[tuple[str, tuple[torch.Tensor, torch.Tensor]]]:
    variants = [("selfattn_shared_projection", _self_attention(p, x, mask, (name, name, name))) for name in NAMES]
    variants += [
        ("selfattn_shared_projection", _self_attention(p, x, mask, ("W_q", "W_q", "W_v"))),
        ("mha_key_projection_for_values", _self_attention(p, x, mask, ("W_q", "W_k", "W_k"))),
        ("scores_no_scaling", _self_attention(p, x, mask, scale=1.0)),
        ("scores_scaled_by_d", _self_attention(p, x, mask, scale=float(D))),
    ]
    if mask is None:
        variants.append(("softmax_wrong_axis", _self_attention(p, x, None, axis=-2)))
    else:
        variants.append(("selfattn_mask_ignored", _self_attention(p, x, mask, use_mask=False)))
        variants.append(("mask_inverted", _self_attention(p, x, ~mask)))
    return variants


def _expect_reference(student: StudentAPI, handle, state, x, mask, where: str) -> None:
    output, weights = forward_checked(student, handle, where, (B, S, D), (B, S, S), x, mask)
    expected = build_reference("SelfAttention", (D,), state)(x, mask)
    if mask is not None and blocked_key_counts(weights, expected[1], reference().attention_scores(linear(state, "W_q", x), linear(state, "W_k", x)), mask):
        raise fail_with(f"{where} lost the allowed weights", "softmax_blocked_key_counts")
    variants = _variants(state, x, mask)
    expect_match(weights, expected[1], f"{where} (weights)", weights_of(variants, output, expected[0]))
    expect_match(output, expected[0], f"{where} (output)", [(k, o) for k, (o, _) in variants])


@check("B.1", 1, "SelfAttention: three projections W_q, W_k, W_v, each nn.Linear(dim, dim)", kind=PROPERTY, gate="self_attention_values")
def test_self_attention_parameters(student: StudentAPI, seed):
    handle = student.new("SelfAttention", D, seed=seed)
    info = student.describe(handle, "inspecting SelfAttention")
    if not info.get("module"):
        raise CheckFailure.keyed("not_a_module", where="SelfAttention", kind=str(info.get("type")))
    params = {name: tuple(shape) for name, shape in info["parameters"].items()}
    for name in NAMES:
        if info["children"].get(name) != "Linear":
            raise CheckFailure.keyed("no_linear", where="SelfAttention", name=name)
        for suffix, shape in (("weight", (D, D)), ("bias", (D,))):
            if params.get(f"{name}.{suffix}") != shape:
                raise CheckFailure.keyed("param_shape", where=f"SelfAttention.{name}.{suffix}", expected=str(shape), got=str(params.get(f"{name}.{suffix}")))


@check("B.1", 1, "SelfAttention: returns (output (B, S, dim), weights (B, S, S))", kind=SHAPE)
def test_self_attention_shapes(student: StudentAPI, gen, seed):
    handle = build_student(student, "SelfAttention", (D,), {}, seed)  # its own weights: shapes do not depend on them (bias=False keeps this point)
    forward_checked(student, handle, "SelfAttention.forward", (B, S, D), (B, S, S), randn(gen, B, S, D))
    forward_checked(student, handle, "SelfAttention.forward on one position", (B, 1, D), (B, 1, 1), randn(gen, B, 1, D))  # a squeeze drops it (qa41s b58)


@check("B.1", 2.5, "SelfAttention: output and weights equal the reference with the same weights")
def test_self_attention_values(student: StudentAPI, gen, seed):
    state, handle, x, _ = _setup(student, gen, seed)
    _expect_reference(student, handle, state, x, None, "SelfAttention.forward")
    again = attention_state(gen, D, NAMES)
    reload_student(student, handle, "SelfAttention", again)
    _expect_reference(student, handle, again, x, None, "SelfAttention.forward after loading other weights")


# apart from the values, which B.1's properties pay on: training mode alone costs its own half point (as A.3's edges: qa50s)
@check("B.1", 0.5, "SelfAttention: the same in training mode (a new module's mode): no dropout of its own")
def test_self_attention_training_mode(student: StudentAPI, gen, seed):
    state, handle, x, _ = _setup(student, gen, seed)
    student.train(handle, True, where="SelfAttention.train(True)")  # qa52o o05: weights dropped in training mode
    _expect_reference(student, handle, state, x, None, "SelfAttention.forward in training mode")


@check("B.1", 2, "SelfAttention: the mask is used (True = may attend)")
def test_self_attention_mask(student: StudentAPI, gen, seed):
    state, handle, x, mask = _setup(student, gen, seed, mask=True)
    _expect_reference(student, handle, state, x, mask, "SelfAttention.forward with a mask")
    # Two positions of large norm (of opposite signs) that the mask blocks as keys and as queries:
    # in most rows one of them scores far above the allowed keys, whose weights a softmax that
    # subtracts the largest of all keys makes 0 (qa35s b54, there in C.3).
    far, blocked = x.clone(), mask.clone()
    far[:, -2] *= 1000.0
    far[:, -1] = -far[:, -2]
    blocked[..., -2:] = blocked[:, -2:] = False
    blocked[:, :-2, 0] = True
    _expect_reference(student, handle, state, far, blocked, "SelfAttention.forward with a mask that blocks two positions of large norm")


@check("B.1", 1, "SelfAttention: gradients of the output and the weights reach W_q, W_k and W_v")
def test_self_attention_gradients(student: StudentAPI, gen, seed):
    state, handle, x, _ = _setup(student, gen, seed)
    grads = [randn(gen, B, S, D), randn(gen, B, S, S)]  # the output's, the weights'
    module = build_reference("SelfAttention", (D,), state)
    leaf = x.clone().requires_grad_(True)
    expected = module(leaf)
    result = vjp_checked(student, handle, "SelfAttention.forward", [x], grads[0], grads[1], wrt=[0], expected=expected)
    backward_pair(expected, grads)
    expect_parameter_gradients(result, module, state, "SelfAttention")
    expect_match(expect_tensor(result["grads"][0], "the gradient of x", (B, S, D)), leaf.grad, "the gradient of x", what="gradients")


@check("B.1", 1, "SelfAttention: permuting positions permutes the result; batch elements are independent", visibility="hidden", kind=PROPERTY, gate="self_attention_values")
def test_self_attention_invariances(student: StudentAPI, gen, seed):
    _, handle, x, _ = _setup(student, gen, seed)
    perm = torch.randperm(S, generator=gen)
    where = "SelfAttention.forward"
    out, weights = forward_checked(student, handle, where, (B, S, D), (B, S, S), x)
    out_p, weights_p = forward_checked(student, handle, where, (B, S, D), (B, S, S), x[:, perm])
    expect_match(out_p, out[:, perm], "SelfAttention after permuting the positions (output)")
    expect_match(weights_p, weights[:, perm][:, :, perm], "SelfAttention after permuting the positions (weights)")
    single, _ = forward_checked(student, handle, where, (1, S, D), (1, S, S), x[1:])
    expect_match(single, out[1:], "SelfAttention on one batch element alone")


@check("B.1", 1, "SelfAttention: built from your functions, not the library's attention", kind=PROPERTY, gate="self_attention_values")
def test_self_attention_no_library(student: StudentAPI, gen, seed):
    state, handle, x, _ = _setup(student, gen, seed)
    result = student.method(handle, "forward", x, where="SelfAttention.forward", trace=True)
    expect_rule(student, SELF_ATTENTION_OWN, result)
    output, weights = expect_pair(result.get("value") if isinstance(result, dict) else result, "SelfAttention.forward")
    expected = build_reference("SelfAttention", (D,), state)(x, None)  # the rule pays on right values only
    expect_match(weights, expected[1], "SelfAttention.forward (weights of the call whose operations were traced)")
    expect_match(output, expected[0], "SelfAttention.forward (output of the call whose operations were traced)")
