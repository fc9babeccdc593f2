"""Trusted stand-ins for a submission's earlier functions (error carried forward): the machinery.

When a check of a later task fails with the submission's own earlier functions, the grader runs
it again with those functions replaced by stand-ins. Which stand-ins exist is the assignment's
(its manifest's `worker_standins` file: NAMES, REPLACES and `stand_ins(channel, lookup)`); this
module is what every assignment's stand-ins are made of. A stand-in holds no reference code: it
sends its tensors to the grader over the plain-data protocol (a callback during the request,
`{"status": "callback", "callback": {...}}`, through `remote`) and returns what the grader's
reference computed. Gradients go the same way: the backward of a stand-in is a second callback.

The callback's fields: kind ("forward" or "backward"), name (one of the assignment's NAMES),
tensors (the inputs, None where absent), options (ints, floats, bools), grads (backward only).

The worker's mount namespace hides the assignment's folder: the template imports the stand-ins
file (`load`) before it forks the worker that needs it, as the spawn request names it.
"""
from __future__ import annotations

import collections
import dis
import functools
import gc
import importlib.util
import inspect
import sys
import types
import weakref
import zlib
from types import ModuleType
from typing import Any, Callable

import torch

MAX_CALLBACKS_PER_REQUEST = 512  # gradcheck of a module makes ~40 forward calls, each a request
MAX_CALLBACK_ELEMENTS = 1 << 22  # tensor elements in one callback (a trained model's input is ~10^5)

Channel = Callable[[dict], Any]  # sends one callback, returns the trusted value (or raises StandInError)


class StandInError(RuntimeError):
    """A stand-in could not give a trusted value (refused by the grader, or called out of turn)."""


class StandInRefused(ValueError):
    """Raised grader-side for a callback it will not answer; the text goes back to the worker."""


class Remote(torch.autograd.Function):
    """A trusted function of tensors, computed by the grader; backward is a vector-Jacobian product.
    Under torch.vmap (`torch.vmap(scaled_dot_product_attention, in_dims=1)` over the heads) it is
    called once per slice of the mapped axis: the grader computes what it computes unbatched."""

    @staticmethod
    def forward(channel: Channel, name: str, options: dict, *tensors: torch.Tensor | None) -> Any:
        value = channel({"kind": "forward", "name": name, "tensors": [_plain(t) for t in tensors], "options": options})
        outputs = value if isinstance(value, tuple) else (value,)
        if not outputs or not all(isinstance(o, torch.Tensor) for o in outputs):
            raise StandInError(f"the trusted {name} gave no tensor")
        # a tensor of the reply may be a view of the buffer it came in: autograd then refuses the
        # later code's in-place change of it (`scores.masked_fill_(~mask, -inf)`), which it may make
        outputs = tuple(o if o._base is None else o.clone() for o in outputs)
        return outputs if isinstance(value, tuple) else outputs[0]

    @staticmethod
    def setup_context(ctx: Any, inputs: tuple, output: Any) -> None:  # apart from forward, as torch.vmap asks
        channel, name, options, *tensors = inputs
        ctx.channel, ctx.name, ctx.options = channel, name, options
        ctx.save_for_backward(*tensors)

    @staticmethod
    def vmap(info: Any, in_dims: tuple, channel: Channel, name: str, options: dict, *tensors: torch.Tensor | None) -> tuple[Any, Any]:
        slices = [Remote.apply(channel, name, options, *(t if d is None or t is None else t.select(d, i) for t, d in zip(tensors, in_dims[3:])))
                  for i in range(info.batch_size)]
        if isinstance(slices[0], tuple):
            return tuple(torch.stack(column) for column in zip(*slices)), (0,) * len(slices[0])
        return torch.stack(slices), 0

    @staticmethod
    def backward(ctx: Any, *grads: torch.Tensor) -> tuple:
        tensors = ctx.saved_tensors
        message = {"kind": "backward", "name": ctx.name, "tensors": [_plain(t) for t in tensors], "options": ctx.options, "grads": [_plain(g) for g in grads]}
        value = ctx.channel(message)
        if not isinstance(value, list) or len(value) != len(tensors):
            raise StandInError(f"the trusted {ctx.name} gave no gradients")
        needed = ctx.needs_input_grad[3:]
        return (None, None, None, *(g if isinstance(g, torch.Tensor) and need else None for g, need in zip(value, needed)))


