"""Helpers the hidden checks share: the trusted reference, and expectations with clear messages."""
from __future__ import annotations

import math
from typing import Any

import torch

from autograder.assignment import current, reference  # noqa: F401  (reference: the checks' one reference loader)
from autograder.grading.worker.api import StudentAPI
from autograder.grading.checks.plugin import CheckFailure
from autograder.grading.integrity.rules import Rule, judge
from autograder.grading.integrity.static import SourceFacts, analyze
from autograder.assignments.attention.rules import LIBRARY_NAMES
from autograder.assignments.attention.mistakes import MISTAKES, diagnose

# All-distinct sizes, so that a wrong transpose or a swapped axis shows up as a wrong shape.
B, H, LQ, LK, DH, DV = 2, 3, 4, 5, 7, 6
E = H * DH


OTHER_RATE = 0.25  # the second dropout rate of the training-mode checks (C.3, D.1)


def randn(gen: torch.Generator, *shape: int, dtype: torch.dtype = torch.float64, scale: float = 1.0) -> torch.Tensor:
    return torch.randn(*shape, generator=gen, dtype=dtype) * scale


def random_mask(gen: torch.Generator, *shape: int, p_keep: float = 0.6) -> torch.Tensor:
    """A bool mask (True = attend) with at least one True per row."""
    mask = torch.rand(*shape, generator=gen) < p_keep
    first = torch.randint(0, shape[-1], shape[:-1], generator=gen)
    return mask | torch.nn.functional.one_hot(first, shape[-1]).bool()


def blocked_key_counts(weights: torch.Tensor, expected: torch.Tensor, scores: torch.Tensor, mask: torch.Tensor) -> bool:
    """Whether `weights` are right but in rows where a blocked key scores far (30) above every
    allowed one, and lose there every allowed weight (zeros, NaN, or nearly 0 under a guard): the
    blocked score counted (in the maximum subtracted before exp(), or in an exp() that overflows
    before it is zeroed: the same weights, so one mistake)."""
    if weights.shape != expected.shape:
        return False
    w, mask = weights.to(torch.float64), mask.expand_as(scores)
    wrong = ~torch.isclose(w, expected.to(torch.float64), rtol=1e-4, atol=1e-6).all(-1)  # (..., Lq); NaN is wrong
    allowed_max = scores.masked_fill(~mask, -math.inf).amax(-1)
    dominated = allowed_max.isfinite() & (scores.masked_fill(mask, -math.inf).amax(-1) > allowed_max + 30)  # (..., Lq); a fully blocked row is not
    lost = (w.nan_to_num(0.0) * mask).sum(-1) < 0.5  # (..., Lq)
    return bool(wrong.any() and (~wrong | (dominated & lost)).all())


def grad_of(leaf: torch.Tensor) -> torch.Tensor:
    """The gradient a backward left on a trusted leaf (the reference side always has one)."""
    if leaf.grad is None:
        raise RuntimeError("the reference backward left no gradient")
    return leaf.grad


def fmt_shape(shape: Any) -> str:
    return "(" + ", ".join(str(s) for s in shape) + ")"


def expect_tensor(value: Any, where: str, shape: tuple[int, ...] | None = None, dtype: torch.dtype | None = None, dtype_key: str = "wrong_dtype") -> torch.Tensor:
    """The value must be a tensor of that shape (and dtype); otherwise a message that says why.
    dtype_key: the message that says why that dtype (default: the result keeps the input dtype)."""
    if not isinstance(value, torch.Tensor):
        raise CheckFailure.keyed("not_a_tensor", where=where, kind=type(value).__name__)
    if shape is not None and tuple(value.shape) != tuple(shape):
        key = "wrong_shape_permuted" if sorted(value.shape) == sorted(shape) else "wrong_shape"
        raise CheckFailure.keyed(key, where=where, got=fmt_shape(value.shape), expected=fmt_shape(shape))
    if dtype is not None and value.dtype != dtype:
        raise CheckFailure.keyed(dtype_key, where=where, got=str(value.dtype), expected=str(dtype))
    return value


def expect_shape(value: Any, where: str, shape: tuple[int, ...], variants: dict[str, torch.Tensor] | None = None) -> torch.Tensor:
    """expect_tensor, naming a mistake of `variants` whose output has the student's shape and values."""
    try:
        return expect_tensor(value, where, shape)
    except CheckFailure as failure:
        key = diagnose(value, variants) if variants and isinstance(value, torch.Tensor) else ""
        if key:
            raise CheckFailure.keyed("wrong_shape", key, **failure.values) from None
        raise


