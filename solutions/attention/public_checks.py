"""Public checks for attention.py (公开检查): one function per task, for the notebook and pytest.

Each check_* function calls your code on small inputs whose sizes all differ (B=2, H=3, Lq=4,
Lk=5, Dh=7), so a swapped axis shows up as a wrong shape, and compares what you return with
PyTorch's own building blocks (torch.softmax, F.scaled_dot_product_attention,
nn.MultiheadAttention, nn.LayerNorm). On success it prints "Task X.Y (name) passed"; otherwise it
raises CheckFailure (an AssertionError) whose message says what was wrong and gives a hint.
These checks are a helpful subset: the grader checks more.

    from public_checks import check_attention_scores
    check_attention_scores(attention_scores)
"""

from __future__ import annotations

import math
import re
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import matplotlib.pyplot as plt
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from matplotlib.axes import Axes
from matplotlib.collections import QuadMesh
from matplotlib.image import AxesImage
from torch.overrides import TorchFunctionMode

B, H, LQ, LK, DH, DV = 2, 3, 4, 5, 7, 6  # all different, so a transposed result has a wrong shape
E = H * DH  # 21
QUERY_TOKENS = ("le", "chat", "dort", "ici")  # Lq = 4
KEY_TOKENS = ("the", "cat", "is", "sleeping", "here")  # Lk = 5
ATOL, RTOL = 1e-5, 1e-4
TASK_IN_MESSAGE = re.compile(r"Task ([A-Z]\.\d+)")
LIGHTNESS_MARGIN = 0.1  # weight 0 must be this much lighter than weight 1 (luminance, 0..1)
SOFTMAX_NAMES = ("softmax", "softmin")  # any torch function whose name contains one of these


class CheckFailure(AssertionError):
    """A public check failed; str(failure) is the whole message for the student."""


class NotImplementedYet(CheckFailure):
    """The task (or a task it needs) still raises NotImplementedError."""


@dataclass(frozen=True)
class Task:
    id: str  # "A.1"
    name: str  # "attention_scores"

    def fail(self, message: str, hint: str = "") -> CheckFailure:
        text = f"Task {self.id} ({self.name}): {message}"
        return CheckFailure(f"{text} Hint: {hint}" if hint else text)

    def passed(self) -> None:
        print(f"Task {self.id} ({self.name}) passed")


# ---------------------------------------------------------------------------------------------
# Calling student code
# ---------------------------------------------------------------------------------------------
class _TorchCalls(TorchFunctionMode):
    """Records the name of every torch function the student's code calls directly."""

    def __init__(self) -> None:
        super().__init__()
        self.names: list[str] = []

    def __torch_function__(self, func, types, args=(), kwargs=None):
        self.names.append(_torch_name(func))
        return func(*args, **(kwargs or {}))


def _torch_name(func: Any) -> str:
    name = getattr(func, "__name__", repr(func))
    module = getattr(func, "__module__", None) or ""
    if module == "torch.nn.functional":
        return f"F.{name}"
    if module.startswith("torch._C._special"):
        return f"torch.special.{name.removeprefix('special_')}"
    return f"torch.{name}" if module == "torch" else f"Tensor.{name}"


def _describe(value: Any) -> str:
    if isinstance(value, torch.Tensor):
        shape = ", ".join(map(str, value.shape))
        return f"tensor({shape})" if value.dtype == torch.float32 else f"tensor({shape}, dtype={value.dtype})"
    return repr(value)


def _where(error: BaseException) -> str:
    """'attention.py:31: <line>' for the last frame of the traceback outside torch and this file."""
    frames = [
        frame
        for frame in traceback.extract_tb(error.__traceback__)
        if Path(frame.filename).resolve() != Path(__file__).resolve()
        and "site-packages" not in frame.filename
        and "dist-packages" not in frame.filename
    ]
    if not frames:
        return ""
    frame = frames[-1]
    return f" (at {Path(frame.filename).name}:{frame.lineno}: {frame.line})"


def _call(task: Task, fn: Callable, *args: Any, forbid: tuple[str, ...] = (), **kwargs: Any) -> Any:
    """Call student code. NotImplementedError and other exceptions become one-line failures."""
    shown = ", ".join([_describe(a) for a in args] + [f"{k}={_describe(v)}" for k, v in kwargs.items()])
    what = f"{getattr(fn, '__name__', task.name)}({shown})"
    calls = _TorchCalls()
    try:
        with calls:
            result = fn(*args, **kwargs)
    except NotImplementedError as error:
        needed = TASK_IN_MESSAGE.search(str(error))
        if needed and needed.group(1) != task.id:
            raise NotImplementedYet(
                f"Task {task.id} ({task.name}) needs Task {needed.group(1)} first: {error}"
            ) from None
        raise NotImplementedYet(f"Task {task.id} ({task.name}) is not implemented yet") from None
    except CheckFailure:
        raise
    except Exception as error:  # the student's code crashed: say where, without our traceback
        first_line = (str(error).strip().splitlines() or [""])[0]
        raise task.fail(f"{what} raised {type(error).__name__}: {first_line}{_where(error)}") from None
    used = sorted({name for name in calls.names if any(word in name.lower() for word in forbid)})
    if used:
        raise task.fail(
            f"your code calls {', '.join(used)}; this task asks you to write softmax by hand.",
            "exp() of the scores minus their row maximum, then divide by the row sum.",
        )
    return result


