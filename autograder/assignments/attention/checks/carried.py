"""Error carried forward, grader side: which earlier tasks a check leans on, and trusted answers.

A check of task T that fails runs again with the functions of EARLIER[T] replaced by stand-ins
(the assignment's standins.py, made with autograder/grading/worker/standins.py). The stand-ins live in the worker and hold no reference code;
each call comes back here as a callback, and `trusted_answer` computes it with the reference
solution, which never leaves the grader. Every callback is checked before it is computed: a
known name, tensors only where tensors go, bounded sizes, plain options.
"""
from __future__ import annotations

import functools
import itertools
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Any, Callable

import torch

from autograder.assignments.attention.standins import MAX_SEQUENCE, REPAIRS
from autograder.grading.worker.standins import MAX_CALLBACK_ELEMENTS, StandInRefused
from autograder.assignment import current, reference, reference_as, reference_variant
from autograder.authoring.examples import apply


A_TASKS = ("A.1", "A.2", "A.3", "A.4")
C_TASKS = ("C.1", "C.2", "C.3")
# task -> the other tasks whose functions its checks call (earlier tasks, and the partner of a
# pair of inverse functions).
EARLIER: dict[str, tuple[str, ...]] = {
    "A.3": ("A.1", "A.2"),  # scaled_dot_product_attention is built from scores and softmax
    "B.1": A_TASKS + ("C.1", "C.2"),  # a SelfAttention may be built from split_heads and merge_heads (one head)
    "C.1": ("C.2",),  # split_heads and merge_heads are checked together (non-contiguous inputs)
    "C.2": ("C.1",),  # merge_heads undoes split_heads
    "C.3": A_TASKS + ("C.1", "C.2"),
    "D.1": A_TASKS + C_TASKS,
    "F.1": A_TASKS + C_TASKS + ("D.1",),
    "F.2": A_TASKS + C_TASKS + ("D.1", "E.1"),
    "F.3": A_TASKS + C_TASKS + ("D.1",),
}
# task -> the tasks of earlier parts whose code its own may share without calling their
# functions (a helper or class both use, no stand-in replaces it: `_as_charged`), besides EARLIER's.
SHARED_WITH: dict[str, tuple[str, ...]] = {"C.3": ("B.1",), "D.1": ("B.1",)}
# Part F has nothing new to write: each task grades components of earlier parts. Its failing check
# is graded again with stand-ins for the earlier tasks that failed (not for all of them, as B-D
# are), and pays only when the result still comes through one of these components of the
# student's own: C's attention or D's block for the trained maps (F.1, F.3), D's block or E's
# plot_attention for the drawn ones (F.2). A wrong block stands in as a shell around the student's
# own attention when C.3 is right (block_shell), as a trusted block when it is not.
LEANS_ON: dict[str, tuple[str, ...]] = {"F.1": ("C.3", "D.1"), "F.2": ("D.1", "E.1"), "F.3": ("C.3", "D.1")}
COMPONENTS = {"C.3": "MultiHeadAttention", "D.1": "AttentionBlock", "E.1": "plot_attention"}
STAND_INS: dict[str, tuple[str, ...]] = {
    "A.1": ("attention_scores",), "A.2": ("masked_softmax",), "A.3": ("scaled_dot_product_attention",),
    "A.4": ("causal_mask",), "C.1": ("split_heads",), "C.2": ("merge_heads",), "C.3": ("MultiHeadAttention",),
    "D.1": ("AttentionBlock",), "E.1": ("plot_attention",),
}
PROJECTION_PARAMS = tuple(f"{layer}.{kind}" for layer in ("W_q", "W_k", "W_v", "W_o") for kind in ("weight", "bias"))
MAX_DIMS = 6
# What a callback may make the grader compute: the inputs are bounded (MAX_CALLBACK_ELEMENTS), but
# attention weights grow as Lq x Lk (and broadcast batch dimensions multiply them), and a module
# stand-in builds a reference layer of the input's width. A correct call needs far less.
MAX_WEIGHTS_ELEMENTS = 4 * MAX_CALLBACK_ELEMENTS
MAX_WIDTH = 4096  # embed_dim of a module stand-in (a reference layer holds 4 x width^2 parameters)
# The widest reference layer kept for reuse: the checks build them 6, 21 and 32 wide (Part F's
# model). A wider one (the student's code may ask for it) is built for its call alone, then freed.
CACHED_WIDTH = 64