def _plain(tensor: torch.Tensor | None) -> torch.Tensor | None:
    return None if tensor is None else tensor.detach()


def remote(channel: Channel, name: str, options: dict, *tensors: torch.Tensor | None) -> Any:
    """The grader's value of stand-in `name` on `tensors` (differentiable: backward is a callback too)."""
    if not all(t is None or isinstance(t, torch.Tensor) for t in tensors):
        raise TypeError(f"{name} takes tensors here (got {', '.join(type(t).__name__ for t in tensors)})")
    return Remote.apply(channel, name, options, *tensors)


@functools.cache
def load(path: str) -> ModuleType | None:
    """An assignment's stand-ins file, imported once per process (the template, before it forks);
    None for "" or a file that does not import (the grader, which imports it too, says why)."""
    if not path:
        return None
    name = f"attnkit_stand_ins_{zlib.crc32(path.encode()):08x}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        return None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except Exception:  # a content bug: the grader, which imports the file too, reports it
        del sys.modules[name]
        return None
    return module


def names(module: ModuleType | None) -> tuple[str, ...]:
    """The stand-ins an assignment's stand-ins module offers (none without one)."""
    return tuple(getattr(module, "NAMES", ())) if module is not None else ()


def build(module: ModuleType | None, wanted: list[str], channel: Channel, lookup: Callable[[str], Any] = lambda name: None) -> dict[str, Any]:
    """The stand-ins `wanted` of the assignment's stand-ins `module`, by the submission's name each
    replaces (its REPLACES, default: its own name), each calling the grader through `channel`;
    `lookup(name)` is the submission's own object of that name (a stand-in may wrap it)."""
    made: dict[str, Any] = module.stand_ins(channel, lookup) if module is not None else {}
    unknown = sorted(set(wanted) - set(made))
    if unknown:
        raise StandInError(f"no stand-in for {', '.join(unknown)}")
    replaces: dict[str, str] = getattr(module, "REPLACES", {})
    replaced = [replaces.get(name, name) for name in wanted]
    if len(set(replaced)) != len(replaced):
        raise StandInError(f"two stand-ins for one name in {', '.join(wanted)}")
    return {own: fitted(made[name], lookup(own), own) for name, own in zip(wanted, replaced)}


# ---------------------------------------------------------------------------------------------
# calls written for the submission's own signature
# ---------------------------------------------------------------------------------------------
def fitted(stand_in: Any, own: Any, name: str) -> Any:
    """The stand-in, taking the calls the submission's code makes to its own `name`.

    The submission's code calls its own signature: its parameters may be named otherwise than the
    contract's, and it may take more, with defaults (`masked_softmax(scores, mask=None, dim=-1)`,
    called as `masked_softmax(s, mask, dim=-1)`). A call is bound to the submission's signature;
    its first parameters are the contract's, in order, and go to the stand-in; a further one is
    accepted when it holds its default (the submission's own function then does what the contract
    asks, which the stand-in does), or when the stand-in's `takes(name, value, others)` (others: the further arguments beside it) gives the keywords
    (its own parameters, named `_...`) that do what such an argument asks (A.3's `dropout=`), and
    refused otherwise. A class is fitted in its __init__ and forward. Nothing changes where the
    signatures agree or cannot be read.

    A class keeps the methods the submission's own class has and the stand-in lacks (a classmethod
    `from_config`, a helper, a property): the later code may call them on the class it thinks is
    its own. Plain values are left out: a class constant named like a layer would hide it; so is
    what the stand-in's own code uses (its `num_heads`, `W_q`: a property of that name would hide it).

    An object also has the plain settings (numbers, strings, tuples of them) that the submission's
    own __init__, given the same arguments, stores and the stand-in lacks: the later code may read
    them (`self.attn.head_dim`). See `_own_settings`.

    A result comes back as the named tuple the submission's own code returns (`res.output` in a
    later task reads it as from its own function): see `_named_result`."""
    if isinstance(stand_in, type):
        if not isinstance(own, type):
            return stand_in
        methods = {m: _fit(getattr(stand_in, m), getattr(own, m, None), f"{name}.{m}", _twin(own) if m == "forward" else None) for m in ("__init__", "forward")}
        trusted: Any = stand_in  # a class of the stand-ins module: its __init__ and forward are its own
        methods["__init__"] = _recording(methods["__init__"] or trusted.__init__)
        methods["__getattr__"] = _own_settings(trusted, own)
        if named := _named_result(getattr(own, "forward", None)):
            methods["forward"] = _returning(named, methods["forward"] or trusted.forward)
        methods = {m: f for m, f in methods.items() if f is not None}
        theirs = _names_used(stand_in)  # what the stand-in's own code reads or sets on itself stays its own
        extras = {k: v for k in dir(own) if not k.startswith("__") and not hasattr(stand_in, k) and k not in theirs
                  and isinstance(v := inspect.getattr_static(own, k), (types.FunctionType, staticmethod, classmethod, property))}
        return type(stand_in.__name__, (stand_in,), {**extras, **methods, "__qualname__": stand_in.__qualname__}) if methods or extras else stand_in
    call = _fit(stand_in, own, name) or stand_in
    named = _named_result(own)
    return _returning(named, call) if named else call