def student_attr(module: Any, name: str) -> Any:
    """module.<name>, or a clear failure when the student's file has no such function/class."""
    task = next((Task(task_id, name) for task_id, attr, _ in CHECKS if attr == name), Task("?", name))
    if not hasattr(module, name):
        where = getattr(module, "__file__", None) or module
        raise task.fail(f"{where} has no '{name}'.", "do not rename or delete the functions of the template.")
    return getattr(module, name)


def _random(*shape: int, seed: int, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed), dtype=dtype)


# ---------------------------------------------------------------------------------------------
# Comparing results
# ---------------------------------------------------------------------------------------------
def _tensor(
    task: Task, label: str, got: Any, shape: tuple[int, ...], dtype: torch.dtype, meaning: str = ""
) -> torch.Tensor:
    if not isinstance(got, torch.Tensor):
        raise task.fail(f"{label} should be a torch.Tensor, got {type(got).__name__}.")
    if tuple(got.shape) != shape:
        raise task.fail(f"{label} has shape {tuple(got.shape)}, expected {shape}{meaning}.")
    if got.dtype != dtype:
        raise task.fail(f"{label} has dtype {got.dtype}, expected {dtype}.", "keep the dtype of the inputs.")
    return got.detach()


def _close(got: torch.Tensor, want: torch.Tensor) -> bool:
    return got.shape == want.shape and torch.allclose(got.double(), want.double(), atol=ATOL, rtol=RTOL)


def _values(task: Task, label: str, got: torch.Tensor, want: torch.Tensor, inputs: str, hint: str) -> None:
    if _close(got, want):
        return
    if torch.isnan(got).any():
        index = tuple(torch.nonzero(torch.isnan(got))[0].tolist())
        raise task.fail(f"{label} contains NaN (first at index {index}) for {inputs}.", hint)
    index = tuple(
        torch.nonzero(~torch.isclose(got.double(), want.double(), atol=ATOL, rtol=RTOL))[0].tolist()
    )
    raise task.fail(
        f"{label} has wrong values for {inputs}: at index {index} you return "
        f"{got[index].item():.5f}, expected {want[index].item():.5f}.",
        hint,
    )


def _wrong_scale(task: Task, got: torch.Tensor, want: torch.Tensor, scales, expected: str, hint: str) -> None:
    """Fail if got = softmax(scores * power) where want = softmax(scores): the scores were scaled wrongly."""
    for wrong, power in scales:
        if not _close(got, want) and _close(got, torch.softmax(want.log() * power, dim=-1)):
            raise task.fail(f"your scores are scaled by {wrong}; {expected}.", hint)


def _unchanged(task: Task, before: torch.Tensor, after: torch.Tensor, name: str) -> None:
    if not torch.equal(before, after):
        raise task.fail(
            f"your code changed its input `{name}` in place.",
            "use out-of-place operations (masked_fill, not masked_fill_; x = x + 1, not x += 1).",
        )


# ---------------------------------------------------------------------------------------------
# Part A: scaled dot-product attention
# ---------------------------------------------------------------------------------------------
def check_attention_scores(fn: Callable) -> None:
    """Task A.1: q·kᵀ/√d for batched (B, H, Lq, d) and plain (Lq, d) inputs."""
    task = Task("A.1", "attention_scores")
    q, k = _random(B, H, LQ, DH, seed=1), _random(B, H, LK, DH, seed=2)
    q_before, k_before = q.clone(), k.clone()
    got = _call(task, fn, q, k)
    got = _tensor(
        task,
        "the result",
        got,
        (B, H, LQ, LK),
        torch.float32,
        " = (B, H, Lq, Lk) for q (B, H, Lq, d) and k (B, H, Lk, d)",
    )
    raw = torch.einsum("bhqd,bhkd->bhqk", q, k)  # (B, H, Lq, Lk), unscaled
    want = raw / math.sqrt(DH)
    if not _close(got, want):
        for wrong, scale, hint in (
            ("you did not scale the scores", 1.0, "divide q·kᵀ by math.sqrt(d)."),
            ("you divided by d instead of √d", 1 / DH, "divide by math.sqrt(d), the square root."),
            (
                "you scaled by a sequence length (Lq)",
                1 / math.sqrt(LQ),
                "d = q.size(-1), the size of one vector.",
            ),
            (
                "you scaled by a sequence length (Lk)",
                1 / math.sqrt(LK),
                "d = q.size(-1), the size of one vector.",
            ),
        ):
            if _close(got, raw * scale):
                raise task.fail(f"{wrong}: expected q·kᵀ / √d with d = {DH}.", hint)
        _values(
            task,
            "the result",
            got,
            want,
            "q (2, 3, 4, 7), k (2, 3, 5, 7)",
            "q @ k.transpose(-2, -1) / math.sqrt(d).",
        )
    _unchanged(task, q_before, q, "q")
    _unchanged(task, k_before, k, "k")
    q2, k2 = _random(LQ, DH, seed=3, dtype=torch.float64), _random(LK, DH, seed=4, dtype=torch.float64)
    got2 = _tensor(
        task, "the result for 2-D inputs", _call(task, fn, q2, k2), (LQ, LK), torch.float64, " = (Lq, Lk)"
    )
    _values(
        task,
        "the result for 2-D inputs",
        got2,
        q2 @ k2.T / math.sqrt(DH),
        "q (4, 7), k (5, 7) float64",
        "transpose with k.transpose(-2, -1) (not k.T) so any number of leading axes works.",
    )
    task.passed()


def _mask_with_blocked_row() -> torch.Tensor:
    """(Lq, Lk) bool, True = may attend; query row 2 may attend to nothing."""
    mask = torch.tensor(
        [[1, 1, 0, 1, 0], [0, 1, 1, 1, 1], [0, 0, 0, 0, 0], [1, 0, 0, 0, 1]], dtype=torch.bool
    )
    return mask  # (Lq, Lk)


