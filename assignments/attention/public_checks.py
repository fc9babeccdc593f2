"""Public checks for attention.py (公开检查): one function per task, for the notebook and pytest.

Each check_* function calls your code on small inputs whose sizes all differ (B=2, H=3, Lq=4,
Lk=5, Dh=7), so a swapped axis shows up as a wrong shape, and compares what you return with
PyTorch's own building blocks (torch.softmax, F.scaled_dot_product_attention,
nn.MultiheadAttention, nn.LayerNorm). On success it prints "Task X.Y (name) passed"; otherwise it
raises CheckFailure (an AssertionError) whose message says what was wrong and gives a hint.
These checks are a helpful subset: the grader checks more.

    from public_checks import check_attention_scores
    check_attention_scores(attention_scores)              # English
    check_attention_scores(attention_scores, lang="zh")   # 中文 (or ATTNKIT_LANG=zh for pytest)
"""

from __future__ import annotations

import contextlib
from collections import ChainMap, deque
import functools
import inspect
import io
import logging
import math
import os
import re
import sys
import traceback
import types
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator

import matplotlib.pyplot as plt
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from matplotlib.axes import Axes
from matplotlib import collections
from matplotlib.collections import QuadMesh
from matplotlib.image import AxesImage
from torch.overrides import TorchFunctionMode

B, H, LQ, LK, DH, DV = 2, 3, 4, 5, 7, 6  # all different, so a transposed result has a wrong shape
E = H * DH  # 21
QUERY_TOKENS = ("le", "chat", "dort", "ici")  # Lq = 4
TITLE = "probe heatmap"  # the title= E.1's check gives
KEY_TOKENS = ("the", "cat", "is", "sleeping", "here")  # Lk = 5
ATOL, RTOL = 1e-5, 1e-4
SHOWN_ATOL = 0.5 / 256  # a heatmap cell within half a step of a 256-colour map shows its weight (float16 draws alike)
TASK_IN_MESSAGE = re.compile(r"Task ([A-Z]\.\d+)")
LIGHTNESS_MARGIN = 0.1  # weight 0 must be this much lighter than weight 1 (luminance, 0..1)
SOFTMAX_NAMES = ("softmax", "softmin")  # any torch function whose name contains one of these


LANGS = ("en", "zh")
LANG_VARIABLE = "ATTNKIT_LANG"  # the language when a check is not given lang= (pytest: ATTNKIT_LANG=zh pytest)
CJK_FONTS = (  # fonts with Chinese glyphs, the first one installed is used for plots
    "Noto Sans CJK SC", "Noto Sans SC", "Source Han Sans SC", "WenQuanYi Zen Hei", "WenQuanYi Micro Hei",
    "Microsoft YaHei", "SimHei", "PingFang SC", "Heiti SC", "Arial Unicode MS", "Droid Sans Fallback",
)


@dataclass(frozen=True)
class Text:
    """One message in English and in Chinese."""

    en: str
    zh: str


def tr(en: str, zh: str) -> Text:
    return Text(en, zh)


def _language(lang: str | None) -> str:
    chosen = lang or os.environ.get(LANG_VARIABLE, "").strip() or "en"
    if chosen not in LANGS:
        raise ValueError(f"lang={chosen!r}: use 'en' or 'zh' (from lang= or {LANG_VARIABLE})")
    return chosen


def use_cjk_font() -> str | None:
    """Let matplotlib draw Chinese text: put the first installed CJK font after DejaVu Sans
    (matplotlib falls back glyph by glyph). Returns the font's name, or None (with advice)."""
    from matplotlib import font_manager

    installed = {entry.name for entry in font_manager.fontManager.ttflist}
    found = next((name for name in CJK_FONTS if name in installed), None)
    if found is None:
        print(
            "没有找到中文字体，图中的中文会显示成方框。Linux: sudo apt-get install fonts-noto-cjk"
            "（或 fonts-wqy-zenhei），然后重启内核。No CJK font found: Chinese text in plots shows as boxes."
        )
        return None
    plt.rcParams["font.family"] = ["DejaVu Sans", found]
    # A CJK font often has one weight only (WenQuanYi Zen Hei: 500); matplotlib uses it for normal
    # text too and says so on every figure, which reads like an error above a passed check.
    font_log = logging.getLogger("matplotlib.font_manager")
    if _same_weight_anyway not in font_log.filters:
        font_log.addFilter(_same_weight_anyway)
    return found


def _same_weight_anyway(record: logging.LogRecord) -> bool:
    return not str(record.msg).startswith("findfont: Failed to find font weight")


class CheckFailure(AssertionError):
    """A public check failed; str(failure) is the whole message for the student."""

    def _render_traceback_(self) -> list[str]:
        """What Jupyter shows for it (IPython calls this): the message, not the checker's source."""
        return [f"{type(self).__name__}: {self}"]


class NotImplementedYet(CheckFailure):
    """The task (or a task it needs) still raises NotImplementedError."""


@dataclass(frozen=True)
class Task:
    id: str  # "A.1"
    name: str  # "attention_scores"
    lang: str = "en"

    def say(self, text: str | Text) -> str:
        """text in this task's language (a plain str is the same in both: shapes, names)."""
        return text if isinstance(text, str) else (text.zh if self.lang == "zh" else text.en)

    def fail(self, message: str | Text, hint: str | Text = "") -> CheckFailure:
        message, hint = self.say(message), self.say(hint)
        if self.lang == "zh":
            text = f"任务 {self.id}（{self.name}）：{message}"
            return CheckFailure(f"{text} 提示：{hint}" if hint else text)
        text = f"Task {self.id} ({self.name}): {message}"
        return CheckFailure(f"{text} Hint: {hint}" if hint else text)

    def passed(self) -> None:
        print(f"任务 {self.id}（{self.name}）通过" if self.lang == "zh" else f"Task {self.id} ({self.name}) passed")


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


def _where(error: BaseException, lang: str = "en") -> str:
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
    at = "位置" if lang == "zh" else "at"
    return f" ({at} {Path(frame.filename).name}:{frame.lineno}: {frame.line})"


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
            raise NotImplementedYet(task.say(tr(
                f"Task {task.id} ({task.name}) needs Task {needed.group(1)} first: {error}",
                f"任务 {task.id}（{task.name}）需要先完成任务 {needed.group(1)}：{error}",
            ))) from None
        raise NotImplementedYet(task.say(tr(
            f"Task {task.id} ({task.name}) is not implemented yet",
            f"任务 {task.id}（{task.name}）还没有实现",
        ))) from None
    except CheckFailure:
        raise
    except Exception as error:  # the student's code crashed: say where, without our traceback
        first_line = (str(error).strip().splitlines() or [""])[0]
        raise task.fail(tr(
            f"{what} raised {type(error).__name__}: {first_line}{_where(error)}",
            f"{what} 抛出了 {type(error).__name__}：{first_line}{_where(error, 'zh')}",
        )) from None
    used = sorted({name for name in calls.names if any(word in name.lower() for word in forbid)})
    if used:
        raise task.fail(
            tr(f"your code calls {', '.join(used)}; this task asks you to write softmax by hand.",
               f"你的代码调用了 {', '.join(used)}；这道题要求你手写 softmax。"),
            tr("take the exponential of each score minus its row maximum, then divide by the row sum.",
               "对每个分数减去所在行的最大值后取指数，再除以这一行的和。"),
        )
    return result


def student_attr(module: Any, name: str, lang: str | None = None) -> Any:
    """module.<name>, or a clear failure when the student's file has no such function/class."""
    lang = _language(lang)
    task = next((Task(task_id, name, lang) for task_id, attr, _ in CHECKS if attr == name), Task("?", name, lang))
    if not hasattr(module, name):
        where = getattr(module, "__file__", None) or module
        raise task.fail(
            tr(f"{where} has no '{name}'.", f"{where} 里没有 '{name}'。"),
            tr("do not rename or delete the functions of the template.", "不要重命名或删除模板里的函数。"),
        )
    return getattr(module, name)


def _random(*shape: int, seed: int, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed), dtype=dtype)


# ---------------------------------------------------------------------------------------------
# Comparing results
# ---------------------------------------------------------------------------------------------
def _tensor(
    task: Task, label: str | Text, got: Any, shape: tuple[int, ...], dtype: torch.dtype, meaning: str | Text = ""
) -> torch.Tensor:
    label, meaning = task.say(label), task.say(meaning)
    if not isinstance(got, torch.Tensor):
        raise task.fail(tr(f"{label} should be a torch.Tensor, got {type(got).__name__}.",
                           f"{label} 应该是 torch.Tensor，得到的是 {type(got).__name__}。"))
    if tuple(got.shape) != shape:
        raise task.fail(tr(f"{label} has shape {tuple(got.shape)}, expected {shape}{meaning}.",
                           f"{label} 的形状是 {tuple(got.shape)}，应为 {shape}{meaning}。"))
    if got.dtype != dtype:
        raise task.fail(tr(f"{label} has dtype {got.dtype}, expected {dtype}.", f"{label} 的 dtype 是 {got.dtype}，应为 {dtype}。"),
                        tr("keep the dtype of the inputs.", "保持输入的 dtype。"))
    return got.detach()


def _close(got: torch.Tensor, want: torch.Tensor) -> bool:
    return got.shape == want.shape and torch.allclose(got.double(), want.double(), atol=ATOL, rtol=RTOL)


def _unmasked_weights(task: Task, output_right: bool) -> None:
    """Fail for weights that ignore the mask: the mask left out, or, next to an output that used it
    (right), weights returned from another computation than the output's."""
    if output_right:
        raise task.fail(
            tr("the weights you return ignore the mask, but your output uses it: they are not the weights your output was computed with.",
               "你返回的权重忽略了掩码，而你的输出用了掩码：它们不是计算输出时用的那一份权重。"),
            tr("return the masked weights that your output used.", "返回计算输出时用的、加了掩码的权重。"),
        )
    raise task.fail(
        tr("the mask is ignored: blocked keys still get weight.", "掩码被忽略了：被屏蔽的键仍然得到了权重。"),
        tr("pass the mask on to your masked_softmax.", "把掩码传给你的 masked_softmax。"),
    )


def _values(
    task: Task, label: str | Text, got: torch.Tensor, want: torch.Tensor, inputs: str | Text, hint: str | Text
) -> None:
    if _close(got, want):
        return
    label, inputs = task.say(label), task.say(inputs)
    if torch.isnan(got).any():
        index = tuple(torch.nonzero(torch.isnan(got))[0].tolist())
        raise task.fail(tr(f"{label} contains NaN (first at index {index}) for {inputs}.",
                           f"输入为 {inputs} 时，{label} 含有 NaN（第一个在下标 {index}）。"), hint)
    index = tuple(
        torch.nonzero(~torch.isclose(got.double(), want.double(), atol=ATOL, rtol=RTOL))[0].tolist()
    )
    raise task.fail(
        tr(f"{label} has wrong values for {inputs}: at index {index} you return "
           f"{got[index].item():.5f}, expected {want[index].item():.5f}.",
           f"输入为 {inputs} 时，{label} 的数值不对：下标 {index} 处你返回 "
           f"{got[index].item():.5f}，应为 {want[index].item():.5f}。"),
        hint,
    )


def _wrong_scale(
    task: Task, got: torch.Tensor, want: torch.Tensor, scales, expected: str | Text, hint: str | Text
) -> None:
    """Fail if got = softmax(scores * power) where want = softmax(scores): the scores were scaled wrongly."""
    for wrong, power in scales:
        if not _close(got, want) and _close(got, torch.softmax(want.log() * power, dim=-1)):
            wrong, said = task.say(wrong), task.say(expected)
            raise task.fail(tr(f"your scores are scaled by {wrong}; {said}.", f"你的分数按 {wrong} 缩放了；{said}。"), hint)


def _unchanged(task: Task, before: torch.Tensor, after: torch.Tensor, name: str) -> None:
    if not torch.equal(before, after):
        raise task.fail(
            tr(f"your code changed its input `{name}` in place.", f"你的代码原地修改了输入 `{name}`。"),
            tr("use operations that return a new tensor (masked_fill, not masked_fill_; x = x + 1, not x += 1).",
               "使用返回新张量的运算（用 masked_fill 而不是 masked_fill_；用 x = x + 1 而不是 x += 1）。"),
        )


def _flows(task: Task, got: tuple, names: str) -> None:
    """Fail when a result of a call whose inputs or parameters need gradients carries none."""
    for name, value in zip(names.strip("()").split(", "), got):
        if isinstance(value, torch.Tensor) and not value.requires_grad:
            raise task.fail(
                tr(f"no gradient flows into the {name} you return (.detach(), .item(), .numpy() or torch.no_grad()"
                   " on the way): later tasks train through it.",
                   f"你返回的 {name} 没有梯度（中途用了 .detach()、.item()、.numpy() 或 torch.no_grad()）：后面的任务要通过它训练。"),
                tr("build every result with torch operations on the inputs.", "每个结果都用 torch 运算从输入算出来。"),
            )


