"""Hostile and broken submissions (issue 6): each one graded, and each one proven contained.

For every case: the score it may get, the reason the student reads, that no process of the
worker's uid is left, that the worker's scratch folder is gone, that nothing outside it changed
and (for the snooping ones) that no line of the reference or of the hidden checks leaks. The
payloads live in tests/hostile/ and are bounded, so a broken sandbox cannot take the machine down.
"""
from __future__ import annotations

import hashlib
import io
import json
import os
import shutil
import socket
import struct
import sys
import threading
import time
import zipfile
import zlib
from pathlib import Path

import pytest

from autograder.grading.batch import grade_batch
from autograder.grading.session import GradeOptions, grade_submission
from autograder.feedback.output import write_submission
from autograder.feedback.results import SubmissionResult
from autograder.grading.worker.client import Budget, WorkerFactory
from autograder.grading.worker.sandbox import UID_BASE, SandboxConfig, is_root

from tests.batches import REFERENCE, REPO, notebook, payload, write_case


def root_only(why: str) -> pytest.MarkDecorator:
    """A case that only the root sandbox can contain; without root it is SKIPPED, saying why.
    Every other case runs without root too (a worker process with the same rlimits)."""
    return pytest.mark.skipif(not is_root(), reason=f"needs root: {why}")


NO_NPROC = "the process limit (RLIMIT_NPROC) applies only to the fresh uid a root grader gives each worker"
NO_PID_NAMESPACE = "only a pid namespace (made as root) kills a setsid daemon with its worker"
SAME_UID = "without root the worker runs as your uid: it may signal, read and write all that you may"
NO_CHROOT = "without root there is no chroot: the worker sees the file system as you do"
NO_NETNS = "without root there is no network namespace"

CHECKS = REPO / "autograder" / "assignments" / "attention" / "checks"
FAST = Budget(call_seconds=3, import_seconds=5, total_seconds=60)
# The mixed batch: limits that a correct submission cannot reach on a loaded machine (with FAST,
# a correct one lost Part F and a Part E check with every core busy), while a hang still times out.
BATCH = Budget(call_seconds=30, import_seconds=10, total_seconds=600)
PART_A = {"A"}
A4 = "A.4"  # causal_mask: the function the snippets break
TRACED_RULES = {"masked_softmax_by_hand", "sdpa_no_library"}  # Part A's checks judged from the worker's trace


# ---------------------------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------------------------
def secret_lines() -> list[str]:
    """Distinctive lines of the reference solution and of the hidden checks' code.

    Public text is left out: what the student release also holds (docstrings, signatures) and
    what checks show on purpose (the names and hints in their @check(...) lines).
    """
    release = (REPO / "assignments" / "attention" / "attention.py").read_text(encoding="utf-8")
    shown = "\n".join(line for path in CHECKS.glob("*.py") for line in path.read_text(encoding="utf-8").splitlines() if line.lstrip().startswith("@check("))
    lines = []
    for path in [REFERENCE, *sorted(CHECKS.glob("*.py"))]:
        for line in path.read_text(encoding="utf-8").splitlines():
            line = line.strip()
            if len(line) >= 40 and not line.startswith(("#", "import ", "from ", "@check(")) and line not in release and line not in shown:
                lines.append(line)
    lines.append("### BEGIN SOLUTION")
    return lines


def assert_no_leak(*texts: str) -> None:
    blob = "\n".join(texts)
    leaked = [line for line in secret_lines() if line in blob]
    assert not leaked, f"secret lines leaked: {leaked[:3]}"


def result_text(result: SubmissionResult, folder: Path | None = None) -> str:
    """Everything a student or grader could read: the result model and the written files."""
    texts = [json.dumps(result.to_dict(), ensure_ascii=False)]
    if folder is not None:
        texts += [p.read_text(encoding="utf-8", errors="replace") for p in folder.rglob("*") if p.is_file() and p.suffix in (".json", ".md", ".html")]
    return "\n".join(texts)


def uid_processes(uids: set[int]) -> list[str]:
    """Processes (zombies included) whose real uid is one of `uids`."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            status = (entry / "status").read_text()
        except OSError:
            continue
        fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
        if int(fields["Uid"].split()[0]) in uids:
            found.append(f"{entry.name} {fields['Name'].strip()} {fields['State'].strip()}")
    return found


def wait_for_no_processes(uids: set[int], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while (left := uid_processes(uids)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not left, f"processes outlived grading: {left}"


def live_pids(pids: set[int]) -> list[str]:
    """Processes (not zombies) whose pid or process group is in `pids`."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()  # state, ppid, pgrp, ...
        if fields[0] != "Z" and (int(entry.name) in pids or int(fields[2]) in pids):
            found.append(f"{entry.name} {stat[:60]}")
    return found


