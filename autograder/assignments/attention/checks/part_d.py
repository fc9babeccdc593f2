"""Hidden checks, Part D: the post-norm residual attention block (AttentionBlock)."""
from __future__ import annotations

from typing import Any

import torch
import torch.nn.functional as F

from autograder.grading.worker.api import StudentAPI
from autograder.assignments.attention.checks.module_support import (
    MAX_EPS, PROJECTIONS, Params, allowed_eps, block_state, build_reference, build_student, expect_match, expect_parameter_gradients, forward_checked, found_eps, mha,
    vjp_checked, weights_of,
)
from autograder.grading.checks.plugin import PROPERTY, SHAPE, CheckFailure, check
from autograder.assignments.attention.checks.support import fail_with, grad_of, B, E, H, LK, OTHER_RATE, backward_pair, expect_tensor, randn, random_mask, values_close
from autograder.grading.worker.protocol import Handle

S = LK  # (B, S, E) = (2, 5, 21), weights (B, H, S, S) = (2, 3, 5, 5)
OUT, WEIGHTS = (B, S, E), (B, H, S, S)
BLOCK = "AttentionBlock.forward"


EPS = 1e-5  # nn.LayerNorm's default


def _block(student: StudentAPI, gen: torch.Generator, seed: int, dropout: float = 0.0, training: bool = False) -> tuple[Params, Handle, float | None]:
    """Weights, the student's block holding them, and its norm's eps (the reference uses it where
    the contract allows it: `allowed_eps`)."""
    state = block_state(gen, E)
    handle = build_student(student, "AttentionBlock", (E, H), state, seed, {"dropout": dropout} if dropout else {}, training)
    return state, handle, found_eps(student, handle)


def _reference(state: Params, eps: float | None, dropout: float = 0.0) -> torch.nn.Module:
    module = build_reference("AttentionBlock", (E, H), state, {"dropout": dropout})
    norm = module.get_submodule("norm")
    assert isinstance(norm, torch.nn.LayerNorm)  # the reference's
    norm.eps = allowed_eps(eps, EPS)
    return module


def _norm(p: Params, x: torch.Tensor, eps: float) -> torch.Tensor:
    return F.layer_norm(x, (E,), p["norm.weight"], p["norm.bias"], eps)


def _variants(p: Params, x: torch.Tensor, mask: torch.Tensor | None, student_eps: float | None) -> list[tuple[str, Any]]:
    """(mistake key, (y, weights)) for each catalogue bug of the block; `student_eps`, the eps of
    the student's norm (one above the contract's MAX_EPS is a mistake of its own)."""
    eps = allowed_eps(student_eps, EPS)
    attended, weights = mha(p, H, x, mask=mask, prefix="attn.")
    normed_attended, normed_weights = mha(p, H, _norm(p, x, eps), mask=mask, prefix="attn.")
    variants = [
        ("block_pre_norm", (x + normed_attended, normed_weights)),
        ("block_pre_norm", (_norm(p, x, eps) + normed_attended, normed_weights)),
        ("block_no_residual", (_norm(p, attended, eps), weights)),
        ("block_no_norm", (x + attended, weights)),
        ("block_residual_after_norm", (x + _norm(p, attended, eps), weights)),
    ]
    if student_eps is not None and student_eps > MAX_EPS:
        variants.append(("block_norm_eps_too_large", (_norm(p, x + attended, student_eps), weights)))
    if mask is not None:
        variants.append(("block_mask_ignored", (_norm(p, x + mha(p, H, x, prefix="attn.")[0], eps), mha(p, H, x, prefix="attn.")[1])))
    return variants


def _expect_reference(output: torch.Tensor, weights: torch.Tensor, state: Params, x: torch.Tensor, mask: torch.Tensor | None, where: str, eps: float | None, dropout: float = 0.0) -> None:
    expected = _reference(state, eps, dropout)(x, mask)
    variants = _variants(state, x, mask, eps)
    expect_match(weights, expected[1], f"{where} (weights)", weights_of(variants, output, expected[0]))
    expect_match(output, expected[0], f"{where} (output)", [(k, y) for k, (y, _) in variants])