def _gradient(task: Task, got: torch.Tensor, leaf: torch.Tensor, want: torch.Tensor, want_leaf: torch.Tensor, label: str | Text) -> None:
    """Fail when the gradient of got with respect to leaf is not the true one (want's, to want_leaf)."""
    name = task.say(label)
    _flows(task, (got,), name)
    probe = _random(*got.shape, seed=60)
    try:
        (mine,) = torch.autograd.grad((got * probe).sum(), leaf, allow_unused=True)
    except Exception as error:  # noqa: BLE001 - the student's backward: say what it raised
        first_line = (str(error).strip().splitlines() or [""])[0]
        raise task.fail(tr(f"computing the gradient of {name} raised {type(error).__name__}: {first_line}",
                           f"计算 {name} 的梯度时抛出了 {type(error).__name__}：{first_line}"),
                        tr("later tasks train through your function: change no tensor in place on the way.",
                           "后面的任务要通过你的函数训练：计算过程中不要原地修改张量。")) from None
    (theirs,) = torch.autograd.grad((want * probe).sum(), want_leaf)
    if mine is None or not _close(mine, theirs):
        raise task.fail(tr(f"the values of {name} are right but its gradient is not.", f"{name} 的数值正确，但它的梯度不对。"),
                        tr("build it with torch operations on the inputs (no .detach() on the way to the result).",
                           "用 torch 运算从输入算出结果（通往结果的路上不要 .detach()）。"))


def _distinct(task: Task, layers: dict[str, nn.Module], owner: str = "self") -> None:
    """Fail when two of the projections are one layer (self.W_q = self.W_k = nn.Linear(...))."""
    shared = ", ".join(f"{owner}.{name}" for name, layer in layers.items() if sum(layer is other for other in layers.values()) > 1)
    if shared:
        raise task.fail(
            tr(f"{shared} are one and the same layer: each projection learns its own weights.",
               f"{shared} 是同一个层：每个投影都要学习自己的权重。"),
            tr("make one nn.Linear for each of them.", "为每个投影各建一个 nn.Linear。"),
        )


# ---------------------------------------------------------------------------------------------
# Earlier tasks: a task is checked on its own code, as the grader grades it
# ---------------------------------------------------------------------------------------------
# A check that fails runs again with the functions of the earlier tasks it may call replaced by
# the checks' own versions (torch's building blocks), in the namespace your class or function
# looks them up in. If it passes then, your code for this task is right and the mistake is in an
# earlier task: the check passes and says which one. The grader does the same: each mistake is
# charged once, in its own task.
A_TASKS = ("A.1", "A.2", "A.3", "A.4")
EARLIER: dict[str, tuple[str, ...]] = {
    "A.3": ("A.1", "A.2"),
    "B.1": A_TASKS,
    "C.3": A_TASKS + ("C.1", "C.2"),
    "D.1": A_TASKS + ("C.1", "C.2", "C.3"),
}


