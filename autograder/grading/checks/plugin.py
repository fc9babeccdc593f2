"""The pytest plugin that runs the hidden checks in the grader process.

Each check is a pytest test marked with `@check(...)` (part, points, visibility, kind); its hint
comes from the one hint store, autograder.feedback.hints (the result carries the first tier). The
plugin hands every test the `student` proxy (the only way to reach the submission), a seeded
generator, and turns each test's outcome into a CheckResult. It also enforces the scoring policy:

- Nothing for nothing. A check is of one kind: "values" (compares numbers with the reference),
  "shape" (at most a tenth of its part's points, checked when the checks are collected) or
  "property" (no in-place change, invariances, dtype, gradients, rules...). A property check
  names the values checks that gate it (`gate=`); it pays only when they passed.
- Error carried forward. When a check of a later task fails, it runs again with the submission's
  earlier functions replaced by trusted stand-ins (the module the manifest names as `carried`); if it passes then,
  its points are given with a note that says where the mistake is charged. Part F's checks lean
  on earlier components only: they pay only while one of those is still the student's own.
"""
from __future__ import annotations

import functools
import importlib.util
import inspect
import json
import sys
import time
import traceback
import zlib
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable, cast

import pytest
import torch

from autograder.feedback.hints import first_tier
from autograder.assignment import current, words
from autograder.feedback.results import ERROR, FAILED, PASSED, VISIBILITIES, CheckResult
from autograder.grading.worker.api import StudentAPI
from autograder.grading.worker.client import NotImplementedYet, SandboxUnavailable, Student, StudentError, StudentException, WorkerFailure
from autograder.grading.worker.standins import StandInError

MARKER = "attnkit_check"
VALUES, SHAPE, PROPERTY = "values", "shape", "property"
KINDS = (VALUES, SHAPE, PROPERTY)
SHAPE_SHARE = 0.1  # shape checks carry at most this share of a part's points
VALUE_FAILURES = frozenset({"wrong_values", "nan_values"})  # message keys of a check that failed on its values (texts.MESSAGES)


class CheckFailure(AssertionError):
    """A check failed; `message` is for the student, `mistake` names a catalogue entry.

    `key` and `values` name the message (the assignment's texts or the engine's, autograder.feedback.messages) and its arguments, so
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
        self.flags = tuple(flags)  # autograder.grading.integrity.flags.Flag: for the instructor, never the student
        self.carry = True  # False: this task's own doing whatever the earlier tasks did (no second run with stand-ins)

    @classmethod
    def keyed(cls, key: str, mistake: str = "", **args: Any) -> CheckFailure:
        """A failure whose message is MESSAGES[key] (English here), naming `mistake` when given."""
        said = words()
        text = said.english(key, **args)
        if mistake:
            entry = said.mistakes[mistake]
            return cls(f"{text}: {entry.en}", mistake, entry.en, key, args)
        return cls(text, key=key, values=args)


@dataclass(frozen=True)
class CheckInfo:
    task: str
    points: float
    name: str
    visibility: str = "visible"
    kind: str = VALUES
    gates: tuple[str, ...] = ()  # check ids (same task) whose values must be right for this to pay

    @property
    def part(self) -> str:
        return self.task.split(".")[0]


def check(task: str, points: float, name: str, visibility: str = "visible", *, kind: str = VALUES, gate: str | tuple[str, ...] = ()) -> Callable:
    """Mark a test function as a graded check; a property check names its gating values checks."""
    if visibility not in VISIBILITIES:
        raise ValueError(f"visibility must be one of {VISIBILITIES}, not {visibility!r}")
    gates = (gate,) if isinstance(gate, str) else tuple(gate)
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, not {kind!r}")
    if (kind == PROPERTY) != bool(gates):
        raise ValueError(f"check {name!r}: a property check needs gate=(values checks), and only a property check has one")
    return pytest.mark.attnkit_check(CheckInfo(task, float(points), name, visibility, kind, gates))


def check_info(item: pytest.Item) -> CheckInfo:
    marker = item.get_closest_marker(MARKER)
    if marker is None or not marker.args or not isinstance(marker.args[0], CheckInfo):
        raise pytest.UsageError(f"{item.nodeid} is not marked with @check(...)")
    return marker.args[0]


def check_id(item: pytest.Item) -> str:
    return item.name.removeprefix("test_")


def values_checks(task: str) -> list[tuple[Callable, str]]:
    """(check, name) of each values check of `task` that takes no parameters of its own, read from
    its part's check file: for a run that does not collect that file (one part graded)."""
    return _values_checks(current().check_file(task.split(".")[0]), task)


