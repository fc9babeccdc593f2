"""The hidden checks against code in this very process: for nbgrader's autograded test cells.

nbgrader runs the student's notebook and the tests in one kernel, so there is no isolation to
offer on that path (the Docker path is the isolated one). What stays the same is the checks and
their points: a test cell calls grade_part("A", globals()) and shows the part's score, which
nbgrader reads as partial credit. Values still cross as plain data (encoded and rebuilt), so the
checks see exactly what they see through a worker.
"""
from __future__ import annotations

import shutil
import sys
import tempfile
import weakref
from typing import Any

import torch

from autograder.assignment import current
from autograder.feedback.i18n import t
from autograder.grading.chunks import SourcePlaces
from autograder.grading.worker.client import Budget, Deadline, Student
from autograder.grading.worker.dispatcher import Dispatcher
from autograder.grading.worker.protocol import decode_value, encode_value

DEFAULT_SEED = 0


def _roundtrip(value: Any) -> Any:
    blobs: list[bytes] = []
    return decode_value(encode_value(value, blobs), blobs)


class InProcessStudent(Student):
    """A Student whose code lives in a namespace of this process (a notebook's globals())."""

    def __init__(self, namespace: dict):
        super().__init__(factory=None, chunks=[],  # type: ignore[arg-type]  # no worker: requests go to the Dispatcher here
                         budget=Budget(total_seconds=float("inf")))
        self._dispatcher = Dispatcher(namespace, current().content("worker_standins"))
        shell = _kernel_shell()
        if shell is not None:  # a frame in a cell is the student's: feedback names it as IPython does
            self._dispatcher.filenames = KernelCells(shell)
        self._dispatcher.channel = lambda message: _roundtrip(self.answer_callback(_roundtrip(message).get("callback")))
        self._root = tempfile.mkdtemp(prefix="attnkit-inprocess-")  # what the student's code writes
        self._remove_root = weakref.finalize(self, shutil.rmtree, self._root, ignore_errors=True)

    def _ensure_worker(self) -> None:  # type: ignore[override]  # there is no worker process to start
        return None

    def _exchange(self, message: dict | None, where: str, timeout: float, deadline: Deadline | None = None) -> dict:  # no time limit in-process
        request = _roundtrip(message or {"op": "ping"})
        request.setdefault("root", self._root)
        with torch.enable_grad():  # gradcheck's backward calls in here with grad mode off
            return _roundtrip(self._dispatcher.handle(request))

    def close(self) -> None:
        self._remove_root()


def _kernel_shell() -> Any:
    """The IPython shell this runs in (a Jupyter kernel: nbgrader), None elsewhere."""
    ipython = sys.modules.get("IPython")
    return ipython.get_ipython() if ipython is not None and hasattr(ipython, "get_ipython") else None


class KernelCells(SourcePlaces):
    """The student's code in a kernel is its cells: IPython compiles each under a file name of its
    own and names its place in tracebacks `Cell In[7], line 3` (7: the cell's execution count, as
    Jupyter shows it beside the cell); feedback names it the same way."""

    def __init__(self, shell: Any) -> None:
        super().__init__()
        self._shell = shell

    def _label(self, filename: object) -> tuple[str, str] | None:
        try:
            label = self._shell.compile.format_code_name(filename)
        except Exception:  # noqa: BLE001 - an IPython without it: no cell is known
            return None
        return label if isinstance(label, tuple) and len(label) == 2 else None

    def __contains__(self, filename: object) -> bool:
        return self._label(filename) is not None

    def where(self, filename: str, line: int) -> str:
        kind, name = self._label(filename) or ("", filename)
        return f"{kind} {name}, line {line}".strip()


def part_points(part: str) -> float:
    """The most points the part is worth (the assignment's manifest; the grader checks that its
    checks add up to it)."""
    return current().part_points[part]


def grade_part(part: str, namespace: dict, seed: int = DEFAULT_SEED, verbose: bool = True) -> float:
    """Run the hidden checks of one part against `namespace`; print visible failures; return the score."""
    from autograder.grading.session import run_checks

    student = InProcessStudent(namespace)
    try:
        results = run_checks(student, seed, frozenset({part}))
    finally:
        student.close()
    score = round(sum(c.points for c in results), 6)
    if verbose:
        for check in results:
            if check.visibility == "visible" and not check.passed:
                print(f"✗ {check.task} {check.name}: {check.message}")
        print(f"Part {part}: {score:g} / {sum(c.max_points for c in results):g}")
    return score


class _Absent:
    """A student with nothing: used only to list a part's checks and their points."""

    def __getattr__(self, name: str):
        from autograder.grading.worker.client import WorkerFailure

        def fail(*args: Any, **kwargs: Any) -> Any:
            raise WorkerFailure(t("note.nothing_to_grade"))

        return fail