def earlier_tasks(task: str) -> tuple[str, ...]:
    return EARLIER.get(task, ())


def sharing_tasks(task: str) -> tuple[str, ...]:
    """The tasks whose charged mistakes a failing check of `task` may repeat through code both use."""
    return earlier_tasks(task) + SHARED_WITH.get(task, ())


def stand_in_names(tasks: tuple[str, ...]) -> list[str]:
    return [name for task in tasks for name in STAND_INS.get(task, ())]


@dataclass(frozen=True)
class Plan:
    """One way to grade a failing check of `task` again: `names` replaced by stand-ins for the
    earlier tasks `replaced`; `leaned_on`, the components one of which must stay the student's own."""

    task: str
    names: tuple[str, ...]
    replaced: tuple[str, ...]
    leaned_on: tuple[str, ...] = ()


def plans(task: str, failed: set[str], graded: set[str]) -> list[Plan]:
    """How to grade a failing check of `task` again, in order (the most of the student's own
    first), given the earlier tasks graded in this run and those of them that lost points.

    B-D: one plan, every earlier function replaced. Part F: the failed tasks are replaced; an
    earlier task not graded in this run (a part graded alone, as nbgrader does) is replaced too,
    except a component the check leans on, which is tried both ways when it failed or was not
    graded (its mistake may not touch what this check measures: a block with a wrong norm around
    attention that is right here), so a part graded alone and a full run pay alike. A plan that
    would replace every component the check leans on is no plan: [] means "nothing to try"."""
    earlier = earlier_tasks(task)
    if task not in LEANS_ON:
        return [Plan(task, tuple(stand_in_names(earlier)), earlier)]
    leaned = set(LEANS_ON[task])
    doubtful = {t for t in earlier if t in failed or t not in graded}
    always = {t for t in doubtful if t not in leaned}
    optional = [t for t in earlier if t in doubtful and t in leaned]
    found = []
    for count in range(len(optional) + 1):
        for extra in itertools.combinations(optional, count):
            replaced = tuple(t for t in earlier if t in always or t in extra)
            if replaced and not leaned <= set(replaced):
                found.append(_plan(task, replaced))
    return found


def _plan(task: str, replaced: tuple[str, ...]) -> Plan:
    names = [name for t in replaced if t != "D.1" for name in STAND_INS.get(t, ())]
    if "D.1" in replaced:
        names.append("AttentionBlock" if "C.3" in replaced else "block_shell")
    return Plan(task, tuple(names), replaced, LEANS_ON[task])


def nothing_own(task: str, failed: set[str]) -> bool:
    """Every component `task` leans on lost points in its own task (and no plan with one of
    them the student's own passed: the check pays nothing)."""
    return task in LEANS_ON and set(LEANS_ON[task]) <= failed


def nothing_own_note(task: str) -> tuple[str, dict[str, str]]:
    """(message key, arguments) of a check whose every component is a stand-in: it pays nothing."""
    leaned = LEANS_ON[task]
    return "scoring_nothing_own", {"components": " / ".join(f"{COMPONENTS[t]} ({t})" for t in leaned), "tasks": ", ".join(leaned)}


def carried_note(charged: list[str], tasks: tuple[str, ...], unwritten: frozenset[str] = frozenset()) -> tuple[str, dict[str, str]]:
    """(message key, arguments) of a check that passed only with trusted earlier functions:
    `charged`, the replaced tasks that lost points; those of them `unwritten` (still stubs) hold
    no mistake to charge: the kit's own version stood in (qa39p: a stub plot_attention)."""
    mistaken = [task for task in charged if task not in unwritten]
    stubs = [task for task in charged if task in unwritten]
    args = {"parts": ", ".join(sorted({task.split(".")[0] for task in mistaken})), "tasks": ", ".join(mistaken),
            "names": ", ".join(stand_in_names(tuple(stubs))), "stubs": ", ".join(stubs)}
    if stubs:
        return ("scoring_carried_and_stubs" if mistaken else "scoring_stubs"), args
    if mistaken:
        return ("scoring_carried" if len(mistaken) == 1 else "scoring_carried_several"), args
    return "scoring_carried_elsewhere", {"tasks": ", ".join(tasks)}


def carries_mistakes(task: str) -> bool:
    """Whether a failing check of `task` may pay given a mistake of a task it shares code with.
    Not Part F's: it grades components, and its plans say which of them are the student's own."""
    return task not in LEANS_ON