def check_masked_softmax(fn: Callable) -> None:
    """Task A.2: hand-written stable softmax over the last axis, mask True = may attend."""
    task = Task("A.2", "masked_softmax")
    scores = _random(B, H, LQ, LK, seed=5) * 3
    before = scores.clone()
    got = _call(task, fn, scores, forbid=SOFTMAX_NAMES)
    got = _tensor(task, "the result", got, (B, H, LQ, LK), torch.float32, " (the same shape as scores)")
    want = torch.softmax(scores, dim=-1)
    if not _close(got, want):
        for dim in (0, 1, 2):
            if _close(got.sum(dim=dim), torch.ones_like(got.sum(dim=dim))):
                raise task.fail(
                    f"your weights sum to 1 over dim={dim}; each row must sum to 1 over the keys.",
                    "reduce over the last axis: dim=-1, keepdim=True (for the max and the sum).",
                )
        if not _close(got.sum(dim=-1), torch.ones(B, H, LQ)):
            raise task.fail(
                "the rows of your weights do not sum to 1.", "divide exp(...) by its sum over the last axis."
            )
        _values(
            task, "the result", got, want, "scores (2, 3, 4, 5), no mask", "exp(scores - row max) / row sum."
        )
    _unchanged(task, before, scores, "scores")
    for shift in (1000.0, -1000.0):
        got = _call(task, fn, scores + shift, forbid=SOFTMAX_NAMES)
        if (
            not isinstance(got, torch.Tensor)
            or not torch.isfinite(got).all()
            or not _close(got.detach(), torch.softmax(scores + shift, dim=-1))
        ):
            raise task.fail(
                f"not numerically stable: scores + {shift:g} give inf/NaN or wrong values"
                " (softmax does not change when you add a constant to a row).",
                "subtract each row's maximum (amax(dim=-1, keepdim=True)) before exp().",
            )
    mask = _mask_with_blocked_row()  # (Lq, Lk), broadcast over (B, H)
    mask_before = mask.clone()
    got = _call(task, fn, scores, mask, forbid=SOFTMAX_NAMES)
    got = _tensor(task, "the masked result", got, (B, H, LQ, LK), torch.float32, " (the shape of scores)")
    blocked = ~mask.expand(B, H, LQ, LK)
    if (got[~blocked] == 0).all() and (got[blocked] != 0).any():
        raise task.fail(
            "you blocked the keys where the mask is True.", "in this kit True = may attend, False = blocked."
        )
    if torch.isnan(got).any():
        raise task.fail(
            "query row 2 has every key blocked and your result has NaN there; it must be all zeros.",
            "a row of only -inf has max -inf: replace that max by 0, and never divide by a zero sum.",
        )
    if (got[blocked] != 0).any():
        raise task.fail(
            "blocked keys (mask False) must get weight exactly 0.",
            "fill blocked scores with -inf before exp(): scores.masked_fill(~mask, float('-inf')).",
        )
    want = torch.softmax(scores.masked_fill(~mask, float("-inf")), dim=-1).nan_to_num(0.0)
    _values(
        task,
        "the masked result",
        got,
        want,
        "scores (2, 3, 4, 5) with a (4, 5) mask",
        "the allowed keys of each row must sum to 1; an all-blocked row is all zeros.",
    )
    _unchanged(task, mask_before, mask, "mask")
    _unchanged(task, before, scores, "scores")
    scores64 = scores.double()
    got = _call(task, fn, scores64, mask, forbid=SOFTMAX_NAMES)
    _tensor(task, "the result for float64 scores", got, (B, H, LQ, LK), torch.float64)
    task.passed()


def check_scaled_dot_product_attention(fn: Callable) -> None:
    """Task A.3: (output, weights) against F.scaled_dot_product_attention, with and without a mask."""
    task = Task("A.3", "scaled_dot_product_attention")
    q, k, v = _random(B, H, LQ, DH, seed=6), _random(B, H, LK, DH, seed=7), _random(B, H, LK, DV, seed=8)
    inputs = "q (2, 3, 4, 7), k (2, 3, 5, 7), v (2, 3, 5, 6)"
    for mask in (
        None,
        torch.tensor([[1, 0, 0, 0, 0], [1, 1, 0, 0, 1], [1, 1, 1, 0, 0], [0, 1, 1, 1, 1]], dtype=torch.bool),
    ):
        got = _call(task, fn, q, k, v) if mask is None else _call(task, fn, q, k, v, mask)
        if not isinstance(got, tuple) or len(got) != 2:
            raise task.fail(f"return a tuple (output, weights), got {type(got).__name__}.")
        output = _tensor(
            task,
            "output",
            got[0],
            (B, H, LQ, DV),
            torch.float32,
            " = (..., Lq, dv); return (output, weights) in that order",
        )
        weights = _tensor(task, "weights", got[1], (B, H, LQ, LK), torch.float32, " = (..., Lq, Lk)")
        label = inputs if mask is None else f"{inputs} and a (4, 5) mask"
        scores = torch.einsum("bhqd,bhkd->bhqk", q, k) / math.sqrt(DH)  # (B, H, Lq, Lk)
        blocked = torch.zeros(LQ, LK, dtype=torch.bool) if mask is None else ~mask
        want_weights = torch.softmax(scores.masked_fill(blocked, float("-inf")), dim=-1)
        if mask is not None and _close(weights, torch.softmax(scores, dim=-1)):
            raise task.fail(
                "the mask is ignored: blocked keys still get weight.", "pass mask on to masked_softmax."
            )
        _values(
            task,
            "weights",
            weights,
            want_weights,
            label,
            "weights = masked_softmax(attention_scores(q, k), mask).",
        )
        want_output = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)  # (B, H, Lq, dv)
        _values(task, "output", output, want_output, label, "output = weights @ v.")
    task.passed()


