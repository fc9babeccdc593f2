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

from autograder.checks.texts import english
from autograder.results import ERROR, FAILED, PASSED, VISIBILITIES, CheckResult
from autograder.worker.client import NotImplementedYet, StudentError, StudentException

MARKER = "attnkit_check"


class CheckFailure(AssertionError):
    """A check failed; `message` is for the student, `mistake` names a catalogue entry.

    `key` and `values` name the message in autograder.checks.texts.MESSAGES and its arguments, so
    that a page can show it in any language; `message` is its English text (plus the mistake's,
    when one is named). (Not `args`: BaseException owns that name.)
    """

    def __init__(self, message: str, mistake: str = "", mistake_message: str = "", key: str = "", values: dict | None = None, flags: tuple = ()):
        super().__init__(message)
        self.message = message
        self.mistake = mistake
        self.mistake_message = mistake_message
        self.key = key
        self.values = dict(values or {})
        self.flags = tuple(flags)  # autograder.integrity.flags.Flag: for the instructor, never the student

    @classmethod
    def keyed(cls, key: str, mistake: str = "", **args: Any) -> CheckFailure:
        """A failure whose message is MESSAGES[key] (English here), naming `mistake` when given."""
        from autograder.mistakes import MISTAKES

        text = english(key, **args)
        if mistake:
            return cls(f"{text}: {MISTAKES[mistake].en}", mistake, MISTAKES[mistake].en, key, args)
        return cls(text, key=key, values=args)


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
            if error.flags and self._sink is not None:
                self._sink.flags.extend(error.flags)
            return CheckResult(points=0.0, status=FAILED, message=error.message, mistake=error.mistake, mistake_message=error.mistake_message, message_key=error.key, message_args=error.values, **base)
        if isinstance(error, StudentError):
            key, args = student_error_message(error)
            return CheckResult(points=0.0, status=FAILED, message=str(error), message_key=key, message_args=args, **base)
        if isinstance(error, AssertionError):
            return CheckResult(points=0.0, status=FAILED, message=str(error).split("\nassert ")[0], **base)
        if isinstance(error, pytest.skip.Exception):
            return CheckResult(points=0.0, status=ERROR, message=english("check_skipped"), message_key="check_skipped", **base)
        print(f"attnkit: internal error in check {item.nodeid}:", file=sys.stderr)
        traceback.print_exception(error, file=sys.stderr)
        args = {"kind": type(error).__name__}
        return CheckResult(points=0.0, status=ERROR, message=english("internal_error", **args), message_key="internal_error", message_args=args, **base)


def student_error_message(error: StudentError) -> tuple[str, dict[str, str]]:
    """(message key, arguments) for a call into student code that gave no value."""
    if isinstance(error, StudentException):
        where = str(error).split(f" raised {error.kind}:")[0]
        location = f" ({error.frames[-1]})" if error.frames else ""
        return "student_raised", {"where": where, "kind": error.kind, "text": f"{error.text}{location}"}
    if isinstance(error, NotImplementedYet):
        where, _, detail = str(error).partition(": not implemented yet")
        return "not_implemented", {"where": where, "detail": detail}
    return "student_failed", {"text": str(error)}
