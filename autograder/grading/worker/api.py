"""The typed seam to the student: what a hidden check may ask of a submission.

Both backends satisfy it: the worker proxy (`Student`, plain data over a socket to an isolated
process) and the in-process student of the notebooks (`InProcessStudent`). Checks take a
`StudentAPI`, never `Any`, so that mypy holds them to this list.
"""
from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Any, Callable, Protocol, runtime_checkable

from autograder.grading.worker.protocol import Handle


@runtime_checkable
class StudentAPI(Protocol):
    """A submission, as the checks reach it: every value crossing is plain data (tensors, numbers,
    strings, lists, dicts, Handles); what the student's code raises comes back as StudentError."""

    chunks: list[tuple[int, str]]  # the source the worker runs: (first line, text)
    files: dict[str, str]  # the submission's other Python files

    def call(self, name: str, *args: Any, seed: int | None = None, noncontiguous: tuple[int, ...] = (), **kwargs: Any) -> Any:
        """Call a function the submission defines."""

    def traced_call(self, name: str, *args: Any, **kwargs: Any) -> tuple[Any, dict]:
        """The value, and the trace of torch functions and operators the call used."""

    def other_calls(self, name: str) -> dict[str, list[str]]:
        """What the traces of the other calls of a function (or a class's methods) saw: {"ops": ..., "aten": ...}."""

    def call_devices(self, name: str, *args: Any, **kwargs: Any) -> list[str]:
        """Call, and get back only the devices of the result's tensors."""

    def echo_call(self, name: str, *args: Any, **kwargs: Any) -> tuple[Any, list[Any]]:
        """Call, and get back the arguments as the call left them."""

    def new(self, cls: str, *args: Any, seed: int | None = None, **kwargs: Any) -> Handle:
        """Build an object of a class the submission defines; a Handle names it."""

    def method(self, handle: Handle, method: str, *args: Any, where: str = "", seed: int | None = None, trace: bool = False, **kwargs: Any) -> Any:
        """Call a method of an object built with `new`."""

    def describe(self, handle: Handle, where: str = "") -> dict:
        """The module's parameters, buffers and submodules, by name."""

    def state_dict(self, handle: Handle, where: str = "") -> dict:
        """The module's state_dict."""

    def load_state_dict(self, handle: Handle, state: dict, where: str = "", strict: bool = True, private: bool = False) -> dict:
        """Load weights; {"missing": [...], "unexpected": [...]}."""

    def train(self, handle: Handle, mode: bool, where: str = "") -> bool:
        """Switch the module to training (True) or eval mode."""

    def vjp(self, target: str | Handle, args: list, grad_outputs: list, wrt: list[int], where: str = "", method: str = "forward", params: bool = False, **kwargs: Any) -> dict:
        """Vector-Jacobian products of a function or a module's method."""

    def plot(self, name: str, *args: Any, picture: bool = True, live: tuple[int, ...] = (), over_open: bool = False, **kwargs: Any) -> dict:
        """Call a plotting function; what it drew, read back as data (autograder.grading.worker.plotdata);
        picture=False: not drawn, no PNG and no tick label boxes (only which Axes holds what);
        live: the positions of the tensor arguments given as they come out of a model, requiring grad;
        over_open: while a figure with an Axes is open (its `given_axes`: drawn over, no new figure made)."""

    def request(self, message: dict, where: str) -> Any:
        """One raw request to the worker (the other methods are made of these)."""

    def start_private(self) -> None:
        """Private data (reference weights) is about to enter: a fresh worker whose output is withheld."""

    def stand_ins(self, names: list[str], trusted: Callable[[Any], Any]) -> AbstractContextManager[None]:
        """Within the block, `names` are trusted stand-ins in the worker (error carried forward)."""