_SETTINGS = (int, float, bool, str, type(None))
_MADE_WITH = "_stand_in_made_with"  # an object's __dict__ key: the arguments its class was called with
_OWN_SETTINGS = "_stand_in_own_settings"  # ...and the plain settings the submission's own class stores for them
_TWIN = "_stand_in_twin"  # ...and the submission's own object made with them (_twin)


def _recording(init: Callable[..., Any]) -> Callable[..., Any]:
    """`init`, keeping the arguments in the object (for `_own_settings`)."""

    @functools.wraps(init)
    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        init(self, *args, **kwargs)
        self.__dict__[_MADE_WITH] = (args, kwargs)

    return __init__


def _own_settings(trusted: type, own: type) -> Callable[[Any, str], Any]:
    """A __getattr__ for the stand-in class: what the stand-in lacks may be a plain setting that the
    submission's own __init__ stores (`self.head_dim = E // H`, read by a later task as
    `self.attn.head_dim`): read, when first asked, from one of its own objects made with the same
    arguments (the random state kept); none when its __init__ fails."""
    inherited = getattr(trusted, "__getattr__", None)
    twin = _twin(own)
    state = _stored_by_methods(own)

    def __getattr__(self: Any, name: str) -> Any:
        if inherited is not None:
            try:
                return inherited(self, name)
            except AttributeError:
                pass
        if _MADE_WITH in self.__dict__ and not name.startswith("__"):
            if _OWN_SETTINGS not in self.__dict__:
                mine = twin(self)  # None: its own __init__ fails (a bug of that task), nothing to read
                self.__dict__[_OWN_SETTINGS] = {k: v for k, v in vars(mine).items() if _is_setting(v)} if mine is not None else {}
            if name in self.__dict__[_OWN_SETTINGS] and name not in state:
                return self.__dict__[_OWN_SETTINGS][name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    return __getattr__


def _stored_by_methods(own: type) -> set[str]:
    """The attributes that the submission's own class's methods other than __init__ store on
    themselves (`self.attn_weights = weights` in forward): state its stand-in never keeps, not a
    setting; the twin's value is stale (qa53u u03: None from __init__, read after forward)."""
    names: set[str] = set()
    for cls in own.__mro__:
        if cls.__module__.split(".")[0] in ("torch", "builtins"):
            continue
        functions = [f for key, f in vars(cls).items() if key != "__init__" and isinstance(f, types.FunctionType)]
        names.update(i.argval for code in _codes(functions) for i in dis.get_instructions(code) if i.opname == "STORE_ATTR")
    return names


def _codes(functions: list[types.FunctionType]) -> list[types.CodeType]:
    """The code of the functions, and of every function, lambda or comprehension nested in them."""
    codes, found = [f.__code__ for f in functions], []
    while codes:
        code = codes.pop()
        found.append(code)
        codes.extend(c for c in code.co_consts if isinstance(c, types.CodeType))
    return found


def _is_setting(value: Any) -> bool:
    return type(value) in _SETTINGS or (type(value) is tuple and all(type(v) in _SETTINGS for v in value))


def _names_used(cls: type) -> set[str]:
    """Every name the code of a stand-in class's own functions uses (`self.num_heads = ...` in its
    __init__, `self.W_q` in its forward): a property of the submission's class by such a name
    would take the place of the stand-in's attribute (a read-only `num_heads` made its __init__ fail)."""
    return {name for code in _codes([f for f in vars(cls).values() if isinstance(f, types.FunctionType)]) for name in code.co_names}


def _named_result(own: Any) -> type | None:
    """The named tuple the submission's own function returns, where its code says so: its return
    annotation, else the one named tuple class among the module-level names it uses
    (`return AttentionResult(out, w)`); None for a plain tuple, or where it is not clear."""
    if not isinstance(own, types.FunctionType):
        return None
    scope = own.__globals__
    annotated = own.__annotations__.get("return")
    if isinstance(annotated, str):  # `from __future__ import annotations`
        annotated = scope.get(annotated)
    found = {annotated} if _is_named_tuple(annotated) else {kind for n in own.__code__.co_names if _is_named_tuple(kind := scope.get(n))}
    return found.pop() if len(found) == 1 else None


def _is_named_tuple(kind: Any) -> bool:
    try:
        return isinstance(kind, type) and issubclass(kind, tuple) and isinstance(inspect.getattr_static(kind, "_fields", None), tuple)
    except Exception:  # noqa: BLE001 - a class of the submission's that refuses to be asked: not one
        return False


def _returning(named: type, call: Callable[..., Any]) -> Callable[..., Any]:
    """`call`, whose tuple results come back as `named` (where the fields and the values agree in number)."""

    @functools.wraps(call)
    def typed(*args: Any, **kwargs: Any) -> Any:
        value = call(*args, **kwargs)
        if type(value) is not tuple or len(value) != len(inspect.getattr_static(named, "_fields")):
            return value
        try:
            return named._make(value)  # type: ignore[attr-defined]
        except Exception:  # noqa: BLE001 - the submission's class refuses the values: the plain tuple
            return value

    return typed


_VARIADIC = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)