def _own_scores(q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
    return torch.einsum("...qd,...kd->...qk", q, k) / math.sqrt(q.shape[-1])


def _own_softmax(scores: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
    blocked = scores if mask is None else scores.masked_fill(mask.logical_not(), float("-inf"))
    return torch.softmax(blocked, dim=-1).nan_to_num(0.0)  # a row with every key blocked: zeros


def _own_attention(q, k, v, mask=None, *, _dropout=None, _dropped_weights=False) -> tuple[torch.Tensor, torch.Tensor]:
    weights = _own_softmax(_own_scores(q, k), mask)
    if _dropout is None:
        return weights @ v, weights
    dropped = _dropout(weights)  # your C.3's dropout, passed to your A.3: see _dropout_given
    return dropped @ v, dropped if _dropped_weights else weights


def _own_causal_mask(size_q: int, size_k: int | None = None, device=None) -> torch.Tensor:
    return torch.ones(size_q, size_q if size_k is None else size_k, dtype=torch.bool, device=device).tril()


def _own_split_heads(x: torch.Tensor, num_heads: int) -> torch.Tensor:
    return torch.stack(x.chunk(num_heads, dim=-1), dim=1)  # (B, H, S, Dh)


def _own_merge_heads(x: torch.Tensor) -> torch.Tensor:
    return torch.cat(x.unbind(dim=1), dim=-1)  # (B, S, H*Dh)


class _OwnMultiHeadAttention(nn.Module):
    """The layers of Task C.3 (W_q, W_k, W_v, W_o, dropout) run by torch's multi-head attention."""

    def __init__(self, embed_dim: int, num_heads: int, dropout: float = 0.0, bias: bool = True):
        super().__init__()
        if embed_dim % num_heads != 0:
            raise ValueError(f"embed_dim {embed_dim} is not divisible by num_heads {num_heads}")
        self.embed_dim, self.num_heads = embed_dim, num_heads
        self.W_q, self.W_k, self.W_v, self.W_o = (nn.Linear(embed_dim, embed_dim, bias=bias) for _ in range(4))
        self.dropout = nn.Dropout(p=dropout)

    def forward(self, query, key=None, value=None, mask=None):
        key = key if key is not None else query
        value = value if value is not None else key
        biases = None if self.W_q.bias is None else torch.cat([self.W_q.bias, self.W_k.bias, self.W_v.bias])
        output, weights = F.multi_head_attention_forward(
            query.transpose(0, 1), key.transpose(0, 1), value.transpose(0, 1), self.embed_dim, self.num_heads,
            None, biases, None, None, False, self.dropout.p, self.W_o.weight, self.W_o.bias,
            training=self.training, need_weights=True, attn_mask=None if mask is None else mask.logical_not(),
            use_separate_proj_weight=True, q_proj_weight=self.W_q.weight, k_proj_weight=self.W_k.weight,
            v_proj_weight=self.W_v.weight, average_attn_weights=False,
        )
        return output.transpose(0, 1), weights  # (B, Lq, E), (B, H, Lq, Lk)


OWN_VERSIONS: dict[str, tuple[str, Any]] = {  # task -> (its name in attention.py, the checks' version)
    "A.1": ("attention_scores", _own_scores),
    "A.2": ("masked_softmax", _own_softmax),
    "A.3": ("scaled_dot_product_attention", _own_attention),
    "A.4": ("causal_mask", _own_causal_mask),
    "C.1": ("split_heads", _own_split_heads),
    "C.2": ("merge_heads", _own_merge_heads),
    "C.3": ("MultiHeadAttention", _OwnMultiHeadAttention),
}


def _namespace(student: Any) -> dict[str, Any] | None:
    """The globals your function or class looks the earlier tasks' names up in."""
    if isinstance(student, type):
        module = sys.modules.get(student.__module__)
        return vars(module) if module is not None else None
    return getattr(student, "__globals__", None)


_MEMOISED = type(functools.lru_cache(maxsize=None)(lambda: None))  # what functools.cache and lru_cache make


@contextlib.contextmanager
def _replaced(namespace: dict[str, Any], versions: dict[str, Any]) -> Iterator[None]:
    """Put the checks' versions in place of your functions and classes of these names, wherever
    your code holds them: the global name, an alias (`softmax = masked_softmax`), a default
    argument, a closure, a class attribute, a property's getter, a dict, list, tuple, deque or
    ChainMap (a registry), a partial, an attribute of an object of your own class, a named tuple,
    a method of your own object
    (`masked_softmax = _ops.softmax`, called as `_ops.softmax(s, m)`), the base of your own subclass,
    what a functools.cache of yours returned. Everything is put back afterwards."""
    undo: list[Callable[[], None]] = []
    for name in [name for name in versions if name not in namespace]:  # not defined in your file: the checks' version is
        namespace[name] = versions[name]
        undo.append(lambda name=name: namespace.pop(name, None))
    swap = {id(namespace[name]): version for name, version in versions.items()}
    for name, version in versions.items():  # a method of your object: its class's function too, without self
        if inspect.ismethod(namespace[name]):
            swap.setdefault(id(namespace[name].__func__), lambda _self, *args, _version=version, **kwargs: _version(*args, **kwargs))
    mine = namespace.get("__name__")
    seen: set[int] = set()

    def put(setter: Callable[[Any, Any], None], key: Any, old: Any) -> None:
        new = fresh(old)
        if new is not old:
            setter(key, new)
            undo.append(lambda: setter(key, old))

    def fresh(value: Any) -> Any:
        """What a reference to value holds during the check: the checks' version, or value itself
        (with what it holds replaced inside)."""
        if id(value) in swap:
            return swap[id(value)]
        if id(value) in seen or isinstance(value, (str, bytes, int, float, torch.Tensor)) or len(seen) > 20_000:
            return value
        seen.add(id(value))
        if isinstance(value, tuple) and (type(value) is tuple or hasattr(value, "_fields")):  # a named tuple too
            items = tuple(fresh(item) for item in value)
            if all(a is b for a, b in zip(items, value)):
                return value
            return items if type(value) is tuple else type(value)._make(items)
        if isinstance(value, (staticmethod, classmethod)):
            inner = fresh(value.__func__)
            return type(value)(inner) if inner is not value.__func__ else value
        if isinstance(value, (dict, list, deque)):
            for key, item in list(value.items() if isinstance(value, dict) else enumerate(value)):
                put(value.__setitem__, key, item)
        elif isinstance(value, ChainMap):  # overrides over defaults: the dicts it chains
            fresh(value.maps)
        elif isinstance(value, property):  # property(lambda self: fn) made by a helper: its getter's closure
            fresh(value.fget)
        elif isinstance(value, functools.partial):  # __setstate__ is how a partial changes what it calls
            put(lambda _, new: value.__setstate__(new), None, value.__reduce__()[2])
        elif type(value) is _MEMOISED and getattr(value.__wrapped__, "__module__", None) == mine:
            fresh(value.__wrapped__)  # @functools.cache of yours: what it returned may hold your function,
            value.cache_clear()  # so it is computed again with the checks' versions, and again after
            undo.append(value.cache_clear)
        elif inspect.isfunction(value) and value.__module__ == mine:
            put(lambda _, new: setattr(value, "__defaults__", new), None, value.__defaults__)
            fresh(value.__kwdefaults__)
            for name, cell in zip(value.__code__.co_freevars, value.__closure__ or ()):
                with contextlib.suppress(ValueError):  # a cell not filled yet
                    if name != "__class__":  # the class of super(), kept
                        put(lambda cell, new: setattr(cell, "cell_contents", new), cell, cell.cell_contents)
        elif isinstance(value, type) and value.__module__ == mine:
            for key, item in list(vars(value).items()):
                put(lambda key, new: setattr(value, key, new), key, item)
            bases = tuple(swap.get(id(base), base) for base in value.__bases__)  # class _SelfMHA(MultiHeadAttention)
            if bases != value.__bases__:
                with contextlib.suppress(TypeError):  # a layout Python refuses: left as it is
                    old, value.__bases__ = value.__bases__, bases
                    undo.append(lambda value=value, old=old: setattr(value, "__bases__", old))
        elif (type(value).__module__ == mine or type(value) is types.SimpleNamespace) and isinstance(getattr(value, "__dict__", None), dict):
            fresh(vars(value))  # an object of your own class (a frozen dataclass too), a SimpleNamespace
        return value

    fresh(namespace)  # the walk starts at your module's globals
    try:
        yield
    finally:
        for step in reversed(undo):
            step()


def _fails(task_id: str, student: Any) -> bool:
    """Whether your function or class of task_id fails its own public check."""
    check = next(check for tid, _, check in CHECKS if tid == task_id)
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            check(student, "en")
    except CheckFailure:
        return True
    return False


def _fitted(own: Any, yours: Any) -> Any:
    """The checks' version of a task, taking the calls your code makes to yours: a call is bound to
    your signature (your parameter names, further parameters with defaults) and its first
    arguments go to the checks' version. A class is fitted in __init__ and forward, and keeps the
    methods of yours that the checks' version lacks (a classmethod `from_config`, a helper)."""
    if isinstance(own, type):
        if not isinstance(yours, type):
            return own
        methods = {name: _fitted(getattr(own, name), getattr(yours, name, None)) for name in ("__init__", "forward")}
        extras = {name: method for name in dir(yours) if not hasattr(own, name)
                  and isinstance(method := inspect.getattr_static(yours, name), (types.FunctionType, staticmethod, classmethod, property))}
        init = methods["__init__"]

        def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
            init(self, *args, **kwargs)
            self.__dict__["_made_with"] = (args, kwargs)

        def __getattr__(self: Any, name: str) -> Any:  # a plain setting your own __init__ stores (self.head_dim = E // H)
            try:
                return own.__getattr__(self, name)
            except AttributeError:
                args, kwargs = self.__dict__.get("_made_with", (None, None))
                if args is None or name.startswith("__"):
                    raise
                with torch.random.fork_rng(devices=[]), contextlib.suppress(Exception):
                    setting = vars(yours(*args, **kwargs)).get(name)  # your own object, made with the same arguments
                    if isinstance(setting, (int, float, bool, str)):
                        return setting
                raise

        return type(own.__name__, (own,), {**extras, **methods, "__init__": __init__, "__getattr__": __getattr__})
    try:
        theirs, ours = inspect.signature(yours), [p for p in inspect.signature(own).parameters if not p.startswith("_")]
    except (TypeError, ValueError):  # not a function, or no signature to read
        return own
    named = _named_result(yours)

    @functools.wraps(own)
    def call(*args: Any, **kwargs: Any) -> Any:
        try:
            bound = theirs.bind(*args, **kwargs)
        except TypeError as error:  # a call your own version refuses too: said in its name, not the checks'
            raise TypeError(f"{getattr(yours, '__qualname__', '')}() {error}") from None
        bound.apply_defaults()
        dropout = [(name, value) for name, value in list(bound.arguments.items())[len(ours):] if _dropout_given(name, value) is not None]
        taken = {"_dropout": _dropout_given(*dropout[0]), "_dropped_weights": _returns_dropped_weights(yours, *dropout[0])} if dropout and own is _own_attention else {}
        value = own(*list(bound.arguments.values())[: len(ours)], **taken)
        return named._make(value) if named and type(value) is tuple and len(value) == len(named._fields) else value

    return call


def _dropout_given(name: str, value: Any) -> Any:
    """The dropout your C.3 passes to your A.3, if it passes one (`dropout=self.dropout`, or
    `dropout_p=0.1` as F.scaled_dot_product_attention takes it): the checks' A.3 applies it to the
    weights that multiply V and returns the weights from before it or after it, as yours does."""
    if "drop" not in name.lower():
        return None
    if isinstance(value, nn.Dropout):
        return value
    return functools.partial(F.dropout, p=value) if type(value) is float and 0.0 < value < 1.0 else None


def _returns_dropped_weights(yours: Any, name: str, value: Any) -> bool:
    """Whether your A.3, given a dropout that drops every weight, returns the weights after it."""
    x = torch.ones(1, 2, 2)
    everything = nn.Dropout(1.0) if isinstance(value, nn.Dropout) else 1.0
    try:
        with torch.no_grad(), torch.random.fork_rng(devices=[]):
            weights = yours(x, x, x, None, **{name: everything})[1]
        return isinstance(weights, torch.Tensor) and bool((weights == 0).all())
    except Exception:  # your A.3 fails: the weights from before dropout, as C.3 asks
        return False


def _named_result(yours: Any) -> Any:
    """The named tuple your function returns (`return AttentionResult(out, w)`, or its return
    annotation), so that your later code can read `.output` of the checks' version too."""
    scope, code = getattr(yours, "__globals__", {}), getattr(yours, "__code__", None)
    annotated = getattr(yours, "__annotations__", {}).get("return")
    names = [annotated] if isinstance(annotated, str) else list(code.co_names) if code else []
    kinds = [annotated] if isinstance(annotated, type) else [scope.get(n) for n in names]
    found = {kind for kind in kinds if isinstance(kind, type) and issubclass(kind, tuple) and hasattr(kind, "_fields")}
    return found.pop() if len(found) == 1 else None


def _given_earlier(task_id: str) -> Callable[[Callable], Callable]:
    """Check task_id as the grader grades it: a failure caused only by earlier tasks is theirs."""

    def wrap(check: Callable) -> Callable:
        @functools.wraps(check)
        def checked(student: Any, lang: str | None = None) -> None:
            try:
                return check(student, lang)
            except CheckFailure:  # not implemented yet too: it may be an earlier task's stub
                namespace = _namespace(student)
                earlier = list(EARLIER[task_id]) if namespace is not None else []  # one not defined (its cell stopped early) too
                if not earlier:
                    raise
                own = {name: _fitted(version, namespace.get(name)) for name, version in (OWN_VERSIONS[t] for t in earlier)}
                with _replaced(namespace, own), contextlib.redirect_stdout(io.StringIO()):
                    check(student, lang)  # a failure here is this task's own mistake
                wrong = [t for t in earlier if OWN_VERSIONS[t][0] not in namespace or _fails(t, namespace[OWN_VERSIONS[t][0]])] or earlier
            task = Task(task_id, next(name for tid, name, _ in CHECKS if tid == task_id), _language(lang))
            tasks, names = ", ".join(wrong), ", ".join(OWN_VERSIONS[t][0] for t in wrong)
            print(task.say(tr(
                f"Task {task_id} ({task.name}) passed with the checks' own {names} in place of yours:"
                f" your code for this task is right; fix Task {tasks} first.",
                f"任务 {task_id}（{task.name}）在用检查自带的 {names} 替换你的版本后通过：这道题你的代码是对的；"
                f"请先改正任务 {tasks}。",
            )))

        return checked

    return wrap



# ---------------------------------------------------------------------------------------------
# Part A: scaled dot-product attention
# ---------------------------------------------------------------------------------------------
def check_attention_scores(fn: Callable, lang: str | None = None) -> None:
    """Task A.1: q·kᵀ/√d for batched (B, H, Lq, d) and plain (Lq, d) inputs."""
    task = Task("A.1", "attention_scores", _language(lang))
    q, k = _random(B, H, LQ, DH, seed=1), _random(B, H, LK, DH, seed=2)
    q_before, k_before = q.clone(), k.clone()
    got = _call(task, fn, q, k)
    got = _tensor(
        task,
        tr("the result", "结果"),
        got,
        (B, H, LQ, LK),
        torch.float32,
        tr(" = (B, H, Lq, Lk) for q (B, H, Lq, d) and k (B, H, Lk, d)", " = (B, H, Lq, Lk)，q 为 (B, H, Lq, d)，k 为 (B, H, Lk, d)"),
    )
    raw = torch.einsum("bhqd,bhkd->bhqk", q, k)  # (B, H, Lq, Lk), unscaled
    want = raw / math.sqrt(DH)
    if not _close(got, want):
        vector_size = tr("d is the size of one query vector, the last axis of q.", "d 是一个查询向量的长度，即 q 的最后一维。")
        for wrong, scale, hint in (
            (tr("you did not scale the scores", "你没有缩放分数"), 1.0,
             tr("divide q·kᵀ by the square root of d.", "把 q·kᵀ 除以 d 的平方根。")),
            (tr("you divided by d instead of √d", "你除以了 d，而不是 √d"), 1 / DH,
             tr("divide by the square root of d.", "要除以 d 的平方根。")),
            (tr("you scaled by a sequence length (Lq)", "你按序列长度 (Lq) 缩放了"), 1 / math.sqrt(LQ), vector_size),
            (tr("you scaled by a sequence length (Lk)", "你按序列长度 (Lk) 缩放了"), 1 / math.sqrt(LK), vector_size),
        ):
            if _close(got, raw * scale):
                raise task.fail(tr(f"{wrong.en}: expected q·kᵀ / √d with d = {DH}.", f"{wrong.zh}：应为 q·kᵀ / √d，其中 d = {DH}。"), hint)
        _values(
            task,
            tr("the result", "结果"),
            got,
            want,
            "q (2, 3, 4, 7), k (2, 3, 5, 7)",
            tr("multiply q by k with k's last two axes swapped, then divide by √d.",
               "把 q 与交换了最后两维的 k 相乘，再除以 √d。"),
        )
    _unchanged(task, q_before, q, "q")
    _unchanged(task, k_before, k, "k")
    q2, k2 = _random(LQ, DH, seed=3, dtype=torch.float64), _random(LK, DH, seed=4, dtype=torch.float64)
    two_d = tr("the result for 2-D inputs", "二维输入的结果")
    got2 = _tensor(task, two_d, _call(task, fn, q2, k2), (LQ, LK), torch.float64, " = (Lq, Lk)")
    _values(
        task,
        two_d,
        got2,
        q2 @ k2.T / math.sqrt(DH),
        "q (4, 7), k (5, 7) float64",
        tr("swap the last two axes of k (negative axes), so that any number of leading axes works.",
           "交换 k 的最后两维（用负数下标），这样前面有多少维都可以。"),
    )
    task.passed()


def _mask_with_blocked_row() -> torch.Tensor:
    """(Lq, Lk) bool, True = may attend; query row 2 may attend to nothing."""
    mask = torch.tensor(
        [[1, 1, 0, 1, 0], [0, 1, 1, 1, 1], [0, 0, 0, 0, 0], [1, 0, 0, 0, 1]], dtype=torch.bool
    )
    return mask  # (Lq, Lk)


def _every_key_blocked(task: Task, weights: torch.Tensor) -> None:
    """With a mask that blocks every key (a batch of padding only), the weights are all zeros."""
    if not (weights == 0).all():
        raise task.fail(
            tr("with a mask that blocks every key (a batch of padding only), the weights are not all zeros (or have NaN).",
               "掩码屏蔽了所有键时（一批全是填充），权重不全为 0（或含有 NaN）。"),
            tr("apply the mask whatever it holds: a shortcut such as `if mask.any():` skips it when every key is blocked.",
               "无论掩码内容如何都要应用它：像 `if mask.any():` 这样的捷径会在所有键都被屏蔽时跳过它。"),
        )


def check_masked_softmax(fn: Callable, lang: str | None = None) -> None:
    """Task A.2: hand-written stable softmax over the last axis, mask True = may attend."""
    task = Task("A.2", "masked_softmax", _language(lang))
    scores = _random(B, H, LQ, LK, seed=5) * 3
    before = scores.clone()
    got = _call(task, fn, scores, forbid=SOFTMAX_NAMES)
    got = _tensor(task, tr("the result", "结果"), got, (B, H, LQ, LK), torch.float32, tr(" (the same shape as scores)", "（与 scores 形状相同）"))
    want = torch.softmax(scores, dim=-1)
    if not _close(got, want):
        for dim in (0, 1, 2):
            if _close(got.sum(dim=dim), torch.ones_like(got.sum(dim=dim))):
                raise task.fail(
                    tr(f"your weights sum to 1 over dim={dim}; each row must sum to 1 over the keys.",
                       f"你的权重在 dim={dim} 上和为 1；应该是每一行在所有键上和为 1。"),
                    tr("reduce over the last axis, keeping it (for the maximum and for the sum).",
                       "沿最后一维归约并保留该维（求最大值和求和都是）。"),
                )
        if not _close(got.sum(dim=-1), torch.ones(B, H, LQ)):
            raise task.fail(
                tr("the rows of your weights do not sum to 1.", "你的权重每一行的和不是 1。"),
                tr("divide the exponentials by their sum over the last axis.", "把指数值除以它们沿最后一维的和。"),
            )
        _values(
            task, tr("the result", "结果"), got, want, tr("scores (2, 3, 4, 5), no mask", "scores (2, 3, 4, 5)，无掩码"),
            tr("the exponential of (score minus row maximum), divided by the row sum.", "（分数减去行最大值）的指数，除以这一行的和。"),
        )
    _unchanged(task, before, scores, "scores")
    leaf, want_leaf = scores.clone().requires_grad_(), scores.clone().requires_grad_()
    _gradient(task, _call(task, fn, leaf, forbid=SOFTMAX_NAMES), leaf, torch.softmax(want_leaf, dim=-1), want_leaf, tr("the result", "结果"))
    for shown, large in (("scores + 1000", scores + 1000), ("scores - 1000", scores - 1000), ("scores * 100", scores * 100)):
        got = _call(task, fn, large, forbid=SOFTMAX_NAMES)
        if (
            not isinstance(got, torch.Tensor)
            or not torch.isfinite(got).all()
            or not _close(got.detach(), torch.softmax(large, dim=-1))
        ):
            raise task.fail(
                tr(f"not numerically stable: {shown} give inf/NaN or wrong values"
                   " (softmax does not change when you add a constant to a row).",
                   f"数值不稳定：{shown} 得到了 inf/NaN 或错误的值（给一行加上常数，softmax 不变）。"),
                tr("subtract each row's maximum before taking the exponential.", "取指数之前先减去每一行的最大值。"),
            )
    mask = _mask_with_blocked_row()  # (Lq, Lk), broadcast over (B, H)
    mask_before = mask.clone()
    got = _call(task, fn, scores, mask, forbid=SOFTMAX_NAMES)
    masked = tr("the masked result", "带掩码的结果")
    got = _tensor(task, masked, got, (B, H, LQ, LK), torch.float32, tr(" (the shape of scores)", "（scores 的形状）"))
    blocked = ~mask.expand(B, H, LQ, LK)
    if (got[~blocked] == 0).all() and (got[blocked] != 0).any():
        raise task.fail(
            tr("you blocked the keys where the mask is True.", "你屏蔽了掩码为 True 的键。"),
            tr("in this kit True = may attend, False = blocked.", "本作业中 True = 可以关注，False = 屏蔽。"),
        )
    if torch.isnan(got).any():
        raise task.fail(
            tr("query row 2 has every key blocked and your result has NaN there; it must be all zeros.",
               "查询第 2 行的所有键都被屏蔽，你的结果在那里是 NaN；应该全为 0。"),
            tr("a row of only -inf has maximum -inf: use 0 as its maximum instead, and never divide by a zero sum.",
               "全是 -inf 的一行最大值也是 -inf：改用 0 作为它的最大值，并且绝不要除以为 0 的和。"),
        )
    partly_blocked = blocked.clone()
    partly_blocked[..., 2, :] = False  # every row but query 2's, whose keys are all blocked
    if (got[blocked] != 0).any() and not (got[partly_blocked] != 0).any():
        raise task.fail(
            tr("query row 2 has every key blocked and your result gives those keys weight; the row must be all zeros.",
               "查询第 2 行的所有键都被屏蔽，你的结果却给了这些键权重；这一行应该全为 0。"),
            tr("a large negative fill such as -1e9 leaves a fully blocked row with equal scores, which softmax spreads evenly: "
               "fill with -inf (it also fits float16, -1e9 does not), and make a row with no allowed key all zeros.",
               "用 -1e9 这样的大负数填充时，全部被屏蔽的一行分数都相等，softmax 会把权重平均分开：请填 -inf"
               "（float16 也能表示它，而 -1e9 不行），并让没有任何允许键的一行全为 0。"),
        )
    if (got[blocked] != 0).any():
        raise task.fail(
            tr("blocked keys (mask False) must get weight exactly 0.", "被屏蔽的键（掩码为 False）权重必须恰好为 0。"),
            tr("set the blocked scores to -inf before taking the exponential.", "取指数之前，把被屏蔽的分数设为 -inf。"),
        )
    want = torch.softmax(scores.masked_fill(~mask, float("-inf")), dim=-1).nan_to_num(0.0)
    _values(
        task,
        masked,
        got,
        want,
        tr("scores (2, 3, 4, 5) with a (4, 5) mask", "scores (2, 3, 4, 5) 加 (4, 5) 的掩码"),
        tr("the allowed keys of each row must sum to 1; an all-blocked row is all zeros.",
           "每一行允许的键权重之和为 1；全部被屏蔽的一行全为 0。"),
    )
    _unchanged(task, mask_before, mask, "mask")
    _unchanged(task, before, scores, "scores")
    leaf = scores.clone().requires_grad_()
    got = _call(task, fn, leaf, mask, forbid=SOFTMAX_NAMES)
    try:  # a backward that raises is said by the gradient check without a mask, above
        (grad,) = torch.autograd.grad((got * _random(*got.shape, seed=61)).sum(), leaf, allow_unused=True) if isinstance(got, torch.Tensor) and got.requires_grad else (None,)
    except Exception:  # noqa: BLE001 - the student's backward
        grad = None
    if grad is not None and not torch.isfinite(grad).all():
        raise task.fail(
            tr("the values are right, but the gradient through query row 2 (every key blocked) is NaN or inf.",
               "数值正确，但经过查询第 2 行（所有键都被屏蔽）的梯度是 NaN 或无穷。"),
            tr("torch.where passes back the gradient of the branch it does not choose too: make that branch finite (divide by 1 where the sum is 0).",
               "torch.where 也会反传没有选中的那个分支的梯度：让那个分支也是有限的（和为 0 时除以 1）。"),
        )
    padding = torch.tensor([[True, True, True, False, False], [True, False, True, True, True]]).view(B, 1, 1, LK)  # a key-padding mask
    got = _call(task, fn, scores, padding, forbid=SOFTMAX_NAMES)
    padded = tr("the result with a (2, 1, 1, 5) mask", "带 (2, 1, 1, 5) 掩码的结果")
    got = _tensor(task, padded, got, (B, H, LQ, LK), torch.float32, tr(" (the shape of scores)", "（scores 的形状）"))
    _values(
        task,
        padded,
        got,
        torch.softmax(scores.masked_fill(~padding, float("-inf")), dim=-1),
        tr("scores (2, 3, 4, 5) with a (2, 1, 1, 5) key-padding mask", "scores (2, 3, 4, 5) 加 (2, 1, 1, 5) 的填充掩码"),
        tr("the mask broadcasts to the scores as it is: use it without reshaping or squeezing it.",
           "掩码按原样广播到 scores 上：直接使用，不要改变它的形状或 squeeze 它。"),
    )
    got = _call(task, fn, scores, torch.zeros(LQ, LK, dtype=torch.bool), forbid=SOFTMAX_NAMES)
    _every_key_blocked(task, _tensor(task, tr("the result with a mask that blocks every key", "屏蔽所有键时的结果"), got, (B, H, LQ, LK), torch.float32))
    scores64 = scores.double()
    got = _call(task, fn, scores64, mask, forbid=SOFTMAX_NAMES)
    _tensor(task, tr("the result for float64 scores", "float64 分数的结果"), got, (B, H, LQ, LK), torch.float64)
    got = _call(task, fn, scores.half(), mask, forbid=SOFTMAX_NAMES)
    got = _tensor(task, tr("the result for float16 scores", "float16 分数的结果"), got, (B, H, LQ, LK), torch.float16)
    if not torch.isfinite(got).all():
        raise task.fail(
            tr("for float16 scores with a (4, 5) mask your result has NaN or inf (row 2 has every key blocked).",
               "float16 分数加 (4, 5) 的掩码时，你的结果含有 NaN 或 inf（第 2 行所有键都被屏蔽）。"),
            tr("an all-blocked row is all zeros in every dtype: where the sum is 0, divide by 1 (an epsilon such as 1e-9 is 0 in float16).",
               "全部被屏蔽的一行在任何 dtype 下都全为 0：和为 0 时除以 1（像 1e-9 这样的小数在 float16 中就是 0）。"),
        )
    task.passed()


@_given_earlier("A.3")
def check_scaled_dot_product_attention(fn: Callable, lang: str | None = None) -> None:
    """Task A.3: (output, weights) against F.scaled_dot_product_attention, with and without a mask."""
    task = Task("A.3", "scaled_dot_product_attention", _language(lang))
    q, k, v = _random(B, H, LQ, DH, seed=6), _random(B, H, LK, DH, seed=7), _random(B, H, LK, DV, seed=8)
    inputs = "q (2, 3, 4, 7), k (2, 3, 5, 7), v (2, 3, 5, 6)"
    for mask in (
        None,
        torch.tensor([[1, 0, 0, 0, 0], [1, 1, 0, 0, 1], [1, 1, 1, 0, 0], [0, 1, 1, 1, 1]], dtype=torch.bool),
    ):
        got = _call(task, fn, q, k, v) if mask is None else _call(task, fn, q, k, v, mask)
        if not isinstance(got, tuple) or len(got) != 2:
            raise task.fail(tr(f"return a tuple (output, weights), got {type(got).__name__}.",
                               f"应返回元组 (output, weights)，得到的是 {type(got).__name__}。"))
        output = _tensor(
            task,
            "output",
            got[0],
            (B, H, LQ, DV),
            torch.float32,
            tr(" = (..., Lq, dv); return (output, weights) in that order", " = (..., Lq, dv)；按 (output, weights) 的顺序返回"),
        )
        weights = _tensor(task, "weights", got[1], (B, H, LQ, LK), torch.float32, " = (..., Lq, Lk)")
        label = inputs if mask is None else tr(f"{inputs} and a (4, 5) mask", f"{inputs} 加 (4, 5) 的掩码")
        scores = torch.einsum("bhqd,bhkd->bhqk", q, k) / math.sqrt(DH)  # (B, H, Lq, Lk)
        blocked = torch.zeros(LQ, LK, dtype=torch.bool) if mask is None else ~mask
        want_weights = torch.softmax(scores.masked_fill(blocked, float("-inf")), dim=-1)
        want_output = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)  # (B, H, Lq, dv)
        if mask is not None and _close(weights, torch.softmax(scores, dim=-1)):
            _unmasked_weights(task, _close(output, want_output))
        _values(
            task,
            "weights",
            weights,
            want_weights,
            label,
            tr("the weights are your masked_softmax of your attention_scores, with the mask.",
               "权重就是对你的 attention_scores 结果（带上掩码）做你的 masked_softmax。"),
        )
        _values(task, "output", output, want_output, label,
                tr("the output is the weights times the values.", "输出等于权重乘以值。"))
    q3, k3, v3, mask3 = q[:, 0], k[:, 0], v[:, 0], _random(B, LQ, LK, seed=9) > -0.5  # no head axis: a (B, Lq, Lk) mask
    mask3[..., 0] = True
    got = _call(task, fn, q3, k3, v3, mask3)
    label = tr("q (2, 4, 7), k (2, 5, 7), v (2, 5, 6) and a (2, 4, 5) mask", "q (2, 4, 7)、k (2, 5, 7)、v (2, 5, 6) 加 (2, 4, 5) 的掩码")
    output = _tensor(task, "output", got[0] if isinstance(got, tuple) else got, (B, LQ, DV), torch.float32, " = (..., Lq, dv)")
    _values(task, "output", output, F.scaled_dot_product_attention(q3, k3, v3, attn_mask=mask3), label,
            tr("the mask broadcasts against the scores (..., Lq, Lk): give it no head axis of its own.",
               "掩码与分数 (..., Lq, Lk) 广播：不要自己给它加头的维度。"))
    got = _call(task, fn, q, k, v, torch.zeros(LQ, LK, dtype=torch.bool))
    if not isinstance(got, tuple) or len(got) != 2:
        raise task.fail(tr(f"return a tuple (output, weights), got {type(got).__name__}.",
                           f"应返回元组 (output, weights)，得到的是 {type(got).__name__}。"))
    _every_key_blocked(task, _tensor(task, "weights", got[1], (B, H, LQ, LK), torch.float32))
    _flows(task, _call(task, fn, q.clone().requires_grad_(), k.clone().requires_grad_(), v.clone().requires_grad_()), "(output, weights)")
    task.passed()


def check_causal_mask(fn: Callable, lang: str | None = None) -> None:
    """Task A.4: bool (Lq, Lk), True where key position <= query position, made on `device`."""
    task = Task("A.4", "causal_mask", _language(lang))
    for args in ((5,), (LQ, 6), (130,)):  # any size: past the small tables a model keeps (nanoGPT's block_size)
        got = _call(task, fn, *args)
        size_q, size_k = args[0], args[-1]
        call = f"causal_mask({', '.join(map(str, args))})"
        want = torch.ones(size_q, size_k, dtype=torch.bool).tril()  # the mask is_causal=True uses
        if isinstance(got, torch.Tensor) and got.dtype != torch.bool:
            raise task.fail(
                tr(f"the mask has dtype {got.dtype}; return a bool tensor (dtype=torch.bool).",
                   f"掩码的 dtype 是 {got.dtype}；应返回布尔张量（dtype=torch.bool）。"),
                tr("True = may attend, False = blocked.", "True = 可以关注，False = 屏蔽。"),
            )
        got = _tensor(task, call, got, (size_q, size_k), torch.bool, " = (size_q, size_k)")
        if torch.equal(got, ~want):
            raise task.fail(
                tr(f"{call} is inverted: True must mean 'may attend' (key position <= query position).",
                   f"{call} 反了：True 必须表示“可以关注”（键位置 <= 查询位置）。"),
                tr("keep the lower triangle.", "保留下三角。"),
            )
        if not torch.equal(got, want):
            row, col = torch.nonzero(got != want)[0].tolist()
            raise task.fail(
                tr(f"{call}[{row}, {col}] is {bool(got[row, col])}, expected {bool(want[row, col])}:"
                   " query i may attend to keys 0..i (aligned top-left).",
                   f"{call}[{row}, {col}] 是 {bool(got[row, col])}，应为 {bool(want[row, col])}："
                   "查询 i 只能关注键 0..i（从左上角对齐）。"),
                tr("keep the lower triangle, diagonal included.", "保留下三角，包括对角线。"),
            )
    got = _call(task, fn, 3, device=torch.device("meta"))
    if not isinstance(got, torch.Tensor) or got.device.type != "meta" or tuple(got.shape) != (3, 3):
        where = got.device if isinstance(got, torch.Tensor) else type(got).__name__
        raise task.fail(
            tr(f"causal_mask(3, device='meta') gave a mask on {where}: make the mask on the device it is given.",
               f"causal_mask(3, device='meta') 返回的掩码在 {where} 上：掩码要建在给定的 device 上。"),
            tr("pass device on to the function that creates the tensor, so the mask sits next to inputs on a GPU.",
               "把 device 传给创建张量的函数，这样掩码才会和 GPU 上的输入在一起。"),
        )
    task.passed()


# ---------------------------------------------------------------------------------------------
# Parts B-D: modules
# ---------------------------------------------------------------------------------------------
def _build(task: Task, cls: type, *args: Any, **kwargs: Any) -> nn.Module:
    """cls(*args, **kwargs) with a fixed seed (without touching the caller's random state), in eval mode."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(0)
        module = _call(task, cls, *args, **kwargs)
    if not isinstance(module, nn.Module):
        raise task.fail(tr(f"{cls.__name__}{args} is a {type(module).__name__}, expected an nn.Module.",
                           f"{cls.__name__}{args} 是 {type(module).__name__}，应为 nn.Module。"))
    return module.eval()


def _linear(task: Task, module: nn.Module, name: str, size: int, seed: int, owner: str = "self") -> nn.Linear:
    """module.<name> checked to be nn.Linear(size, size) with a bias; filled with seeded values."""
    layer = getattr(module, name, None)
    if (
        not isinstance(layer, nn.Linear)
        or (layer.in_features, layer.out_features) != (size, size)
        or layer.bias is None
    ):
        raise task.fail(tr(f"{owner}.{name} should be nn.Linear({size}, {size}) with a bias, found {layer!r}.",
                           f"{owner}.{name} 应为带偏置的 nn.Linear({size}, {size})，找到的是 {layer!r}。"))
    with torch.no_grad():
        layer.weight.copy_(_random(size, size, seed=seed) / math.sqrt(size))
        layer.bias.copy_(_random(size, seed=seed + 1) / 4)
    return layer


def _pair(
    task: Task, got: Any, shapes: tuple[tuple[int, ...], tuple[int, ...]], names: str
) -> tuple[torch.Tensor, torch.Tensor]:
    if not isinstance(got, tuple) or len(got) != 2:
        raise task.fail(tr(f"forward should return a tuple {names}, got {type(got).__name__}.",
                           f"forward 应返回元组 {names}，得到的是 {type(got).__name__}。"))
    first, second = names.strip("()").split(", ")
    order = tr(f"; return {names} in that order", f"；按 {names} 的顺序返回")
    return (
        _tensor(task, first, got[0], shapes[0], torch.float32, order),
        _tensor(task, second, got[1], shapes[1], torch.float32, order),
    )


@_given_earlier("B.1")
def check_self_attention(cls: type, lang: str | None = None) -> None:
    """Task B.1: single-head self-attention against F.scaled_dot_product_attention on W_q/W_k/W_v(x)."""
    task = Task("B.1", "SelfAttention", _language(lang))
    dim, seq = DH, LK  # x (2, 5, 7)
    module = _build(task, cls, dim)
    w_q, w_k, w_v = (
        _linear(task, module, name, dim, seed) for name, seed in (("W_q", 10), ("W_k", 12), ("W_v", 14))
    )
    _distinct(task, {"W_q": w_q, "W_k": w_k, "W_v": w_v})
    x = _random(B, seq, dim, seed=9)
    q, k, v = w_q(x).detach(), w_k(x).detach(), w_v(x).detach()  # (B, S, dim) each
    causal = torch.ones(seq, seq, dtype=torch.bool).tril()
    query_blocked = causal.clone()
    query_blocked[2] = False  # query 2 may attend to no key: weights 0, so its output is 0
    labels = {
        None: "x (2, 5, 7)",
        id(causal): tr("x (2, 5, 7) and a causal (5, 5) mask", "x (2, 5, 7) 加 (5, 5) 的因果掩码"),
        id(query_blocked): tr("x (2, 5, 7) and a (5, 5) mask, causal except that query 2 may attend to no key",
                              "x (2, 5, 7) 加 (5, 5) 的掩码（因果掩码，但 query 2 的所有 key 都被屏蔽）"),
    }
    for mask in (None, causal, query_blocked):
        got = _call(task, module, x) if mask is None else _call(task, module, x, mask)
        output, weights = _pair(task, got, ((B, seq, dim), (B, seq, seq)), "(output, weights)")
        label = labels[None if mask is None else id(mask)]
        scores = q @ k.transpose(1, 2) / math.sqrt(dim)  # (B, S, S)
        blocked = torch.zeros(seq, seq, dtype=torch.bool) if mask is None else ~mask
        want_weights = torch.softmax(scores.masked_fill(blocked, float("-inf")), dim=-1).nan_to_num(0.0)  # (B, S, S), a fully blocked row 0
        _wrong_scale(
            task,
            weights,
            want_weights,
            ((tr("nothing", "1（没有缩放）"), math.sqrt(dim)),),
            tr(f"scale by 1/√d (d = {dim} here)", f"应按 1/√d 缩放（这里 d = {dim}）"),
            tr("reuse your scaled_dot_product_attention (Task A.3).", "复用你的 scaled_dot_product_attention（任务 A.3）。"),
        )
        _values(
            task,
            "weights",
            weights,
            want_weights,
            label,
            tr("project x with W_q and W_k, then reuse scaled_dot_product_attention (Tasks A.1-A.3 first).",
               "用 W_q 和 W_k 投影 x，再复用 scaled_dot_product_attention（先完成任务 A.1-A.3）。"),
        )
        _values(
            task,
            "output",
            output,
            want_weights @ v,
            label,
            tr("the values are the projection of x by W_v, weighted by the weights (a query with every key blocked gets 0).",
               "值是 x 经过 W_v 的投影，再按权重加权（所有 key 都被屏蔽的 query 得到 0）。"),
        )
    w_q, w_k, w_v = (_linear(task, module, name, dim, seed) for name, seed in (("W_q", 20), ("W_k", 22), ("W_v", 24)))
    output, _ = _pair(task, _call(task, module, x), ((B, seq, dim), (B, seq, seq)), "(output, weights)")
    _after_new_weights(task, output, F.scaled_dot_product_attention(w_q(x), w_k(x), w_v(x)).detach(), "W_q, W_k, W_v")
    _flows(task, _call(task, module, x), "(output, weights)")
    task.passed()


def _after_new_weights(task: Task, output: torch.Tensor, want: torch.Tensor, layers: str) -> None:
    """The output of a module that ran once, then had other weights copied into its layers."""
    _values(task, "output", output, want, tr(f"x after other weights were copied into {layers}", f"把其他权重复制进 {layers} 之后的 x"),
            tr("use the layers' current weights in every forward: keep no copy of them from an earlier call (training changes them).",
               "每次 forward 都用各层当前的权重：不要保留之前调用时的副本（训练会改变它们）。"))


def check_split_heads(fn: Callable, lang: str | None = None) -> None:
    """Task C.1: (B, S, H*Dh) -> (B, H, S, Dh), head i = features [i*Dh, (i+1)*Dh), non-contiguous input."""
    task = Task("C.1", "split_heads", _language(lang))
    x = _random(LK, B, E, seed=20).transpose(0, 1)  # (B, S, E), not contiguous
    before = x.clone()
    got = _call(task, fn, x, H)
    want = torch.stack([x[..., i * DH : (i + 1) * DH] for i in range(H)], dim=1)  # (B, H, S, Dh)
    if isinstance(got, torch.Tensor) and tuple(got.shape) == (B, LK, H, DH):
        raise task.fail(
            tr("you returned (B, S, H, Dh) = (2, 5, 3, 7); the head axis must come before S.",
               "你返回的是 (B, S, H, Dh) = (2, 5, 3, 7)；头维必须在 S 之前。"),
            tr("after reshaping to (B, S, H, Dh), swap the axes S and H.", "reshape 成 (B, S, H, Dh) 之后，交换 S 维和 H 维。"),
        )
    if isinstance(got, torch.Tensor) and _close(got, x.reshape(B, LK, DH, H).transpose(1, 2)):
        raise task.fail(
            tr(f"you returned {tuple(got.shape)} = (B, Dh, S, H): Dh heads of num_heads features each, where num_heads heads of Dh features are meant"
               " (torch.split(x, n) cuts pieces of size n; torch.chunk(x, n) cuts n pieces).",
               f"你返回的是 {tuple(got.shape)} = (B, Dh, S, H)：Dh 个头、每个头 num_heads 个特征，而应是 num_heads 个头、每个头 Dh 个特征"
               "（torch.split(x, n) 切出大小为 n 的块；torch.chunk(x, n) 才是切成 n 块）。"),
            tr("reshape to (B, S, H, Dh), then swap the axes S and H.", "先 reshape 成 (B, S, H, Dh)，再交换 S 维和 H 维。"),
        )
    got = _tensor(
        task,
        tr("the result", "结果"),
        got,
        (B, H, LK, DH),
        torch.float32,
        tr(" = (B, H, S, Dh) for x (2, 5, 21) and num_heads=3", " = (B, H, S, Dh)，x 为 (2, 5, 21)，num_heads=3"),
    )
    if _close(got, x.reshape(B, H, LK, DH)):
        raise task.fail(
            tr("you reshaped straight to (B, H, S, Dh), which mixes positions across heads.",
               "你直接 reshape 成了 (B, H, S, Dh)，这会把不同位置的特征混到各个头里。"),
            tr("reshape to (B, S, H, Dh) first, then swap the axes S and H.", "先 reshape 成 (B, S, H, Dh)，再交换 S 维和 H 维。"),
        )
    if _close(got, x.reshape(B, LK, DH, H).permute(0, 3, 1, 2)):
        raise task.fail(
            tr("head i took every H-th feature; it must take the block [i*Dh, (i+1)*Dh).",
               "第 i 个头取的是每隔 H 个的特征；它应该取连续的一段 [i*Dh, (i+1)*Dh)。"),
            tr("reshape the last axis into (H, Dh), not (Dh, H).", "把最后一维拆成 (H, Dh)，而不是 (Dh, H)。"),
        )
    _values(
        task,
        tr("the result", "结果"),
        got,
        want,
        "x (2, 5, 21), num_heads=3",
        tr("head i of the result must hold the features i*Dh to (i+1)*Dh of x.", "结果的第 i 个头必须是 x 的特征 i*Dh 到 (i+1)*Dh。"),
    )
    _unchanged(task, before, x, "x")
    task.passed()


def check_merge_heads(fn: Callable, lang: str | None = None) -> None:
    """Task C.2: (B, H, S, Dh) -> (B, S, H*Dh), the inverse of split_heads, non-contiguous input."""
    task = Task("C.2", "merge_heads", _language(lang))
    contiguous = _random(B, H, LK, DH, seed=21)  # (B, H, S, Dh), as attention returns it
    strided = _random(B, H, DH, LK, seed=22).transpose(2, 3)  # (B, H, S, Dh), not contiguous
    for x, label in ((contiguous, "x (2, 3, 5, 7)"), (strided, tr("a non-contiguous x (2, 3, 5, 7)", "不连续的 x (2, 3, 5, 7)"))):
        before = x.clone()
        got = _call(task, fn, x)
        shown = task.say(label)
        got = _tensor(task, tr("the result", "结果"), got, (B, LK, E), torch.float32,
                      tr(f" = (B, S, H*Dh) for {shown}", f" = (B, S, H*Dh)，输入为 {shown}"))
        want = torch.cat(
            [x[:, i] for i in range(H)], dim=-1
        )  # (B, S, E): head i -> features [i*Dh, (i+1)*Dh)
        if _close(got, x.reshape(B, LK, E)):
            raise task.fail(
                tr("you flattened (B, H, S, Dh) directly, which mixes positions across heads.",
                   "你直接展平了 (B, H, S, Dh)，这会把不同位置混在一起。"),
                tr("swap the axes H and S back to (B, S, H, Dh) before flattening the last two.",
                   "先交换 H 维和 S 维回到 (B, S, H, Dh)，再展平最后两维。"),
            )
        _values(
            task, tr("the result", "结果"), got, want, label,
            tr("features [i*Dh, (i+1)*Dh) of the result must be head i.", "结果的特征 [i*Dh, (i+1)*Dh) 必须是第 i 个头。")
        )
        _unchanged(task, before, x, "x")
    for shape in ((1, H, LK, DH), (B, H, 1, DH)):  # one sentence, one position: no axis of size 1 may go
        x = _random(*shape, seed=23)
        got = _tensor(task, tr("the result", "结果"), _call(task, fn, x), (shape[0], shape[2], E), torch.float32,
                      tr(f" = (B, S, H*Dh) for x {shape}", f" = (B, S, H*Dh)，输入为 x {shape}"))
        _values(task, tr("the result", "结果"), got, torch.cat([x[:, i] for i in range(H)], dim=-1), f"x {shape}",
                tr("keep every axis of size 1: reshape with the sizes read from x, never squeeze.",
                   "保留每个大小为 1 的维度：用从 x 读出的大小来 reshape，不要 squeeze。"))
    task.passed()


def _torch_mha(task: Task, module: nn.Module, seed: int, owner: str = "self") -> nn.MultiheadAttention:
    """nn.MultiheadAttention holding the same (seeded) weights as the student's W_q, W_k, W_v, W_o."""
    w_q, w_k, w_v, w_o = (
        _linear(task, module, name, E, seed + 2 * i, owner)
        for i, name in enumerate(("W_q", "W_k", "W_v", "W_o"))
    )
    _distinct(task, {"W_q": w_q, "W_k": w_k, "W_v": w_v, "W_o": w_o}, owner)
    reference = nn.MultiheadAttention(E, H, bias=True, batch_first=True)
    with torch.no_grad():
        reference.in_proj_weight.copy_(torch.cat([w_q.weight, w_k.weight, w_v.weight]))  # (3E, E)
        reference.in_proj_bias.copy_(torch.cat([w_q.bias, w_k.bias, w_v.bias]))  # (3E,)
        reference.out_proj.weight.copy_(w_o.weight)
        reference.out_proj.bias.copy_(w_o.bias)
    return reference.eval()


def _torch_attend(reference: nn.MultiheadAttention, query, key, value, mask=None):
    """(output (B, Lq, E), weights (B, H, Lq, Lk)); nn.MultiheadAttention's mask is True = blocked,
    and it takes a (B, 1, 1, Lk) mask of this kit as its key_padding_mask (B, Lk)."""
    padding = mask is not None and mask.dim() == 4
    with torch.no_grad():
        return reference(
            query,
            key,
            value,
            attn_mask=None if mask is None or padding else ~mask,
            key_padding_mask=~mask[:, 0, 0] if padding else None,
            need_weights=True,
            average_attn_weights=False,
        )


class _FixedDropout(nn.Dropout):
    """Stands in for your nn.Dropout in training mode: drops the same entries on every call (those
    where a seeded draw is negative, about half) and doubles the others, so the result can be
    compared with the dropout the contract asks for."""

    def __init__(self, seed: int) -> None:
        super().__init__(p=0.5)  # self.dropout.p, read by F.dropout(x, self.dropout.p, self.training), is still there
        self.seed, self.shapes = seed, []  # the shape of each tensor it was given

    def keep(self, shape: tuple[int, ...]) -> torch.Tensor:
        return (_random(*shape, seed=self.seed) >= 0).float() * 2

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self.shapes.append(tuple(x.shape))
        return x * self.keep(tuple(x.shape)).to(x.dtype)


def _dropout_fails(task: Task, what: str | Text, hint: str | Text) -> CheckFailure:
    return task.fail(tr(f"in training mode (dropout 0.5), {task.say(what)}", f"训练模式下（dropout 0.5），{task.say(what)}"), hint)


@_given_earlier("C.3")
def check_multi_head_attention(cls: type, lang: str | None = None) -> None:
    """Task C.3: against nn.MultiheadAttention with the same weights; ValueError; dropout."""
    task = Task("C.3", "MultiHeadAttention", _language(lang))
    try:
        with torch.random.fork_rng(devices=[]):
            _call(task, cls, 10, H)
    except CheckFailure as failure:
        if "ValueError" not in str(failure):
            raise
    else:
        raise task.fail(tr("MultiHeadAttention(10, 3) must raise ValueError (10 is not divisible by 3 heads).",
                           "MultiHeadAttention(10, 3) 必须抛出 ValueError（10 不能被 3 个头整除）。"))
    module = _build(task, cls, E, H, 0.5)
    dropout = getattr(module, "dropout", None)
    if not isinstance(dropout, (nn.Dropout, float, int)) or isinstance(dropout, nn.Dropout) and dropout.p != 0.5:  # a probability for F.dropout too
        raise task.fail(tr(f"MultiHeadAttention({E}, {H}, 0.5): self.dropout should be nn.Dropout(dropout), found {dropout!r}.",
                           f"MultiHeadAttention({E}, {H}, 0.5)：self.dropout 应为 nn.Dropout(dropout)，找到的是 {dropout!r}。"))
    plain = _build(task, cls, E, H, 0.0, bias=False)
    biased = [name for name in ("W_q", "W_k", "W_v", "W_o") if getattr(getattr(plain, name, None), "bias", None) is not None]
    if biased:
        raise task.fail(tr(f"MultiHeadAttention({E}, {H}, bias=False) still has a bias in {', '.join(biased)}.",
                           f"MultiHeadAttention({E}, {H}, bias=False) 的 {', '.join(biased)} 仍然有偏置。"),
                        tr("pass bias on: nn.Linear(embed_dim, embed_dim, bias=bias).", "把 bias 传下去：nn.Linear(embed_dim, embed_dim, bias=bias)。"))
    reference = _torch_mha(task, module, seed=30)
    query, memory = _random(B, LQ, E, seed=31), _random(B, LK, E, seed=32)
    value = _random(B, LK, E, seed=33)
    mask = torch.tensor(
        [[1, 0, 1, 0, 0], [1, 1, 0, 0, 1], [1, 1, 1, 0, 0], [0, 1, 1, 1, 1]], dtype=torch.bool
    )
    padding = torch.tensor([[1, 1, 1, 0, 0], [1, 0, 1, 1, 1]], dtype=torch.bool).view(B, 1, 1, LK)  # a key-padding mask
    causal = torch.ones(LQ, LQ, dtype=torch.bool).tril()  # as AttentionBlock (D.1) passes it
    cases = (
        (tr("self-attention on x (2, 4, 21)", "x (2, 4, 21) 上的自注意力"), (query,), {}, (query, query, query, None), LQ),
        (
            "query (2, 4, 21), key (2, 5, 21), value (2, 5, 21)",
            (query, memory, value),
            {},
            (query, memory, value, None),
            LK,
        ),
        ("query (2, 4, 21), key = value (2, 5, 21)", (query, memory), {}, (query, memory, memory, None), LK),
        (
            tr("query (2, 4, 21), key, value (2, 5, 21) and a (4, 5) mask", "query (2, 4, 21)，key、value (2, 5, 21)，加 (4, 5) 的掩码"),
            (query, memory, value),
            {"mask": mask},
            (query, memory, value, mask),
            LK,
        ),
        (
            tr("query (2, 4, 21), key, value (2, 5, 21) and a (2, 1, 1, 5) key-padding mask",
               "query (2, 4, 21)，key、value (2, 5, 21)，加 (2, 1, 1, 5) 的填充掩码"),
            (query, memory, value),
            {"mask": padding},
            (query, memory, value, padding),
            LK,
        ),
        (
            tr("self-attention on x (2, 4, 21) with a causal (4, 4) mask, key and value left out",
               "x (2, 4, 21) 上的自注意力，加 (4, 4) 的因果掩码，不给 key 和 value"),
            (query,),
            {"mask": causal},
            (query, query, query, causal),
            LQ,
        ),
    )
    for label, args, kwargs, torch_args, lk in cases:
        output, weights = _pair(
            task, _call(task, module, *args, **kwargs), ((B, LQ, E), (B, H, LQ, lk)), "(output, weights)"
        )
        want_output, want_weights = _torch_attend(reference, *torch_args)
        if "mask" in kwargs and _close(weights, _torch_attend(reference, *torch_args[:3])[1]):
            _unmasked_weights(task, _close(output, want_output))
        if not _close(weights, want_weights):
            _wrong_scale(
                task,
                weights,
                want_weights,
                (("1/√embed_dim", math.sqrt(DH / E)), (tr("nothing", "1（没有缩放）"), math.sqrt(DH))),
                tr(f"scale each head by 1/√Dh (Dh = {DH} here)", f"每个头应按 1/√Dh 缩放（这里 Dh = {DH}）"),
                tr("split the heads first, then use attention_scores on (B, H, L, Dh) tensors.",
                   "先拆分成多个头，再对 (B, H, L, Dh) 的张量用 attention_scores。"),
            )
            _values(
                task,
                "weights",
                weights,
                want_weights,
                label,
                tr("project with W_q/W_k, split_heads, scores per head; head i = features [i*Dh, (i+1)*Dh).",
                   "用 W_q/W_k 投影，split_heads，每个头各自算分数；第 i 个头 = 特征 [i*Dh, (i+1)*Dh)。"),
            )
        if not _close(output, want_output):
            again, _ = _pair(
                task, _call(task, module, *args, **kwargs), ((B, LQ, E), (B, H, LQ, lk)), "(output, weights)"
            )
            if not torch.equal(again, output):
                raise task.fail(
                    tr("two calls in eval mode gave different outputs: dropout must be off in eval mode.",
                       "eval 模式下两次调用的输出不同：eval 模式下 dropout 必须关闭。"),
                    tr("use self.dropout (an nn.Dropout module), which turns itself off in eval mode.",
                       "使用 self.dropout（一个 nn.Dropout 模块），它在 eval 模式下会自动关闭。"),
                )
            _values(
                task,
                "output",
                output,
                want_output,
                label,
                tr("the weights match: multiply them by the V heads, merge the heads, then apply W_o.",
                   "权重已经正确：把它们乘以 V 的各个头，合并各头，再经过 W_o。"),
            )
    no_key = mask.clone()
    no_key[1] = False  # query 1 may attend to no key
    output, weights = _pair(task, _call(task, module, query, memory, value, mask=no_key), ((B, LQ, E), (B, H, LQ, LK)), "(output, weights)")
    if not (torch.isfinite(output).all() and torch.isfinite(weights).all() and (weights[:, :, 1] == 0).all()):
        raise task.fail(
            tr("with a (4, 5) mask that blocks every key of query 1, its weights are not all zeros (or the result has NaN).",
               "(4, 5) 的掩码屏蔽了 query 1 的所有键时，它的权重不全为 0（或结果含有 NaN）。"),
            tr("a query whose keys are all blocked gets all zeros: use your masked_softmax, which gives such a row zeros.",
               "所有键都被屏蔽的 query 权重全为 0：用你的 masked_softmax，它会让这样的一行全为 0。"),
        )
    padding_only = torch.zeros(B, 1, 1, LK, dtype=torch.bool)  # a key-padding mask of a batch of padding only
    _, weights = _pair(task, _call(task, module, query, memory, value, mask=padding_only), ((B, LQ, E), (B, H, LQ, LK)), "(output, weights)")
    _every_key_blocked(task, weights)
    other = _torch_mha(task, module, seed=50)  # other weights into the layers of a module that has run
    output, _ = _pair(task, _call(task, module, query), ((B, LQ, E), (B, H, LQ, LQ)), "(output, weights)")
    _after_new_weights(task, output, _torch_attend(other, query, query, query, None)[0], "W_q, W_k, W_v, W_o")
    reference = _torch_mha(task, module, seed=30)  # the weights the checks below compare with
    _flows(task, _call(task, module, query), "(output, weights)")
    module.train()
    with torch.random.fork_rng(devices=[]):
        _, weights = _pair(
            task, _call(task, module, query), ((B, LQ, E), (B, H, LQ, LQ)), "(output, weights)"
        )
    if not torch.allclose(weights.sum(dim=-1), torch.ones(B, H, LQ), atol=ATOL):
        raise task.fail(
            tr("in training mode the returned weights do not sum to 1 per row.", "训练模式下返回的权重每行之和不是 1。"),
            tr("return the weights from before dropout; apply dropout only to the copy that multiplies V.",
               "返回 dropout 之前的权重；dropout 只作用在与 V 相乘的那一份上。"),
        )
    if isinstance(module.dropout, nn.Dropout):  # your self.dropout replaced by one that drops fixed entries
        module.dropout = fixed = _FixedDropout(seed=34)
        output, weights = _pair(task, _call(task, module, query), ((B, LQ, E), (B, H, LQ, LQ)), "(output, weights)")
        want_weights = _torch_attend(reference, query, query, query)[1]
        with torch.no_grad():
            heads = _own_split_heads(module.W_v(query), H) if isinstance(module.W_v, nn.Linear) else None
            want = None if heads is None else module.W_o(_own_merge_heads((want_weights * fixed.keep(tuple(want_weights.shape))) @ heads))
        if [shape for shape in fixed.shapes if shape[-2:] != (LQ, LQ)]:  # not the weights, nor one head's (a loop over heads)
            raise _dropout_fails(
                task, tr(f"self.dropout was given a tensor of shape {fixed.shapes[0]}, not the attention weights (B, H, Lq, Lk).",
                         f"self.dropout 作用在形状为 {fixed.shapes[0]} 的张量上，而不是注意力权重 (B, H, Lq, Lk) 上。"),
                tr("apply self.dropout to the attention weights (after the softmax), on the copy that multiplies V.",
                   "把 self.dropout 作用在注意力权重上（softmax 之后），作用在与 V 相乘的那一份上。"),
            )
        judged = fixed.shapes == [(B, H, LQ, LQ)]  # once, on all the heads' weights
        if judged and not _close(weights, want_weights):
            raise _dropout_fails(
                task, tr("the weights you return are not the ones of eval mode: dropout changed them.", "你返回的权重与 eval 模式下的不同：dropout 改变了它们。"),
                tr("apply self.dropout after the softmax, only to the copy of the weights that multiplies V.",
                   "在 softmax 之后使用 self.dropout，只作用在与 V 相乘的那一份权重上。"),
            )
        if judged and want is not None and not _close(output, want):
            raise _dropout_fails(
                task, tr("your output is not the one of dropped weights times V.", "你的输出不等于 dropout 之后的权重乘以 V。"),
                tr("apply self.dropout to the attention weights (after the softmax), use them only for the product with V, and nothing else.",
                   "把 self.dropout 作用在注意力权重上（softmax 之后），只用于与 V 的乘积，不做别的处理。"),
            )
    task.passed()


@_given_earlier("D.1")
def check_attention_block(cls: type, lang: str | None = None) -> None:
    """Task D.1: y = LayerNorm(x + attention(x)) in eval mode, against nn.MultiheadAttention + nn.LayerNorm."""
    task = Task("D.1", "AttentionBlock", _language(lang))
    block = _build(task, cls, E, H, 0.5)
    attn, norm = getattr(block, "attn", None), getattr(block, "norm", None)
    if (
        not isinstance(attn, nn.Module)
        or not isinstance(norm, nn.LayerNorm)
        or tuple(norm.normalized_shape) != (E,)
    ):
        raise task.fail(tr(
            f"expected self.attn = MultiHeadAttention({E}, {H}, dropout) and self.norm = nn.LayerNorm({E}).",
            f"应有 self.attn = MultiHeadAttention({E}, {H}, dropout) 和 self.norm = nn.LayerNorm({E})。",
        ))
    if norm.weight is None or norm.bias is None:
        raise task.fail(
            tr(f"self.norm has no learnable scale and shift ({norm!r}).", f"self.norm 没有可学习的缩放和平移（{norm!r}）。"),
            tr(f"use nn.LayerNorm({E}) as it is (elementwise_affine=True, bias=True).", f"直接用 nn.LayerNorm({E})（elementwise_affine=True，bias=True）。"),
        )
    if not all(isinstance(getattr(attn, name, None), nn.Linear) for name in ("W_q", "W_k", "W_v", "W_o")):
        raise task.fail(tr(
            f"self.attn should be your MultiHeadAttention (with W_q, W_k, W_v, W_o), found {type(attn).__name__}.",
            f"self.attn 应该是你的 MultiHeadAttention（带 W_q、W_k、W_v、W_o），找到的是 {type(attn).__name__}。",
        ))
    inner = getattr(attn, "dropout", None)
    if isinstance(inner, nn.Dropout) and inner.p != 0.5:
        raise task.fail(
            tr(f"AttentionBlock({E}, {H}, dropout=0.5) built self.attn with dropout {inner.p:g}:"
               " the block passes its dropout on to its MultiHeadAttention.",
               f"AttentionBlock({E}, {H}, dropout=0.5) 建出的 self.attn 的 dropout 是 {inner.p:g}："
               "模块要把自己的 dropout 传给它的 MultiHeadAttention。"),
            tr("give the block's dropout to MultiHeadAttention as its third argument.", "把模块的 dropout 作为第三个参数传给 MultiHeadAttention。"),
        )
    own = getattr(block, "dropout", None)
    if own is not None and own is inner:
        raise task.fail(tr(
            "self.dropout is self.attn.dropout, the attention's own Dropout: the block applies its own"
            " nn.Dropout(dropout) to the attention output.",
            "self.dropout 就是 self.attn.dropout（注意力自己的 Dropout）：模块要对注意力输出使用自己的 nn.Dropout(dropout)。",
        ))
    if isinstance(own, nn.Dropout) and own.p != 0.5:
        raise task.fail(tr(
            f"AttentionBlock({E}, {H}, dropout=0.5) built self.dropout with p={own.p:g}: self.dropout should be"
            " nn.Dropout(dropout), the dropout the block is given.",
            f"AttentionBlock({E}, {H}, dropout=0.5) 建出的 self.dropout 的 p 是 {own.p:g}：self.dropout 应为"
            " nn.Dropout(dropout)，用模块收到的 dropout。",
        ))
    if not isinstance(own, (nn.Dropout, float, int)):
        raise task.fail(tr(
            "self.dropout should be nn.Dropout(dropout): the block's own dropout, applied to the"
            " attention output before the residual sum.",
            "self.dropout 应为 nn.Dropout(dropout)：模块自己的 dropout，在残差相加之前作用在注意力输出上。",
        ))
    if not 0.0 <= norm.eps <= 1e-3:
        raise task.fail(
            tr(f"self.norm has eps={norm.eps:g}.", f"self.norm 的 eps={norm.eps:g}。"),
            tr("keep nn.LayerNorm's default eps or take another up to 1e-3.", "保留 nn.LayerNorm 默认的 eps，或取不超过 1e-3 的其他值。"),
        )
    reference = _torch_mha(task, attn, seed=40, owner="self.attn")
    layer_norm = nn.LayerNorm(E, eps=norm.eps)  # the student's: the contract lets them choose it, up to 1e-3
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
                tr("self.attn does not match nn.MultiheadAttention yet.", "self.attn 还与 nn.MultiheadAttention 不一致。"),
                tr("make Task C.3 pass first.", "先让任务 C.3 通过。"),
            )
        label = "x (2, 5, 21)" if mask is None else tr("x (2, 5, 21) and a causal (5, 5) mask", "x (2, 5, 21) 加 (5, 5) 的因果掩码")
        order = tr("attention on x, the block's dropout on its output, plus x, then the LayerNorm.",
                   "先对 x 做注意力，对其输出用模块的 dropout，加上 x，最后 LayerNorm。")
        with torch.no_grad():
            want = layer_norm(x + attended)  # (B, S, E), post-norm
            post = ("this block is post-norm, y = LayerNorm(x + attention(x))", "本模块是 post-norm：y = LayerNorm(x + attention(x))")
            mistakes = (
                (
                    tr(f"you normalise before attention (pre-norm); {post[0]}", f"你在注意力之前做了归一化（pre-norm）；{post[1]}"),
                    x + _torch_attend(reference, *[layer_norm(x)] * 3, mask)[0],
                ),
                (tr(f"the residual x is missing; {post[0]}", f"缺少残差 x；{post[1]}"), layer_norm(attended)),
                (tr(f"LayerNorm is missing; {post[0]}", f"缺少 LayerNorm；{post[1]}"), x + attended),
                (
                    tr("the mask is not passed on to self.attn", "掩码没有传给 self.attn"),
                    layer_norm(x + _torch_attend(reference, x, x, x)[0]),
                ),
            )
        for wrong, mistake in mistakes:
            if not _close(y, want) and _close(y, mistake):
                raise task.fail(tr(f"{wrong.en}.", f"{wrong.zh}。"), order)
        _values(task, "y", y, want, label, order)
        _values(
            task, "weights", weights, want_weights, label,
            tr("return the weights that self.attn returns (with the mask).", "返回 self.attn（带掩码）返回的权重。"),
        )
    _flows(task, _call(task, block, x), "(y, weights)")
    leaf, want_leaf = x.clone().requires_grad_(True), x.clone().requires_grad_(True)
    got = _call(task, block, leaf)
    _pair(task, got, ((B, LK, E), (B, H, LK, LK)), "(y, weights)")  # (its tensors are detached)
    want = layer_norm(want_leaf + reference(want_leaf, want_leaf, want_leaf, need_weights=False)[0])
    _gradient(task, got[0], leaf, want, want_leaf, "y")  # the residual too: x.detach() + ... gives the right values
    if isinstance(own, nn.Dropout):  # training mode: the block's own dropout replaced by one that drops fixed entries
        block.train()
        attn.eval()  # the attention's dropout is Task C.3's: off here
        block.dropout = fixed = _FixedDropout(seed=44)
        y, _ = _pair(task, _call(task, block, x), ((B, LK, E), (B, H, LK, LK)), "(y, weights)")
        attended = _call(task, attn, x, mask=None)[0].detach()
        with torch.no_grad():
            want = layer_norm(x + attended * fixed.keep(tuple(attended.shape)))
            undropped = layer_norm(x + attended)
        if not _close(y, want) and (fixed.shapes == [(B, LK, E)] or not fixed.shapes and _close(y, undropped)):
            raise _dropout_fails(
                task, tr("y is not LayerNorm(x + self.dropout(attention output)).", "y 不等于 LayerNorm(x + self.dropout(注意力输出))。"),
                tr("apply the block's self.dropout to the output of self.attn, before adding x, and nowhere else.",
                   "把模块的 self.dropout 作用在 self.attn 的输出上（在加上 x 之前），别的地方都不用。"),
            )
    task.passed()


