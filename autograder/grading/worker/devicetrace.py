"""Seeing, without a GPU, where code would mix devices (runs on the student's side of the boundary).

On a GPU, a tensor made by a factory function without device= (torch.ones(...), torch.tensor(...))
sits on the CPU, next to inputs on the GPU: the first operation that combines the two crashes.
On the CPU nothing shows. DeviceTracer follows the call: the inputs (and a module's parameters)
are tagged "follows the inputs"; a tensor of one or more dimensions that a factory makes without
device= is tagged "default device", with the line of the student's file that made it; every
operation passes the tags on to its results. When an operation gets both kinds, that line
would crash on a GPU, and the tracer says so. A move (.to(...), .cuda(), .type_as(...)) or a
factory given device= counts as following the inputs: where the code may be right, say nothing.
"""
from __future__ import annotations

import traceback
from typing import Any

import torch
from torch.overrides import TorchFunctionMode

from autograder.grading.chunks import SourcePlaces

FACTORIES = {
    "tensor", "as_tensor", "asarray", "from_numpy", "ones", "zeros", "full", "empty", "arange", "range",
    "linspace", "logspace", "eye", "rand", "randn", "randint", "randperm", "tril_indices", "triu_indices",
}
MOVES = {"to", "cuda", "type_as", "new_tensor", "new_ones", "new_zeros", "new_full", "new_empty"}  # follow x
NOT_MIXING = {"__getitem__", "__setitem__", "__get__", "__len__", "__index__", "size", "dim", "numel", "item", "tolist"}
FOLLOWS, DEFAULT = "follows", "default"


def _tensors(value: Any) -> list[torch.Tensor]:
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, (list, tuple)):
        return [t for item in value for t in _tensors(item)]
    if isinstance(value, dict):
        return [t for item in value.values() for t in _tensors(item)]
    return []


class DeviceTracer(TorchFunctionMode):
    """Tags tensors as following the inputs or made on the default device; `found` holds, per line
    of the student's file that made a default-device tensor: the site and the operation that mixed it in."""

    def __init__(self, inputs: list[torch.Tensor], filenames: SourcePlaces):
        super().__init__()
        self.filenames = filenames
        self.tags: dict[int, tuple[str, str]] = {}  # id(tensor) -> (kind, "file:line" where it was made)
        self.sites: dict[str, dict[str, str]] = {}  # "file:line" -> where, function, line, factory
        self.keep: list[torch.Tensor] = []  # tagged tensors stay alive, so that ids stay theirs
        self.found: dict[str, dict[str, str]] = {}  # "file:line" -> its site and the op that mixed it in
        for tensor in inputs:
            self._tag(tensor, FOLLOWS, "")

    def _tag(self, tensor: torch.Tensor, kind: str, where: str) -> None:
        self.tags[id(tensor)] = (kind, where)
        self.keep.append(tensor)

    def _student_line(self) -> dict[str, str] | None:
        """Where in the student's file the current call was made: file:line, function, the line."""
        frames = [f for f in traceback.extract_stack() if f.filename in self.filenames]
        if not frames:
            return None
        frame = frames[-1]
        return {"where": self.filenames.where(frame.filename, frame.lineno or 0), "function": frame.name, "line": (frame.line or "").strip()}

    def __torch_function__(self, func: Any, types: Any, args: tuple = (), kwargs: dict | None = None) -> Any:
        kwargs = kwargs or {}
        result = func(*args, **kwargs)
        name = getattr(func, "__name__", "")
        if name in NOT_MIXING:
            return result
        if name in FACTORIES and kwargs.get("device") is None:
            site = self._student_line()
            if site is not None:
                self.sites.setdefault(site["where"], {**site, "factory": f"torch.{name}"})
                for tensor in _tensors(result):
                    if tensor.dim() > 0:
                        self._tag(tensor, DEFAULT, site["where"])
            return result
        if name in MOVES or (name in FACTORIES and kwargs.get("device") is not None):
            for tensor in _tensors(result):
                self._tag(tensor, FOLLOWS, "")
            return result
        follows, made = False, ""
        for tensor in _tensors((args, kwargs)):
            kind, where = self.tags.get(id(tensor), ("", ""))
            follows = follows or kind == FOLLOWS
            made = made or (where if kind == DEFAULT and tensor.dim() > 0 else "")
        if made and follows:
            self.found.setdefault(made, {**self.sites[made], "op": name})
        if follows or made:
            for tensor in _tensors(result):
                self._tag(tensor, FOLLOWS if follows else DEFAULT, "" if follows else made)
        return result