def carried_mistakes(task: str, named: set[tuple[str, str]]) -> list[tuple[str, str]]:
    """Of the (task, mistake) pairs charged in this run, those that a failing check of `task` may
    repeat without a call to the earlier task's function (a class both use, which no stand-in
    replaces: qa24s n04): an earlier task's catalogue mistake that the reference can be given."""
    if not carries_mistakes(task):
        return []
    mutants = getattr(current().content("mutants"), "MUTANTS", {})
    return sorted((earlier, key) for earlier, key in named if earlier in sharing_tasks(task) and key in mutants)


def ways(key: str) -> int:
    """How many references make the catalogue mistake `key`: the earlier task's mutant alone, then
    with the same mistake in the later tasks' code too (the mutants' SHARED_WAYS), for a later task
    that makes it through code both use."""
    return 1 + len(getattr(current().content("mutants"), "SHARED_WAYS", {}).get(key, ()))


@contextmanager
def reference_with(key: str, way: int = 0) -> Iterator[None]:
    """Within the block the checks compare with the reference that makes the catalogue mistake
    `key`, in the `way`-th of its `ways`."""
    with reference_as(_mutant_reference(key, way)):
        yield


@functools.cache
def _mutant_reference(key: str, way: int) -> Any:
    manifest = current()
    catalogue = manifest.content("mutants")
    assert catalogue is not None  # carried_mistakes found the key there
    mutant = catalogue.MUTANTS[key]
    if way:
        mutant = replace(mutant, replacements=mutant.replacements + catalogue.SHARED_WAYS[key][way - 1])
    label = key if not way else f"{key}_shared{way}"
    return reference_variant(manifest.solution, label, apply(manifest.solution.read_text(encoding="utf-8"), mutant))


# The helpers of a failing task's code shared with an earlier task's that a repair may replace, at
# most: each repair tried costs a run of the check.
MAX_REPAIRED_HELPERS = 12


def repairs(sites: list[dict]) -> list[dict]:
    """Each repair (the stand-ins' REPAIRS) that fits a helper both tasks share (the worker's
    `shared_helpers`: its arguments, and whether it is a method), in order."""
    found: list[dict] = []
    for site in sites[:MAX_REPAIRED_HELPERS]:
        params, method = site.get("params"), site.get("method")
        if type(params) is not int or type(method) is not bool or site.get("name") in (None, "forward"):  # a module's forward is a task's whole work
            continue
        found.extend({**site, "as": kind} for kind, (least, of_self) in REPAIRS.items() if params >= least and (method or not of_self))
    return found


# The earlier tasks whose function the reference may call in the student's version (`reference_on`).
OWN_FUNCTIONS = ("A.1", "A.2", "A.3", "A.4", "C.1", "C.2")
# A student's function whose values vary less than this share of the reference's (zeros, a
# constant, scores scaled to nothing) is no basis for grading the tasks that use it: a later task
# given it would have next to nothing left to compute (a B.1 that returns zeros, given a
# masked_softmax that does).
LEAST_SPREAD = 0.1


@contextmanager
def reference_on(student: Any, names: list[str]) -> Iterator[None]:
    """Within the block the checks compare with the reference that calls the student's own
    functions `names` (through the worker) in place of its own: this task's values given the
    earlier tasks' as they are, for a mistake that no catalogue mistake names (a helper both
    tasks use: qa40s d21). A call whose values barely vary (LEAST_SPREAD), or change from one
    call to the next (a null submission's random values), fails the check."""
    solution = current().solution
    module = reference_variant(solution, "own", solution.read_text(encoding="utf-8"))
    saved = {name: module.__dict__[name] for name in names}
    module.__dict__.update({name: _own_function(student, name, saved[name]) for name in names})
    try:
        with reference_as(module):
            yield
    finally:
        module.__dict__.update(saved)


def _own_function(student: Any, name: str, trusted: Callable[..., Any]) -> Callable[..., Any]:
    """The student's function `name` as the reference calls its own: through the worker, with
    gradients (the worker's vector-Jacobian product) for inputs that require them."""
    def call(*args: Any, **kwargs: Any) -> Any:
        wrt = [i for i, a in enumerate(args) if isinstance(a, torch.Tensor) and a.requires_grad]
        sent, named = [_sent(a) for a in args], {key: _sent(a) for key, a in kwargs.items()}
        if wrt and torch.is_grad_enabled():
            value = _OwnCall.apply(student, name, args, kwargs, wrt, *(args[i] for i in wrt))
        else:
            value = _tupled(student.call(name, *sent, **named))
        with torch.no_grad():
            _informative(name, value, trusted(*sent, **kwargs), _tupled(student.call(name, *sent, **named)))
        return value

    return call


