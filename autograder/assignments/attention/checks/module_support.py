"""Helpers for the module checks (Parts B-D): weights, building modules on both sides, diagnosis.

A check builds the student's module in the worker, turns it to float64, loads weights drawn from
the check's generator (with the contract's parameter names) and switches it to eval mode; the
same weights go into the trusted reference module here. Buggy variants (for naming a mistake)
are computed from the same weights with the functions below.
"""
from __future__ import annotations

import math
from typing import Any, Callable, Sequence

import torch
import torch.nn.functional as F

from autograder.grading.worker.api import StudentAPI
from autograder.grading.checks.plugin import CheckFailure
from autograder.assignments.attention.checks.support import expect_close, expect_pair, expect_tensor, fmt_shape, grad_of, named_by_weights, randn, reference, rounding_error, values_close
from autograder.assignments.attention.mistakes import MISTAKES, diagnose
from autograder.grading.worker.protocol import Handle

PROJECTIONS = ("W_q", "W_k", "W_v", "W_o")
Params = dict[str, torch.Tensor]
Variants = Sequence[tuple[str, Any]]


# ---------------------------------------------------------------------------------------------
# weights
# ---------------------------------------------------------------------------------------------
def linear_state(gen: torch.Generator, name: str, dim: int, bias: bool = True) -> Params:
    """Weights of an nn.Linear(dim, dim) named `name`, scaled like PyTorch's default init."""
    bound = 1.0 / math.sqrt(dim)
    state = {f"{name}.weight": (torch.rand(dim, dim, generator=gen, dtype=torch.float64) * 2 - 1) * bound * 1.7}
    if bias:
        state[f"{name}.bias"] = (torch.rand(dim, generator=gen, dtype=torch.float64) * 2 - 1) * bound
    return state


def attention_state(gen: torch.Generator, dim: int, names: tuple[str, ...] = PROJECTIONS, prefix: str = "", bias: bool = True) -> Params:
    state: Params = {}
    for name in names:
        state.update(linear_state(gen, prefix + name, dim, bias))
    return state


def block_state(gen: torch.Generator, dim: int) -> Params:
    """Weights for an AttentionBlock: attn.W_* and a LayerNorm that is not the identity."""
    state = attention_state(gen, dim, prefix="attn.")
    state["norm.weight"] = 1.0 + 0.5 * randn(gen, dim)
    state["norm.bias"] = 0.5 * randn(gen, dim)
    return state


# ---------------------------------------------------------------------------------------------
# modules on both sides of the boundary
# ---------------------------------------------------------------------------------------------
def build_student(student: StudentAPI, cls: str, args: tuple, state: Params, seed: int, kwargs: dict | None = None, training: bool = False) -> Handle:
    """The student's module, in float64, with `state` loaded, in eval mode unless `training`."""
    call = f"{cls}({', '.join(repr(a) for a in args)}{''.join(f', {k}={v!r}' for k, v in (kwargs or {}).items())})"
    handle = student.new(cls, *args, seed=seed, **(kwargs or {}))
    handle = student.method(handle, "double", where=f"{call}.double()")
    if not isinstance(handle, Handle):
        raise CheckFailure.keyed("double_lost", where=call)
    load_weights(student, handle, state, call, names_of(cls))
    student.train(handle, training, where=f"{call}.train({training})")
    return handle


def reload_student(student: StudentAPI, handle: Handle, cls: str, state: Params) -> None:
    """Other weights into a module that has already run: a forward that kept copies of the first
    ones (weights fused on its first call) goes on with those, and is caught by its values."""
    load_weights(student, handle, state, f"{cls} (second weights)", names_of(cls))


def load_weights(student: StudentAPI, handle: Handle, state: Params, owner: str, names: tuple[str, ...], private: bool = False) -> None:
    """Load `state` (the contract's parameter names) into the student's module.

    Only names in `state` that the module lacks fail: extra parameters, buffers or submodules the
    student keeps are allowed by the contract (they stay as the student's __init__ made them, and
    the values decide).
    """
    loaded = student.load_state_dict(handle, state, where=f"{owner}.load_state_dict(...)", strict=False, private=private)
    if not isinstance(loaded, dict):
        raise CheckFailure.keyed("load_no_account", where=owner)
    absent = sorted(str(k) for k in loaded.get("unexpected", []))
    own = sorted(str(k) for k in loaded.get("missing", []))  # named only to help rename, never failed for
    if absent and own:
        raise CheckFailure.keyed("no_parameter_but", where=owner, names=", ".join(absent), own=", ".join(own), expected=", ".join(names))
    if absent and all(name.endswith(".bias") for name in absent):  # the layers are there, made with bias=False
        raise CheckFailure.keyed("no_bias", where=owner, names=", ".join(absent))
    if absent:
        layers = sorted({name.rpartition(".")[0] for name in absent})
        info = student.describe(handle, where=f"inspecting {owner}")
        children = info.get("children", {}) if isinstance(info, dict) else {}
        if all(layer and layer in children for layer in layers):  # named right, made without them
            made = ", ".join(f"{layer} ({children[layer]})" for layer in layers)
            raise CheckFailure.keyed("layer_without_parameters", where=owner, names=", ".join(absent), layers=made)
        raise CheckFailure.keyed("no_parameter", where=owner, names=", ".join(absent), expected=", ".join(names))