# ---------------------------------------------------------------------------------------------
# Part E: the heatmap. Course convention: 横轴是 Query 位置, 纵轴是 Key 位置.
# ---------------------------------------------------------------------------------------------
MESHES = tuple(kind for kind in (QuadMesh, getattr(collections, "PolyQuadMesh", None)) if kind is not None)  # pcolormesh, seaborn; ax.pcolor
# A tick label may add the token's position, at either end ('the (0)', '3: dog', 'q0: the', 'ran_4',
# 'the (position 0)', 'the（位置 0）'): a number, perhaps after one word (any script) that names it.
POSITIONS = (
    re.compile(r"^[\W_]*(?:[^\W\d_]{1,12}[\W_]?)?\d+[\W_]*"),
    re.compile(r"(?:[\W_]+[^\W\d_]{1,12}[\W_]?|[\W_]*)\d+[\W_]*$"),
)


QUERY_WORDS = re.compile(r"\bquer(y|ies)\b|查询", re.IGNORECASE)  # words that name the queries or the keys in an axis label
KEY_WORDS = re.compile(r"\bkeys?\b|(?<!关)键", re.IGNORECASE)
FLAT_INTERPOLATIONS = ("nearest", "none", "antialiased", "auto")  # imshow's that draw each cell in one flat colour (at a heatmap's sizes)
QUOTES = re.compile(r"^[\W_]+|[\W_]+$")  # quotes or brackets around a token: "'the'" (repr), '[the]'
MATH = re.compile(r"(?<!\\)\$(.*?)(?<!\\)\$")  # math text between unescaped dollars: '$\mathrm{the}_{0}$'
MATH_MARKUP = re.compile(r"\\[A-Za-z]+|\\.|[{}]")  # its commands, spacing and braces