def wait_for_no_pids(pids: set[int], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while (left := live_pids(pids)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not left, f"processes outlived grading: {left}"


def tree_digest(*folders: Path) -> str:
    """A digest of names, sizes and contents under the folders (small trees only)."""
    digest = hashlib.sha256()
    for folder in folders:
        for path in sorted(folder.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                digest.update(str(path).encode() + path.read_bytes())
    return digest.hexdigest()


def check(result: SubmissionResult, check_id: str):
    return next(c for c in result.checks if c.check_id == check_id)


def task_score(result: SubmissionResult, *tasks: str) -> float:
    return round(sum(c.points for c in result.checks if c.task in tasks), 6)


def task_checks(result: SubmissionResult, task: str) -> list:
    return [c for c in result.checks if c.task == task]


class Spawned:
    """Records every worker the session factory spawns, to prove each one is gone afterwards."""

    def __init__(self) -> None:
        self.workers: list = []

    @property
    def uids(self) -> set[int]:
        return {UID_BASE + w.keeper for w in self.workers}

    def assert_contained(self) -> None:
        assert self.workers, "no worker was started"
        if is_root():
            wait_for_no_processes(self.uids)  # every process of each worker's fresh uid
        else:  # the keepers, the workers and the workers' process groups
            wait_for_no_pids({w.keeper for w in self.workers} | {w.worker for w in self.workers if w.worker})
        for worker in self.workers:
            assert not Path(worker.scratch).exists(), f"scratch folder {worker.scratch} was left behind"


@pytest.fixture
def spawned(factory, monkeypatch) -> Spawned:
    record = Spawned()
    original = factory.take  # every worker a Student gets, asked for ahead or not, is taken here

    def spy(requested):
        worker = original(requested)
        record.workers.append(worker)
        return worker

    monkeypatch.setattr(factory, "take", spy)
    return record


@pytest.fixture
def grade_a(factory, tmp_path, spawned):
    """grade_a(text, name) -> SubmissionResult: Part A only, short budgets, containment checked."""
    protected = (REPO / "solutions", CHECKS, REPO / "autograder" / "assignments" / "attention" / "reference")
    before = tree_digest(*protected)

    def run(text: str | bytes, name: str = "submission", suffix: str = ".py", budget: Budget = FAST, config: SandboxConfig = SandboxConfig()) -> SubmissionResult:
        path = tmp_path / f"{name}{suffix}"
        path.write_bytes(text.encode("utf-8") if isinstance(text, str) else text)
        result, _ = grade_submission(path, factory, GradeOptions(seed=7, parts=frozenset(PART_A), budget=budget, config=config))
        if spawned.workers:
            spawned.assert_contained()
        assert tree_digest(*protected) == before, "the submission changed the repository's secret folders"
        return result

    return run


@pytest.fixture(scope="module")
def reference_a(factory) -> SubmissionResult:
    """The reference solution's own Part A result, with the same seed and budgets."""
    result, _ = grade_submission(REFERENCE, factory, GradeOptions(seed=7, parts=frozenset(PART_A), budget=FAST))
    assert result.score == result.max_score > 0, "the reference must earn every Part A point"
    return result


def assert_only_rules_lost(result: SubmissionResult, reference: SubmissionResult) -> None:
    """Code run in another thread or process from import on is out of the trace's sight: the
    traced rules (A.2 by hand, A.3 not the library) cannot be checked and pay nothing, saying
    so; every other check keeps its points."""
    for got in result.checks:
        if got.check_id in TRACED_RULES:
            assert got.points == 0 and "cannot be checked" in got.message, (got.check_id, got.message)
        else:
            assert got.points == check(reference, got.check_id).points, (got.check_id, got.message)


def assert_only_a4_lost(result: SubmissionResult, reference: SubmissionResult, reason: str) -> None:
    """The other tasks keep every point; every causal_mask check fails, saying `reason`."""
    assert task_score(result, "A.1", "A.2", "A.3") == task_score(reference, "A.1", "A.2", "A.3")
    lost = task_checks(result, A4)
    assert lost and all(c.points == 0 for c in lost)
    assert all(reason in c.message for c in lost), [c.message for c in lost]


# ---------------------------------------------------------------------------------------------
# time
# ---------------------------------------------------------------------------------------------
@pytest.mark.timing
def test_infinite_loop_at_import_times_out_and_scores_zero(grade_a):
    result = grade_a(payload("import_loop"), "import_loop")
    assert result.score == 0 and result.checks
    assert all("timed out after 5 s in importing your file" in c.message for c in result.checks)
    assert any("timed out" in e for e in result.events)


@pytest.mark.timing
@pytest.mark.parametrize("name", ["hang_causal_mask", "sigterm_ignored"])
def test_hanging_function_loses_only_its_own_checks(grade_a, reference_a, name):
    result = grade_a(payload(name), name, budget=Budget(call_seconds=2, import_seconds=5, total_seconds=60))
    assert_only_a4_lost(result, reference_a, "timed out after 2 s in causal_mask")


@pytest.mark.timing
def test_reply_trickled_in_past_the_call_limit_is_not_taken(grade_a, reference_a):
    """causal_mask writes the right answer into the worker's socket a few bytes a second, 16 s
    in all: the socket's timeout restarted with every byte, so the grader waited past the call
    limit and paid it (an endless trickle stalled the batch). The limit is for the whole reply."""
    result = grade_a(payload("slow_trickle"), "slow_trickle", budget=Budget(call_seconds=4, import_seconds=5, total_seconds=60))
    assert_only_a4_lost(result, reference_a, "timed out after 4 s in causal_mask")


@pytest.mark.timing
def test_stand_in_callbacks_share_the_call_limit(grade_a):
    """With attention_scores wrong, A.3 is graded again with a trusted stand-in; the submission's
    scaled_dot_product_attention then calls it 8 times, 1.5 s apart. Each reply came within the
    limit, so the call ran 12 s on a 3 s limit and was paid (each callback started a new limit);
    the call's limit now covers its callbacks."""
    result = grade_a(payload("callback_stall"), "callback_stall")
    assert check(result, "sdpa_matches_torch").points == 0
    assert any("timed out after 3 s in scaled_dot_product_attention" in event for event in result.events), result.events


def test_stand_in_refuses_attention_too_large_to_compute_in_the_grader(grade_a):
    """The stand-in's inputs were bounded (4 M numbers), not what the grader computes from them:
    scores of q, k (1, 1, 12000, 160) are 1.15 GB, made in the grader's own process (and a module
    stand-in built a reference layer as wide as its input, cached for good). Refused first now."""
    result = grade_a(payload("callback_large"), "callback_large")
    assert "large stand-in call: the trusted attention_scores (standing in for yours) cannot take what your code passed: its attention weights would hold" in result.output, result.output[-500:]


@pytest.mark.timing
def test_cpu_burning_thread_does_not_cost_points(grade_a, reference_a):
    result = grade_a(payload("cpu_thread"), "cpu_thread", budget=Budget(call_seconds=8, import_seconds=8, total_seconds=90))
    assert_only_rules_lost(result, reference_a)


# ---------------------------------------------------------------------------------------------
# resources
# ---------------------------------------------------------------------------------------------
@pytest.mark.timing
def test_memory_exhaustion_is_stopped_by_the_memory_limit(grade_a, reference_a):
    result = grade_a(payload("memory_hog"), "memory_hog", budget=Budget(call_seconds=15, import_seconds=5, total_seconds=90))
    assert_only_a4_lost(result, reference_a, "causal_mask went over the 2 GiB memory limit")


@root_only(NO_NPROC)
@pytest.mark.timing
def test_fork_swarm_is_capped_and_reaped(grade_a, reference_a):
    result = grade_a(payload("fork_swarm"), "fork_swarm")
    assert_only_rules_lost(result, reference_a)
    forked = int(result.output.split("fork refused after ")[1].split()[0])
    assert forked < SandboxConfig().max_processes


@root_only(NO_PID_NAMESPACE)
@pytest.mark.timing
def test_setsid_daemon_does_not_outlive_grading(grade_a, reference_a):
    result = grade_a(payload("daemon"), "daemon")  # grade_a waits for every process of the uid
    assert_only_rules_lost(result, reference_a)


@pytest.mark.timing
def test_300_mb_of_output_is_dropped_past_the_cap_and_grading_goes_on(grade_a, reference_a):
    started = time.monotonic()
    generous = Budget(call_seconds=3, import_seconds=60, total_seconds=120)  # only the output cap may act here
    result = grade_a(payload("output_flood"), "output_flood", budget=generous)
    assert result.score == reference_a.score
    limit, written = SandboxConfig().output_bytes, 300 << 20
    assert result.output.startswith("x" * limit)
    assert f"[... {written - limit} more bytes of output dropped" in result.output
    assert len(result.output.encode()) < limit + 200
    assert result.events == (f"your code printed {written} bytes; the first {limit} are kept with the results and the other {written - limit} were dropped (grading went on)",)
    assert time.monotonic() - started < 60


def test_output_is_capped_for_the_submission_not_for_each_worker(grade_a):
    result = grade_a(payload("output_per_worker"), "output_per_worker")
    limit = SandboxConfig().output_bytes
    restarts = [e for e in result.events if "exited with code 3" in e]
    assert len(restarts) >= 3  # several workers printed their 64 KiB
    assert result.output.count("y") == limit and len(result.output.encode()) < limit + 200
    capped = [e for e in result.events if "printed more than" in e]
    assert capped == [f"your code ran in several workers (each call that ended its worker starts a new one) and printed more than {limit} bytes in all: the rest was dropped (grading went on)"]


def test_huge_file_is_stopped_by_the_file_size_limit(grade_a, reference_a):
    result = grade_a(payload("huge_file"), "huge_file")
    assert result.score == reference_a.score
    written = int(result.output.split("huge file stopped after ")[1].split()[0])
    assert written <= SandboxConfig().max_file_bytes


@pytest.mark.timing
def test_expanded_view_of_10_to_the_12_elements_is_refused_unmaterialised(grade_a, reference_a):
    result = grade_a(payload("expanded_view"), "expanded_view")
    assert_only_a4_lost(result, reference_a, "over the size limit")
    assert all(c.duration < 5 for c in task_checks(result, A4))


# ---------------------------------------------------------------------------------------------
# exits and crashes
# ---------------------------------------------------------------------------------------------
def test_os_exit_at_import_scores_zero_with_the_exit_code(grade_a):
    result = grade_a(payload("exit_at_import"), "exit_at_import")
    assert result.score == 0 and result.checks
    assert all("exited with code 3 in importing your file" in c.message for c in result.checks)


def test_sys_exit_in_a_function_fails_only_that_function(grade_a, reference_a):
    result = grade_a(payload("sys_exit_in_function"), "sys_exit")
    assert_only_a4_lost(result, reference_a, "causal_mask raised SystemExit: 4")


def test_segfault_in_a_function_fails_only_that_function(grade_a, reference_a):
    result = grade_a(payload("segfault"), "segfault")
    assert_only_a4_lost(result, reference_a, "crashed (segmentation fault) in causal_mask")


@root_only(SAME_UID)
def test_killing_the_parent_or_the_process_group_harms_only_the_worker(grade_a, reference_a, factory):
    result = grade_a(payload("kill_parent"), "kill_parent")
    assert task_score(result, "A.1", "A.2", "A.3") == task_score(reference_a, "A.1", "A.2", "A.3")
    assert os.getpid() and factory.process.poll() is None, "the template process was killed"
    again = grade_a(REFERENCE.read_text(encoding="utf-8"), "after_kill_parent")
    assert again.score == reference_a.score


# ---------------------------------------------------------------------------------------------
# cheating
# ---------------------------------------------------------------------------------------------
def test_patching_comparisons_in_the_worker_gains_nothing(grade_a):
    text = payload("patch_comparisons")
    honest = text.split("def _always")[0]
    patched, unpatched = grade_a(text, "patched"), grade_a(honest, "unpatched")
    assert patched.score == unpatched.score
    for check_id in ("attention_scores_values", "masked_softmax_values", "sdpa_values", "causal_mask_values"):
        assert not check(patched, check_id).passed


def test_tensor_subclass_with_lying_torch_function_is_refused(grade_a):
    result = grade_a(payload("tensor_subclass"), "tensor_subclass")
    for task in ("A.1", "A.4"):
        assert task_score(result, task) == 0
    assert "a Tensor subclass" in check(result, "attention_scores_values").message
    assert "a Tensor subclass" in check(result, "causal_mask_values").message


def test_objects_that_would_run_code_when_unpickled_are_refused(grade_a, tmp_path):
    marker = tmp_path / "unpickled-marker"
    result = grade_a(payload("pickle_payload", MARKER=marker), "pickle_payload")
    assert not marker.exists()
    assert "returned an object of type attention.Payload" in check(result, "attention_scores_values").message
    assert "numpy" in check(result, "masked_softmax_values").message
    assert result.score == 0


@root_only(NO_CHROOT)
def test_fake_results_files_are_never_read_or_written_outside_the_sandbox(grade_a, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    outside = [Path("/autograder/results/results.json"), Path("/tmp/results.json"), Path("/results.json"), out / "results.json", out / "fake_results", Path.home() / "results.json"]
    before = {p: p.exists() and p.stat().st_mtime_ns for p in outside}
    result = grade_a(payload("fake_results", OUT_DIR=out), "fake_results")
    assert {p: p.exists() and p.stat().st_mtime_ns for p in outside} == before
    assert "wrote results.json" in result.output  # it did write: into its own scratch, now gone
    folder = write_submission(result, {}, out)
    written = json.loads((folder / "results.json").read_text(encoding="utf-8"))
    assert written["score"] == result.score == 0
    assert "1000" not in json.dumps([t["score"] for t in written["tests"]])


@root_only(NO_CHROOT)
def test_snooping_for_the_reference_and_hidden_checks_finds_nothing(grade_a, tmp_path):
    result = grade_a(payload("snoop", REPO=REPO), "snoop", budget=Budget(call_seconds=3, import_seconds=15, total_seconds=60))
    folder = write_submission(result, {}, tmp_path / "out")
    assert "=== FOUND" not in result.output, result.output[:2000]
    assert result.score == 0
    assert_no_leak(result_text(result, folder))


# ---------------------------------------------------------------------------------------------
# attacks on the grader itself: what comes back from the worker is bounded and always decodable
# ---------------------------------------------------------------------------------------------
@pytest.mark.timing
def test_forged_plot_description_of_100000_columns_costs_the_grader_no_time(factory, tmp_path, spawned):
    path = tmp_path / "forged_plot.py"
    path.write_text(payload("forged_plot"), encoding="utf-8")
    result, images = grade_submission(path, factory, GradeOptions(seed=7, parts=frozenset({"E"}), budget=FAST))
    spawned.assert_contained()
    bounded = [c for c in result.checks if c.part == "E" and "at most 1000 rows or columns and 65536 cells" in c.message]
    assert len(bounded) >= 6 and not any(c.points for c in bounded), [c.message for c in result.checks]
    # The first check also waits for the worker's drawing; the others share it and only read it
    # (unbounded, each spent ~15 s in the grader on this description).
    assert all(c.duration < 1 for c in bounded[1:]), [(c.check_id, c.duration) for c in bounded]
    assert "heatmaps/plot-attention-student.png" not in images  # a 5 MiB "figure" is not stored


def test_reply_with_a_5000_digit_integer_fails_only_that_call(grade_a, reference_a, tmp_path):
    result = grade_a(payload("giant_integer_reply"), "giant_integer_reply")
    # It patches the worker's own module, so the traced rules (A.2, A.3 "not the library") cannot
    # be checked and fail too (issue 12, tests/test_bypass.py); A.4 fails for the forged reply.
    rules = {"masked_softmax_by_hand", "sdpa_no_library"}
    kept = [c for c in result.checks if c.task in ("A.1", "A.2", "A.3") and c.check_id not in rules]
    assert all(c.points == c.max_points for c in kept), [(c.check_id, c.message) for c in kept if c.points < c.max_points]
    lost = task_checks(result, A4)
    assert lost and all(c.points == 0 and "sent an invalid reply (undecodable frame (ValueError" in c.message for c in lost)
    write_submission(result, {}, tmp_path / "out")  # and the result can be written


def test_lone_surrogates_in_student_text_can_still_be_written(grade_a, tmp_path):
    result = grade_a(payload("lone_surrogate"), "lone_surrogate")
    assert "raised ValueError: bad ? mask ?" in check(result, "causal_mask_values").message
    folder = write_submission(result, {}, tmp_path / "out")
    assert "bad ? mask ?" in (folder / "feedback.md").read_text(encoding="utf-8")


def test_terminal_escapes_in_printed_output_are_shown_not_sent_to_the_terminal(grade_a, reference_a, tmp_path):
    result = grade_a(payload("terminal_escapes"), "terminal_escapes")
    assert result.score == reference_a.score  # printing costs nothing
    folder = write_submission(result, {}, tmp_path / "out")
    for name in ("feedback.md", "feedback.html"):
        text = (folder / name).read_text(encoding="utf-8")
        assert "\\x1b[2J\\x1b[H\\x1b]0;pwned\\x07hidden\\rScore: 100/100" in text, name
        assert not any(ch in text for ch in "\x1b\x07\r"), name


@root_only(NO_NETNS)
def test_network_is_unreachable_from_the_worker(grade_a):
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(5)
    listener.settimeout(0.2)
    port = listener.getsockname()[1]
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    udp.bind(("127.0.0.1", port))
    udp.settimeout(0.2)
    received: list[str] = []
    stop = threading.Event()

    def listen() -> None:
        while not stop.is_set():
            for sock, kind in ((listener, "tcp"), (udp, "udp")):
                try:
                    if kind == "tcp":
                        conn, _ = sock.accept()
                        received.append("tcp connection")
                        conn.close()
                    else:
                        received.append(f"udp {sock.recv(100)!r}")
                except (socket.timeout, OSError):
                    pass

    thread = threading.Thread(target=listen, daemon=True)
    thread.start()
    try:
        result = grade_a(payload("network", PORT=port), "network")
    finally:
        stop.set()
        thread.join(5)
        listener.close()
        udp.close()
    assert received == []
    # refused at socket() by the worker's seccomp filter, before its empty network namespace
    assert "tcp [Errno 13] Permission denied" in check(result, "attention_scores_values").message
    assert "tcp connected" not in result.output and "udp sent" not in result.output


# ---------------------------------------------------------------------------------------------
# broken input
# ---------------------------------------------------------------------------------------------
CAUSAL_SIGNATURE = "def causal_mask(size_q: int, size_k: int | None = None, device=None)"


def test_syntax_error_in_one_function_keeps_the_other_points(grade_a, reference_a):
    text = REFERENCE.read_text(encoding="utf-8")
    assert CAUSAL_SIGNATURE in text
    result = grade_a(text.replace(CAUSAL_SIGNATURE, CAUSAL_SIGNATURE.replace("size_q: int,", "size_q: int")), "syntax_error")
    assert_only_a4_lost(result, reference_a, "causal_mask is not defined in your file")
    assert any("SyntaxError" in e for e in result.events)


def test_an_exception_that_cannot_be_printed_is_reported_and_costs_only_its_checks(grade_a, reference_a):
    """An exception whose __str__ raises ended the worker ("the worker exited with code 70"),
    which said nothing of what happened: now its type is named and the message says why it is missing."""
    text = REFERENCE.read_text(encoding="utf-8") + (
        "\n\nclass _Unprintable(Exception):\n    def __str__(self):\n        raise RuntimeError('you cannot print me')\n"
        "\n\ndef causal_mask(size_q, size_k=None, device=None):\n    raise _Unprintable()\n"
    )
    result = grade_a(text, "unprintable_exception")
    assert_only_a4_lost(result, reference_a, "causal_mask raised _Unprintable: (the message cannot be shown: turning it into text raised RuntimeError)")
    assert not any("exited" in e for e in result.events), result.events


def test_missing_function_costs_only_its_checks(grade_a, reference_a):
    text = REFERENCE.read_text(encoding="utf-8").replace("def causal_mask(", "def causal_mask_renamed(")
    result = grade_a(text, "missing_function")
    assert_only_a4_lost(result, reference_a, "causal_mask is not defined in your file")


def test_empty_file_scores_zero_without_a_grader_error(grade_a):
    result = grade_a("", "empty")
    assert result.score == 0 and result.checks and not result.grader_error
    assert "attention_scores is not defined in your file" in check(result, "attention_scores_values").message
    assert any("is empty (no code in it)" in event for event in result.events), result.events


def test_binary_garbage_is_rejected_with_a_reason(grade_a):
    garbage = bytes(range(256)) * 64
    result = grade_a(garbage, "garbage")
    assert result.score == 0
    assert "is not a text file" in result.grader_error and "attention.py" in result.grader_error


def test_latin1_file_with_a_coding_declaration_grades_normally(grade_a, reference_a):
    text = "# -*- coding: latin-1 -*-\n# café, naïve: é in a comment\n" + REFERENCE.read_text(encoding="utf-8")
    assert text.isascii() is False
    data = text.encode("latin-1", errors="strict") if all(ord(c) < 256 for c in text) else None
    if data is None:  # the reference holds non-Latin-1 text (Chinese in docstrings): keep it as escapes
        data = "# -*- coding: latin-1 -*-\n# café, naïve: é in a comment\n".encode("latin-1") + REFERENCE.read_text(encoding="utf-8").encode("ascii", "backslashreplace")
    assert b"\xe9" in data
    result = grade_a(data, "latin1")
    assert result.score == reference_a.score


def test_notebook_with_invalid_json_is_rejected_with_a_reason(grade_a):
    result = grade_a('{"cells": [ {"cell_type": "code", "source": "x = 1"', "broken", suffix=".ipynb")
    assert result.score == 0
    assert "is not a valid Jupyter notebook" in result.grader_error


def test_notebook_with_tags_that_are_not_a_list_is_graded_with_a_note(grade_a, reference_a):
    result = grade_a(notebook(REFERENCE.read_text(encoding="utf-8"), {"tags": 7}), "tags_seven", suffix=".ipynb")
    assert result.score == reference_a.score and not result.grader_error
    assert any('cell 1: its metadata "tags" is 7, not a list of strings' in e for e in result.events), result.events


@pytest.mark.parametrize("entry", ["../attention.py", "/tmp/attnkit-escape/attention.py", "folder/../../attention.py"])
def test_zip_with_path_escapes_is_rejected_and_nothing_is_extracted(grade_a, tmp_path, entry):
    archive = tmp_path / "escape.zip"
    with zipfile.ZipFile(archive, "w") as zipped:
        zipped.writestr(entry, "def attention_scores(q, k):\n    return q\n")
    result = grade_a(archive.read_bytes(), "escape", suffix=".zip")
    assert "points outside the archive" in result.grader_error
    assert not (tmp_path.parent / "attention.py").exists() and not Path("/tmp/attnkit-escape").exists()


def test_zip_with_a_symlink_entry_is_rejected(grade_a, tmp_path):
    archive = tmp_path / "link.zip"
    info = zipfile.ZipInfo("attention.py")
    info.external_attr = (0o120777 << 16)
    with zipfile.ZipFile(archive, "w") as zipped:
        zipped.writestr(info, str(REFERENCE))
    result = grade_a(archive.read_bytes(), "link", suffix=".zip")
    assert "is a symbolic link" in result.grader_error


def zip_bomb(path: Path, mib: int = 2047, lie: bool = False) -> Path:
    """A zip whose attention.py inflates to `mib` MiB of zeros (≈1 KiB per MiB on disk).

    Built by hand in about a second: deflate 1 MiB of zeros once with a full flush (the block
    is then independent of what came before) and repeat it. `lie`: the headers claim 100 bytes.
    """
    chunk = b"\0" * (1 << 20)
    compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
    block = compressor.compress(chunk) + compressor.flush(zlib.Z_FULL_FLUSH)
    deflated = block * mib + compressor.flush(zlib.Z_FINISH)
    crc = 0
    for _ in range(mib):
        crc = zlib.crc32(chunk, crc)
    size = 100 if lie else mib << 20
    name = b"attention.py"
    local = struct.pack("<4sHHHHHIIIHH", b"PK\x03\x04", 20, 0, 8, 0, 0, crc, len(deflated), size, len(name), 0) + name
    central = struct.pack("<4sHHHHHHIIIHHHHHII", b"PK\x01\x02", 20, 20, 0, 8, 0, 0, crc, len(deflated), size, len(name), 0, 0, 0, 0, 0, 0) + name
    end_record = struct.pack("<4sHHHHIIH", b"PK\x05\x06", 0, 0, 1, 1, len(central), len(local) + len(deflated), 0)
    path.write_bytes(local + deflated + central + end_record)
    return path


@pytest.mark.timing
@pytest.mark.parametrize("lie", [False, True], ids=["honest-header", "lying-header"])
def test_zip_bomb_is_refused_with_bounded_work(grade_a, tmp_path, lie):
    archive = zip_bomb(tmp_path / "bomb.zip", lie=lie)
    assert archive.stat().st_size < 8 << 20
    started = time.monotonic()
    result = grade_a(archive.read_bytes(), "bomb", suffix=".zip")
    assert time.monotonic() - started < 30
    assert result.score == 0
    assert "unpacks to more than the limits" in result.grader_error or "cannot be unpacked" in result.grader_error


def test_symlink_out_of_a_folder_submission_is_not_followed(factory, tmp_path, spawned):
    folder = tmp_path / "linked"
    (folder / "sub").mkdir(parents=True)
    (folder / "attention.py").symlink_to(REFERENCE)
    (folder / "sub" / "solutions").symlink_to(REFERENCE.parent, target_is_directory=True)
    result, _ = grade_submission(folder, factory, GradeOptions(seed=7, parts=frozenset(PART_A), budget=FAST))
    assert result.score == 0
    assert "found no attention.py" in result.grader_error
    assert_no_leak(result_text(result))


def test_submission_path_that_is_a_symlink_is_rejected(factory, tmp_path):
    link = tmp_path / "attention.py"
    link.symlink_to(REFERENCE)
    result, _ = grade_submission(link, factory, GradeOptions(seed=7, parts=frozenset(PART_A), budget=FAST))
    assert result.score == 0 and "is a symbolic link" in result.grader_error


# ---------------------------------------------------------------------------------------------
# names chosen to collide: with the batch's own files, and with each other
# ---------------------------------------------------------------------------------------------
def test_submission_names_never_collide_with_batch_files_or_each_other(tmp_path):
    from autograder.cli import main

    inbox, out = tmp_path / "inbox", tmp_path / "out"
    inbox.mkdir()
    shutil.copyfile(REFERENCE, inbox / "grades.csv.py")
    shutil.copyfile(REFERENCE, inbox / "alice.py")
    with zipfile.ZipFile(inbox / "alice.zip", "w") as zipped:
        zipped.writestr("attention.py", "def attention_scores(q, k):\n    return q\n")
    shutil.copyfile(REFERENCE, inbox / "bob.py")
    shutil.copyfile(REFERENCE, inbox / "similarity.json.py")  # the class report's ranking (qa23h: its write stopped the report)
    shutil.copyfile(REFERENCE, inbox / "grades-canvas.csv.py")  # `report --lms canvas`'s file
    assert main(["grade-batch", str(inbox), "--out", str(out), "--parts", "A", "--seed", "3"]) == 0
    folders = {"grades.csv.py": "grades.csv.py", "alice.py": "alice.py", "alice.zip": "alice.zip", "bob": "bob.py",
               "similarity.json.py": "similarity.json.py", "grades-canvas.csv.py": "grades-canvas.csv.py"}
    results = {}
    for folder, entry in folders.items():
        results[folder] = json.loads((out / folder / "attnkit.json").read_text(encoding="utf-8"))
        assert Path(results[folder]["source"]).name == entry
    assert (out / "grades.csv").is_file() and (out / "index.html").is_file() and (out / "summary.md").is_file() and (out / "similarity.json").is_file()
    rows = (out / "grades.csv").read_text(encoding="utf-8").splitlines()
    assert len(rows) == 1 + len(folders)
    assert all(any(row.startswith(name) for row in rows) for name in folders)
    stamps = {folder: (out / folder / "attnkit.json").stat().st_mtime_ns for folder in folders}
    assert main(["grade-batch", str(inbox), "--out", str(out), "--parts", "A"]) == 0  # resumed: nothing regraded
    assert stamps == {folder: (out / folder / "attnkit.json").stat().st_mtime_ns for folder in folders}


# ---------------------------------------------------------------------------------------------
# a batch of all of them
# ---------------------------------------------------------------------------------------------
@root_only(SAME_UID)
@pytest.mark.timing
@pytest.mark.slow
def test_batch_of_hostile_submissions_completes_and_grades_the_correct_ones(factory, tmp_path, monkeypatch):
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
    marker = tmp_path / "pwned"
    shutil.copyfile(REFERENCE, inbox / "correct_file.py")
    (inbox / "correct_folder").mkdir()
    shutil.copyfile(REFERENCE, inbox / "correct_folder" / "attention.py")
    hostile = {
        "import_loop": f"timed out after {BATCH.import_seconds:.0f} s in importing your file",
        "hang_causal_mask": f"timed out after {BATCH.call_seconds:.0f} s in causal_mask",
        "memory_hog": "went over the 2 GiB memory limit",
        "segfault": "crashed (segmentation fault) in causal_mask",
        "exit_at_import": "exited with code 3",
        "sys_exit_in_function": "raised SystemExit: 4",
        "expanded_view": "over the size limit",
        "tensor_subclass": "a Tensor subclass",
        "pickle_payload": "returned an object of type",
        "snoop": "is not defined in your file",
        "fake_results": "is not defined in your file",
        "inherited_fds": "",
        "kill_parent": "",
        "fork_swarm": "",
        "daemon": "",
    }
    for name in hostile:
        write_case(inbox, name, name, MARKER=marker, OUT_DIR=out, REPO=REPO)
    (inbox / "grader_memory.py").write_text(  # reach for the grader's modules in the worker's memory
        "import sys\n"
        "def attention_scores(q, k):\n"
        "    return sys.modules['autograder.assignments.attention.checks.support'].reference().attention_scores(q, k)\n",
        encoding="utf-8",
    )
    hostile["grader_memory"] = "KeyError"
    write_case(inbox, "garbage", "garbage")
    hostile["garbage"] = "is not a text file"
    write_case(inbox, "broken", "broken_notebook")
    hostile["broken"] = "is not a valid Jupyter notebook"
    write_case(inbox, "escape", "zip_escape")
    hostile["escape"] = "points outside the archive"
    zip_bomb(inbox / "bomb.zip", mib=1024)
    hostile["bomb"] = "unpacks to more than the limits"
    write_case(inbox, "empty", "empty")
    hostile["empty"] = "is not defined in your file"

    options = GradeOptions(seed=11, budget=BATCH)
    batch = grade_batch(inbox, out, jobs=2, options=options)
    reference, _ = grade_submission(REFERENCE, factory, options)

    names = {r.submission: r for r in batch.submissions}
    assert set(names) == {"correct_file", "correct_folder", *hostile}
    for correct in ("correct_file", "correct_folder"):
        got = {p.part: p.score for p in names[correct].parts}
        want = {p.part: p.score for p in reference.parts}
        assert got == want, correct
        assert {"A", "B", "C", "D"} <= set(got) and all(got[p] == next(x.max_score for x in reference.parts if x.part == p) for p in "ABCD")
    for name, reason in hostile.items():
        result = names[name]
        said = "\n".join([result.grader_error, *result.events, *(c.message for c in result.checks)])
        assert result.score <= reference.score, name
        if reason:  # those with no reason keep their points: what they attack is outside grading
            assert result.score < reference.score and reason in said, f"{name}: expected {reason!r} in {said[:500]!r}"
        assert "internal grader error" not in result.grader_error, name
    assert names["grader_memory"].score == 0
    assert not marker.exists(), "a worker made the grader unpickle its payload"
    for name in ("snoop", "fake_results", "grader_memory"):
        assert_no_leak(result_text(names[name], out / name))
    assert json.loads((out / "fake_results" / "results.json").read_text())["score"] == 0
    spawned = [line.split(" ", 1) for line in keepers.read_text(encoding="utf-8").splitlines()]
    assert len(spawned) >= len(hostile)
    wait_for_no_processes({UID_BASE + int(keeper) for keeper, _ in spawned}, timeout=30)
    assert not [scratch for _, scratch in spawned if Path(scratch).exists()], "scratch folders were left behind"


def test_a_grader_error_is_recorded_though_the_graders_stderr_is_closed(factory, tmp_path, monkeypatch):
    """qa20h h07: with the grader's stderr a pipe whose reader left (`grade-batch ... 2>&1 | head -1`),
    printing an internal error raised, and the check it reported was dropped from the results (so
    graded again on every run). It is recorded as the grader's error all the same."""
    from autograder.grading.worker.client import Student

    class Closed(io.TextIOBase):
        def write(self, text: str) -> int:
            raise BrokenPipeError(32, "Broken pipe")

    def grader_bug(self, name, *args, **kwargs):
        raise KeyError("value")  # what a traced reply that is not a dict raised (qa20h h07)

    monkeypatch.setattr(Student, "traced_call", grader_bug)
    monkeypatch.setattr(sys, "stderr", Closed())
    result, _ = grade_submission(REFERENCE, factory, GradeOptions(parts=frozenset({"A"})))
    errors = {c.check_id for c in result.checks if c.status == "error"}
    assert errors == {"masked_softmax_by_hand", "sdpa_no_library"}, errors