@functools.cache
def _values_checks(path: Path, task: str) -> list[tuple[Callable, str]]:
    spec = importlib.util.spec_from_file_location(f"attnkit_checks_{path.stem}", path)
    if not path.is_file() or spec is None or spec.loader is None:
        return []
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    found = []
    for name, function in vars(module).items():
        marks = [m for m in getattr(function, "pytestmark", []) if m.name == MARKER]
        info = marks[0].args[0] if len(marks) == 1 and marks[0].args else None
        if (name.startswith("test_") and isinstance(info, CheckInfo) and info.task == task and info.kind == VALUES
                and set(inspect.signature(function).parameters) <= {"student", "seed", "gen", "artifacts"}):
            found.append((function, name))
    return found


class AttnkitPlugin:
    """One instance per graded submission."""

    def __init__(self, student: StudentAPI, seed: int, parts: set[str] | None = None, sink: Any = None, *, tasks: set[str] | None = None, visible_only: bool = False):
        self._student = student
        self._seed = seed
        self.parts = parts
        self.tasks = tasks
        self.visible_only = visible_only
        self._sink = sink
        self.results: list[CheckResult] = []
        self.cannot_grade: SandboxUnavailable | None = None  # this machine cannot run student code safely: nothing is graded
        self._started: dict[str, float] = {}
        self._infos: dict[str, CheckInfo] = {}
        self._as_charged_tasks: set[str] = set()  # tasks with a check that passed only given an earlier task's charged mistake
        self._shared: dict[tuple[str, str], bool] = {}  # (earlier task, task) -> whether the task's code may run the earlier one's
        self._passed_alone: dict[str, list[tuple[Callable, str]]] = {}  # task -> (check, name) of each that passed with no stand-in
        self._throughout: dict[tuple[str, str], bool] = {}  # (task, mistake) -> whether the task's code makes it wherever it shows
        self._unrun_named: dict[str, set[str]] = {}  # task of a part not graded in this run -> the mistakes its values checks name (run unscored)
        self._unrun_failed: set[str] = set()  # those tasks whose values checks, run unscored, failed
        self._repairs: dict[str, dict] = {}  # task -> the repair of a helper it shares with an earlier task that made a check of it pass (Part F's plans keep it)
        self._sites: dict[tuple[str, str], list[dict]] = {}  # (earlier task, task) -> the repairs of the helpers both share
        self._repairing: dict[tuple[str, str], bool] = {}  # (task, a repair) -> whether every values check of the task passes with it
        self._repairs_stopped: set[str] = set()  # tasks whose repaired run hit a limit: none of their helpers is tried again

    # -- configuration ---------------------------------------------------------------------
    def pytest_configure(self, config: pytest.Config) -> None:
        config.addinivalue_line("markers", f"{MARKER}(info): a graded attnkit check")

    def pytest_collection_modifyitems(self, session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
        if self.parts is not None:
            kept = [i for i in items if check_info(i).part in self.parts]
            dropped = [i for i in items if check_info(i).part not in self.parts]
            if dropped:
                config.hook.pytest_deselected(items=dropped)
                items[:] = kept
        self._infos = {check_id(i): check_info(i) for i in items}
        problems = policy_problems(self._infos) + manifest_problems(self._infos, current().part_points)  # whole parts, before a task/visibility selection
        if problems:
            raise pytest.UsageError("the hidden checks break the scoring policy: " + "; ".join(problems))
        dropped = [i for i in items if not self._selected(check_info(i))]
        if dropped:  # attnkit check / watch: some tasks, visible checks only
            config.hook.pytest_deselected(items=dropped)
            items[:] = [i for i in items if self._selected(check_info(i))]

    def _selected(self, info: CheckInfo) -> bool:
        return ((self.parts is None or info.part in self.parts) and (self.tasks is None or info.task in self.tasks)
                and (info.visibility == "visible" or not self.visible_only))

    # -- fixtures --------------------------------------------------------------------------
    @pytest.fixture
    def student(self) -> StudentAPI:
        return self._student

    @pytest.fixture
    def artifacts(self) -> Any:
        """Where checks put images for the feedback (an autograder.grading.session.ArtifactSink); None
        when nothing will show them (the checks then render none)."""
        return self._sink if getattr(self._sink, "render", True) else None

    @pytest.fixture
    def seed(self, request: pytest.FixtureRequest) -> int:
        """A seed per check: the run's seed mixed with the check's name (stable across runs)."""
        return check_seed(self._seed, request.node.name)

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
        error = _outcome(function, kwargs)
        note: tuple[str, dict] | None = None
        if error is not None and self._may_carry(pyfuncitem, error):
            error, note = self._carried(pyfuncitem, function, error)
        elif error is None:
            error = self._undoing(pyfuncitem, function)
        if isinstance(error, SandboxUnavailable):  # no check can run: the run stops, run_checks raises it
            self.cannot_grade = error
            pyfuncitem.session.shouldstop = str(error)
            return True
        result = self._result(pyfuncitem, error)
        if error is None and note is None:
            self._passed_alone.setdefault(result.task, []).append((function, pyfuncitem.name))
        if error is None and note is not None:  # passed with trusted stand-ins: say where the mistake is charged
            key, args = note
            result = replace(result, message=words().english(key, **args), message_key=key, message_args=args)
        if isinstance(self._student, Student) and self._student.holds_private():
            result = private(result)
        self.results.append(result)
        return True

    # -- error carried forward ---------------------------------------------------------------
    def _may_carry(self, item: pytest.Function, error: Exception) -> bool:
        carried = current().carried_module()
        trusted_kind = isinstance(error, (CheckFailure, StudentError, AssertionError)) and getattr(error, "carry", True)
        return carried is not None and trusted_kind and isinstance(self._student, Student) and bool(carried.earlier_tasks(check_info(item).task))

    def _carried(self, item: pytest.Function, function: Callable, error: Exception) -> tuple[Exception | None, tuple[str, dict] | None]:
        """Run the check again with trusted stand-ins for the earlier tasks' functions, in each
        way `carried.plans` gives (one for B-D; Part F tries the student's own components first).

        Passing then (with a replaced task among those that lost points, passed only given a charged
        mistake, or are not graded yet): no error, and a note naming where the mistake is charged. Failing then: the
        failure of this task's own code (the second run's), unless it says less than the first.
        A Part F check whose every component lost points elsewhere, and that no plan with one of
        them the student's own passes, fails saying so.
        """
        carried = current().carried_module()
        assert carried is not None  # _may_carry said yes

        info = check_info(item)
        tasks = carried.earlier_tasks(info.task)
        graded = {r.task for r in self.results if r.task in tasks}
        failed = {r.task for r in self.results if r.task in tasks and not r.passed}
        doubtful = failed | (self._as_charged_tasks & set(tasks)) | (set(tasks) - graded)  # not graded yet: in a later part, or not in this run
        second: Exception | None = None
        for number, how in enumerate(carried.plans(info.task, failed | (self._as_charged_tasks & set(tasks)), graded)):
            if not doubtful & set(how.replaced):  # each earlier task passed its own checks: a stand-in that helps marks a mistake charged nowhere (qa28h z02)
                continue
            kwargs = self._kwargs(function, item.name)
            repairs = [repair for earlier, repair in self._repairs.items() if earlier in tasks and earlier not in how.replaced]  # a component kept, right once repaired
            with self._student.stand_ins(list(how.names), carried.trusted_answer), cast(Student, self._student).repairing(repairs):
                outcome = _outcome(function, kwargs)
            if isinstance(outcome, SandboxUnavailable):
                return outcome, None
            if outcome is None:
                return None, carried.carried_note(sorted(failed & set(how.replaced)), how.replaced, self._stubs())
            second = outcome if number == 0 else second
        sharing = carried.sharing_tasks(info.task)
        note = self._as_charged(item, function, info.task, {r.task for r in self.results if r.task in sharing and not r.passed})
        if note is not None:
            return None, note
        if carried.nothing_own(info.task, failed):  # every component it leans on is charged elsewhere
            key, args = carried.nothing_own_note(info.task)
            return CheckFailure(words().english(key, **args), key=key, values=args), None
        if second is None:  # nothing to try
            return error, None
        if isinstance(second, CheckFailure) or (isinstance(second, StudentError) and not isinstance(error, CheckFailure)):
            return second, None
        return error, None

    def _undoing(self, item: pytest.Function, function: Callable) -> Exception | None:
        """A check that passes with the student's own functions of earlier tasks, some of which
        lost points, is graded again with trusted stand-ins for them (as a failing one is): each
        task is graded as it would be once the earlier ones are right. Failing then, on values
        (a CheckFailure), this task's code undoes an earlier mistake (scores left unscaled in A.1,
        divided again in C.3: qa52s p06) and is charged here too; a stand-in that cannot take the
        call (StudentError: a further argument, an attribute it lacks) charges nothing."""
        carried = current().carried_module()
        info = check_info(item)
        task = info.task
        if carried is None or not isinstance(self._student, Student) or not carried.carries_mistakes(task):
            return None
        if info.kind != VALUES and info.gates:  # its gate, graded again, answers for it: a property pays on right values only
            return None
        tasks = carried.earlier_tasks(task)
        graded = {r.task for r in self.results if r.task in tasks}
        failed = {r.task for r in self.results if r.task in tasks and not r.passed} | {t for t in set(tasks) - graded if self._failed_unrun(t)}
        if not failed:
            return None
        undone: CheckFailure | None = None
        for how in carried.plans(task, failed, graded):
            repairs = [repair for earlier, repair in self._repairs.items() if earlier in tasks and earlier not in how.replaced]
            with self._student.stand_ins(list(how.names), carried.trusted_answer), self._student.repairing(repairs):
                outcome = _outcome(function, self._kwargs(function, item.name))
            if outcome is None or isinstance(outcome, SandboxUnavailable):
                return outcome
            if not isinstance(outcome, CheckFailure):
                return None
            undone = undone or outcome
        if undone is None:
            return None
        charged = sorted(failed)
        args = {"tasks": ", ".join(charged), "text": undone.message}
        failure = CheckFailure(words().english("scoring_undoes", **args), undone.mistake, undone.mistake_message, "scoring_undoes", args, undone.flags)
        failure.carry = False
        return failure

    def _stubs(self) -> frozenset[str]:
        """The tasks graded so far whose every check found the function not written yet."""
        keys: dict[str, set[str]] = {}
        for result in self.results:
            keys.setdefault(result.task, set()).add(result.message_key)
        return frozenset(task for task, found in keys.items() if found == {"not_implemented"})

    def _as_charged(self, item: pytest.Function, function: Callable, task: str, failed: set[str]) -> tuple[str, dict] | None:
        """The note of a check that passes against the reference given a mistake already charged
        in an earlier task, where this task's code runs code of that task's own (a class both use:
        no stand-in replaces it); None otherwise. A second copy of the same mistake, written again
        in this task's own code, is charged again (qa5x m40), though the earlier task's function be
        named in code that never runs (qa35h x02)."""
        carried = current().carried_module()
        assert carried is not None
        named = {(r.task, r.mistake) for r in self.results if r.task in failed and r.mistake}
        for earlier in carried.sharing_tasks(task) if carried.carries_mistakes(task) else ():
            if self.parts is not None and self.tasks is None and earlier.split(".")[0] not in self.parts and self._shares_code(earlier, task):
                named |= {(earlier, key) for key in self._named_unrun(earlier)}
        for earlier, key in carried.carried_mistakes(task, named):
            if not self._shares_code(earlier, task) or not self._makes_throughout(earlier, key):
                continue
            for way in range(carried.ways(key)):
                try:
                    with carried.reference_with(key, way), cast(Student, self._student).noting_shared_code([current().task_names[earlier]], self._besides(earlier)) as ran:
                        outcome = _outcome(function, self._kwargs(function, item.name))
                except StudentError:  # the worker could not start watching: not shared
                    break
                if outcome is None and ran == [True]:  # that task's own code ran: the mistake may be its alone
                    self._as_charged_tasks.add(task)  # its own code holds that mistake: a later check that leans on it may have it replaced
                    return carried.carried_note([earlier], (earlier,))
        return self._given_own(item, function, task, failed) or self._repaired(item, function, task, failed)

    def _given_own(self, item: pytest.Function, function: Callable, task: str, failed: set[str]) -> tuple[str, dict] | None:
        """The note of a check that passes against the reference built on the student's own
        functions of earlier tasks (`carried.reference_on`) that lost points (or are graded in
        another run, and fail their values checks), where this task's code runs code of theirs: a mistake of a helper both use
        that no catalogue mistake names (qa40s d21), or one a stand-in could not take over
        (a further argument: d39). Each such task alone."""
        carried = current().carried_module()
        assert carried is not None
        if not carried.carries_mistakes(task):  # Part F: its plans say which components are the student's (and its reference model, built once, must not be built on them)
            return None
        names = current().task_names
        own = [t for t in carried.sharing_tasks(task) if t in getattr(carried, "OWN_FUNCTIONS", ()) and t in names
               and (t in failed or self._failed_unrun(t)) and self._shares_code(t, task)]
        student = cast(Student, self._student)
        for chosen in [[t] for t in own]:  # one at a time: the code it runs must be the code with the mistake (together, any one of them would do)
            calls = [names[t] for t in chosen]
            with carried.reference_on(student, calls):
                if _outcome(function, self._kwargs(function, item.name)) is not None:
                    continue
            besides = sorted({name for t in chosen for name in self._besides(t)} - set(calls))
            try:  # again against the reference, noting whether this task's code ran theirs (the calls above did)
                with student.noting_shared_code(calls, besides) as ran:
                    _outcome(function, self._kwargs(function, item.name))
            except StudentError:
                continue
            if ran == [True]:
                self._as_charged_tasks.add(task)
                charged = [t for t in chosen if t in failed]
                return carried.carried_note(charged, tuple(chosen))
        return None

    def _repaired(self, item: pytest.Function, function: Callable, task: str, failed: set[str]) -> tuple[str, dict] | None:
        """The note of a check that passes, with the earlier tasks' stand-ins, once a helper of the
        student's own that this task's code and an earlier task's both run does what the contract
        asks of it (`carried.repairs`: the module it is given called on the tensor, the three
        projections, the trusted attention), where the same repair makes every values check of the
        earlier task pass, one of which lost points: a mistake no catalogue names in code both
        share, charged once, in the earlier task (qa42s b08, b29, b30; qa40s d17)."""
        carried = current().carried_module()
        assert carried is not None
        if not carried.carries_mistakes(task) or not hasattr(carried, "repairs"):
            return None
        names, student = current().task_names, cast(Student, self._student)
        stand_ins = carried.stand_in_names(carried.earlier_tasks(task))
        for earlier in carried.sharing_tasks(task):
            if earlier not in names or not self._values_failed(earlier) or not self._shares_code(earlier, task):
                continue
            if (earlier, task) not in self._sites:
                try:
                    sites = student.shared_helpers([names[earlier]], [names[task]], self._besides(earlier))
                    self._sites[earlier, task] = carried.repairs([s for s in sites if s.get("owner") is not None or s.get("name") not in names.values()])  # a task's function has a stand-in
                except StudentError:
                    self._sites[earlier, task] = []
            for repair in self._sites[earlier, task]:
                if not self._mends(earlier, repair):  # first (once for every check): it rarely does
                    continue
                with student.stand_ins(stand_ins, carried.trusted_answer), student.repairing([repair]):
                    if _outcome(function, self._kwargs(function, item.name)) is not None:
                        continue
                self._as_charged_tasks.add(task)
                if task not in self._repairs:  # with what it noted, for Part F's private worker
                    try:
                        self._repairs[task] = {**repair, "seen": student.repair_layouts(repair), "deviation": student.repair_deviation(repair)[1]}
                    except StudentError:
                        pass
                return carried.carried_note([earlier] if earlier in failed else [], (earlier,))
        return None

    def _values_failed(self, task: str) -> bool:
        """Whether a values check of `task` lost points in this run (a part not graded here: fails, run unscored)."""
        graded = [r for r in self.results if r.task == task]
        if not graded:
            return self._failed_unrun(task)
        checks = {name.removeprefix("test_") for _, name in values_checks(task)}
        return any(not r.passed and r.check_id in checks for r in graded)

    def _mends(self, task: str, repair: dict) -> bool:
        """Whether `repair` mends `task`'s values: with its earlier tasks' stand-ins, no values
        check of the task that passed fails, and one that failed passes, or the helper's own values
        differ from the repair's on the task's calls as a mistake in a helper of that kind does,
        not grossly (a second mistake of the task's own may keep every check failing: qa44s d02,
        d10). Its calls teach the repair how the task lays out the helper's arguments and how far
        the helper's own values are from it (`repairing(learn=True)`)."""
        key = (task, json.dumps(repair, sort_keys=True))
        if key not in self._repairing:
            carried = current().carried_module()
            assert carried is not None
            student = cast(Student, self._student)
            passed = self._values_passed(task)
            mended, broken = False, task in self._repairs_stopped
            with student.stand_ins(carried.stand_in_names(carried.earlier_tasks(task)), carried.trusted_answer), student.repairing([repair], learn=True):
                for check, name in values_checks(task) if not broken else ():
                    outcome = _outcome(check, self._kwargs(check, name))
                    if isinstance(outcome, WorkerFailure):  # a limit (a hang): no more repairs of this task, each would cost one
                        self._repairs_stopped.add(task)
                    if (outcome is not None and name in passed) or isinstance(outcome, WorkerFailure):
                        broken = True
                        break
                    mended = mended or (outcome is None and name not in passed)
            try:
                self._repairing[key] = not broken and (mended or student.repair_deviation(repair)[0])
            except StudentError:
                self._repairing[key] = False
        return self._repairing[key]

    def _values_passed(self, task: str) -> set[str]:
        """The values checks of `task` (by function name) that passed in this run, with stand-ins or
        not (a part not graded here: those that passed, run unscored)."""
        graded = {r.check_id: r.passed for r in self.results if r.task == task}
        if not graded:
            self._failed_unrun(task)
            return {name for _, name in self._passed_alone.get(task, [])}
        return {name for _, name in values_checks(task) if graded.get(name.removeprefix("test_"))}

    def _failed_unrun(self, task: str) -> bool:
        """Whether an earlier task of a part this run does not grade fails a values check, run
        here unscored (a part graded alone pays as in a full run: qa39s F4)."""
        if self.parts is None or self.tasks is not None or task.split(".")[0] in self.parts:
            return False
        self._named_unrun(task)
        return task in self._unrun_failed

    def _named_unrun(self, task: str) -> set[str]:
        """The mistakes that `task`'s values checks name, run here unscored: a part graded alone
        (nbgrader grades one at a time) repeats through code it shares the mistake of an earlier
        part this run does not grade, which that part's own run charges (qa39s F4)."""
        if task not in self._unrun_named:
            named = set()
            for function, name in values_checks(task):
                outcome = _outcome(function, self._kwargs(function, name))
                if outcome is None:
                    self._passed_alone.setdefault(task, []).append((function, name))
                else:
                    self._unrun_failed.add(task)
                    if isinstance(outcome, CheckFailure) and outcome.mistake:
                        named.add(outcome.mistake)
            self._unrun_named[task] = named
        return self._unrun_named[task]

    def _shares_code(self, earlier: str, task: str) -> bool:
        """Whether `task`'s code may run code of `earlier`'s own (read, not run: a first sieve)."""
        if (earlier, task) not in self._shared:
            names = current().task_names
            try:
                self._shared[earlier, task] = cast(Student, self._student).shared_code([names[earlier]], [names[task]], self._besides(earlier))
            except StudentError:  # the worker could not tell: not shared
                self._shared[earlier, task] = False
        return self._shared[earlier, task]

    def _besides(self, earlier: str) -> list[str]:
        """An earlier part's functions that `earlier` calls: stand-ins reach them."""
        names = current().task_names
        carried = current().carried_module()
        assert carried is not None
        return [names[t] for t in carried.earlier_tasks(earlier) if t in names and t[0] < earlier[0]]

    def _makes_throughout(self, task: str, key: str) -> bool:
        """Whether `task`'s code makes the mistake `key` wherever it would show: no check of the
        task that passed on its own fails against the reference with the mistake planted. A mistake
        made in one case alone (scores divided by d for 2-D inputs only: one point) does not answer
        for a later task's values (qa28h x01: that later task divided by d in its own code)."""
        if (task, key) not in self._throughout:
            carried = current().carried_module()
            assert carried is not None  # a mistake is carried
            with carried.reference_with(key):
                self._throughout[task, key] = all(_outcome(function, self._kwargs(function, name)) is None for function, name in self._passed_alone.get(task, []))
        return self._throughout[task, key]

    def _kwargs(self, function: Callable, name: str) -> dict[str, Any]:
        """A check's arguments for a second run: the same seed, a fresh generator, no artifacts."""
        seed = check_seed(self._seed, name)
        parameters = inspect.signature(function).parameters
        values = {"student": self._student, "seed": seed, "artifacts": None}
        if "gen" in parameters:  # made only for a check that takes one
            values["gen"] = torch.Generator().manual_seed(seed)
        return {parameter: values[parameter] for parameter in parameters}

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo) -> Any:
        report = yield
        if report.when == "setup" and report.failed and call.excinfo is not None:
            self.results.append(self._result(item, call.excinfo.value))
        return report

    # -- nothing for nothing ------------------------------------------------------------------
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        """A passed property check whose gating values check failed earns nothing; one that failed
        on its own call's values while its gate failed shows the gate's reason (the same values
        mistake, said once: a property pays only on right values, so it also compares them)."""
        passed = {r.check_id for r in self.results if r.passed}
        names = {r.check_id: r.name for r in self.results}
        for index, result in enumerate(self.results):
            info = self._infos.get(result.check_id)
            if info is None or not (result.passed or result.message_key in VALUE_FAILURES):
                continue
            failed = [g for g in info.gates if g not in passed]
            if failed:
                gate = "; ".join(names.get(g, g) for g in failed)
                args = {"gate": gate, "gate_ids": ",".join(failed)}
                self.results[index] = replace(result, points=0.0, status=FAILED, message=words().english("scoring_gated", **args), message_key="scoring_gated", message_args=args, mistake="", mistake_message="")

    def _result(self, item: pytest.Item, error: BaseException | None) -> CheckResult:
        info = check_info(item)
        duration = time.perf_counter() - self._started.get(item.nodeid, time.perf_counter())
        base: dict[str, Any] = dict(check_id=check_id(item), name=info.name, part=info.part, task=info.task, max_points=info.points, hint=first_tier(check_id(item), info.task, "en", current().hint_tables(), getattr(error, "key", "") or ""), visibility=info.visibility, duration=round(duration, 4))
        if error is None:
            return CheckResult(points=info.points, status=PASSED, **base)
        if isinstance(error, CheckFailure):
            if error.flags and self._sink is not None:
                self._sink.flags.extend(error.flags)
            return CheckResult(points=0.0, status=FAILED, message=error.message, mistake=error.mistake, mistake_message=error.mistake_message, message_key=error.key, message_args=error.values, **base)
        if isinstance(error, StudentError):
            key, args = student_error_message(error)
            message = words().english(key, **args) if key == "stand_in_refused" else str(error)
            return CheckResult(points=0.0, status=FAILED, message=message, message_key=key, message_args=args, **base)
        if isinstance(error, AssertionError):
            return CheckResult(points=0.0, status=FAILED, message=str(error).split("\nassert ")[0], **base)
        if isinstance(error, pytest.skip.Exception):
            return CheckResult(points=0.0, status=ERROR, message=words().english("check_skipped"), message_key="check_skipped", **base)
        _tell_grader(item.nodeid, error)
        args = {"kind": type(error).__name__}
        return CheckResult(points=0.0, status=ERROR, message=words().english("internal_error", **args), message_key="internal_error", message_args=args, **base)