def _token(label: str, tokens: tuple[str, ...]) -> str:
    """The token a tick label shows: the label itself, the token beside its position number, or
    the token in quotes; math text is read as the letters it draws ('$\\mathrm{the}_{0}$': the_0)."""
    if label in tokens:
        return label
    if (label.count("$") - label.count(r"\$")) % 2 == 0:
        label = MATH.sub(lambda math: MATH_MARKUP.sub("", math.group(1)), label)
    for word in (label, *(position.sub("", label, count=1) for position in POSITIONS)):
        for candidate in (word, QUOTES.sub("", word)):
            if candidate in tokens:
                return candidate
    return label


def _on_page(ax: Axes) -> bool:
    """Whether an Axes shows at all: visible, with an area."""
    box = ax.get_position()
    return bool(ax.get_visible() and box.width > 0 and box.height > 0)


def _has_colorbar(artist: Any, ax: Axes) -> bool:
    """Whether a colorbar reads the heatmap: its own, or one made from another mappable (a
    ScalarMappable) with the same colours at both ends and the same range; in the heatmap's own
    figure (with `ax` given, plt.gcf() is another one)."""
    figure = getattr(ax.figure, "figure", None) or ax.figure  # the root figure (a SubFigure names it)
    own = getattr(getattr(artist, "colorbar", None), "ax", None)
    if isinstance(own, Axes) and _on_page(own) and (getattr(own.figure, "figure", None) or own.figure) is figure:
        return True
    for other in [*figure.axes, *ax.child_axes]:
        mappable = getattr(getattr(other, "_colorbar", None), "mappable", None)  # matplotlib keeps the colorbar on its Axes
        if mappable is None or not _on_page(other):
            continue
        ends = [np.allclose(mappable.get_cmap()(value), artist.get_cmap()(value), atol=1e-6) for value in (0.0, 1.0)]
        ranges = [math.isclose(mine, theirs, abs_tol=1e-9) for mine, theirs in zip(mappable.get_clim(), artist.get_clim())]
        if all(ends) and all(ranges):
            return True
    return False