def names_of(cls: str) -> tuple[str, ...]:
    return {"SelfAttention": ("W_q", "W_k", "W_v"), "MultiHeadAttention": PROJECTIONS, "AttentionBlock": ("attn", "norm", "dropout")}.get(cls, ())


MAX_EPS = 1e-3  # the largest LayerNorm eps the reference takes from the student's block (the contract: yours to choose, up to this)


def found_eps(student: StudentAPI, handle: Handle) -> float | None:
    """The eps of the student's block's LayerNorm (None: no LayerNorm named norm, or no float)."""
    eps = student.describe(handle, "inspecting AttentionBlock").get("norm_eps", {}).get("norm")
    return eps if type(eps) is float and eps >= 0.0 else None


def allowed_eps(eps: float | None, default: float) -> float:
    """The eps the reference uses: the student's where the contract allows it (up to MAX_EPS), else `default`."""
    return eps if eps is not None and eps <= MAX_EPS else default


def norm_eps(student: StudentAPI, handle: Handle, default: float) -> float:
    """The eps of the student's block's LayerNorm, for the reference to use; `default` when it
    is not one the contract allows (a float up to MAX_EPS)."""
    return allowed_eps(found_eps(student, handle), default)


def build_reference(cls: str, args: tuple, state: Params, kwargs: dict | None = None) -> torch.nn.Module:
    module = getattr(reference(), cls)(*args, **(kwargs or {})).double()
    module.load_state_dict(state)
    return module.eval()


def forward_pair(student: StudentAPI, handle: Handle, where: str, *args: Any, seed: int | None = None, **kwargs: Any) -> tuple[torch.Tensor, torch.Tensor]:
    value = student.method(handle, "forward", *args, where=where, seed=seed, **kwargs)
    return expect_pair(value, where)


def forward_checked(student: StudentAPI, handle: Handle, where: str, out_shape: tuple, w_shape: tuple | None, *args: Any, seed: int | None = None, **kwargs: Any) -> tuple[torch.Tensor, torch.Tensor]:
    output, weights = forward_pair(student, handle, where, *args, seed=seed, **kwargs)
    return expect_tensor(output, f"{where} (output)", out_shape), expect_weights(weights, where, w_shape)


def expect_weights(weights: Any, where: str, shape: tuple | None) -> torch.Tensor:
    """The weights must have `shape`; per-head weights (B, H, Lq, Lk) returned as one map for all
    heads (B, Lq, Lk), as nn.MultiheadAttention does by default, are named as such."""
    if shape is not None and len(shape) == 4 and shape[1] > 1 and isinstance(weights, torch.Tensor) and tuple(weights.shape) == (shape[0], *shape[2:]):  # (one head: a squeeze, qa41s b49)
        raise CheckFailure.keyed("wrong_shape", "mha_weights_without_heads", where=f"{where} (weights)", got=fmt_shape(weights.shape), expected=fmt_shape(shape))
    return expect_tensor(weights, f"{where} (weights)", shape)


def vjp_checked(student: StudentAPI, handle: Handle, where: str, args: list, grad_output: torch.Tensor, grad_weights: torch.Tensor, wrt: list[int], expected: tuple) -> dict:
    """Gradients of sum(output * grad_output) + sum(weights * grad_weights) w.r.t. args[wrt] and
    every parameter (each result's gradient must be the true one), once the forward's
    (output, weights) are the reference's `expected` ones: a gradient pays only as the gradient of
    the right values (round 39, qa47h: `out - out.detach()` is zero with the true gradients)."""
    result = student.vjp(handle, args, [grad_output, grad_weights], wrt=wrt, where=f"{where} backward", params=True)
    output, weights = expect_pair(result.get("outputs"), where)
    expect_match(expect_weights(weights, where, tuple(grad_weights.shape)), expected[1].detach(), f"{where} (weights)")
    expect_match(expect_tensor(output, f"{where} (output)", tuple(grad_output.shape)), expected[0].detach(), f"{where} (output)")
    return result