def _fit(trusted: Callable[..., Any], own: Any, name: str, twin: Callable[[Any], Any] | None = None) -> Callable[..., Any] | None:
    """A wrapper of `trusted` that binds calls to `own`'s signature; None when none is needed.
    `twin`: for a method, the submission's own object standing beside the stand-in object (_twin)."""
    if not callable(own):
        return None
    try:
        theirs, mine = inspect.signature(own), inspect.signature(trusted)
    except (TypeError, ValueError):  # a builtin or an object without a readable signature
        return None
    ours = [p for p in mine.parameters.values() if not p.name.startswith("_")]  # the contract's; `_name`: the stand-in's own
    params = list(theirs.parameters.values())
    shared = params[:len(ours)]
    if any(p.kind in _VARIADIC for p in ours + shared) or [p.name for p in shared] == [p.name for p in ours[:len(shared)]] and len(params) <= len(ours):
        return None
    extra = params[len(ours):]
    takes = getattr(trusted, "takes", None)  # (name, value) -> the stand-in's own keywords for a further argument it does as yours would; None: not one

    @functools.wraps(trusted)
    def call(*args: Any, **kwargs: Any) -> Any:
        try:
            bound = theirs.bind(*args, **kwargs)
        except TypeError:  # not a call the submission's own function takes either: the stand-in says why
            return trusted(*args, **kwargs)
        bound.apply_defaults()
        positional = [bound.arguments[p.name] for p, q in zip(shared, ours) if q.kind is not inspect.Parameter.KEYWORD_ONLY]
        keywords = {q.name: bound.arguments[p.name] for p, q in zip(shared, ours) if q.kind is inspect.Parameter.KEYWORD_ONLY}
        for p in extra:
            value = bound.arguments.get(p.name)
            if _at_default(p, value):
                continue
            others = {q.name: bound.arguments.get(q.name) for q in extra if q is not p}
            taken = takes(p.name, value, others) if takes else None
            if taken is None and _same_at_default(own, theirs, bound, p, twin):
                continue
            if taken is None:
                shown = name.split(".")[0]
                raise StandInError(f"the trusted {shown} (standing in for yours) does only what the task asks: it cannot take {p.name}={type(value).__name__} other than your default")
            keywords.update(taken)
        return trusted(*positional, **keywords)

    return call