def _heatmap_cells(ax: Axes) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray]:
    """(artist, values (rows, cols), x centres (rows, cols), y centres (rows, cols)) of what ax shows."""
    images = [image for image in ax.get_images() if isinstance(image, AxesImage)]
    meshes = [mesh for mesh in ax.collections if isinstance(mesh, MESHES)]
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
        values = np.ma.getdata(artist.get_array())
        if values.size != centres.shape[0] * centres.shape[1]:  # shading='gouraud': a value at each corner (_smoothing)
            return artist, values, np.empty(0), np.empty(0)
        return artist, values.reshape(centres.shape[:2]), centres[..., 0], centres[..., 1]
    return None, np.empty(0), np.empty(0), np.empty(0)


def _smoothing(artist: Any) -> str:
    """How the heatmap blends its cells ('' for one flat colour per cell)."""
    if isinstance(artist, AxesImage):
        name = str(artist.get_interpolation())
        return f"interpolation={name!r}" if name.lower() not in FLAT_INTERPOLATIONS else ""
    corners = artist.get_coordinates()  # (rows + 1, cols + 1, 2): a value per cell, or per corner when smoothed
    return "shading='gouraud'" if np.ma.getdata(artist.get_array()).size == corners.shape[0] * corners.shape[1] else ""