def expect_parameter_gradients(result: dict, module: torch.nn.Module, names: Any, owner: str) -> None:
    """The student's parameter gradients must equal the reference module's (after its backward).

    A gradient that is 0 by cancellation (W_k's bias: a shift shared by a row's scores changes no
    weight) keeps the rounding of the terms that cancel, which are as large as the module's other
    gradients: computed in float32 inside and cast back, it is about 1e-7, not 0."""
    expected = dict(module.named_parameters())
    largest = max((grad_of(p).abs().max().item() for p in expected.values() if p.grad is not None and p.numel()), default=0.0)
    got = result.get("param_grads", {})
    for name in names:
        grad = got.get(name)
        if not isinstance(grad, torch.Tensor):
            if expected[name].grad is None:  # the reference does not use it either (an earlier task's mistake planted in it)
                continue
            raise CheckFailure.keyed("no_gradient", where=owner, name=name)
        want = grad_of(expected[name])
        expect_match(grad, want, f"the gradient of {name}", what="gradients", atol=max(1e-7, rounding_error(grad, want, largest)))


# ---------------------------------------------------------------------------------------------
# naming a mistake when several buggy outputs stand for it
# ---------------------------------------------------------------------------------------------
def expect_match(actual: torch.Tensor, expected: torch.Tensor, where: str, variants: Variants | Callable[[], Variants] = (), what: str = "values", rtol: float = 1e-5, atol: float = 1e-7) -> None:
    """Like support.expect_close, but a mistake may have several buggy outputs (tried in order;
    `variants` may be a function that makes them, called only when the values are wrong)."""
    try:
        expect_close(actual, expected, where, rtol=rtol, atol=atol, what=what)
    except CheckFailure as failure:
        if failure.mistake or not isinstance(actual, torch.Tensor):
            raise
        key = name_mistake(actual, variants() if callable(variants) else variants)
        if key and failure.key == "wrong_shape_permuted":  # the mistake says why the sizes moved
            raise CheckFailure.keyed("wrong_shape", key, **failure.values) from None
        if key:
            raise CheckFailure(f"{failure.message}: {MISTAKES[key].en}", key, MISTAKES[key].en, failure.key, failure.values) from None
        raise


def name_mistake(actual: torch.Tensor, variants: Variants) -> str:
    for key, candidate in variants:
        if isinstance(candidate, torch.Tensor) and diagnose(actual, {key: candidate}):
            return key
    return ""


# ---------------------------------------------------------------------------------------------
# trusted functional attention, with the catalogue's bugs as switches
# ---------------------------------------------------------------------------------------------
def linear(p: Params, name: str, x: torch.Tensor) -> torch.Tensor:
    return F.linear(x, p[f"{name}.weight"], p.get(f"{name}.bias"))


def split_correct(x: torch.Tensor, heads: int) -> torch.Tensor:
    return reference().split_heads(x, heads)  # (B, H, S, Dh)


def unmerged(merged: torch.Tensor, shape: torch.Size) -> torch.Tensor:
    """The heads (B, H, S, Dh) that the reference's merge_heads turns into `merged` (B, S, E)."""
    where = reference().merge_heads(torch.arange(math.prod(shape)).reshape(shape))  # each merged place: the flat index of its head value
    return torch.empty(math.prod(shape), dtype=merged.dtype).index_put_((where.flatten(),), merged.flatten()).reshape(shape)