def _sent(value: Any) -> Any:
    return value.detach() if isinstance(value, torch.Tensor) else str(value) if isinstance(value, torch.device) else value


def _tupled(value: Any) -> Any:
    return tuple(value) if isinstance(value, list) else value


def _each(v: Any) -> tuple:
    return v if isinstance(v, tuple) else (v,)


def _informative(name: str, value: Any, expected: Any, again: Any) -> None:
    """TypeError unless each tensor of `value` varies at least LEAST_SPREAD as much as the
    reference's of the same call (`expected`), and is the same on a second call (`again`): a
    function that answers at random is no basis either."""
    for got, want, second in itertools.zip_longest(_each(value), _each(expected), _each(again)):
        if isinstance(got, torch.Tensor) and not (isinstance(second, torch.Tensor) and torch.equal(got.detach(), second)):
            raise TypeError(f"{name} gives other values when called again with the same inputs")
        if isinstance(got, torch.Tensor) and isinstance(want, torch.Tensor) and want.is_floating_point() and want.numel() > 1:
            spread, wanted = got.detach().double().std(), want.double().std()
            if not bool(spread >= LEAST_SPREAD * wanted):  # (NaN too)
                raise TypeError(f"{name}'s values barely vary: nothing to grade the tasks that use it on")


class _OwnCall(torch.autograd.Function):
    """A call of the student's function whose backward asks the worker."""

    @staticmethod
    def forward(ctx: Any, student: Any, name: str, args: tuple, kwargs: dict, wrt: list[int], *tensors: torch.Tensor) -> Any:
        ctx.call = (student, name, [_sent(a) for a in args], {key: _sent(a) for key, a in kwargs.items()}, wrt)
        value = student.call(name, *ctx.call[2], **ctx.call[3])
        outputs = tuple(value) if isinstance(value, (list, tuple)) else (value,)
        if not all(isinstance(output, torch.Tensor) for output in outputs):
            raise TypeError(f"{name} returned {', '.join(_kind(output) for output in outputs)}")
        return outputs if isinstance(value, (list, tuple)) else value

    @staticmethod
    def backward(ctx: Any, *grads: torch.Tensor) -> tuple:
        student, name, args, kwargs, wrt = ctx.call
        result = student.vjp(name, args, [grad.contiguous() for grad in grads], wrt=wrt, where=f"{name} backward", **kwargs)
        found = result.get("grads") if isinstance(result, dict) else None
        if not isinstance(found, list) or len(found) != len(wrt):
            raise TypeError(f"{name} backward gave no gradients")
        return (None,) * 5 + tuple(found)


# ---------------------------------------------------------------------------------------------
# trusted answers (grader side)
# ---------------------------------------------------------------------------------------------
def _kind(value: Any) -> str:
    return f"a {value.dtype} tensor" if isinstance(value, torch.Tensor) else f"a {type(value).__name__}"


def _floats(**tensors: Any) -> None:
    """Each named input must be a floating-point tensor (the refusal names the first that is not)."""
    for name, tensor in tensors.items():
        if not isinstance(tensor, torch.Tensor) or not tensor.is_floating_point():
            raise StandInRefused(f"{name} is {_kind(tensor)}, where it takes a floating-point tensor")


def _mask(mask: Any) -> None:
    if mask is not None and (not isinstance(mask, torch.Tensor) or mask.dtype != torch.bool):
        raise StandInRefused(f"mask is {_kind(mask)}, where it takes a bool tensor (True = may attend)")


