"""The pytest plugin that runs the hidden checks in the grader process.

Each check is a pytest test marked with `@check(...)` (part, points, visibility, hint). The
plugin hands every test the `student` proxy (the only way to reach the submission), a seeded
generator, and turns each test's outcome into a CheckResult.
"""
from __future__ import annotations

import inspect
import sys
import time
import traceback
import zlib
from dataclasses import dataclass
from typing import Any, Callable

import pytest
import torch

from autograder.results import ERROR, FAILED, PASSED, VISIBILITIES, CheckResult
from autograder.worker.client import StudentError

MARKER = "attnkit_check"


class CheckFailure(AssertionError):
    """A check failed; `message` is for the student, `mistake` names a catalogue entry."""

    def __init__(self, message: str, mistake: str = "", mistake_message: str = ""):
        super().__init__(message)
        self.message = message
        self.mistake = mistake
        self.mistake_message = mistake_message


@dataclass(frozen=True)
class CheckInfo:
    task: str
    points: float
    name: str
    hint: str = ""
    visibility: str = "visible"

    @property
    def part(self) -> str:
        return self.task.split(".")[0]


def check(task: str, points: float, name: str, hint: str = "", visibility: str = "visible") -> Callable:
    """Mark a test function as a graded check."""
    if visibility not in VISIBILITIES:
        raise ValueError(f"visibility must be one of {VISIBILITIES}, not {visibility!r}")
    return pytest.mark.attnkit_check(CheckInfo(task, float(points), name, hint, visibility))


def check_info(item: pytest.Item) -> CheckInfo:
    marker = item.get_closest_marker(MARKER)
    if marker is None or not marker.args or not isinstance(marker.args[0], CheckInfo):
        raise pytest.UsageError(f"{item.nodeid} is not marked with @check(...)")
    return marker.args[0]


def check_id(item: pytest.Item) -> str:
    return item.name.removeprefix("test_")


class AttnkitPlugin:
    """One instance per graded submission."""

    def __init__(self, student: Any, seed: int, parts: set[str] | None = None, sink: Any = None):
        self._student = student
        self._seed = seed
        self.parts = parts
        self._sink = sink
        self.results: list[CheckResult] = []
        self._started: dict[str, float] = {}

    # -- configuration ---------------------------------------------------------------------
    def pytest_configure(self, config: pytest.Config) -> None:
        config.addinivalue_line("markers", f"{MARKER}(info): a graded attnkit check")

    def pytest_collection_modifyitems(self, session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
        if self.parts is None:
            return
        kept = [i for i in items if check_info(i).part in self.parts]
        dropped = [i for i in items if check_info(i).part not in self.parts]
        if dropped:
            config.hook.pytest_deselected(items=dropped)
            items[:] = kept

    # -- fixtures --------------------------------------------------------------------------
    @pytest.fixture
    def student(self) -> Any:
        return self._student

    @pytest.fixture
    def artifacts(self) -> Any:
        """Where checks put images for the feedback (an autograder.grading.ArtifactSink)."""
        return self._sink

    @pytest.fixture
    def seed(self, request: pytest.FixtureRequest) -> int:
        """A seed per check: the run's seed mixed with the check's name (stable across runs)."""
        return (self._seed * 1_000_003 + zlib.crc32(request.node.name.encode())) % (2**31)

    @pytest.fixture
    def gen(self, seed: int) -> torch.Generator:
        return torch.Generator().manual_seed(seed)

    # -- outcomes --------------------------------------------------------------------------
    def pytest_runtest_setup(self, item: pytest.Item) -> None:
        self._started[item.nodeid] = time.perf_counter()

    @pytest.hookimpl(tryfirst=True)
    def pytest_pyfunc_call(self, pyfuncitem: pytest.Function) -> bool:
        """Run the check ourselves and record its outcome; pytest then sees it as done.

        This keeps pytest from formatting a traceback for every failed check (slow, and the
        student never sees those tracebacks anyway).
        """
        function = pyfuncitem.obj
        kwargs = {name: pyfuncitem.funcargs[name] for name in inspect.signature(function).parameters}
        try:
            function(**kwargs)
        except Exception as error:  # noqa: BLE001 - every outcome becomes a CheckResult
            self.results.append(self._result(pyfuncitem, error))
        else:
            self.results.append(self._result(pyfuncitem, None))
        return True

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo) -> Any:
        report = yield
        if report.when == "setup" and report.failed and call.excinfo is not None:
            self.results.append(self._result(item, call.excinfo.value))
        return report

    def _result(self, item: pytest.Item, error: BaseException | None) -> CheckResult:
        info = check_info(item)
        duration = time.perf_counter() - self._started.get(item.nodeid, time.perf_counter())
        base = dict(check_id=check_id(item), name=info.name, part=info.part, task=info.task, max_points=info.points, hint=info.hint, visibility=info.visibility, duration=round(duration, 4))
        if error is None:
            return CheckResult(points=info.points, status=PASSED, **base)
        if isinstance(error, CheckFailure):
            return CheckResult(points=0.0, status=FAILED, message=error.message, mistake=error.mistake, mistake_message=error.mistake_message, **base)
        if isinstance(error, StudentError):
            return CheckResult(points=0.0, status=FAILED, message=str(error), **base)
        if isinstance(error, AssertionError):
            return CheckResult(points=0.0, status=FAILED, message=str(error).split("\nassert ")[0], **base)
        if isinstance(error, pytest.skip.Exception):
            return CheckResult(points=0.0, status=ERROR, message="the check was skipped", **base)
        print(f"attnkit: internal error in check {item.nodeid}:", file=sys.stderr)
        traceback.print_exception(error, file=sys.stderr)
        return CheckResult(points=0.0, status=ERROR, message=f"the grader could not run this check ({type(error).__name__}); tell your instructor", **base)