def _tell_grader(nodeid: str, error: BaseException) -> None:
    """The grader's own error, with its traceback, on the grader's stderr. A stderr that cannot be
    written (closed, or a pipe whose reader left: `grade-batch ... 2>&1 | head -1`) must not lose
    the check's result: the error raised here dropped it from the stored results (qa20h)."""
    try:
        print(f"attnkit: internal error in check {nodeid}:", file=sys.stderr)
        traceback.print_exception(error, file=sys.stderr)
    except (OSError, ValueError):  # BrokenPipeError; ValueError: I/O operation on closed file
        pass


PRIVATE_SAFE_ARGS = frozenset({"where", "sentence", "head", "expected", "threshold", "gate", "gate_ids", "problem_key", "components", "tasks", "parts"})  # the grader's own values
HIDDEN_VALUE = "…"


def private(result: CheckResult) -> CheckResult:
    """A result made while the worker holds private data (the Part F reference weights): every
    value the submission's code returned there could encode them (qa19h: 4,288 weights exactly
    through load_state_dict's key names, a type's name, a returned shape), so the message keeps
    its key, the grader's own arguments and a named mistake (the catalogue's few bits), and shows
    "…" for every other argument; a message without a key is not shown. A call that gave no value
    is said by the client, which leaves out the worker's words there (worker/client.py)."""
    if result.passed:
        return result
    if result.message_key in ("student_failed", "student_raised", "not_implemented"):  # the client said them without the worker's words
        return result
    if not result.message_key:
        return replace(result, message=words().english("private_hidden"), message_key="private_hidden", message_args={}, mistake="", mistake_message="")
    args = {name: (value if name in PRIVATE_SAFE_ARGS else HIDDEN_VALUE) for name, value in result.message_args.items()}
    text = words().english(result.message_key, **args)
    return replace(result, message=f"{text}: {result.mistake_message}" if result.mistake else text, message_args=args)