def expect_pair(value: Any, where: str) -> tuple[Any, Any]:
    if not isinstance(value, tuple) or len(value) != 2:
        kind = f"a tuple of {len(value)}" if isinstance(value, tuple) else type(value).__name__
        raise CheckFailure.keyed("not_a_pair", where=where, kind=kind)
    return value


def expect_close(
    actual: torch.Tensor,
    expected: torch.Tensor,
    where: str,
    candidates: dict[str, torch.Tensor] | None = None,
    rtol: float = 1e-5,
    atol: float = 1e-7,
    what: str = "values",
) -> None:
    """Numbers must match the reference; if not, name a known mistake when one matches."""
    expect_tensor(actual, where, tuple(expected.shape))
    a, e = actual.to(torch.float64), expected.to(torch.float64)
    if torch.isnan(a).any() and not torch.isnan(e).any():
        raise_keyed_with_diagnosis(actual, candidates, "nan_values", where=where, what=what)
    if values_close(actual, expected, rtol=rtol, atol=atol):
        return
    error = (a - e).abs().nan_to_num(nan=math.inf, posinf=math.inf).max().item()  # inf, not the largest float (qa49s s24)
    raise_keyed_with_diagnosis(actual, candidates, "wrong_values", where=where, what=what, error=f"{error:.3g}")


def values_close(actual: torch.Tensor, expected: torch.Tensor, rtol: float = 1e-5, atol: float = 1e-7) -> bool:
    """expect_close's test as a yes or no: in float64, within the rounding of the dtypes involved."""
    a, e = actual.to(torch.float64), expected.to(torch.float64)
    return torch.allclose(a, e, rtol=rtol, atol=max(atol, rounding_error(actual, expected)), equal_nan=True)


# The mistakes of a mask that never reaches the attention: their weights ignore it, and so does
# their output (A.3's and B.1's output is those weights @ v, C.3's and D.1's is built from them).
MASK_IGNORED = frozenset({"sdpa_mask_ignored", "selfattn_mask_ignored", "mha_mask_ignored", "block_mask_ignored"})


def named_by_weights(key: str, output: Any, expected_output: torch.Tensor) -> str:
    """The mistake that weights matching the variant `key` name, given the output of the same call.
    Weights that ignore the mask next to the right output (which used the mask) do not show a mask
    left out: they are weights from another computation than the output's (returned_weights_unmasked)."""
    if key in MASK_IGNORED and isinstance(output, torch.Tensor) and output.shape == expected_output.shape and values_close(output, expected_output):
        return "returned_weights_unmasked"
    return key


def rounding_error(actual: torch.Tensor, expected: torch.Tensor, scale: float | None = None, recovered: bool = False) -> float:
    """The absolute error of right values computed in float32 (PyTorch's working precision) or in
    a coarser floating dtype than the reference's, whatever dtype they are returned in (float32
    for float64 inputs, or float32 inside and cast back): an entry near 0 that is a sum of larger
    terms (q·k, a weighted sum) keeps the rounding of those terms, so it scales with the largest
    value (`scale`, when the terms are larger than any expected value). A result returned in a
    coarser dtype than float32 is allowed one more rounding, of the result to that dtype, not the
    computation's 16: a cast to bfloat16 is no licence for a 12 % error (qa33h H2: 0.9 × the output
    earned C 26 of 28); `recovered`: `expected` was worked back from the result itself (the heads,
    through W_o's inverse), whose rounding grows on the way as a computation's does. Within it,
    values pay whatever the draw; a lost dtype is a check of its own. 0 when the reference is no
    finer than float32 and the result's dtype no coarser than the reference's."""
    if not (actual.is_floating_point() and expected.is_floating_point()) or expected.numel() == 0:
        return 0.0
    returned, working = torch.finfo(actual.dtype).eps, torch.finfo(torch.float32).eps
    if max(returned, working) <= torch.finfo(expected.dtype).eps:
        return 0.0
    if scale is None:
        scale = expected.detach().to(torch.float64).nan_to_num(0.0, 0.0, 0.0).abs().max().item()
    if recovered:
        return 16 * max(returned, working) * scale
    return (16 * working + (returned if returned > working else 0.0)) * scale


def fail_with(message: str, key: str) -> CheckFailure:
    """A failure that names a catalogue mistake, with the catalogue's words (said once where they
    begin with the message: "the heatmap has no colorbar")."""
    said = MISTAKES[key].en
    return CheckFailure(said if said.lower().startswith(message.lower()) else f"{message}: {said}", key, said)