def check_causal_mask(fn: Callable) -> None:
    """Task A.4: bool (Lq, Lk), True where key position <= query position."""
    task = Task("A.4", "causal_mask")
    for args in ((5,), (LQ, 6)):
        got = _call(task, fn, *args)
        size_q, size_k = args[0], args[-1]
        call = f"causal_mask({', '.join(map(str, args))})"
        want = torch.ones(size_q, size_k, dtype=torch.bool).tril()  # the mask is_causal=True uses
        if isinstance(got, torch.Tensor) and got.dtype != torch.bool:
            raise task.fail(
                f"the mask has dtype {got.dtype}; return a bool tensor (dtype=torch.bool).",
                "True = may attend, False = blocked.",
            )
        got = _tensor(task, call, got, (size_q, size_k), torch.bool, " = (size_q, size_k)")
        if torch.equal(got, ~want):
            raise task.fail(
                f"{call} is inverted: True must mean 'may attend' (key position <= query position).",
                "use the lower triangle, tril().",
            )
        if not torch.equal(got, want):
            row, col = torch.nonzero(got != want)[0].tolist()
            raise task.fail(
                f"{call}[{row}, {col}] is {bool(got[row, col])}, expected {bool(want[row, col])}:"
                " query i may attend to keys 0..i (aligned top-left).",
                "torch.ones(...).tril().",
            )
    got = _call(task, fn, 3, device=torch.device("cpu"))
    _tensor(task, "causal_mask(3, device=cpu)", got, (3, 3), torch.bool)
    task.passed()