def student_error_message(error: StudentError) -> tuple[str, dict[str, str]]:
    """(message key, arguments) for a call into student code that gave no value."""
    if isinstance(error, StudentException):
        where = str(error).split(f" raised {error.kind}:")[0]
        location = f" ({error.frames[-1]})" if error.frames else ""
        if error.kind == StandInError.__name__:  # a trusted stand-in stopped: the kit's class name is no news to a student
            return "stand_in_refused", {"where": where, "text": f"{error.text}{location}"}
        return "student_raised", {"where": where, "kind": error.kind, "text": f"{error.text}{location}"}
    if isinstance(error, NotImplementedYet):
        where, _, detail = str(error).partition(": not implemented yet")
        return "not_implemented", {"where": where, "detail": detail}
    return "student_failed", {"text": str(error)}


def _outcome(function: Callable, kwargs: dict) -> Exception | None:
    try:
        function(**kwargs)
    except Exception as error:  # noqa: BLE001 - every outcome becomes a CheckResult
        caught = error
    else:
        return None
    chain: list[BaseException] = [caught]
    while len(chain) < 100 and (earlier := chain[-1].__cause__ or chain[-1].__context__) is not None and earlier not in chain:
        chain.append(earlier)
    for each in chain:  # the check's frames let go of their locals now (a student's 250 MB reply in each: 4.5 GB before the next collection, qa25h)
        traceback.clear_frames(each.__traceback__)  # the traceback itself stays, for an internal error's report
    return caught