@check("D.1", 1, "AttentionBlock: self.attn (MultiHeadAttention), self.norm (nn.LayerNorm(E)) and self.dropout", kind=PROPERTY, gate="block_values")
def test_block_parameters(student: StudentAPI, seed):
    handle = student.new("AttentionBlock", E, H, 0.25, seed=seed)
    info = student.describe(handle, "inspecting AttentionBlock")
    if not info.get("module"):
        raise CheckFailure.keyed("not_a_module", where="AttentionBlock", kind=str(info.get("type")))
    children, params = info["children"], {name: tuple(shape) for name, shape in info["parameters"].items()}
    if "MultiHeadAttention" not in info.get("lineage", {}).get("attn", [children.get("attn")]):  # the class, or a subclass of it
        raise CheckFailure.keyed("block_attn_class", kind=str(children.get("attn", "nothing")))
    if children.get("norm") != "LayerNorm" or params.get("norm.weight") != (E,):
        raise CheckFailure.keyed("block_norm")
    missing = [f"attn.{name}" for name in PROJECTIONS if params.get(f"attn.{name}.weight") != (E, E)]
    if missing:
        raise CheckFailure.keyed("block_no_projections", names=", ".join(missing), expected=f"({E}, {E})")
    if children.get("dropout") != "Dropout" and info["attributes"].get("dropout") not in ("float", "int"):
        raise CheckFailure.keyed("block_no_dropout")
    for rate in (0.25, 0.0):  # a rate of its own that is the one given at one rate only (`dropout or 0.1`: qa41s b86)
        if rate != 0.25:
            info = student.describe(student.new("AttentionBlock", E, H, rate, seed=seed), "inspecting AttentionBlock")
        inner = info.get("dropout_p", {}).get("attn.dropout")
        if inner is not None and abs(inner - rate) > 1e-12:
            raise CheckFailure.keyed("block_dropout_not_passed_on", got=f"{inner:g}", rate=f"{rate:g}")


@check("D.1", 1, "AttentionBlock: returns (y (B, S, E), weights (B, H, S, S))", kind=SHAPE)
def test_block_shapes(student: StudentAPI, gen, seed):
    handle = build_student(student, "AttentionBlock", (E, H), {}, seed)  # its own weights: shapes do not depend on them (a norm without bias keeps this point)
    forward_checked(student, handle, BLOCK, OUT, WEIGHTS, randn(gen, B, S, E))
    single = build_student(student, "AttentionBlock", (E, 1), {}, seed)  # one head, one sequence of one position: a squeeze drops an axis (qa41s b52, b54, b61)
    forward_checked(student, single, f"AttentionBlock({E}, 1).forward on one sequence of one position", (1, 1, E), (1, 1, 1, 1), randn(gen, 1, 1, E))


@check("D.1", 4, "AttentionBlock: y = norm(x + dropout(attn(x))), equal to the reference with the same weights")
def test_block_values(student: StudentAPI, gen, seed):
    state, handle, eps = _block(student, gen, seed)
    x = randn(gen, B, S, E)
    output, weights = forward_checked(student, handle, BLOCK, OUT, WEIGHTS, x)
    _expect_reference(output, weights, state, x, None, BLOCK, eps)


@check("D.1", 2, "AttentionBlock: the mask reaches the attention")
def test_block_mask(student: StudentAPI, gen, seed):
    state, handle, eps = _block(student, gen, seed)
    x = randn(gen, B, S, E)
    for mask in (torch.ones(S, S, dtype=torch.bool).tril(), random_mask(gen, B, 1, S, S)):
        where = f"{BLOCK} with a mask of shape {tuple(mask.shape)}"
        output, weights = forward_checked(student, handle, where, OUT, WEIGHTS, x, mask)
        _expect_reference(output, weights, state, x, mask, where, eps)
    # in training mode too, where a model trains (qa52o o11: the mask left out there): its attention
    # in eval mode, the blocked weights alone (a dropout of the block's own, or another formula in
    # training mode, is block_dropout's subject: qa42s b42)
    causal = torch.ones(S, S, dtype=torch.bool).tril()
    trained = build_student(student, "AttentionBlock", (E, H), state, seed, {"dropout": 0.0}, training=True)
    _attention_in_eval(student, trained)
    where = f"{BLOCK} in training mode with a causal mask (its attention in eval mode)"
    _, weights = forward_checked(student, trained, where, OUT, WEIGHTS, x, causal)
    if (weights.masked_select(~causal.expand_as(weights)) != 0).any():
        expect_match(weights, mha(state, H, x, mask=causal, prefix="attn.")[1], f"{where} (weights)", [("block_mask_ignored", mha(state, H, x, prefix="attn.")[1])])


