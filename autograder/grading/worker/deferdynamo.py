"""torch._dynamo stays unimported until something really compiles (the template calls this once).

torch wraps many of its Python functions in `torch._compile._disable_dynamo` (the Python
decompositions behind the "meta" device, the dispatch modes of the op tracer, the optimizers'
steps): "never compile this". The wrapper imports torch._dynamo on its first call (~1 s CPU with
sympy) only to make that promise, though nothing can be compiling while torch._dynamo is not even
imported. A check that calls the submission on the "meta" device reaches such a function in
every worker, so the template imported torch._dynamo before its first fork: ~1 s on the
critical path of `attnkit check`.

`defer_dynamo()` gives each wrapped function that torch has made so far the cached disabled
version torch's wrapper looks for: a call that runs the function as it is while torch._dynamo is
not loaded, and otherwise makes and caches torch's own disabled version, as the wrapper would
have. A submission that compiles still gets torch's behaviour. Tied to torch's private
`_disable_dynamo` (tests/test_worker.py shows a meta-device call imports no torch._dynamo: a
torch that changes it fails that test, and grading stays right, only slower).
"""
from __future__ import annotations

import gc
import sys
import types
from typing import Any, Callable

import torch

CACHE_ATTRIBUTE = "__dynamo_disable"  # where torch._compile._disable_dynamo's wrapper caches its disabled function


def defer_dynamo() -> int:
    """Give every function wrapped by `_disable_dynamo` so far a cached call that imports nothing
    (see the module's text); returns how many. Run once in the template, before forking."""
    inner = _wrapper_code()
    if inner is None:
        return 0
    count = 0
    for obj in gc.get_objects():
        if type(obj) is not types.FunctionType or obj.__code__ is not inner or obj.__closure__ is None:
            continue
        cells = dict(zip(inner.co_freevars, (cell.cell_contents for cell in obj.__closure__)))
        fn, recursive = cells.get("fn"), cells.get("recursive", True)
        if fn is None or getattr(fn, CACHE_ATTRIBUTE, None) is not None:
            continue
        try:
            setattr(fn, CACHE_ATTRIBUTE, _until_dynamo(fn, recursive))
        except (AttributeError, TypeError):  # a function that takes no attributes keeps torch's way
            continue
        count += 1
    return count


def _wrapper_code() -> types.CodeType | None:
    """The code of the function `_disable_dynamo(fn)` returns (None if torch no longer has it)."""
    disable = getattr(getattr(torch, "_compile", None), "_disable_dynamo", None)
    consts = getattr(getattr(disable, "__code__", None), "co_consts", ())
    return next((c for c in consts if isinstance(c, types.CodeType) and c.co_name == "inner" and "fn" in c.co_freevars), None)


def _until_dynamo(fn: Callable[..., Any], recursive: bool) -> Callable[..., Any]:
    def call(*args: Any, **kwargs: Any) -> Any:
        if "torch._dynamo" not in sys.modules:  # nothing compiles: the function as it is
            return fn(*args, **kwargs)
        import torch._dynamo

        disabled = torch._dynamo.disable(fn, recursive, wrapping=False)  # what torch's wrapper makes
        setattr(fn, CACHE_ATTRIBUTE, disabled)
        return disabled(*args, **kwargs)

    return call