# ---------------------------------------------------------------------------------------------
# Parts B-D: modules
# ---------------------------------------------------------------------------------------------
def _build(task: Task, cls: type, *args: Any) -> nn.Module:
    """cls(*args) with a fixed seed (without touching the caller's random state), in eval mode."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(0)
        module = _call(task, cls, *args)
    if not isinstance(module, nn.Module):
        raise task.fail(f"{cls.__name__}{args} is a {type(module).__name__}, expected an nn.Module.")
    return module.eval()


def _linear(task: Task, module: nn.Module, name: str, size: int, seed: int, owner: str = "self") -> nn.Linear:
    """module.<name> checked to be nn.Linear(size, size) with a bias; filled with seeded values."""
    layer = getattr(module, name, None)
    if (
        not isinstance(layer, nn.Linear)
        or (layer.in_features, layer.out_features) != (size, size)
        or layer.bias is None
    ):
        raise task.fail(f"{owner}.{name} should be nn.Linear({size}, {size}) with a bias, found {layer!r}.")
    with torch.no_grad():
        layer.weight.copy_(_random(size, size, seed=seed) / math.sqrt(size))
        layer.bias.copy_(_random(size, seed=seed + 1) / 4)
    return layer


def _pair(
    task: Task, got: Any, shapes: tuple[tuple[int, ...], tuple[int, ...]], names: str
) -> tuple[torch.Tensor, torch.Tensor]:
    if not isinstance(got, tuple) or len(got) != 2:
        raise task.fail(f"forward should return a tuple {names}, got {type(got).__name__}.")
    first, second = names.strip("()").split(", ")
    return (
        _tensor(task, first, got[0], shapes[0], torch.float32, f"; return {names} in that order"),
        _tensor(task, second, got[1], shapes[1], torch.float32, f"; return {names} in that order"),
    )


def check_self_attention(cls: type) -> None:
    """Task B.1: single-head self-attention against F.scaled_dot_product_attention on W_q/W_k/W_v(x)."""
    task = Task("B.1", "SelfAttention")
    dim, seq = DH, LK  # x (2, 5, 7)
    module = _build(task, cls, dim)
    w_q, w_k, w_v = (
        _linear(task, module, name, dim, seed) for name, seed in (("W_q", 10), ("W_k", 12), ("W_v", 14))
    )
    x = _random(B, seq, dim, seed=9)
    q, k, v = w_q(x).detach(), w_k(x).detach(), w_v(x).detach()  # (B, S, dim) each
    for mask in (None, torch.ones(seq, seq, dtype=torch.bool).tril()):
        got = _call(task, module, x) if mask is None else _call(task, module, x, mask)
        output, weights = _pair(task, got, ((B, seq, dim), (B, seq, seq)), "(output, weights)")
        label = "x (2, 5, 7)" + ("" if mask is None else " and a causal (5, 5) mask")
        scores = q @ k.transpose(1, 2) / math.sqrt(dim)  # (B, S, S)
        blocked = torch.zeros(seq, seq, dtype=torch.bool) if mask is None else ~mask
        want_weights = torch.softmax(scores.masked_fill(blocked, float("-inf")), dim=-1)  # (B, S, S)
        _wrong_scale(
            task,
            weights,
            want_weights,
            (("nothing", math.sqrt(dim)),),
            f"scale by 1/√d (d = {dim} here)",
            "reuse your scaled_dot_product_attention (Task A.3).",
        )
        _values(
            task,
            "weights",
            weights,
            want_weights,
            label,
            "project x with W_q and W_k, then reuse scaled_dot_product_attention (Tasks A.1-A.3 first).",
        )
        _values(
            task,
            "output",
            output,
            F.scaled_dot_product_attention(q, k, v, attn_mask=mask),
            label,
            "the values are W_v(x).",
        )
    task.passed()


def check_split_heads(fn: Callable) -> None:
    """Task C.1: (B, S, H*Dh) -> (B, H, S, Dh), head i = features [i*Dh, (i+1)*Dh), non-contiguous input."""
    task = Task("C.1", "split_heads")
    x = _random(LK, B, E, seed=20).transpose(0, 1)  # (B, S, E), not contiguous
    before = x.clone()
    got = _call(task, fn, x, H)
    want = torch.stack([x[..., i * DH : (i + 1) * DH] for i in range(H)], dim=1)  # (B, H, S, Dh)
    if isinstance(got, torch.Tensor) and tuple(got.shape) == (B, LK, H, DH):
        raise task.fail(
            "you returned (B, S, H, Dh) = (2, 5, 3, 7); the head axis must come before S.",
            "after reshaping to (B, S, H, Dh), swap axes 1 and 2 with transpose(1, 2).",
        )
    got = _tensor(
        task,
        "the result",
        got,
        (B, H, LK, DH),
        torch.float32,
        " = (B, H, S, Dh) for x (2, 5, 21) and num_heads=3",
    )
    if _close(got, x.reshape(B, H, LK, DH)):
        raise task.fail(
            "you reshaped straight to (B, H, S, Dh), which mixes positions across heads.",
            "reshape to (B, S, H, Dh) first, then transpose(1, 2).",
        )
    if _close(got, x.reshape(B, LK, DH, H).permute(0, 3, 1, 2)):
        raise task.fail(
            "head i took every H-th feature; it must take the block [i*Dh, (i+1)*Dh).",
            "reshape the last axis into (H, Dh), not (Dh, H).",
        )
    _values(
        task,
        "the result",
        got,
        want,
        "x (2, 5, 21), num_heads=3",
        "result[:, i] must equal x[..., i*Dh:(i+1)*Dh].",
    )
    _unchanged(task, before, x, "x")
    task.passed()


def check_merge_heads(fn: Callable) -> None:
    """Task C.2: (B, H, S, Dh) -> (B, S, H*Dh), the inverse of split_heads, non-contiguous input."""
    task = Task("C.2", "merge_heads")
    contiguous = _random(B, H, LK, DH, seed=21)  # (B, H, S, Dh), as attention returns it
    strided = _random(B, H, DH, LK, seed=22).transpose(2, 3)  # (B, H, S, Dh), not contiguous
    for x, label in ((contiguous, "x (2, 3, 5, 7)"), (strided, "a non-contiguous x (2, 3, 5, 7)")):
        before = x.clone()
        got = _call(task, fn, x)
        got = _tensor(task, "the result", got, (B, LK, E), torch.float32, f" = (B, S, H*Dh) for {label}")
        want = torch.cat(
            [x[:, i] for i in range(H)], dim=-1
        )  # (B, S, E): head i -> features [i*Dh, (i+1)*Dh)
        if _close(got, x.reshape(B, LK, E)):
            raise task.fail(
                "you flattened (B, H, S, Dh) directly, which mixes positions across heads.",
                "transpose(1, 2) back to (B, S, H, Dh) before reshaping to (B, S, H*Dh).",
            )
        _values(
            task, "the result", got, want, label, "features [i*Dh, (i+1)*Dh) of the result must be head i."
        )
        _unchanged(task, before, x, "x")
    task.passed()


def _torch_mha(task: Task, module: nn.Module, seed: int, owner: str = "self") -> nn.MultiheadAttention:
    """nn.MultiheadAttention holding the same (seeded) weights as the student's W_q, W_k, W_v, W_o."""
    w_q, w_k, w_v, w_o = (
        _linear(task, module, name, E, seed + 2 * i, owner)
        for i, name in enumerate(("W_q", "W_k", "W_v", "W_o"))
    )
    reference = nn.MultiheadAttention(E, H, bias=True, batch_first=True)
    with torch.no_grad():
        reference.in_proj_weight.copy_(torch.cat([w_q.weight, w_k.weight, w_v.weight]))  # (3E, E)
        reference.in_proj_bias.copy_(torch.cat([w_q.bias, w_k.bias, w_v.bias]))  # (3E,)
        reference.out_proj.weight.copy_(w_o.weight)
        reference.out_proj.bias.copy_(w_o.bias)
    return reference.eval()


def _torch_attend(reference: nn.MultiheadAttention, query, key, value, mask=None):
    """(output (B, Lq, E), weights (B, H, Lq, Lk)); nn.MultiheadAttention's mask is True = blocked."""
    with torch.no_grad():
        return reference(
            query,
            key,
            value,
            attn_mask=None if mask is None else ~mask,
            need_weights=True,
            average_attn_weights=False,
        )