def _twin(own: type) -> Callable[[Any], Any]:
    """The submission's own object made with the arguments a stand-in object was made with (kept in
    it; the random state kept), or None when its own __init__ fails."""
    def twin(stand_in: Any) -> Any:
        made = getattr(stand_in, "__dict__", {}).get(_MADE_WITH)
        if made is None:
            return None
        if _TWIN not in stand_in.__dict__:
            try:
                with torch.random.fork_rng(devices=[]):
                    stand_in.__dict__[_TWIN] = own(*made[0], **made[1])
            except Exception:  # noqa: BLE001 - its own __init__ fails (a bug of that task): no twin
                stand_in.__dict__[_TWIN] = None
        return stand_in.__dict__[_TWIN]

    return twin


def _same_at_default(own: Callable[..., Any], signature: inspect.Signature, bound: inspect.BoundArguments, parameter: inspect.Parameter,
                     twin: Callable[[Any], Any] | None) -> bool:
    """Whether the submission's own code answers the call the same with `parameter` at its default:
    then the argument asks nothing the task does not, and the stand-in does that (D.1 passing its
    own attention `scale=1/√Dh`, which its default None does: qa40s d38). A method is asked of
    its `twin` object, in the stand-in object's training mode, dtype and device; both calls start
    from one random state."""
    if parameter.kind in _VARIADIC or parameter.default is inspect.Parameter.empty:
        return False
    given = dict(bound.arguments)
    if twin is not None:
        first = next(iter(signature.parameters))
        mine = twin(given[first])
        if mine is None:
            return False
        if isinstance(mine, torch.nn.Module) and isinstance(given[first], torch.nn.Module):
            mine.train(given[first].training)
            like = next((q for q in given[first].parameters() if q.is_floating_point()), None)
            if like is not None:  # the checks make float64 objects (.double())
                mine.to(device=like.device, dtype=like.dtype)
        given[first] = mine
    plain = {**given, parameter.name: parameter.default}
    try:
        with torch.random.fork_rng(devices=[]):
            state = torch.random.get_rng_state()
            answers = []
            for arguments in (given, plain):
                torch.random.set_rng_state(state)
                call = inspect.BoundArguments(signature, collections.OrderedDict(arguments))
                answers.append(own(*call.args, **call.kwargs))
        return _identical(*answers)
    except Exception:  # noqa: BLE001 - its own code fails either way: nothing can be told
        return False


def _identical(a: Any, b: Any) -> bool:
    """The same answer: equal tensors (shape, dtype, every value) in the same structure."""
    if isinstance(a, torch.Tensor) or isinstance(b, torch.Tensor):
        return isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor) and a.dtype == b.dtype and a.shape == b.shape and bool(torch.equal(a.detach(), b.detach()))
    if isinstance(a, (tuple, list)) or isinstance(b, (tuple, list)):
        return type(a) is type(b) and len(a) == len(b) and all(_identical(x, y) for x, y in zip(a, b))
    return type(a) in _SETTINGS and type(b) is type(a) and a == b


def _at_default(parameter: inspect.Parameter, value: Any) -> bool:
    """Whether a further parameter holds its default: nothing for *args/**kwargs, else the default."""
    if parameter.kind in _VARIADIC:
        return not value
    default = parameter.default
    if default is inspect.Parameter.empty:
        return False
    if value is default:
        return True
    try:
        return type(value) is type(default) and not isinstance(value, torch.Tensor) and bool(value == default)
    except Exception:  # noqa: BLE001 - a comparison the submission's object refuses: not its default
        return False


# ---------------------------------------------------------------------------------------------
# every reference the submission's code holds to a replaced object
# ---------------------------------------------------------------------------------------------
MAX_REBIND_VISITS = 20_000  # containers, functions, classes and objects looked at per request
MAX_REBIND_ITEMS = 200_000  # items of dicts, lists and tuples looked at per request (a container larger than what is left is not walked)
_ATOMS = frozenset({str, bytes, int, float, complex, bool, type(None),  # hold nothing the walk would follow:
                    types.BuiltinFunctionType, types.ModuleType, types.MethodWrapperType})  # a module's globals (builtins too) are no place it looks
_MEMOISED = type(functools.lru_cache(maxsize=None)(lambda: None))  # what functools.cache and lru_cache make


def _size(item: tuple[Any, Any]) -> int:
    """How much of the visit budget a dict entry's value may take: 0 for what is not a container."""
    value = item[1]
    return 1 + len(value) if type(value) in (dict, list, tuple) else 0