def split_no_transpose(x: torch.Tensor, heads: int) -> torch.Tensor:
    b, s, e = x.shape
    return x.reshape(b, heads, s, e // heads)  # (B, H, S, Dh), features scrambled


def split_interleaved(x: torch.Tensor, heads: int) -> torch.Tensor:
    b, s, e = x.shape
    return x.reshape(b, s, e // heads, heads).permute(0, 3, 1, 2)  # head i = features i, i+H, ...


def split_size_for_count(x: torch.Tensor, heads: int) -> torch.Tensor:
    b, s, e = x.shape
    return x.reshape(b, s, e // heads, heads).transpose(1, 2)  # (B, Dh, S, H): torch.split(x, heads) stacked


def merge_correct(x: torch.Tensor) -> torch.Tensor:
    return reference().merge_heads(x)


def merge_no_transpose(x: torch.Tensor) -> torch.Tensor:
    b, h, s, dh = x.shape
    return x.reshape(b, s, h * dh)


def merge_interleaved(x: torch.Tensor) -> torch.Tensor:
    b, h, s, dh = x.shape
    return x.permute(0, 2, 3, 1).reshape(b, s, h * dh)


def mha(
    p: Params, heads: int, query: torch.Tensor, key: torch.Tensor | None = None, value: torch.Tensor | None = None, mask: torch.Tensor | None = None, *,
    split: Callable = split_correct, merge: Callable = merge_correct, scale_dim: int | None = None, output_projection: bool = True,
    value_projection: str = "W_v", use_mask: bool = True, prefix: str = "", fill_zero: bool = False,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Multi-head attention from plain functions; the keyword switches plant one bug each."""
    key = query if key is None else key
    value = key if value is None else value
    scores = mha_scores(p, heads, query, key, split=split, scale_dim=scale_dim, prefix=prefix)  # (B, H, Lq, Lk)
    v = split(linear(p, prefix + "W_v" if value_projection == "W_v" else prefix + value_projection, value), heads)  # (B, H, Lk, Dh)
    if fill_zero and mask is not None:  # the blocked scores set to 0, softmax over every key
        scores, mask = scores.masked_fill(~mask, 0.0), None
    weights = reference().masked_softmax(scores, mask if use_mask else None)  # (B, H, Lq, Lk)
    merged = merge(weights @ v)  # (B, Lq, E)
    return (linear(p, prefix + "W_o", merged) if output_projection else merged), weights


def mha_scores(p: Params, heads: int, query: torch.Tensor, key: torch.Tensor, *, split: Callable = split_correct, scale_dim: int | None = None,
               prefix: str = "") -> torch.Tensor:
    """Each head's scores (B, H, Lq, Lk) before the softmax; scale_dim: divided by its root instead."""
    q = split(linear(p, prefix + "W_q", query), heads)  # (B, H, Lq, Dh)
    k = split(linear(p, prefix + "W_k", key), heads)  # (B, H, Lk, Dh)
    return reference().attention_scores(q, k) if scale_dim is None else q @ k.transpose(-2, -1) / math.sqrt(scale_dim)


def mha_variants(p: Params, heads: int, query: torch.Tensor, key: torch.Tensor | None = None, value: torch.Tensor | None = None, mask: torch.Tensor | None = None, prefix: str = "") -> list[tuple[str, tuple[torch.Tensor, torch.Tensor]]]:
    """(mistake key, (output, weights)) for each catalogue bug of multi-head attention."""
    e = query.size(-1)
    run = lambda **bug: mha(p, heads, query, key, value, mask, prefix=prefix, **bug)  # noqa: E731
    variants = [
        ("split_no_transpose", run(split=split_no_transpose)),
        ("split_interleaved", run(split=split_interleaved)),
        ("split_interleaved", run(split=split_interleaved, merge=merge_interleaved)),
        ("merge_no_transpose", run(merge=merge_no_transpose)),
        ("merge_interleaved", run(merge=merge_interleaved)),
        ("mha_scaled_by_embed_dim", run(scale_dim=e)),
        ("scores_no_scaling", run(scale_dim=1)),
        ("mha_no_output_projection", run(output_projection=False)),
        ("mha_key_projection_for_values", run(value_projection="W_k")),
    ]
    if mask is not None:
        variants.append(("mha_mask_ignored", run(use_mask=False)))
        variants.append(("mask_inverted", mha(p, heads, query, key, value, ~mask, prefix=prefix)))
        variants.append(("mask_filled_with_zero", run(fill_zero=True)))  # in the module's own softmax (qa35s b06)
    return variants


def outputs_of(variants: list[tuple[str, tuple[torch.Tensor, torch.Tensor]]]) -> Variants:
    return [(k, pair[0]) for k, pair in variants]


def weights_of(variants: list[tuple[str, tuple[torch.Tensor, torch.Tensor]]], output: torch.Tensor, expected_output: torch.Tensor) -> Variants:
    """The variants' weights, each under the mistake it names next to the call's `output`
    (support.named_by_weights: unmasked weights with the right output do not show a mask left out).
    A variant whose output the call's is not names nothing: its weights alone cannot tell it from
    another mistake with the same weights (qa26s b15: queries from W_k and values from W_v have
    the weights of one projection for Q, K and V)."""
    named = []
    for key, (variant_output, variant_weights) in variants:
        key = named_by_weights(key, output, expected_output)
        if key == "returned_weights_unmasked" or not _other_output(output, variant_output):  # the first: the right output, by its definition
            named.append((key, variant_weights))
    return named


def _other_output(output: Any, variant_output: torch.Tensor) -> bool:
    return isinstance(output, torch.Tensor) and output.shape == variant_output.shape and not values_close(output, variant_output)


def expect_attention(output: torch.Tensor, weights: torch.Tensor, expected: tuple[torch.Tensor, torch.Tensor], where: str, variants: list) -> None:
    """Weights first (most bugs show there), then the output; each names a matching mistake."""
    expect_match(weights, expected[1], f"{where} (weights)", lambda: weights_of(variants, output, expected[0]))
    expect_match(output, expected[0], f"{where} (output)", outputs_of(variants))