@check("D.1", 2, "AttentionBlock: dropout is off in eval mode and on in training mode; weights are from before dropout")
def test_block_dropout(student: StudentAPI, gen, seed):
    state, handle, eps = _block(student, gen, seed, dropout=0.5)
    x = randn(gen, B, S, E)
    first, weights = forward_checked(student, handle, f"{BLOCK} in eval mode", OUT, WEIGHTS, x, seed=seed)
    second, _ = forward_checked(student, handle, f"{BLOCK} in eval mode", OUT, WEIGHTS, x, seed=seed + 1)
    if not torch.equal(first, second):
        raise fail_with(f"{BLOCK} in eval mode gives different outputs on two calls", "dropout_in_eval")
    _expect_reference(first, weights, state, x, None, f"{BLOCK} in eval mode", eps, dropout=0.5)
    # The block trains while its attention stays in eval mode: only the block's own self.dropout
    # acts, so it is told apart from the attention's (graded in C.3).
    student.train(handle, True, where="AttentionBlock.train()")
    _attention_in_eval(student, handle)
    where = f"{BLOCK} in training mode (its attention in eval mode)"
    trained, train_weights = forward_checked(student, handle, where, OUT, WEIGHTS, x, seed=seed)
    expect_match(train_weights, weights, f"{where} (weights)")
    attended = mha(state, H, x, prefix="attn.")[0]  # (B, S, E)
    unchanged = values_close(trained, first)
    if unchanged or not block_dropout_explains(trained, state, x, attended, p_drop=0.5):
        _explain_dropout(student.describe(handle, "inspecting AttentionBlock"), trained, state, x, attended, unchanged)
        if not unchanged and not _kept_at_zero(student, state, seed, x, first)[0]:  # not a dropout's doing: x added again, or not at all (qa42s b13, b43)
            raise CheckFailure.keyed("block_training_differs", where=where)
        raise CheckFailure.keyed("block_dropout_missing" if unchanged else "block_dropout_misplaced", where=where)
    # ...and with dropout=0 nothing is dropped: a rate of its own that is 0.5 at 0.5 (nn.Dropout()) is not the one given (qa41s b26, b32)
    kept, where = _kept_at_zero(student, state, seed, x, first)
    if not kept:
        raise CheckFailure.keyed("block_dropout_at_zero", where=where)
    # ...and at another rate: a rate of its own that is 0.5 whenever dropout > 0 is not the one given (qa52o o10)
    other = build_student(student, "AttentionBlock", (E, H), state, seed, {"dropout": OTHER_RATE}, training=True)
    _attention_in_eval(student, other)
    where = f"{BLOCK}(dropout={OTHER_RATE:g}) in training mode (its attention in eval mode)"
    trained, _ = forward_checked(student, other, where, OUT, WEIGHTS, x, seed=seed)
    if not block_dropout_explains(trained, state, x, attended, p_drop=OTHER_RATE):
        raise CheckFailure.keyed("block_dropout_rate_unused", where=where, rate=f"{OTHER_RATE:g}")


def _kept_at_zero(student: StudentAPI, state: Params, seed: int, x: torch.Tensor, first: torch.Tensor) -> tuple[bool, str]:
    """Whether the block built with dropout=0, in training mode (its attention in eval mode), gives
    the eval output `first`; and where that was asked."""
    zero = build_student(student, "AttentionBlock", (E, H), state, seed, {"dropout": 0.0}, training=True)
    _attention_in_eval(student, zero)
    where = f"{BLOCK} with dropout=0.0 in training mode (its attention in eval mode)"
    kept, _ = forward_checked(student, zero, where, OUT, WEIGHTS, x, seed=seed)
    return values_close(kept, first), where


def _attention_in_eval(student: StudentAPI, handle: Handle) -> None:
    attn = student.method(handle, "get_submodule", "attn", where="AttentionBlock.get_submodule('attn')")
    if not isinstance(attn, Handle):
        raise CheckFailure.keyed("not_module", where="AttentionBlock.attn")
    student.train(attn, False, where="AttentionBlock.attn.eval()")