def identities(replaced: list[tuple[Any, Any]], owned: Callable[[Any], bool] = lambda obj: False) -> dict[int, Any]:
    """rebind's map from (the submission's object, its stand-in) pairs: the id of each object to
    its stand-in; for a bound method of the submission's object (`masked_softmax = _ops.softmax`),
    which the later code may call through the object (`_ops.softmax(s, m)`), its class's function
    too, standing in with its first argument (the object) dropped; and for a function that only
    hands its parameters on to another of the submission's (`def attention_scores(q, k): return
    _scores(q, k)`), or to an object of its own class (`return _softmax(scores, mask)`, an
    nn.Module), that one too, which a later task may call directly: the same bug, charged once
    (qa23s: A.1's wrong scale charged again in C.3)."""
    found: dict[int, Any] = {}
    for own, stand_in in replaced:
        found[id(own)] = stand_in
        if isinstance(own, types.MethodType) and isinstance(own.__func__, types.FunctionType):
            found.setdefault(id(own.__func__), _dropping_self(stand_in))
    for own, stand_in in replaced:
        inner = passed_through(own) if isinstance(own, types.FunctionType) else None
        if owned(inner) or (callable(inner) and not isinstance(inner, type) and owned(type(inner))):
            fit = _fit(stand_in, inner, getattr(stand_in, "__name__", "function")) if isinstance(inner, types.FunctionType) else None
            found.setdefault(id(inner), fit or stand_in)  # a helper's further parameters, as the task's own (qa40s F1: `_attend(q, k, v, mask, drop)`)
    return found


PLUMBING = frozenset({"RESUME", "PRECALL", "CACHE", "NOP", "PUSH_NULL", "COPY_FREE_VARS", "MAKE_CELL"})  # no work of the function's
RETURNS = frozenset({"RETURN_VALUE", "RETURN_CONST"})
REBINDS = frozenset({"STORE_FAST", "DELETE_FAST", "STORE_FAST_STORE_FAST", "STORE_FAST_LOAD_FAST", "LOAD_FAST_AND_CLEAR"})
NOT_PLAIN = inspect.CO_VARARGS | inspect.CO_VARKEYWORDS | inspect.CO_GENERATOR | inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR


def passed_through(function: types.FunctionType) -> Any:
    """What `function` hands its work to: the global whose value it returns, called with its own
    parameters in order (`return _scores(q, k)`), when that is its one way out and nothing in it
    rebinds a parameter, so that the global gets the very arguments `function` got (checks before it
    that raise, `if E % h: raise ValueError(...)` or an assert, are no work: qa24s). None otherwise. Read
    from its bytecode: every Python it runs on (3.11 to 3.13)."""
    code = function.__code__
    if code.co_flags & NOT_PLAIN or code.co_kwonlyargcount:
        return None
    params = code.co_varnames[:code.co_argcount]
    steps = [step for step in dis.get_instructions(function) if step.opname not in PLUMBING]
    exits = [at for at, step in enumerate(steps) if step.opname in RETURNS]
    if len(exits) != 1 or steps[exits[0]].opname != "RETURN_VALUE" or exits[0] < 2 or steps[exits[0] - 1].opname != "CALL":
        return None
    start, handed = exits[0] - 2, list[str]()  # walk back over the arguments to the called global
    while start > 0 and steps[start].opname in ("LOAD_FAST", "LOAD_FAST_LOAD_FAST"):
        handed[:0] = steps[start].argval if isinstance(steps[start].argval, tuple) else [steps[start].argval]
        start -= 1
    if steps[start].opname != "LOAD_GLOBAL" or tuple(handed) != params or steps[exits[0] - 1].arg != len(handed):
        return None
    tail = {step.offset for step in steps[start + 1:exits[0] + 1]}
    for step in steps:
        if step.opname in REBINDS and set(step.argval if isinstance(step.argval, tuple) else [step.argval]) & set(params):
            return None  # a parameter rebound: the global may get something else
        if step.opcode in dis.hasjrel + dis.hasjabs and step.argval in tail:
            return None  # a jump into the call: not one straight way out
    return function.__globals__.get(steps[start].argval)


MAX_REACH_VISITS = 5_000  # objects code_reach looks at