def _axis_drawn(ax: Axes, axis: str) -> bool:
    """Whether the x or y axis is drawn: not after ax.axis("off") or ax.xaxis.set_visible(False)."""
    return bool(ax.axison and (ax.xaxis if axis == "x" else ax.yaxis).get_visible())


def _axis_label(ax: Axes, axis: str) -> str:
    """The x or y axis label as drawn ('' when it or its axis is hidden)."""
    label = (ax.xaxis if axis == "x" else ax.yaxis).label
    return label.get_text().strip() if _axis_drawn(ax, axis) and label.get_visible() else ""


def _tick_labels(ax: Axes, axis: str) -> list[tuple[float, str]]:
    """(position, token) of the non-empty tick labels of the x or y axis, in position order (a label
    that adds the token's position, 'the (0)', reads as its token)."""
    if not _axis_drawn(ax, axis):
        return []
    labels = ax.get_xticklabels() if axis == "x" else ax.get_yticklabels()
    index = 0 if axis == "x" else 1
    return sorted({  # once each: labels on both sides of an axis (tick_params(labeltop=True)) are one tick
        (label.get_position()[index], _token(label.get_text().strip(), QUERY_TOKENS + KEY_TOKENS))
        for label in labels if label.get_text().strip()
    })


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
            tr("no heatmap found on the returned Axes.", "返回的 Axes 上没有热力图。"),
            tr("draw with ax.imshow(...), seaborn.heatmap(..., ax=ax) or pcolormesh.",
               "用 ax.imshow(...)、seaborn.heatmap(..., ax=ax) 或 pcolormesh 来画。"),
        )
    smoothing = _smoothing(artist)
    if smoothing:
        raise task.fail(
            tr(f"the heatmap is smoothed ({smoothing}): each cell's colour blends into its neighbours'.",
               f"热力图被平滑了（{smoothing}）：每个格子的颜色混进了相邻的格子。"),
            tr("draw each cell in one flat colour: imshow's default or interpolation='nearest'; pcolormesh's shading='flat' or 'nearest'.",
               "每个格子画成一种纯色：imshow 用默认值或 interpolation='nearest'；pcolormesh 用 shading='flat' 或 'nearest'。"),
        )
    if values.shape == (LQ, LK):
        raise task.fail(
            tr(f"the drawn matrix is {LQ}x{LK} (Lq rows): queries run down the vertical axis."
               " The course puts queries on the horizontal axis (横轴是 Query 位置, 纵轴是 Key 位置).",
               f"画出的矩阵是 {LQ}x{LK}（Lq 行）：查询沿纵轴排列。课程约定横轴是 Query 位置，纵轴是 Key 位置。"),
            tr("imshow draws row r at height r, so draw the weights transposed, shape (Lk, Lq).",
               "imshow 把第 r 行画在第 r 个高度上，所以要画转置后的权重，形状 (Lk, Lq)。"),
        )
    if values.shape != (LK, LQ):
        raise task.fail(
            tr(f"the drawn image has shape {values.shape}, expected (Lk, Lq) = ({LK}, {LQ}).",
               f"画出的图像形状是 {values.shape}，应为 (Lk, Lq) = ({LK}, {LQ})。"),
            tr("pass the (Lq, Lk) weights transposed, as numbers (not colours).",
               "传入转置后的 (Lq, Lk) 权重，传数值（不是颜色）。"),
        )
    x_labels, y_labels = _tick_labels(ax, "x"), _tick_labels(ax, "y")
    x_texts, y_texts = [text for _, text in x_labels], [text for _, text in y_labels]
    if sorted(x_texts) == sorted(KEY_TOKENS) or sorted(y_texts) == sorted(QUERY_TOKENS):
        raise task.fail(
            tr("the query and key tick labels are swapped: 横轴是 Query 位置, 纵轴是 Key 位置.",
               "查询和键的刻度标签放反了：横轴是 Query 位置，纵轴是 Key 位置。"),
            tr("x tick labels = query_tokens, y tick labels = key_tokens.", "x 轴刻度标签 = query_tokens，y 轴刻度标签 = key_tokens。"),
        )
    for axis, texts, tokens in (("x", x_texts, QUERY_TOKENS), ("y", y_texts, KEY_TOKENS)):
        if sorted(texts) != sorted(tokens):
            raise task.fail(
                tr(f"the {axis} tick labels are {texts}, expected the tokens {list(tokens)}.",
                   f"{axis} 轴的刻度标签是 {texts}，应为词元 {list(tokens)}。"),
                tr("one tick per cell, labelled with its token.", "每个格子一个刻度，标上对应的词元。"),
            )
    for x_position, query in x_labels:
        for y_position, key in y_labels:
            distance = (x_centres - x_position) ** 2 + (y_centres - y_position) ** 2
            row, col = np.unravel_index(np.argmin(distance), distance.shape)
            i, j = QUERY_TOKENS.index(query), KEY_TOKENS.index(key)
            if not math.isclose(float(values[row, col]), float(weights[i, j]), abs_tol=SHOWN_ATOL):
                raise task.fail(
                    tr(f"the cell at (query '{query}', key '{key}') shows {float(values[row, col]):.4f},"
                       f" but weights[{i}, {j}] = {float(weights[i, j]):.4f}.",
                       f"(查询 '{query}', 键 '{key}') 处的格子显示 {float(values[row, col]):.4f}，"
                       f"但 weights[{i}, {j}] = {float(weights[i, j]):.4f}。"),
                    tr("put each tick on the centre of its token's cell, in the order of the tokens.",
                       "把每个刻度放在对应词元格子的中心，按词元的顺序。"),
                )
    low, high = artist.get_clim()
    if not (math.isclose(low, 0.0, abs_tol=1e-9) and math.isclose(high, 1.0, abs_tol=1e-9)):
        raise task.fail(
            tr(f"the colour range is ({low:.3g}, {high:.3g}); fix it to (0, 1) so heatmaps can be compared.",
               f"颜色范围是 ({low:.3g}, {high:.3g})；应固定为 (0, 1)，这样热力图之间才能比较。"),
            tr("give the lowest and the highest value of the colour scale: 0 and 1.", "指定颜色范围的最小值和最大值：0 和 1。"),
        )
    lightest, darkest = (_lightness(artist.get_cmap()(value)) for value in (0.0, 1.0))
    if lightest - darkest < LIGHTNESS_MARGIN:
        raise task.fail(
            tr(f"the colour map '{artist.get_cmap().name}' does not go from light (weight 0) to dark"
               " (weight 1): the strongest cell must be the darkest (颜色越深表示权重越高).",
               f"颜色映射 '{artist.get_cmap().name}' 不是由浅（权重 0）到深（权重 1）：权重最大的格子必须颜色最深。"),
            tr("use a light-to-dark colour map such as 'Blues' (imshow's default, viridis, is"
               " dark-to-light; so is seaborn's default).",
               "使用由浅到深的颜色映射，例如 'Blues'（imshow 的默认 viridis 和 seaborn 的默认颜色映射都是由深到浅）。"),
        )
    if not _has_colorbar(artist, ax):
        raise task.fail(tr("the heatmap has no colorbar.", "热力图没有颜色条。"),
                        tr("add a colorbar for the image you drew.", "给画出的图加一个颜色条。"))
    xlabel, ylabel = _axis_label(ax, "x"), _axis_label(ax, "y")
    if not xlabel or not ylabel:
        raise task.fail(
            tr("label both axes (e.g. 'query position' and 'key position').", "两个坐标轴都要有标签（例如 “Query 位置” 和 “Key 位置”）。"),
            tr("set the x label and the y label of ax.", "设置 ax 的 x 轴标签和 y 轴标签。"),
        )
    if _labels_swapped(xlabel, ylabel):
        raise task.fail(
            tr(f"the axis labels are swapped (x: {xlabel!r}, y: {ylabel!r}): 横轴是 Query 位置, 纵轴是 Key 位置.",
               f"坐标轴标签放反了（x：{xlabel!r}，y：{ylabel!r}）：横轴是 Query 位置，纵轴是 Key 位置。"),
            tr("the x label names the queries, the y label the keys.", "x 轴标签写查询，y 轴标签写键。"),
        )


