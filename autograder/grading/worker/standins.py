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

import functools
import importlib.util
import sys
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


class _Remote(torch.autograd.Function):
    """A trusted function of tensors, computed by the grader; backward is a vector-Jacobian product."""

    @staticmethod
    def forward(ctx: Any, channel: Channel, name: str, options: dict, *tensors: torch.Tensor | None) -> Any:
        ctx.channel, ctx.name, ctx.options = channel, name, options
        ctx.save_for_backward(*tensors)
        value = channel({"kind": "forward", "name": name, "tensors": [_plain(t) for t in tensors], "options": options})
        outputs = value if isinstance(value, tuple) else (value,)
        if not outputs or not all(isinstance(o, torch.Tensor) for o in outputs):
            raise StandInError(f"the trusted {name} gave no tensor")
        return value

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
    return _Remote.apply(channel, name, options, *tensors)


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
    return {replaces.get(name, name): made[name] for name in wanted}