def code_reach(roots: list[Any], owned: Callable[[Any], bool]) -> set[types.CodeType]:
    """The code of the submission's own functions that `roots` (its functions, classes or objects)
    may run, read without running anything: each function's code and the code inside it, the
    globals its code names, its closure and defaults, every function of a class of its own (its
    bases too), and whatever any other object holds (gc's referents: a namespace object, a set, a
    library's wrapper's closure, a weakref's target), but never a library's module or class. A
    name of an attribute that is also a global's counts as that global: the reach is what the code
    could run, never less (qa25s: C.3 reached a wrong A.1 through eleven kinds of holder)."""
    reached: set[types.CodeType] = set()
    seen: set[int] = set()
    todo = list(roots)
    while todo and len(seen) < MAX_REACH_VISITS:
        value = todo.pop()
        kind = type(value)  # never the object's own __class__
        if id(value) in seen or kind in _ATOMS or issubclass(kind, torch.Tensor):
            continue
        seen.add(id(value))
        if kind is types.FunctionType:
            if owned(value):
                codes = [value.__code__]
                while codes:
                    code = codes.pop()
                    reached.add(code)
                    codes.extend(c for c in code.co_consts if type(c) is types.CodeType)
                    todo.extend(value.__globals__[name] for name in code.co_names if name in value.__globals__)
            todo.extend((*(item for cell in value.__closure__ or () for item in _contents(cell)),  # a library's wrapper: what it wraps, never its module
                         *(value.__defaults__ or ()), *(value.__kwdefaults__ or {}).values(), *value.__dict__.values()))
        elif issubclass(kind, type):
            if owned(value):
                todo.extend((*vars(value).values(), *value.__bases__))
        elif issubclass(kind, weakref.ref):
            todo.append(weakref.ref.__call__(value))
        else:
            todo.extend(gc.get_referents(value))  # an object of a class of its own reaches that class too
    return reached


def _contents(cell: types.CellType) -> list[Any]:
    try:
        return [cell.cell_contents]
    except ValueError:  # a cell not filled yet
        return []


def _dropping_self(stand_in: Callable[..., Any]) -> Callable[..., Any]:
    def method(_self: Any, *args: Any, **kwargs: Any) -> Any:
        return stand_in(*args, **kwargs)

    return method