def check_seed(run_seed: int, name: str) -> int:
    return (run_seed * 1_000_003 + zlib.crc32(name.encode())) % (2**31)


def policy_problems(infos: dict[str, CheckInfo]) -> list[str]:
    """What breaks the scoring policy: shape points over a tenth of a part, gates that do not
    name a values check of the same task (a task's checks are always selected together)."""
    problems = []
    for part in sorted({i.part for i in infos.values()}):
        checks = [i for i in infos.values() if i.part == part]
        shape, whole = sum(i.points for i in checks if i.kind == SHAPE), sum(i.points for i in checks)
        if shape > SHAPE_SHARE * whole + 1e-9:
            problems.append(f"part {part}: shape checks carry {shape:g} of {whole:g} points (at most {SHAPE_SHARE:.0%})")
    for cid, info in infos.items():
        for gate in info.gates:
            target = infos.get(gate)
            if target is None or target.task != info.task or target.kind != VALUES:
                problems.append(f"{cid}: gate {gate!r} is not a values check of task {info.task}")
            elif info.visibility == "visible" and target.visibility != "visible":
                problems.append(f"{cid}: its gate {gate!r} is not visible, but its message names it")
    return problems


def manifest_problems(infos: dict[str, CheckInfo], points: dict[str, float]) -> list[str]:
    """Where the checks disagree with the manifest: a part it does not name, or a part whose
    checks add up to other points than it says (every collected part is whole here)."""
    problems = []
    for part in sorted({i.part for i in infos.values()}):
        total = round(sum(i.points for i in infos.values() if i.part == part), 6)
        if part not in points:
            problems.append(f"part {part}: not in the assignment's manifest (parts: {', '.join(points)})")
        elif abs(total - points[part]) > 1e-9:
            problems.append(f"part {part}: its checks carry {total:g} points, the manifest says {points[part]:g}")
    return problems