def _weights(q: torch.Tensor, k: torch.Tensor, mask: torch.Tensor | None, heads: int | None = None, v: torch.Tensor | None = None) -> None:
    """Refuse (before computing) attention whose inputs broadcast to one batch, whose weights,
    (batch..., [heads,] Lq, Lk) broadcast with the mask, or whose output, (batch..., Lq, dv),
    would be too large: the value's batch axes broadcast with the others too (qa35h F1: q (1,
    20000, 1) with v (1, 1, 20000) asked the grader for 1.6 GB)."""
    if q.dim() < 2 or k.dim() < 2 or (v is not None and v.dim() < 2):
        return  # the reference says what is wrong with them
    batch = torch.broadcast_shapes(q.shape[:-2], k.shape[:-2], *([] if v is None else [v.shape[:-2]]))
    for x in (q, k, *([] if v is None else [v])):  # a product copies each input out to the broadcast batch (qa36h F3: q (N, 1, 1, d), k (1, N, 1, d))
        _bounded((*batch, *x.shape[-2:]), None, "inputs, broadcast to one batch,")
    shape = _bounded((*batch, *([heads] if heads else []), q.shape[-2], k.shape[-2]), mask)
    if v is not None:  # heads split the value's width: (..., H, Lq, dv / H)
        _bounded((*shape[:-1], v.shape[-1] // (heads or 1)), None, "output")


def _bounded(shape: tuple[int, ...], mask: torch.Tensor | None, what: str = "attention weights") -> tuple[int, ...]:
    """Refuse weights of `shape` that a mask broadcasts to more numbers than a stand-in computes
    (a mask of shape (M, 1, 1) multiplies them by M: the inputs' own bound says nothing of that);
    the shape they broadcast to."""
    if mask is not None:
        shape = tuple(torch.broadcast_shapes(shape, mask.shape))  # RuntimeError for shapes that do not broadcast: the caller's refusal
    count = 1
    for size in shape:
        count *= size
    if count > MAX_WEIGHTS_ELEMENTS:
        raise StandInRefused(f"its {what} would hold {count} numbers, more than a trusted stand-in computes ({MAX_WEIGHTS_ELEMENTS})")
    return shape


def _width(x: torch.Tensor) -> int:
    if not 1 <= x.size(-1) <= MAX_WIDTH:
        raise StandInRefused(f"the embedding size must be in [1, {MAX_WIDTH}] (got {x.size(-1)})")
    return x.size(-1)


def _fit(state: dict[str, torch.Tensor], width: int) -> None:
    """Each parameter must have its shape in a layer `width` (E) wide: (E, E) for a projection's weight,
    (E,) for a bias or the LayerNorm's: checked before a layer is built (qa20h: a 4096-wide input
    with 8x8 weights had the grader build, and keep, a 268 MB layer that the weights then did not fit)."""
    for name, p in state.items():
        shape = (width, width) if name.endswith(".weight") and not name.startswith("norm.") else (width,)
        if tuple(p.shape) != shape:
            raise StandInRefused(f"{name} has shape {tuple(p.shape)}, where a layer of embedding size {width} takes {shape}")


def _layers(build: Callable[..., torch.nn.Module]) -> Callable[..., torch.nn.Module]:
    """`build(embed_dim, ...)`, its layers kept for reuse (8 at most) up to CACHED_WIDTH wide; a
    wider one is built for its call alone (8 of them 4096 wide held 2.1 GB in the grader: qa20h)."""
    cached = functools.lru_cache(maxsize=8)(build)

    @functools.wraps(build)
    def layer(embed_dim: int, *rest: Any) -> torch.nn.Module:
        return cached(embed_dim, *rest) if embed_dim <= CACHED_WIDTH else build(embed_dim, *rest)

    layer.cache_info = cached.cache_info  # type: ignore[attr-defined]
    return layer


def _count(options: dict, key: str, low: int, high: int) -> int:
    value = options.get(key)
    if type(value) is not int or not low <= value <= high:
        raise StandInRefused(f"{key} must be an int in [{low}, {high}]")
    return value


def _scores(options: dict, q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
    _floats(q=q, k=k)
    _weights(q, k, None)
    return reference().attention_scores(q, k)  # (..., Lq, Lk)


def _softmax(options: dict, scores: torch.Tensor, mask: torch.Tensor | None) -> torch.Tensor:
    _floats(scores=scores)
    _mask(mask)
    _bounded(tuple(scores.shape), mask)
    return reference().masked_softmax(scores, mask)  # (..., Lq, Lk)


def _sdpa(options: dict, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, mask: torch.Tensor | None) -> tuple[torch.Tensor, torch.Tensor]:
    _floats(q=q, k=k, v=v)
    _mask(mask)
    _weights(q, k, mask, v=v)
    return reference().scaled_dot_product_attention(q, k, v, mask)  # (..., Lq, dv), (..., Lq, Lk)


def _causal(options: dict) -> torch.Tensor:
    return reference().causal_mask(_count(options, "size_q", 0, MAX_SEQUENCE), _count(options, "size_k", 0, MAX_SEQUENCE))


def _split(options: dict, x: torch.Tensor) -> torch.Tensor:
    _floats(x=x)
    return reference().split_heads(x, _count(options, "num_heads", 1, 4096))  # (B, H, S, Dh)


def _merge(options: dict, x: torch.Tensor) -> torch.Tensor:
    _floats(x=x)
    return reference().merge_heads(x)  # (B, S, E)


def _dropout_options(options: dict) -> tuple[float, bool, int]:
    dropout, training = options.get("dropout"), options.get("training")
    if type(dropout) is not float or not 0.0 <= dropout < 1.0 or type(training) is not bool:
        raise StandInRefused("dropout must be a float in [0, 1) and training a bool")
    return dropout, training, _count(options, "seed", 0, 2**31 - 1)


def _run_module(module: torch.nn.Module, state: dict, training: bool, seed: int, *args: Any) -> Any:
    """The module with `state` as its parameters, in the given mode; dropout seeded (no RNG moved)."""
    module.train(training)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        return torch.func.functional_call(module, state, args)


@_layers
def _mha_module(embed_dim: int, num_heads: int, dropout: float, bias: bool) -> torch.nn.Module:
    with torch.random.fork_rng(devices=[]):  # building layers must not move the grader's RNG
        return reference().MultiHeadAttention(embed_dim, num_heads, dropout, bias)


def _mha(options: dict, query: torch.Tensor, key: torch.Tensor, value: torch.Tensor, mask: torch.Tensor | None, *params: torch.Tensor | None) -> tuple[torch.Tensor, torch.Tensor]:
    _floats(query=query, key=key, value=value)
    _mask(mask)
    width = _width(query)
    state = _projections(params, "")
    _fit(state, width)
    dropout, training, seed = _dropout_options(options)
    heads = _count(options, "num_heads", 1, 4096)
    _weights(query, key, mask, heads, value)
    module = _mha_module(width, heads, dropout, "W_q.bias" in state)
    return _run_module(module, state, training, seed, query, key, value, mask)  # (B, Lq, E), (B, H, Lq, Lk)


def _projections(params: tuple, prefix: str) -> dict[str, torch.Tensor]:
    if len(params) != len(PROJECTION_PARAMS) or params[0] is None:
        raise StandInRefused("expected the weights and biases of W_q, W_k, W_v, W_o")
    state = {prefix + name: p for name, p in zip(PROJECTION_PARAMS, params) if p is not None}
    _floats(**state)
    return state


@_layers
def _block_module(embed_dim: int, num_heads: int, dropout: float) -> torch.nn.Module:
    with torch.random.fork_rng(devices=[]):
        return reference().AttentionBlock(embed_dim, num_heads, dropout)


def _block(options: dict, x: torch.Tensor, mask: torch.Tensor | None, *params: torch.Tensor | None) -> tuple[torch.Tensor, torch.Tensor]:
    _floats(x=x)
    _mask(mask)
    state = _projections(params[:-2], "attn.")
    if not all(isinstance(p, torch.Tensor) for p in params[-2:]):
        raise StandInRefused("expected the LayerNorm's weight and bias")
    state.update({"norm.weight": params[-2], "norm.bias": params[-1]})
    _floats(**state)
    width = _width(x)
    _fit(state, width)
    dropout, training, seed = _dropout_options(options)
    heads = _count(options, "num_heads", 1, 4096)
    _weights(x, x, mask, heads)
    module = _block_module(width, heads, dropout)
    return _run_module(module, state, training, seed, x, mask)  # (B, S, E), (B, H, S, S)


class _Given(torch.nn.Module):
    """Stands for the student's attention inside the reference block: its output is the buffer
    `attended`, which functional_call fills in for each call."""

    attended: torch.Tensor

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("attended", torch.zeros(0))

    def forward(self, x: torch.Tensor, mask: torch.Tensor | None = None) -> tuple[torch.Tensor, None]:
        return self.attended, None


@_layers
def _shell_module(embed_dim: int, dropout: float) -> torch.nn.Module:
    with torch.random.fork_rng(devices=[]):
        block = reference().AttentionBlock(embed_dim, 1, dropout)
    block.attn = _Given()
    return block


def _shell(options: dict, x: torch.Tensor, attended: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    """The reference block's residual, dropout and norm around the student's attention output."""
    _floats(x=x, **{"the attention output": attended, "norm.weight": weight, "norm.bias": bias})
    if attended.shape != x.shape:
        raise StandInRefused("the attention output must have the shape of x (B, S, E)")
    width = _width(x)
    _fit({"norm.weight": weight, "norm.bias": bias}, width)
    dropout, training, seed = _dropout_options(options)
    state = {"attn.attended": attended, "norm.weight": weight, "norm.bias": bias}
    return _run_module(_shell_module(width, dropout), state, training, seed, x)[0]  # (B, S, E)


SHOWN = {"block_shell": "AttentionBlock"}  # a stand-in's name as the student knows it
TRUSTED: dict[str, tuple[int, Callable[..., Any]]] = {  # name -> (number of tensors, function)
    "attention_scores": (2, _scores),
    "masked_softmax": (2, _softmax),
    "scaled_dot_product_attention": (4, _sdpa),
    "causal_mask": (0, _causal),
    "split_heads": (1, _split),
    "merge_heads": (1, _merge),
    "MultiHeadAttention": (4 + len(PROJECTION_PARAMS), _mha),
    "AttentionBlock": (2 + len(PROJECTION_PARAMS) + 2, _block),
    "block_shell": (4, _shell),
}


def _tensors(values: Any, count: int, what: str) -> list[torch.Tensor | None]:
    if not isinstance(values, list) or len(values) != count:
        raise StandInRefused(f"expected {count} {what}")
    if not all(v is None or isinstance(v, torch.Tensor) for v in values):
        raise StandInRefused(f"the {what} must be tensors")
    present = [v for v in values if v is not None]
    if any(v.dim() > MAX_DIMS for v in present) or sum(v.numel() for v in present) > MAX_CALLBACK_ELEMENTS:
        raise StandInRefused(f"the {what} are too large for a trusted stand-in")
    return values


def trusted_answer(callback: Any) -> Any:
    """The reference's answer to one stand-in callback; StandInRefused for anything malformed."""
    if not isinstance(callback, dict) or callback.get("kind") not in ("forward", "backward"):
        raise StandInRefused("a malformed stand-in call")
    name = callback.get("name")
    if name not in TRUSTED:
        raise StandInRefused(f"no trusted stand-in named {str(name)[:40]!r}")
    count, function = TRUSTED[name]
    shown = SHOWN.get(name, name)
    tensors = _tensors(callback.get("tensors"), count, "inputs")
    options = callback.get("options")
    if not isinstance(options, dict) or not all(type(v) in (int, float, bool) for v in options.values()):
        raise StandInRefused("stand-in options must be plain numbers")
    try:
        if callback["kind"] == "forward":
            with torch.no_grad():
                return function(options, *tensors)
        return _vjp(function, options, tensors, callback.get("grads"))
    except StandInRefused as error:  # the student's code called the stand-in: say what it passed
        raise StandInRefused(f"the trusted {shown} (standing in for yours) cannot take what your code passed: {error}") from None
    except (RuntimeError, ValueError, TypeError, IndexError) as error:  # the inputs do not fit the contract
        raise StandInRefused(f"the trusted {shown} (standing in for yours) cannot take what your code passed ({type(error).__name__}: {str(error)[:200]})") from None


def _vjp(function: Callable[..., Any], options: dict, tensors: list, grads: Any) -> list[torch.Tensor | None]:
    """Gradients of sum(output_i * grads_i) with respect to each floating-point input."""
    leaves = [t.detach().requires_grad_(True) if t is not None and t.is_floating_point() else t for t in tensors]
    with torch.enable_grad():
        value = function(options, *leaves)
        outputs = value if isinstance(value, tuple) else (value,)
        grads = _tensors(grads, len(outputs), "gradients")
        pairs = [(o, g) for o, g in zip(outputs, grads) if g is not None and o.requires_grad]
        wanted = [leaf for leaf in leaves if leaf is not None and leaf.requires_grad]
        if not pairs or not wanted:
            return [None] * len(tensors)
        found = iter(torch.autograd.grad([o for o, _ in pairs], wanted, [g.to(o.dtype) for o, g in pairs], allow_unused=True))
    return [next(found) if leaf is not None and leaf.requires_grad else None for leaf in leaves]