def rebind(roots: list[Any], stand_ins: dict[int, Any], owned: Callable[[Any], bool]) -> Callable[[], None]:
    """Point every reference to a replaced object that the submission's code holds at its
    stand-in, for one request; returns what puts each back.

    `stand_ins` maps the id of each replaced object (the submission's own function or class) to
    its stand-in (`identities`). The submission may have captured its earlier functions anywhere a later one
    reads them without a global lookup: an alias (`softmax = masked_softmax`), a default value
    (`def sdpa(q, k, v, mask=None, softmax=masked_softmax)`), a closure, a functools.partial, a
    class attribute (plain, staticmethod or classmethod), a property's getter, a dict, list, tuple,
    deque, ChainMap or MappingProxyType, an attribute of an object of its own class, what a functools.cache of its
    own returned. Walked from `roots`
    (the submission's module globals, its objects), through those places only, into functions and
    classes that `owned(obj)` says are its own.
    A class of its own that subclasses a replaced class subclasses the stand-in during the request.
    A dict, list or tuple larger than what is left of MAX_REBIND_ITEMS is not walked (data: a
    module-level table of numbers), so the walk costs the same for any submission."""
    undo: list[Callable[[], None]] = []
    seen: set[int] = set()
    items_left = [MAX_REBIND_ITEMS]  # a table of 3 million numbers is data, not where an alias lives: walked whole, it cost ~1 s a request

    def affordable(container: Any) -> bool:
        if len(container) > items_left[0]:
            return False
        items_left[0] -= len(container)
        return True

    def fresh(value: Any) -> Any:
        """What a reference to `value` holds during the request (the same object, changed inside, when nothing is replaced)."""
        if id(value) in stand_ins:
            return stand_ins[id(value)]
        if type(value) in _ATOMS or issubclass(type(value), torch.Tensor):  # holds nothing (a vocabulary of words, the builtins, cost no visit); type(), never the object's own __class__
            return value
        if id(value) in seen or len(seen) >= MAX_REBIND_VISITS:
            return value
        seen.add(id(value))
        try:
            return _inside(value)
        except Exception:  # noqa: BLE001 - an object of the submission's that refuses to be read: left as it is
            return value

    def _inside(value: Any) -> Any:
        if isinstance(value, (dict, list, tuple, collections.deque)) and not affordable(value):
            return value
        if isinstance(value, dict):
            for key, item in sorted(value.items(), key=_size):  # functions first, the largest containers last
                _put(value.__setitem__, key, item, fresh(item))
        elif isinstance(value, (list, collections.deque)):
            for index, item in enumerate(list(value)):
                _put(value.__setitem__, index, item, fresh(item))
        elif type(value) is tuple or _is_named_tuple(type(value)):  # a named tuple of functions (`OPS.softmax`): a new one of its class
            items = tuple(fresh(item) for item in value)
            if all(a is b for a, b in zip(items, value)):
                return value
            return items if type(value) is tuple else type(value)._make(items)
        elif isinstance(value, collections.ChainMap):  # a registry of overrides over defaults: the dicts it chains
            fresh(value.maps)
        elif isinstance(value, types.MappingProxyType):  # a read-only registry: the dict behind it, changed in place
            fresh(next(iter(gc.get_referents(value)), None))
        elif isinstance(value, property):  # `softmax = kernel(masked_softmax)`, a property(lambda self: fn): its getter's closure
            fresh(value.fget)
        elif isinstance(value, (staticmethod, classmethod)):
            inner = fresh(value.__func__)
            return type(value)(inner) if inner is not value.__func__ else value
        elif isinstance(value, functools.partial):
            partial: Any = value  # __setstate__ is the one way to change what a partial calls
            func, args, keywords, extra = partial.__reduce__()[2]
            fresh(keywords)  # the partial's own dict, changed in place
            state = (fresh(func), fresh(args), keywords, extra)
            if state[0] is not func or state[1] is not args:
                _put(lambda _, new: partial.__setstate__(new), None, (func, args, keywords, extra), state)
        elif isinstance(value, types.FunctionType) and owned(value):
            _put(lambda _, new: setattr(value, "__defaults__", new), None, value.__defaults__, fresh(value.__defaults__))
            keywords = value.__kwdefaults__ or {}
            for key, item in list(keywords.items()):
                _put(keywords.__setitem__, key, item, fresh(item))
            for name, cell in zip(value.__code__.co_freevars, value.__closure__ or ()):
                if name == "__class__":  # zero-argument super()'s own class: never a stand-in
                    continue
                try:
                    item = cell.cell_contents
                except ValueError:  # a cell not filled yet
                    continue
                _put(functools.partial(_fill, cell), None, item, fresh(item))
            fresh(value.__dict__)
        elif type(value) is _MEMOISED and owned(value.__wrapped__):
            # a memoised function of its own (`@functools.cache def kernels(): return scores, softmax`):
            # what it returned before may hold a replaced object, so it is computed again with the
            # stand-ins, and forgotten after, so that nothing they gave outlives the request
            fresh(value.__wrapped__)
            value.cache_clear()
            undo.append(value.cache_clear)
        elif isinstance(value, type) and owned(value):
            for key, item in list(vars(value).items()):
                _put(lambda key, new: setattr(value, key, new), key, item, fresh(item))
            bases = tuple(stand_ins.get(id(base), base) for base in value.__bases__)  # `class _SelfMHA(MultiHeadAttention)`: a subclass of the stand-in
            if bases != value.__bases__ and all(isinstance(base, type) for base in bases):
                _put(lambda _, new: setattr(value, "__bases__", new), None, value.__bases__, bases)
        elif (owned(type(value)) or type(value) is types.SimpleNamespace) and isinstance(getattr(value, "__dict__", None), dict):
            fresh(value.__dict__)  # an object of its own class (a config, a callable, a module), or a SimpleNamespace
        return value

    def _fill(cell: Any, _: Any, new: Any) -> None:
        cell.cell_contents = new

    def _put(setter: Callable[[Any, Any], None], key: Any, old: Any, new: Any) -> None:
        if new is old:
            return
        setter(key, new)
        undo.append(lambda: setter(key, old))

    def restore() -> None:
        for step in reversed(undo):
            step()

    try:
        for root in roots:
            fresh(root)
    except BaseException:  # the submission's object raised what fresh() lets through (SystemExit): put back what was changed
        restore()
        raise
    return restore