def raise_keyed_with_diagnosis(actual: torch.Tensor, candidates: dict[str, torch.Tensor] | None, key: str, **args: Any) -> None:
    """A keyed failure (autograder.assignments.attention.texts.MESSAGES), naming a mistake when one matches."""
    raise CheckFailure.keyed(key, diagnose(actual, candidates or {}), **args)


def raise_with_diagnosis(message: str, actual: torch.Tensor, candidates: dict[str, torch.Tensor] | None) -> None:
    key = diagnose(actual, candidates or {})
    if key:
        raise CheckFailure(f"{message}: {MISTAKES[key].en}", mistake=key, mistake_message=MISTAKES[key].en)
    raise CheckFailure(message)


def source_facts(student: StudentAPI) -> SourceFacts:
    """The static pass over the source the student's worker runs (read in the grader)."""
    chunks = getattr(student, "chunks", ())
    files = getattr(student, "files", {})
    cells, own = getattr(student, "cells", ()), getattr(student, "own_modules", ())
    return analyze(chunks if isinstance(chunks, (list, tuple)) else (), files if isinstance(files, dict) else {}, LIBRARY_NAMES,
                   own if isinstance(own, frozenset) else (), cells if isinstance(cells, tuple) else (), current().task_names.values())


def expect_rule(student: StudentAPI, rule: Rule, traced: Any) -> None:
    """The rule must hold by the trace of the call and by the source (autograder.grading.integrity.rules)."""
    others = [student.other_calls(root) for root in sorted(rule.roots)]  # every call of what it covers, not just this one
    traced = {**(traced if isinstance(traced, dict) else {}), "other_calls": {kind: sorted({n for seen in others for n in seen.get(kind, [])}) for kind in ("ops", "aten")}}
    facts, part = source_facts(student), rule.task.split(".")[0]
    verdict = judge(rule, traced, facts, part)
    if verdict.used:  # the catalogue's message, in the page's language
        failure = CheckFailure.keyed("uses_library", where=rule.where, used=verdict.used, advice=rule.advice)
        failure.flags = verdict.flags
        # its own call clean, its other calls not: the file told the rule's call apart, its own
        # doing; a second run with stand-ins would read only the calls made with them (qa20 review)
        failure.carry = not judge(rule, {**traced, "other_calls": {}}, facts, part).passed
        raise failure
    if not verdict.passed:
        raise CheckFailure(verdict.message, key=verdict.key, values=verdict.values, flags=verdict.flags)


def expect_gradients(student: StudentAPI, name: str, args: list, grad_output: torch.Tensor, wrt: dict[int, str], shape: tuple[int, ...],
                     grad_weights: torch.Tensor | None = None, variants: dict[str, torch.Tensor] | None = None) -> None:
    """The gradients of sum(output * grad_output) with respect to the arguments `wrt` names
    (index -> argument name) must be the reference's: later tasks train through this function.
    For a function that returns a pair, `output` is its first element, and `grad_weights` adds
    sum(weights * grad_weights): the gradient of each result must be the true one (the contract),
    so weights returned detached lose this point. `variants`: mistakes whose output a wrong shape may be."""
    grad_outputs = [grad_output, grad_weights]
    result = student.vjp(name, args, grad_outputs, wrt=list(wrt), where=f"{name} backward")  # one forward: outputs and gradients
    value = result.get("outputs")
    expect_shape(value[0] if isinstance(value, (tuple, list)) else value, name, shape, variants)
    grads = result["grads"]
    leaves = [a.detach().clone().requires_grad_(True) if i in wrt else a for i, a in enumerate(args)]
    expected = getattr(reference(), name)(*leaves)
    backward_pair(expected if isinstance(expected, tuple) else (expected,), grad_outputs)
    for index, grad in zip(wrt, grads):
        argument = wrt[index]
        if not isinstance(grad, torch.Tensor):
            raise CheckFailure.keyed("no_gradient", where=name, name=argument)
        expect_close(grad, grad_of(leaves[index]), f"the gradient of {name} with respect to {argument}", what="gradients")


def backward_pair(outputs: tuple, grad_outputs: list) -> None:
    """The reference's backward of sum(outputs[i] * grad_outputs[i]) over the gradients given (None: left out)."""
    pairs = [(o, g) for o, g in zip(outputs, grad_outputs) if g is not None]
    torch.autograd.backward([o for o, _ in pairs], [g for _, g in pairs])
