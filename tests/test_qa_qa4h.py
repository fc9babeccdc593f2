"""qa4h's hostile corpus (tests/qa/qa4h/): rules no submission can switch off, a grader no
submission can stall, submissions of a batch that cannot reach each other.

Every file there is graded in ONE batch (`grade_batch`, two grader processes, Part A) with three
copies of the reference mixed in. A file whose first line is `# snippet` is appended to the
reference (tests/batches.py's convention), so what it does not break must keep its points. For
each: its Part A score (exact, or at most where the limit that stops it may vary), a phrase its
feedback must hold, and afterwards no process of any worker's uid and no scratch folder left.
The correct copies keep 32/32: the hostile ones changed nothing for them.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from autograder.grading.batch import grade_batch
from autograder.grading.session import GradeOptions
from autograder.grading.worker.client import Budget, WorkerFactory
from autograder.grading.worker.sandbox import UID_BASE, is_root

from tests.test_hostile import wait_for_no_processes

REPO = Path(__file__).resolve().parents[1]
CORPUS = REPO / "tests" / "qa" / "qa4h"
# qa4h's payloads that tests/test_bypass.py and tests/test_hostile.py also grade live there, once
ELSEWHERE = {**{name: REPO / "tests" / "bypass" for name in ('attrgetter_route', 'class_body', 'config_resolve', 'decorator_install', 'default_argument', 'forged_trace_frame', 'formatter_field', 'getattr_as_value', 'import_time_helper', 'module_alias_binding', 'reduce_getattr', 'resolve_name', 'thread_route', 'timeit_exec', 'type_hints_eval', 'unpickle_lookup', 'written_module')},
             **{name: REPO / "tests" / "hostile" for name in ("callback_stall", "callback_large", "slow_trickle")}}
REFERENCE = REPO / "solutions" / "attention" / "attention.py"
# A correct submission cannot reach these on a busy machine; every hang here stops at the call limit.
BUDGET = Budget(call_seconds=5, import_seconds=20, total_seconds=180)
FULL = 32  # Part A
TIMED_OUT = f"timed out after {BUDGET.call_seconds:.0f} s in causal_mask"
HIDDEN = "cannot be checked"  # a traced rule whose evidence the source makes worthless

# name -> (Part A score, exact?, a phrase the feedback holds or "")
EXPECTED: dict[str, tuple[float, bool, str]] = {
    # a. switching a rule off: each route now fails the rule it dodged (A.2 by hand: 2 points; A.3: 1)
    "import_time_helper": (29, True, HIDDEN),
    "decorator_install": (29, True, HIDDEN),
    "default_argument": (29, True, HIDDEN),
    "class_body": (29, True, HIDDEN),
    "module_alias_binding": (29, True, HIDDEN),
    "getattr_as_value": (29, True, HIDDEN),
    "attrgetter_route": (29, True, HIDDEN),
    "reduce_getattr": (30, True, HIDDEN),
    "formatter_field": (30, True, HIDDEN),
    "resolve_name": (29, True, HIDDEN),
    "thread_route": (29, True, HIDDEN),
    "dataloader_process": (30, False, ""),
    "timeit_exec": (29, True, HIDDEN),
    "type_hints_eval": (29, True, HIDDEN),  # qa10h: its string annotation is code that may run at import: A.3 too
    "config_resolve": (29, True, HIDDEN),
    "unpickle_lookup": (30, True, HIDDEN),
    "written_module": (30, True, HIDDEN),
    "forged_trace_frame": (30, True, "masked_softmax uses Categorical, softmax"),  # the traces of its other calls saw the library (qa20h); its Categorical is a banned name too (qa25h)
    # a. points without the values
    "nan_tricks": (2, False, ""),
    "eq_anything": (14, False, "returned an object of type"),
    # b. stalling or crashing the grader
    "slow_trickle": (28, True, TIMED_OUT),
    # its A.3 stalls only beside a stand-in; graded against the reference with A.1's charged mistake
    # planted (the code it shares with A.1, round 25), A.3's values checks pass given its own A.1
    "callback_stall": (25, True, f"timed out after {BUDGET.call_seconds:.0f} s in scaled_dot_product_attention"),
    "callback_large": (27, True, "its attention weights would hold"),
    "looping_exception_str": (28, True, TIMED_OUT),
    "metaclass_name_loop": (25, True, TIMED_OUT),  # and its metaclass's __getattribute__ runs at import: both traced rules 0
    "giant_matmul": (28, True, TIMED_OUT),
    "sigterm_sigchld": (28, True, TIMED_OUT),
    "c_stack_recursion": (28, True, "causal_mask"),
    "nested_return": (28, True, "causal_mask raised RecursionError"),
    "many_blobs": (28, True, "causal_mask"),
    "big_tensor_return": (28, True, "causal_mask"),
    "stdout_into_socket": (28, True, "causal_mask"),
    "patch_worker_json": (0, True, "invalid reply"),
    "itimer_raises": (FULL, False, ""),
    "stdin_and_limits": (FULL, True, ""),
    "faulthandler_spam": (FULL, True, ""),
    # c. reaching the other submissions of the batch
    "leave_traces": (29, True, HIDDEN),
    "read_traces": (FULL, True, "found: []"),
}
CORRECT = ("correct_a", "correct_b", "correct_c")


def corpus() -> list[Path]:
    return sorted(CORPUS.glob("*.py")) + [folder / f"{name}.py" for name, folder in ELSEWHERE.items()]


def test_corpus_is_complete():
    assert sorted(p.stem for p in corpus()) == sorted(EXPECTED)


@pytest.mark.skipif(not is_root(), reason="needs root: without the chroot, leave_traces would write into this machine's /tmp")
@pytest.mark.timing
@pytest.mark.slow
def test_hostile_corpus_in_one_batch_earns_nothing_unearned_and_harms_no_one(tmp_path, monkeypatch):
    keepers = tmp_path / "keepers.txt"
    original_take = WorkerFactory.take

    def recording_take(self, requested):  # inherited by the pool's forked processes
        worker = original_take(self, requested)
        with open(keepers, "a", encoding="utf-8") as handle:
            handle.write(f"{worker.keeper} {worker.scratch}\n")
        return worker

    monkeypatch.setattr(WorkerFactory, "take", recording_take)
    inbox, out = tmp_path / "inbox", tmp_path / "out"
    inbox.mkdir()
    reference = REFERENCE.read_text(encoding="utf-8")
    for path in corpus():
        text = path.read_text(encoding="utf-8")
        (inbox / f"{path.stem}.py").write_text(reference + "\n\n" + text if text.startswith("# snippet") else text, encoding="utf-8")
    for name in CORRECT:
        (inbox / f"{name}.py").write_text(reference, encoding="utf-8")

    batch = grade_batch(inbox, out, jobs=2, options=GradeOptions(seed=5, parts=frozenset({"A"}), budget=BUDGET))

    results = {r.submission: r for r in batch.submissions}
    assert set(results) == set(EXPECTED) | set(CORRECT)
    for name in CORRECT:
        assert results[name].score == FULL, [c.message for c in results[name].checks if not c.passed]
    wrong = []
    for name, (score, exact, phrase) in EXPECTED.items():
        result = results[name]
        said = "\n".join([result.grader_error, result.output, *result.events, *(c.message for c in result.checks)])
        if (result.score != score) if exact else (result.score > score):
            wrong.append(f"{name}: {result.score}/{FULL}, expected {'' if exact else 'at most '}{score}")
        if phrase and phrase not in said:
            wrong.append(f"{name}: {phrase!r} not in {said[:300]!r}")
        assert "internal grader error" not in result.grader_error, name
    assert not wrong, "\n".join(wrong)
    spawned = [line.split(" ", 1) for line in keepers.read_text(encoding="utf-8").splitlines()]
    wait_for_no_processes({UID_BASE + int(keeper) for keeper, _ in spawned}, timeout=30)
    assert not [scratch for _, scratch in spawned if Path(scratch).exists()], "scratch folders were left behind"
    assert json.loads((out / "read_traces" / "attnkit.json").read_text(encoding="utf-8"))["output"].startswith("found: []")