def _explain_dropout(info: dict, trained: torch.Tensor, state: Params, x: torch.Tensor, attended: torch.Tensor, unchanged: bool) -> None:
    """Names the two ways a block's own Dropout goes wrong that its description shows, when the
    output bears them out: the attention's Dropout reused, or a rate of its own (dropout=0.5 asked)."""
    aliases = info.get("aliases", {})
    if unchanged and (aliases.get("dropout") == "attn.dropout" or aliases.get("attn.dropout") == "dropout"):
        raise CheckFailure.keyed("block_dropout_shared")
    rate = info.get("dropout_p", {}).get("dropout")
    if rate is None or abs(rate - 0.5) < 1e-12 or not 0 <= rate < 1:
        return
    if (unchanged and rate == 0) or (rate > 0 and block_dropout_explains(trained, state, x, attended, p_drop=rate)):
        raise CheckFailure.keyed("block_dropout_rate", got=f"{rate:g}")


def block_dropout_explains(y: torch.Tensor, p: Params, x: torch.Tensor, attended: torch.Tensor, *, p_drop: float) -> bool:
    """Whether y (B, S, E) = LayerNorm(x + m * attended / (1-p)) for some 0/1 mask m.

    At each position, LayerNorm(z) = gamma * u + beta with z = sigma * u + mu for two unknown numbers
    sigma > 0 and mu. Each element of z is x (dropped) or x + attended / (1-p) (kept): the two
    candidates of the elements with the largest and smallest u fix (sigma, mu) four ways, and one
    of them must explain every element.
    """
    u = (y - p["norm.bias"]) / p["norm.weight"]  # (B, S, E)
    kept = x + attended / (1 - p_drop)  # (B, S, E)
    for b in range(y.size(0)):
        for s in range(y.size(1)):
            if not _position_explained(u[b, s], x[b, s], kept[b, s]):
                return False
    return True


def _position_explained(u: torch.Tensor, dropped: torch.Tensor, kept: torch.Tensor) -> bool:
    """u, dropped, kept: (E,) at one position."""
    tol = (1e-6 + 16 * torch.finfo(torch.float32).eps) * (1 + max(dropped.abs().max().item(), kept.abs().max().item()))  # float32 inside is right
    i, j = int(u.argmax()), int(u.argmin())
    if u[i] - u[j] < 1e-9:  # a LayerNorm output is never constant across E > 1 features
        return False
    for first in (dropped[i], kept[i]):
        for second in (dropped[j], kept[j]):
            sigma = (first - second) / (u[i] - u[j])
            mu = first - sigma * u[i]
            z = sigma * u + mu  # (E,)
            if sigma > 0 and bool((((z - dropped).abs() <= tol) | ((z - kept).abs() <= tol)).all()):
                return True
    return False


@check("D.1", 1, "AttentionBlock: gradients of the output and the weights reach the attention and the LayerNorm")
def test_block_gradients(student: StudentAPI, gen, seed):
    state, handle, eps = _block(student, gen, seed)
    x = randn(gen, B, S, E)
    grads = [randn(gen, B, S, E), randn(gen, *WEIGHTS)]  # the output's, the weights'
    module = _reference(state, eps)
    leaf = x.clone().requires_grad_(True)
    expected = module(leaf)
    result = vjp_checked(student, handle, BLOCK, [x], grads[0], grads[1], wrt=[0], expected=expected)
    backward_pair(expected, grads)
    expect_parameter_gradients(result, module, state, "AttentionBlock")
    expect_match(expect_tensor(result["grads"][0], "the gradient of x", OUT), grad_of(leaf), "the gradient of x", what="gradients")


# gated on the values alone: block_mask's other mask, (B, 1, S, S), is an edge of its own (qa50s e10)
@check("D.1", 1, "AttentionBlock: with a causal mask, later positions do not change earlier outputs", visibility="hidden", kind=PROPERTY, gate="block_values")
def test_block_causal_future_independence(student: StudentAPI, gen, seed):
    state, handle, eps = _block(student, gen, seed)
    x = randn(gen, B, S, E)
    changed = x.clone()
    changed[:, -1] = randn(gen, B, E, scale=3.0)
    mask = torch.ones(S, S, dtype=torch.bool).tril()
    first, weights = forward_checked(student, handle, BLOCK, OUT, WEIGHTS, x, mask)
    _expect_reference(first, weights, state, x, mask, f"{BLOCK} with a causal mask", eps)  # pays on right values only
    second, _ = forward_checked(student, handle, BLOCK, OUT, WEIGHTS, changed, mask)
    expect_match(second[:, :-1], first[:, :-1], f"{BLOCK}: outputs before the changed last position")