def check_multi_head_attention(cls: type) -> None:
    """Task C.3: against nn.MultiheadAttention with the same weights; ValueError; dropout."""
    task = Task("C.3", "MultiHeadAttention")
    try:
        with torch.random.fork_rng(devices=[]):
            _call(task, cls, 10, H)
    except CheckFailure as failure:
        if "raised ValueError" not in str(failure):
            raise
    else:
        raise task.fail("MultiHeadAttention(10, 3) must raise ValueError (10 is not divisible by 3 heads).")
    module = _build(task, cls, E, H, 0.5)
    if not isinstance(getattr(module, "dropout", None), nn.Dropout):
        raise task.fail("self.dropout should be nn.Dropout(dropout).")
    reference = _torch_mha(task, module, seed=30)
    query, memory = _random(B, LQ, E, seed=31), _random(B, LK, E, seed=32)
    value = _random(B, LK, E, seed=33)
    mask = torch.tensor(
        [[1, 0, 1, 0, 0], [1, 1, 0, 0, 1], [1, 1, 1, 0, 0], [0, 1, 1, 1, 1]], dtype=torch.bool
    )
    cases = (
        ("self-attention on x (2, 4, 21)", (query,), {}, (query, query, query, None), LQ),
        (
            "query (2, 4, 21), key (2, 5, 21), value (2, 5, 21)",
            (query, memory, value),
            {},
            (query, memory, value, None),
            LK,
        ),
        ("query (2, 4, 21), key = value (2, 5, 21)", (query, memory), {}, (query, memory, memory, None), LK),
        (
            "query (2, 4, 21), key, value (2, 5, 21) and a (4, 5) mask",
            (query, memory, value),
            {"mask": mask},
            (query, memory, value, mask),
            LK,
        ),
    )
    for label, args, kwargs, torch_args, lk in cases:
        output, weights = _pair(
            task, _call(task, module, *args, **kwargs), ((B, LQ, E), (B, H, LQ, lk)), "(output, weights)"
        )
        want_output, want_weights = _torch_attend(reference, *torch_args)
        if "mask" in kwargs and _close(weights, _torch_attend(reference, *torch_args[:3])[1]):
            raise task.fail(
                "the mask is ignored: blocked keys still get weight.", "pass mask on to masked_softmax."
            )
        if not _close(weights, want_weights):
            _wrong_scale(
                task,
                weights,
                want_weights,
                (("1/√embed_dim", math.sqrt(DH / E)), ("nothing", math.sqrt(DH))),
                f"scale each head by 1/√Dh (Dh = {DH} here)",
                "split the heads first, then use attention_scores on (B, H, L, Dh) tensors.",
            )
            _values(
                task,
                "weights",
                weights,
                want_weights,
                label,
                "project with W_q/W_k, split_heads, scores per head; head i = features [i*Dh, (i+1)*Dh).",
            )
        if not _close(output, want_output):
            again, _ = _pair(
                task, _call(task, module, *args, **kwargs), ((B, LQ, E), (B, H, LQ, lk)), "(output, weights)"
            )
            if not torch.equal(again, output):
                raise task.fail(
                    "two calls in eval mode gave different outputs: dropout must be off in eval mode.",
                    "use self.dropout (an nn.Dropout module), not F.dropout(...).",
                )
            _values(
                task,
                "output",
                output,
                want_output,
                label,
                "weights match: multiply them by the V heads, merge_heads, then apply W_o.",
            )
    module.train()
    with torch.random.fork_rng(devices=[]):
        _, weights = _pair(
            task, _call(task, module, query), ((B, LQ, E), (B, H, LQ, LQ)), "(output, weights)"
        )
    if not torch.allclose(weights.sum(dim=-1), torch.ones(B, H, LQ), atol=ATOL):
        raise task.fail(
            "in training mode the returned weights do not sum to 1 per row.",
            "return the weights from before dropout; apply dropout only to the copy that multiplies V.",
        )
    task.passed()


def check_attention_block(cls: type) -> None:
    """Task D.1: y = LayerNorm(x + attention(x)) in eval mode, against nn.MultiheadAttention + nn.LayerNorm."""
    task = Task("D.1", "AttentionBlock")
    block = _build(task, cls, E, H, 0.5)
    attn, norm = getattr(block, "attn", None), getattr(block, "norm", None)
    if (
        not isinstance(attn, nn.Module)
        or not isinstance(norm, nn.LayerNorm)
        or tuple(norm.normalized_shape) != (E,)
    ):
        raise task.fail(
            f"expected self.attn = MultiHeadAttention({E}, {H}, dropout) and self.norm = nn.LayerNorm({E})."
        )
    if not all(isinstance(getattr(attn, name, None), nn.Linear) for name in ("W_q", "W_k", "W_v", "W_o")):
        raise task.fail(
            f"self.attn should be your MultiHeadAttention (with W_q, W_k, W_v, W_o), found {type(attn).__name__}."
        )
    inner = getattr(attn, "dropout", None)
    if isinstance(inner, nn.Dropout) and inner.p != 0.5:
        raise task.fail(
            f"AttentionBlock({E}, {H}, dropout=0.5) built self.attn with dropout {inner.p:g}:"
            " the block passes its dropout on to its MultiHeadAttention.",
            "MultiHeadAttention(embed_dim, num_heads, dropout).",
        )
    own = getattr(block, "dropout", None)
    if (isinstance(own, nn.Dropout) and own.p != 0.5) or not isinstance(own, (nn.Dropout, float, int)):
        raise task.fail(
            "self.dropout should be nn.Dropout(dropout): the block's own dropout, applied to the"
            " attention output before the residual sum."
        )
    reference = _torch_mha(task, attn, seed=40, owner="self.attn")
    layer_norm = nn.LayerNorm(E)
    with torch.no_grad():
        norm.weight.copy_(1 + _random(E, seed=41) / 4)
        norm.bias.copy_(_random(E, seed=42) / 4)
        layer_norm.load_state_dict(norm.state_dict())
    x = _random(B, LK, E, seed=43)
    for mask in (None, torch.ones(LK, LK, dtype=torch.bool).tril()):
        got = _call(task, block, x) if mask is None else _call(task, block, x, mask)
        y, weights = _pair(task, got, ((B, LK, E), (B, H, LK, LK)), "(y, weights)")
        attended, want_weights = _torch_attend(reference, x, x, x, mask)  # (B, S, E), (B, H, S, S)
        attn_out = _call(task, attn, x, mask=mask)
        if not (
            isinstance(attn_out, tuple)
            and isinstance(attn_out[0], torch.Tensor)
            and _close(attn_out[0].detach(), attended)
        ):
            raise task.fail(
                "self.attn does not match nn.MultiheadAttention yet.", "make Task C.3 pass first."
            )
        label = "x (2, 5, 21)" + ("" if mask is None else " and a causal (5, 5) mask")
        with torch.no_grad():
            want = layer_norm(x + attended)  # (B, S, E), post-norm
            post_norm = "this block is post-norm, y = LayerNorm(x + attention(x))"
            mistakes = (
                (
                    f"you normalise before attention (pre-norm); {post_norm}",
                    x + _torch_attend(reference, *[layer_norm(x)] * 3, mask)[0],
                ),
                (f"the residual x is missing; {post_norm}", layer_norm(attended)),
                (f"LayerNorm is missing; {post_norm}", x + attended),
                (
                    "the mask is not passed on to self.attn",
                    layer_norm(x + _torch_attend(reference, x, x, x)[0]),
                ),
            )
        for wrong, mistake in mistakes:
            if not _close(y, want) and _close(y, mistake):
                raise task.fail(
                    f"{wrong}.",
                    "y = self.norm(x + self.dropout(attended)) with attended from self.attn(x, mask=mask).",
                )
        _values(task, "y", y, want, label, "y = self.norm(x + self.dropout(attention output)).")
        _values(
            task, "weights", weights, want_weights, label, "return the weights of self.attn(x, mask=mask)."
        )
    task.passed()