def _names_only(label: str, named: re.Pattern, other: re.Pattern) -> bool:
    """Whether an axis label names one side (the keys or the queries) and not the other."""
    return bool(named.search(label)) and not other.search(label)


LABEL_FILLER = re.compile(r"\b(?:positions?|tokens?|index|idx|words?|pos|rows?|columns?|cols?|[a-z])\b|位置|词|序号|[\W\d_]", re.IGNORECASE)


def _labels_swapped(xlabel: str, ylabel: str) -> bool:
    """One label is barely the wrong side's name ("Key" across, "query position" down) beside one
    that names the other side or neither; a label that describes one side through the other ("the
    word each query looks at", for the keys) is left alone."""
    across_keys, down_queries = _names_only(xlabel, KEY_WORDS, QUERY_WORDS), _names_only(ylabel, QUERY_WORDS, KEY_WORDS)
    across_neither = not (QUERY_WORDS.search(xlabel) or KEY_WORDS.search(xlabel))
    down_neither = not (QUERY_WORDS.search(ylabel) or KEY_WORDS.search(ylabel))
    bare_keys = not LABEL_FILLER.sub("", KEY_WORDS.sub("", xlabel))
    bare_queries = not LABEL_FILLER.sub("", QUERY_WORDS.sub("", ylabel))
    return (across_keys and bare_keys and (down_queries or down_neither)) or (down_queries and bare_queries and (across_keys or across_neither))


def _lightness(rgba: Any) -> float:
    """Relative luminance (0 black .. 1 white) of an sRGB colour."""
    red, green, blue = (c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in rgba[:3])
    return 0.2126 * red + 0.7152 * green + 0.0722 * blue


def check_plot_attention(fn: Callable, lang: str | None = None) -> None:
    """Task E.1: the Axes shows weights with queries on x, keys on y, light-to-dark, range (0, 1),
    colorbar, labels; with `ax` given (not the current Axes), it draws there."""
    task = Task("E.1", "plot_attention", _language(lang))
    weights = torch.softmax(_random(LQ, LK, seed=50) * 2, dim=-1)  # (Lq, Lk), not symmetric
    before = weights.clone()
    open_before = set(plt.get_fignums())
    try:
        ax = _call(task, fn, weights, list(QUERY_TOKENS), list(KEY_TOKENS))
        if not isinstance(ax, Axes):
            raise task.fail(
                tr(f"return the matplotlib Axes you drew on, got {type(ax).__name__}.",
                   f"应返回你画图用的 matplotlib Axes，得到的是 {type(ax).__name__}。"),
                tr("end by returning ax.", "最后返回 ax。"),
            )
        _check_heatmap(task, ax, weights)
        _unchanged(task, before, weights, "weights")
        _, given = plt.subplots()
        decoy = plt.figure().add_subplot()  # the current Axes is now another one than `given`
        ax = _call(task, fn, weights, list(QUERY_TOKENS), list(KEY_TOKENS), ax=given, title=TITLE)
        if decoy.get_images() or decoy.collections:
            raise task.fail(
                tr("with `ax` given, your heatmap was drawn on the current Axes instead of on `ax`.",
                   "给了 `ax` 时，你的热力图画在了“当前”的 Axes 上，而不是 `ax` 上。"),
                tr("draw with ax.imshow(...) (or seaborn.heatmap(..., ax=ax)), not plt.imshow(...):"
                   " plt.* draws on whatever Axes is current.",
                   "用 ax.imshow(...)（或 seaborn.heatmap(..., ax=ax)）来画，不要用 plt.imshow(...)：plt.* 画在当前的 Axes 上。"),
            )
        if ax is not given:
            raise task.fail(
                tr("when `ax` is given, draw on it and return it.", "给了 `ax` 时，要画在它上面并返回它。"),
                tr("create a figure only when ax is None.", "只有 ax 为 None 时才新建图。"),
            )
        _check_heatmap(task, ax, weights)
        shown = [ax.get_title(loc).strip() for loc in ("center", "left", "right")]
        if TITLE not in shown:
            raise task.fail(
                tr(f"with title={TITLE!r} the Axes' title is {' / '.join(map(repr, filter(None, shown))) or 'empty'}.",
                   f"给了 title={TITLE!r} 时，Axes 的标题是 {' / '.join(map(repr, filter(None, shown))) or '空的'}。"),
                tr("when a title is given, ax.set_title(title), as given (not fig.suptitle).", "给了标题时用 ax.set_title(title)，原样使用（不要用 fig.suptitle）。"),
            )
        live = weights.clone().requires_grad_(True) * 1  # as a model's weights outside torch.no_grad()
        try:
            fn(live, list(QUERY_TOKENS), list(KEY_TOKENS), ax=plt.subplots()[1])
        except Exception as error:
            raise task.fail(
                tr(f"given weights that require grad (a model's weights outside torch.no_grad()), your function raised"
                   f" {type(error).__name__}: {(str(error).strip().splitlines() or [''])[0]}{_where(error)}",
                   f"传入需要梯度的权重（模型在 torch.no_grad() 之外输出的权重）时，你的函数抛出了"
                   f" {type(error).__name__}：{(str(error).strip().splitlines() or [''])[0]}{_where(error, 'zh')}"),
                tr(".detach() the weights before .numpy().", "调用 .numpy() 之前先 .detach()。"),
            ) from None
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


def check_all(module: Any, lang: str | None = None) -> bool:
    """Run every public check on module (your attention.py); print one line per task and a summary."""
    lang = _language(lang)
    failed = 0
    for _, name, check in CHECKS:
        try:
            check(student_attr(module, name, lang), lang)
        except CheckFailure as failure:
            failed += 1
            print(f"{'未通过' if lang == 'zh' else 'FAILED'} {failure}")
    passed = len(CHECKS) - failed
    print(f"公开检查通过 {passed}/{len(CHECKS)}" if lang == "zh" else f"{passed}/{len(CHECKS)} public checks passed")
    return failed == 0