# ---------------------------------------------------------------------------------------------
# Part E: the heatmap. Course convention: 横轴是 Query 位置, 纵轴是 Key 位置.
# ---------------------------------------------------------------------------------------------
def _heatmap_cells(ax: Axes) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray]:
    """(artist, values (rows, cols), x centres (rows, cols), y centres (rows, cols)) of what ax shows."""
    images = [image for image in ax.get_images() if isinstance(image, AxesImage)]
    meshes = [mesh for mesh in ax.collections if isinstance(mesh, QuadMesh)]
    if images:  # imshow / matshow
        artist = images[-1]
        values = np.ma.getdata(artist.get_array())
        if values.ndim != 2:
            return artist, values, np.empty(0), np.empty(0)
        rows, cols = values.shape
        left, right, bottom, top = artist.get_extent()
        xs = left + (np.arange(cols) + 0.5) * (right - left) / cols
        first, last = (top, bottom) if artist.origin == "upper" else (bottom, top)  # where row 0 is drawn
        ys = first + (np.arange(rows) + 0.5) * (last - first) / rows
        x_centres, y_centres = np.meshgrid(xs, ys)
        return artist, values, x_centres, y_centres
    if meshes:  # seaborn.heatmap / pcolormesh
        artist = meshes[-1]
        corners = artist.get_coordinates()  # (rows + 1, cols + 1, 2)
        centres = (corners[:-1, :-1] + corners[1:, 1:] + corners[:-1, 1:] + corners[1:, :-1]) / 4
        values = np.ma.getdata(artist.get_array()).reshape(centres.shape[:2])
        return artist, values, centres[..., 0], centres[..., 1]
    return None, np.empty(0), np.empty(0), np.empty(0)


def _tick_labels(ax: Axes, axis: str) -> list[tuple[float, str]]:
    """(position, text) of the non-empty tick labels of the x or y axis, in position order."""
    labels = ax.get_xticklabels() if axis == "x" else ax.get_yticklabels()
    index = 0 if axis == "x" else 1
    return sorted(
        (label.get_position()[index], label.get_text()) for label in labels if label.get_text().strip()
    )


def _lay_out(ax: Axes) -> None:
    """Let matplotlib place ticks and labels (without drawing pixels when it can)."""
    figure = ax.figure
    while getattr(figure, "figure", figure) is not figure:  # a SubFigure: go up to the Figure
        figure = figure.figure
    if hasattr(figure, "draw_without_rendering"):
        figure.draw_without_rendering()
    else:
        figure.canvas.draw()


def _check_heatmap(task: Task, ax: Axes, weights: torch.Tensor) -> None:
    _lay_out(ax)
    artist, values, x_centres, y_centres = _heatmap_cells(ax)
    if artist is None:
        raise task.fail(
            "no heatmap found on the returned Axes.",
            "draw with ax.imshow(...), seaborn.heatmap(..., ax=ax) or pcolormesh.",
        )
    if values.shape == (LQ, LK):
        raise task.fail(
            f"the drawn matrix is {LQ}x{LK} (Lq rows): queries run down the vertical axis."
            " The course puts queries on the horizontal axis (横轴是 Query 位置, 纵轴是 Key 位置).",
            "imshow draws row r at height r, so draw weights.T (shape (Lk, Lq)).",
        )
    if values.shape != (LK, LQ):
        raise task.fail(
            f"the drawn image has shape {values.shape}, expected (Lk, Lq) = ({LK}, {LQ}).",
            "pass the (Lq, Lk) weights transposed, as numbers (not colours).",
        )
    x_labels, y_labels = _tick_labels(ax, "x"), _tick_labels(ax, "y")
    x_texts, y_texts = [text for _, text in x_labels], [text for _, text in y_labels]
    if sorted(x_texts) == sorted(KEY_TOKENS) or sorted(y_texts) == sorted(QUERY_TOKENS):
        raise task.fail(
            "the query and key tick labels are swapped: 横轴是 Query 位置, 纵轴是 Key 位置.",
            "x tick labels = query_tokens, y tick labels = key_tokens.",
        )
    for axis, texts, tokens in (("x", x_texts, QUERY_TOKENS), ("y", y_texts, KEY_TOKENS)):
        if sorted(texts) != sorted(tokens):
            raise task.fail(
                f"the {axis} tick labels are {texts}, expected the tokens {list(tokens)}.",
                f"one tick per cell: ax.set_{axis}ticks(positions, labels=tokens).",
            )
    for x_position, query in x_labels:
        for y_position, key in y_labels:
            distance = (x_centres - x_position) ** 2 + (y_centres - y_position) ** 2
            row, col = np.unravel_index(np.argmin(distance), distance.shape)
            i, j = QUERY_TOKENS.index(query), KEY_TOKENS.index(key)
            if not math.isclose(float(values[row, col]), float(weights[i, j]), abs_tol=1e-6):
                raise task.fail(
                    f"the cell at (query '{query}', key '{key}') shows {float(values[row, col]):.4f},"
                    f" but weights[{i}, {j}] = {float(weights[i, j]):.4f}.",
                    "put each tick on the centre of its token's cell, in the order of the tokens.",
                )
    low, high = artist.get_clim()
    if not (math.isclose(low, 0.0, abs_tol=1e-9) and math.isclose(high, 1.0, abs_tol=1e-9)):
        raise task.fail(
            f"the colour range is ({low:.3g}, {high:.3g}); fix it to (0, 1) so heatmaps can be compared.",
            "pass vmin=0, vmax=1.",
        )
    lightest, darkest = (_lightness(artist.get_cmap()(value)) for value in (0.0, 1.0))
    if lightest - darkest < LIGHTNESS_MARGIN:
        raise task.fail(
            f"the colour map '{artist.get_cmap().name}' does not go from light (weight 0) to dark"
            " (weight 1): the strongest cell must be the darkest (颜色越深表示权重越高).",
            "pass a light-to-dark colour map such as cmap='Blues' (imshow's default, viridis, is"
            " dark-to-light; so is seaborn's default).",
        )
    if getattr(artist, "colorbar", None) is None:
        raise task.fail("the heatmap has no colorbar.", "fig.colorbar(image, ax=ax).")
    if not ax.get_xlabel().strip() or not ax.get_ylabel().strip():
        raise task.fail(
            "label both axes (e.g. 'query position' and 'key position').",
            "ax.set_xlabel(...), ax.set_ylabel(...).",
        )


def _lightness(rgba: Any) -> float:
    """Relative luminance (0 black .. 1 white) of an sRGB colour."""
    red, green, blue = (c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in rgba[:3])
    return 0.2126 * red + 0.7152 * green + 0.0722 * blue


def check_plot_attention(fn: Callable) -> None:
    """Task E.1: the Axes shows weights with queries on x, keys on y, range (0, 1), colorbar, labels."""
    task = Task("E.1", "plot_attention")
    weights = torch.softmax(_random(LQ, LK, seed=50) * 2, dim=-1)  # (Lq, Lk), not symmetric
    before = weights.clone()
    open_before = set(plt.get_fignums())
    try:
        ax = _call(task, fn, weights, list(QUERY_TOKENS), list(KEY_TOKENS))
        if not isinstance(ax, Axes):
            raise task.fail(
                f"return the matplotlib Axes you drew on, got {type(ax).__name__}.", "end with `return ax`."
            )
        _check_heatmap(task, ax, weights)
        _unchanged(task, before, weights, "weights")
        _, given = plt.subplots()
        decoy = plt.figure().add_subplot()  # the current Axes is now another one than `given`
        ax = _call(task, fn, weights, list(QUERY_TOKENS), list(KEY_TOKENS), ax=given)
        if decoy.get_images() or decoy.collections:
            raise task.fail(
                "with `ax` given, your heatmap was drawn on the current Axes instead of on `ax`.",
                "draw with ax.imshow(...) (or seaborn.heatmap(..., ax=ax)), not plt.imshow(...):"
                " plt.* draws on whatever Axes is current.",
            )
        if ax is not given:
            raise task.fail(
                "when `ax` is given, draw on it and return it.", "create a figure only when ax is None."
            )
        _check_heatmap(task, ax, weights)
    finally:
        for number in set(plt.get_fignums()) - open_before:
            plt.close(number)
    task.passed()


CHECKS: tuple[tuple[str, str, Callable], ...] = (
    ("A.1", "attention_scores", check_attention_scores),
    ("A.2", "masked_softmax", check_masked_softmax),
    ("A.3", "scaled_dot_product_attention", check_scaled_dot_product_attention),
    ("A.4", "causal_mask", check_causal_mask),
    ("B.1", "SelfAttention", check_self_attention),
    ("C.1", "split_heads", check_split_heads),
    ("C.2", "merge_heads", check_merge_heads),
    ("C.3", "MultiHeadAttention", check_multi_head_attention),
    ("D.1", "AttentionBlock", check_attention_block),
    ("E.1", "plot_attention", check_plot_attention),
)


def check_all(module: Any) -> bool:
    """Run every public check on module (your attention.py); print one line per task and a summary."""
    failed = 0
    for _, name, check in CHECKS:
        try:
            check(student_attr(module, name))
        except CheckFailure as failure:
            failed += 1
            print(f"FAILED {failure}")
    print(f"{len(CHECKS) - failed}/{len(CHECKS)} public checks passed")
    return failed == 0
