"""Unit tests of the student boundary: the wire protocol, the sandbox and the Student proxy.

Protocol tests run anywhere. Sandbox tests need root (namespaces, chroot, uid drop) and run a
small probe submission in a real worker; the Docker fallback (no namespaces allowed) is
simulated with a template whose `unshare` always fails.
"""
from __future__ import annotations

import contextlib
import json
import shutil
import tempfile
import os
import pickle
import signal
import socket
import struct
import subprocess
import sys
import sysconfig
import time
from dataclasses import replace
from pathlib import Path
from typing import Iterator

import numpy
import pytest
import torch

from autograder.assignment import current
from autograder.grading.session import hidden_paths
from autograder.grading.worker import cpuwait, protocol, sandbox
from autograder.grading.worker.client import Budget, Student, WorkerFactory, WorkerFailure
from autograder.grading.worker.dispatcher import Dispatcher
from autograder.grading.worker.protocol import HEADER, MAGIC, Limits, ProtocolError, Refused, decode_value, encode_value, recv_message, send_message
from autograder.grading.worker.sandbox import UID_BASE, SandboxConfig, is_root

REPO = Path(__file__).resolve().parents[1]
root_only = pytest.mark.skipif(not is_root(), reason="the sandbox drops privileges only when the grader runs as root")


# ---------------------------------------------------------------------------------------------
# protocol
# ---------------------------------------------------------------------------------------------
@pytest.fixture
def pair():
    a, b = socket.socketpair()
    b.settimeout(2.0)  # a regression that waits for a body that never comes fails, not hangs
    yield a, b
    a.close()
    b.close()


def raw_frame(body: bytes, blobs: list[bytes], magic: bytes = MAGIC) -> bytes:
    lengths = b"".join(struct.pack("!Q", len(x)) for x in blobs)
    return HEADER.pack(magic, len(body), sum(map(len, blobs)), len(blobs)) + lengths + body + b"".join(blobs)


@pytest.mark.parametrize(
    "header, why",
    [
        (HEADER.pack(MAGIC, (8 << 20) + 1, 0, 0), "JSON"),
        (HEADER.pack(MAGIC, 10, (256 << 20) + 1, 1), "data"),
        (HEADER.pack(MAGIC, 10, 0, 5000), "frame too large"),
    ],
    ids=["json", "payload", "blob-count"],
)
def test_oversize_frames_are_refused_from_the_header_alone(pair, header, why):
    a, b = pair
    a.sendall(header)  # only the header: reading any further would block and time out
    with pytest.raises(ProtocolError, match="frame too large") as error:
        recv_message(b)
    assert why in str(error.value)


def test_bad_magic_is_refused(pair):
    a, b = pair
    a.sendall(raw_frame(b"{}", [], magic=b"PKL\x80"))
    with pytest.raises(ProtocolError, match="magic"):
        recv_message(b)


def test_blob_lengths_must_add_up(pair):
    a, b = pair
    a.sendall(HEADER.pack(MAGIC, 2, 10, 1) + struct.pack("!Q", 9) + b"{}" + b"x" * 9)
    with pytest.raises(ProtocolError, match="add up"):
        recv_message(b)


@pytest.mark.parametrize(
    "tensor",
    [
        {"dtype": "object", "shape": [1], "blob": 0},
        {"dtype": "float64", "shape": [-1], "blob": 0},
        {"dtype": "float64", "shape": [1.5], "blob": 0},
        {"dtype": "float64", "shape": [1, True], "blob": 0},
        {"dtype": "float64", "shape": [3], "blob": 0},
        {"dtype": "float64", "shape": [1], "blob": 7},
        {"dtype": "float64", "shape": "1", "blob": 0},
    ],
    ids=["dtype", "negative", "float-dim", "bool-dim", "size-mismatch", "missing-blob", "shape-not-list"],
)
def test_bad_tensor_headers_are_refused(pair, tensor):
    a, b = pair
    body = json.dumps({"__dict__": [["value", {"__tensor__": tensor}]]}).encode()
    a.sendall(raw_frame(body, [b"\0" * 8]))
    with pytest.raises(ProtocolError):
        recv_message(b)


@pytest.mark.parametrize(
    "body",
    [
        b'{"status": "ok", "value": ' + b"7" * 5000 + b"}",  # past int_max_str_digits: a ValueError
        b"[" * 100_000 + b"]" * 100_000,  # past the C stack of the JSON parser: a RecursionError
        b'{"__dict__": [["v", {"__tensor__": {"dtype": "float64", "shape": [0, 100000000000000000000000000000], "blob": 0}}]]}',
        b'{"status": "\xff"}',
    ],
    ids=["5000-digit-int", "deep-nesting", "huge-empty-shape", "bad-utf8"],
)
def test_every_decoding_error_is_a_protocol_error(pair, body):
    a, b = pair
    a.sendall(raw_frame(body, [b""]))
    with pytest.raises(ProtocolError):
        recv_message(b)


def test_a_frame_that_arrived_in_time_is_read_by_a_reader_that_comes_late(pair):
    """A busy grader may look at its socket after the deadline: what arrived is still the reply;
    only a frame that is not all there by then times out (qa40 CI: an honest call lost)."""
    a, b = pair
    send_message(a, {"status": "ok", "value": 3})
    assert recv_message(b, deadline=time.monotonic() - 1) == {"status": "ok", "value": 3}
    a.sendall(raw_frame(b'{"status": "ok"}', [])[:-1])  # all but the last byte
    with pytest.raises(TimeoutError):
        recv_message(b, deadline=time.monotonic() - 1)


def test_lone_surrogates_become_replacement_marks_so_results_can_be_written(pair):
    a, b = pair
    a.sendall(raw_frame(b'{"__dict__": [["status", "\\ud800"], ["\\udfff", ["a\\udfff"]]]}', []))
    message = recv_message(b)
    assert message == {"status": "?", "?": ["a?"]}
    json.dumps(message, ensure_ascii=False).encode("utf-8")


@pytest.mark.parametrize("value", [{"__reduce__": ["os.system", "true"]}, {"__pickle__": "gASVBQAAAAAAAACMAXiULg=="}, {"__tensor__": 1, "x": 2}, {"a": 1}])
def test_unknown_tags_are_refused(value):
    with pytest.raises(ProtocolError):
        decode_value(value, [])


def test_bytes_of_a_pickle_only_ever_become_a_uint8_tensor(pair, tmp_path):
    marker = tmp_path / "unpickled"

    class Payload:
        def __reduce__(self):
            return (os.makedirs, (str(marker),))

    data = pickle.dumps(Payload())
    a, b = pair
    body = json.dumps({"__dict__": [["value", {"__tensor__": {"dtype": "uint8", "shape": [len(data)], "blob": 0}}]]}).encode()
    a.sendall(raw_frame(body, [data]))
    value = recv_message(b)["value"]
    assert type(value) is torch.Tensor and value.dtype == torch.uint8 and bytes(value.numpy()) == data
    assert not marker.exists()


def test_tensor_subclass_is_refused_when_encoded():
    class Lying(torch.Tensor):
        pass

    encoded = encode_value(torch.zeros(2).as_subclass(Lying), [])
    assert "a Tensor subclass" in encoded["__refused__"]


def test_other_objects_are_refused_and_parameters_become_plain_tensors():
    blobs: list[bytes] = []
    assert "an object of type" in encode_value(object(), blobs)["__refused__"]
    assert "non-string keys" in encode_value({1: 2}, blobs)["__refused__"]
    assert "nested too deeply" in json.dumps(encode_value(_nested(40), blobs))
    decoded = decode_value(encode_value(torch.nn.Parameter(torch.ones(2)), blobs), blobs)
    assert type(decoded) is torch.Tensor and not decoded.requires_grad
    assert isinstance(Dispatcher()._export(numpy.zeros(3)), Refused)  # noqa: SLF001


def _nested(depth: int) -> list:
    value: list = []
    for _ in range(depth):
        value = [value]
    return value


def test_expanded_view_is_refused_without_materialising():
    huge = torch.zeros(1, 1).expand(10**6, 10**6)
    started = time.perf_counter()
    encoded = encode_value(huge, [])
    assert "over the size limit" in encoded["__refused__"]
    assert time.perf_counter() - started < 0.5


@pytest.mark.parametrize("dtype", list(protocol.DTYPES.values()), ids=list(protocol.DTYPES))
def test_every_dtype_round_trips_including_non_contiguous(pair, dtype):
    a, b = pair
    value = (torch.arange(24).reshape(2, 3, 4) % 2).to(dtype).transpose(0, 2)
    send_message(a, {"value": value, "rest": (1, 2.5, float("nan"), None, "x", [True])})
    got = recv_message(b)
    assert got["value"].dtype == dtype and got["value"].shape == value.shape and torch.equal(got["value"], value)
    assert got["rest"][:2] == (1, 2.5) and got["rest"][3:] == (None, "x", [True])


def test_small_limits_apply_to_sent_tensors(pair):
    a, b = pair
    limits = Limits(max_payload=64)
    assert "over the size limit" in encode_value(torch.zeros(100), [], limits)["__refused__"]
    a.sendall(raw_frame(b"{}", [b"x" * 65]))
    with pytest.raises(ProtocolError, match="too large"):
        recv_message(b, limits)


# ---------------------------------------------------------------------------------------------
# the sandbox, seen from inside a worker
# ---------------------------------------------------------------------------------------------
PROBE = '''
import errno, fcntl, os, socket, stat

def probe(reads, writes, port):
    found = {"uid": os.getuid(), "gid": os.getgid(), "cwd": os.getcwd(), "groups": len(os.getgroups())}
    found["reads"] = {}
    for path in reads:
        try:
            if os.path.isdir(path):
                os.listdir(path)
            else:
                with open(path, "rb") as handle:
                    handle.read(1)
            found["reads"][path] = "ok"
        except OSError as error:
            found["reads"][path] = type(error).__name__
    found["writes"] = {}
    for path in writes:
        try:
            with open(path, "w") as handle:
                handle.write("x")
            found["writes"][path] = "ok"
        except OSError as error:
            found["writes"][path] = type(error).__name__
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as conn:  # numeric: no getaddrinfo
            conn.settimeout(2)
            conn.connect(("127.0.0.1", port))
        found["connect"] = "connected"
    except OSError as error:
        found["connect"] = errno.errorcode.get(error.errno, str(error))
    try:
        with open("/proc/net/route") as handle:
            found["routes"] = max(0, len(handle.read().splitlines()) - 1)
    except OSError as error:
        found["routes"] = type(error).__name__
    fds = {}
    for fd in range(1024):
        try:
            kind = stat.filemode(os.fstat(fd).st_mode)[0]
            access = ("r", "w", "rw")[fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_ACCMODE]
            fds[str(fd)] = kind + access
        except OSError:
            pass
    found["fds"] = fds
    with open(os.devnull, "w") as null:
        found["devnull"] = null.write("ok")
    return found

COUNTER = [0]

def count():
    COUNTER[0] += 1
    return COUNTER[0]

def hang(seconds):
    import time
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        pass
'''
SECRETS = [
    REPO / "solutions" / "attention" / "attention.py",
    REPO / "solutions",
    REPO / "autograder" / "assignments" / "attention" / "checks" / "part_a.py",
    REPO / "autograder" / "assignments" / "attention" / "checks",
    REPO / "autograder" / "assignments" / "attention" / "reference" / "pronoun_model.pt",
    Path("/root/.ssh"),
    Path("/root/.bashrc"),
    Path("/root/.npmrc"),
    Path("/root/.cache"),
]


def make_student(factory: WorkerFactory, source: str = PROBE, budget: Budget = Budget(call_seconds=3, import_seconds=10, total_seconds=60)) -> Student:
    return Student(factory, [(1, source)], config=SandboxConfig(hidden=hidden_paths()), budget=budget)


@pytest.fixture
def listener():
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    server.settimeout(0.5)
    yield server
    server.close()


def probe(student: Student, listener: socket.socket, writes: list[str]) -> dict:
    reads = [str(p) for p in SECRETS] + [sysconfig.get_paths()["stdlib"] + "/os.py", "/etc/passwd"]
    return student.call("probe", reads, writes, listener.getsockname()[1])


def uids_alive(uid: int) -> list[str]:
    alive = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and entry.stat().st_uid == uid:
                alive.append(entry.name)
        except OSError:
            pass
    return alive


@root_only
def test_worker_is_confined_as_a_fresh_unprivileged_uid(factory, listener, tmp_path):
    outside = [f"/{tmp_path.name}-x", "/usr/attnkit-x", "/etc/attnkit-x", str(REPO / "attnkit-x"), "/root/attnkit-x", str(tmp_path / "x")]
    student = make_student(factory)
    try:
        found = probe(student, listener, [*outside, "inside-scratch.txt", "/tmp/inside-tmp.txt"])
        assert student.isolation == "namespaces"
    finally:
        student.close()
    assert found["uid"] >= UID_BASE and found["gid"] >= UID_BASE and found["groups"] == 0
    for secret in SECRETS:  # not there at all (allow-listed chroot), or not readable
        assert found["reads"][str(secret)] in ("FileNotFoundError", "PermissionError"), secret
    assert found["reads"][sysconfig.get_paths()["stdlib"] + "/os.py"] == "ok"  # the Python installation is there
    assert all(found["writes"][path] != "ok" for path in outside), found["writes"]
    assert found["writes"]["inside-scratch.txt"] == found["writes"]["/tmp/inside-tmp.txt"] == "ok"
    assert not any(Path(p).exists() for p in outside)
    # no socket at all (the seccomp filter), and an empty network namespace behind it
    assert found["connect"] == "EACCES" and found["routes"] == 0, (found["connect"], found["routes"])
    with pytest.raises(socket.timeout):
        listener.accept()
    assert found["devnull"] == 2


@root_only
def test_worker_holds_no_descriptor_of_the_grader(factory, listener):
    student = make_student(factory)
    try:
        fds = probe(student, listener, [])["fds"]
    finally:
        student.close()
    assert (fds["0"], fds["1"], fds["2"]) == ("pr", "pw", "pw"), fds  # empty stdin, the keeper's output pipe
    others = [v for k, v in fds.items() if int(k) > 2]
    assert others.count("srw") == 1, f"one socket to the grader: {fds}"
    assert all(v in ("srw", "-r") for v in others), f"only read-only files besides (matplotlib's fonts): {fds}"


def test_template_is_a_fresh_interpreter_with_a_small_environment(factory):
    from autograder.grading.worker.client import TEMPLATE_ENV

    environ = Path(f"/proc/{factory.pid}/environ").read_bytes().split(b"\0")
    names = {item.split(b"=", 1)[0].decode() for item in environ if item}
    assert names <= {*TEMPLATE_ENV, "PYTHONPATH", "OMP_THREAD_LIMIT"}
    assert b"OMP_THREAD_LIMIT=1" in environ  # OpenMP starts no thread in a worker (launch.py)
    assert Path(f"/proc/{factory.pid}/exe").resolve() == Path(sys.executable).resolve()
    for fd in os.listdir(f"/proc/{factory.pid}/fd"):
        target = os.readlink(f"/proc/{factory.pid}/fd/{fd}")
        assert target.startswith(("socket:", "/dev/null")) or target.endswith(".ttf") or int(fd) <= 2, target


def keeper_alive(pid: int) -> bool:
    try:
        return "State:\tZ" not in Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False


@pytest.mark.timing
@root_only
def test_timeout_kills_worker_and_keeper_and_the_next_call_gets_a_fresh_worker(factory):
    student = make_student(factory, budget=Budget(call_seconds=1, import_seconds=10, total_seconds=60))
    try:
        assert student.call("count") == 1 and student.call("count") == 2
        first = student._worker  # noqa: SLF001
        uid = UID_BASE + first.keeper
        assert uids_alive(uid)
        with pytest.raises(WorkerFailure, match="timed out after 1 s in hang"):
            student.call("hang", 30)
        deadline = time.monotonic() + 5
        while (uids_alive(uid) or keeper_alive(first.keeper)) and time.monotonic() < deadline:
            time.sleep(0.05)  # a killed process takes a moment to unmap torch
        assert not uids_alive(uid)
        assert not keeper_alive(first.keeper)
        assert not Path(first.scratch).exists()
        assert student.call("count") == 1  # a fresh worker: the module was imported again
        assert student.events == ["timed out after 1 s in hang"]
    finally:
        student.close()


SPIN = '''
import os, time

def spin(cpu_seconds):
    end = time.thread_time() + cpu_seconds  # this thread's CPU time, however long it takes to get it
    while time.thread_time() < end:
        pass
    return "done"

def spin_with_helpers(cpu_seconds, helpers):
    for _ in range(helpers):
        if os.fork() == 0:
            while True:
                pass
    return spin(cpu_seconds)

def spin_with_reaped_helpers(helpers):
    while True:  # its own processes take the CPU, and are gone (reaped) whenever the grader looks
        for _ in range(helpers):
            if os.fork() == 0:
                spin(0.2)
                os._exit(0)
        spin(0.1)
        for _ in range(helpers):
            os.wait()

def spin_niced(cpu_seconds):
    os.nice(19)  # it waits for a CPU by its own choice
    return spin(cpu_seconds)
'''


@contextlib.contextmanager
def crowded(processes: int) -> Iterator[None]:
    """`processes` busy loops, each in a session of its own: where the kernel shares the CPU
    between sessions (autogroup), the worker's session then gets a small share of it too."""
    burners = [subprocess.Popen([sys.executable, "-S", "-c", "while True: pass"], start_new_session=True) for _ in range(processes)]
    try:
        yield
    finally:
        for burner in burners:
            burner.kill()
            burner.wait()


def test_a_busy_process_alone_is_marked_alone_however_its_ticks_fall():
    """A process's CPU time and its main thread's come from two files: a thread that ran on
    between the two reads seemed to have used CPU that another did (`others` one tick off in 5 of
    6668 marks of a lone busy process, round 39), and an honest call under load got no time back."""
    busy = subprocess.Popen([sys.executable, "-S", "-c", "while True: pass"])
    try:
        time.sleep(0.05)
        start = cpuwait.of_pid(busy.pid)
        assert start is not None
        marks = []
        for _ in range(3000):
            marks.append(cpuwait.of_pid(busy.pid))
            time.sleep(0.0005)
        assert all(now is not None and cpuwait.ran_alone(start, now) for now in marks)
    finally:
        busy.kill()
        busy.wait()


@pytest.mark.timing
def test_a_call_that_waited_for_a_cpu_taken_by_others_gets_that_time_back(factory):
    """A neighbour's busy processes (or another grader's) must not time out an honest call: its
    limit counts the time the worker ran or slept, not the time it waited for a CPU."""
    student = make_student(factory, source=SPIN, budget=Budget(call_seconds=1, import_seconds=10, total_seconds=60))
    try:
        assert student.call("spin", 0.01) == "done"
        with crowded(16 * (os.cpu_count() or 1)):
            started = time.monotonic()
            assert student.call("spin", 0.5) == "done"
            elapsed = time.monotonic() - started
        assert elapsed > 1.0, elapsed  # it did wait: 0.5 s of CPU took longer than its 1 s limit
        assert student.events == []
    finally:
        student.close()


def test_the_time_the_grader_takes_to_answer_a_stand_in_is_not_the_calls(factory):
    """A call's limit is the worker's: two stand-in answers that take the grader 0.7 s each leave a
    call of 1 s that does little else in time."""
    import torch

    from autograder.assignments.attention.checks.carried import trusted_answer

    def slow(callback):
        time.sleep(0.7)
        return trusted_answer(callback)

    source = "def attention_scores(q, k):\n    return q\n\ndef twice(q, k):\n    return attention_scores(q, k) + attention_scores(q, k)\n"
    student = make_student(factory, source=source, budget=Budget(call_seconds=1, import_seconds=10, total_seconds=60))
    q = torch.eye(2, dtype=torch.float64).unsqueeze(0)
    try:
        with student.stand_ins(["attention_scores"], slow):
            assert torch.allclose(student.call("twice", q, q), 2 * q / 2**0.5)
    finally:
        student.close()


@pytest.mark.timing
def test_a_load_that_waited_for_a_cpu_taken_by_others_is_not_cut_short(factory):
    """The worker's own limit on a slow statement (half the load's time) gives that time back too."""
    source = SPIN + "\nspin(0.5)\n\ndef loaded():\n    return True\n"
    with crowded(16 * (os.cpu_count() or 1)):
        started = time.monotonic()
        student = make_student(factory, source=source, budget=Budget(call_seconds=1, import_seconds=2, total_seconds=60))
        try:
            assert student.call("loaded") is True
            elapsed = time.monotonic() - started
            assert student.load_errors == [] and student.events == []
        finally:
            student.close()
    assert elapsed > 2.0, elapsed  # it did wait: 0.5 s of CPU took longer than the load's 2 s


@pytest.mark.timing
def test_a_call_whose_own_processes_take_the_cpu_gets_no_time_back(factory):
    student = make_student(factory, source=SPIN, budget=Budget(call_seconds=1, import_seconds=10, total_seconds=60))
    try:
        started = time.monotonic()
        with pytest.raises(WorkerFailure, match="timed out after 1 s in spin_with_helpers"):
            student.call("spin_with_helpers", 30, 4 * (os.cpu_count() or 1))
        assert time.monotonic() - started < 10  # not the 60 s of the submission's budget
        started = time.monotonic()
        with pytest.raises(WorkerFailure, match="timed out after 1 s in spin_with_reaped_helpers"):
            student.call("spin_with_reaped_helpers", 4 * (os.cpu_count() or 1))
        assert time.monotonic() - started < 10
        with crowded(16 * (os.cpu_count() or 1)):
            started = time.monotonic()
            with pytest.raises(WorkerFailure, match="timed out after 1 s in spin_niced"):
                student.call("spin_niced", 30)
            assert time.monotonic() - started < 10
    finally:
        student.close()


@pytest.mark.timing
def test_total_budget_stops_further_calls(factory):
    student = make_student(factory, budget=Budget(call_seconds=5, import_seconds=10, total_seconds=1))
    try:
        student.call("hang", 1.2)
        with pytest.raises(WorkerFailure, match="used up its 1 s time budget"):
            student.call("count")
    finally:
        student.close()


# ---------------------------------------------------------------------------------------------
# the Docker fallback: the kernel refuses namespaces, the worker still drops to a uid
# ---------------------------------------------------------------------------------------------
class NoNamespacesFactory(WorkerFactory):
    """A template whose unshare() always fails, as under Docker's default seccomp profile."""

    BOOT = (
        "import autograder.grading.worker.sandbox as sandbox\n"
        "def refuse(flags):\n"
        "    raise PermissionError(1, 'unshare: Operation not permitted (simulated seccomp)')\n"
        "sandbox.unshare = refuse\n"
        "from autograder.grading.worker.template import main\n"
        "main()\n"
    )

    def __init__(self) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        env = {"PATH": os.environ.get("PATH", ""), "HOME": os.environ.get("HOME", "/"), "PYTHONPATH": str(REPO)}
        self.process = subprocess.Popen([sys.executable, "-c", self.BOOT, str(theirs.fileno()), str(os.getpid())], pass_fds=[theirs.fileno()], stdin=subprocess.DEVNULL, env=env)
        theirs.close()
        self.pid, self.control, self._replies = self.process.pid, ours, b""
        self._sent = self._answered = 0
        self._keepers: dict[int, tuple[int, int]] = {}


@pytest.fixture(scope="module")
def fallback_factory():
    made = NoNamespacesFactory()
    yield made
    made.close()


@root_only
def test_fallback_without_namespaces_still_drops_to_an_unprivileged_uid(fallback_factory, listener, tmp_path):
    secret = tmp_path / "root-only-secret.txt"
    secret.write_text("root only")
    secret.chmod(0o600)
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o755)
    student = make_student(fallback_factory)
    try:
        found = student.call("probe", [str(secret), "/root/.ssh", "/root/.npmrc"], [str(locked / "x"), "inside-scratch.txt"], listener.getsockname()[1])
        assert student.isolation == "uid"
        scratch = student._worker.scratch  # noqa: SLF001
    finally:
        student.close()
    assert found["uid"] >= UID_BASE and found["groups"] == 0
    assert found["cwd"] == scratch
    assert found["reads"] == {str(secret): "PermissionError", "/root/.ssh": "PermissionError", "/root/.npmrc": "PermissionError"}
    assert found["writes"] == {str(locked / "x"): "PermissionError", "inside-scratch.txt": "ok"}
    assert not Path(scratch).exists()


@pytest.mark.timing
@root_only
def test_fallback_kills_every_process_of_the_uid_after_a_timeout(fallback_factory):
    source = PROBE + "\nimport os as _os, time as _time\nif _os.fork() == 0:\n    _os.setsid()\n    _time.sleep(30)\n    _os._exit(0)\n"
    student = make_student(fallback_factory, source, budget=Budget(call_seconds=1, import_seconds=10, total_seconds=60))
    try:
        assert student.call("count") == 1
        uid = UID_BASE + student._worker.keeper  # noqa: SLF001
        assert len(uids_alive(uid)) >= 2  # the worker and its setsid child
        with pytest.raises(WorkerFailure, match="timed out"):
            student.call("hang", 30)
    finally:
        student.close()
    deadline = time.monotonic() + 5
    while uids_alive(uid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not uids_alive(uid)


def test_the_image_makes_the_secrets_root_only():
    """In the fallback only file modes protect the secrets: the image must make them root-only."""
    script = (REPO / "docker" / "install-grader.sh").read_text(encoding="utf-8")
    secrets_line = next(line for line in script.splitlines() if line.startswith("SECRETS="))
    covered = secrets_line.split("=", 1)[1].strip('"').split()
    for secret in ("solutions", "autograder/assignments/attention/checks", "autograder/assignments/attention/reference"):
        assert any(secret == c or secret.startswith(c + "/") for c in covered), f"{secret} is not made root-only in the image"
    assert 'chmod -R go-rwx "$root/$secret"' in script


# ---------------------------------------------------------------------------------------------
# without root: no namespaces of root's, no uid drop; a user namespace still gives a pid namespace
# ---------------------------------------------------------------------------------------------
DAEMON = '''
import os, time

def start_daemon(path):
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            for _ in range(100):  # 20 s at most
                with open(path, "w") as handle:
                    handle.write(str(time.monotonic()))
                time.sleep(0.2)
        os._exit(0)
    time.sleep(0.5)
    return os.getpid()
'''


def user_namespaces_allowed() -> bool:
    child = os.fork()
    if child == 0:
        code = 1
        try:
            sandbox.unshare(sandbox.CLONE_NEWUSER | sandbox.CLONE_NEWPID)
            code = 0
        finally:
            os._exit(code)
    return os.waitpid(child, 0)[1] == 0


def test_unprivileged_path_kills_setsid_daemons_with_the_worker(factory, tmp_path):
    """isolate=False takes the code path of a grader that is not root (as it is outside Docker)."""
    beat = tmp_path / "heartbeat"
    student = Student(factory, [(1, DAEMON)], config=SandboxConfig(isolate=False), budget=Budget(call_seconds=5, import_seconds=10, total_seconds=60))
    try:
        pid = student.call("start_daemon", str(beat))
        assert student.isolation == "process"
    finally:
        student.close()
    if not user_namespaces_allowed():
        pytest.skip("this kernel refuses user namespaces: a grader without root has no pid namespace")
    assert pid == 1, "the worker should be pid 1 of its own pid namespace"
    time.sleep(0.5)
    first = beat.read_text()
    time.sleep(1.0)
    assert beat.read_text() == first, "the daemon outlived its worker"


@pytest.mark.skipif(not is_root(), reason="the allow-listed chroot needs root")
def test_an_allowed_folder_under_tmp_stays_readable_above_the_scratch(factory, tmp_path):
    """A checkout under /tmp (CI clones there) keeps its site-packages visible in the chroot."""
    allowed = Path(tempfile.mkdtemp(prefix="attnkit-allowed-", dir="/tmp"))
    try:
        (allowed / "data.txt").write_text("visible")
        os.chmod(allowed, 0o755)
        os.chmod(allowed / "data.txt", 0o644)
        source = f"def read():\n    return open({str(allowed / 'data.txt')!r}).read()\n"
        student = Student(factory, [(1, source)], config=SandboxConfig(extra_paths=(str(allowed),)))
        try:
            assert student.call("read") == "visible"
            assert student.isolation == "namespaces"
        finally:
            student.close()
    finally:
        shutil.rmtree(allowed)


# ---------------------------------------------------------------------------------------------
# nothing outlives the grader
# ---------------------------------------------------------------------------------------------
GRADER_THAT_WILL_BE_KILLED = """
from autograder.grading.worker.client import Budget, Student, WorkerFactory
factory = WorkerFactory()
student = Student(factory, [(1, "import time\\ndef hang(s):\\n    time.sleep(s)\\n")], budget=Budget(60, 60, 120))
student.call("hang", 0)
print(factory.pid, student._worker.keeper, student._worker.worker, flush=True)
student.call("hang", 60)
"""


def alive(pid: int) -> bool:
    try:
        return "State:\tZ" not in Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False


@pytest.mark.timing
def test_killing_the_grader_with_sigkill_takes_template_keeper_and_worker_with_it():
    grader = subprocess.Popen([sys.executable, "-c", GRADER_THAT_WILL_BE_KILLED], stdout=subprocess.PIPE, text=True,
                              env={**os.environ, "PYTHONPATH": str(REPO)}, start_new_session=True)
    try:
        template, keeper, worker = (int(v) for v in grader.stdout.readline().split())
        assert alive(template) and alive(keeper) and alive(worker)
        time.sleep(0.5)  # the worker is inside hang(60)
        os.kill(grader.pid, signal.SIGKILL)  # the grader only: its children are not signalled
        grader.wait()
        deadline = time.monotonic() + 15
        while any(map(alive, (template, keeper, worker))) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not [pid for pid in (template, keeper, worker) if alive(pid)], "a process outlived the grader"
    finally:
        grader.kill()
        grader.wait()


def test_the_template_imports_seaborn_only_for_a_submission_that_imports_it():
    fresh = WorkerFactory()  # its own template: the session's may have imported seaborn already
    try:
        plain = make_student(fresh, "import sys\ndef seaborn_loaded():\n    return 'seaborn' in sys.modules\n")
        assert plain.call("seaborn_loaded") is False
        plain.close()
        user = make_student(fresh, "import sys\nBEFORE = 'seaborn' in sys.modules\nimport numpy, seaborn\ndef preloaded():\n    return BEFORE\n")
        assert user.call("preloaded") is True
        user.close()
    finally:
        fresh.close()


def test_an_interrupt_while_a_worker_starts_waits_until_closing_it_ends_its_keeper(factory, monkeypatch):
    """Ctrl-C or SIGTERM while a worker is being started takes effect once the Student holds it,
    so closing the Student ends the keeper (issue 15: raised in between, the keeper was nobody's;
    its worker waited on a socket the traceback kept open, and the template waited 10 s for it)."""
    from autograder.grading.worker.client import WorkerProcess

    real = WorkerProcess.read_status
    keepers: list[int] = []

    def interrupted(self, timeout: float, until: str = "ended") -> None:
        keepers.append(self.keeper)
        os.kill(os.getpid(), signal.SIGINT)  # as a Ctrl-C would, while the keeper reports its worker
        real(self, timeout, until)

    monkeypatch.setattr(WorkerProcess, "read_status", interrupted)
    student = Student(factory, [(1, "x = 1\n")])
    with pytest.raises(KeyboardInterrupt) as raised:
        student.call("x")
    monkeypatch.undo()
    student.close()
    with pytest.raises(ProcessLookupError):  # the keeper has ended (the template reaps its keepers at once)
        os.kill(keepers[0], 0)
    del raised  # the traceback held the interrupted frames: nothing depended on it being gone


def test_closing_a_worker_whose_keeper_has_ended_spares_the_process_that_took_its_pid(tmp_path):
    """Pids wrap (pid_max 32768 here), so a worker closed a while after its keeper ended may find
    the keeper's pid, and the uid made from it, in use by another grader's worker: killing by pid
    or uid then killed that one. The keeper is now known by a pidfd opened when its pid was read."""
    from autograder.grading.worker.client import WorkerProcess

    ended = subprocess.Popen(["true"])
    ended_fd = os.pidfd_open(ended.pid)
    ended.wait()
    uid = UID_BASE + 4242  # stands for the uid made from the reused pid
    # The process that now has the keeper's pid and uid (when root: it runs as that uid).
    other = subprocess.Popen(["sleep", "60"], user=uid if is_root() else None)
    sock, _ = socket.socketpair()
    status_read, status_write = os.pipe()
    os.close(status_write)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    closing = WorkerProcess(keeper=other.pid, keeper_fd=ended_fd, sock=sock, status_fd=status_read, scratch=str(scratch), uid=uid if is_root() else None)
    try:
        closing.kill()
        time.sleep(0.1)
        assert other.poll() is None, "closing a worker killed a process that is not its keeper"
        assert not scratch.exists()
    finally:
        other.kill()
        other.wait()


SHM_PROBE = """
import ctypes, os

def shared_memory(size):
    libc = ctypes.CDLL(None, use_errno=True)
    libc.shmget.restype = ctypes.c_int
    libc.shmget.argtypes = [ctypes.c_int, ctypes.c_size_t, ctypes.c_int]
    made = libc.shmget(0, size, 0o1000 | 0o600)  # IPC_PRIVATE, IPC_CREAT
    if made < 0:
        return os.strerror(ctypes.get_errno())
    libc.shmctl(made, 0, None)  # IPC_RMID
    return "made"
"""


@root_only
def test_a_worker_cannot_create_sysv_shared_memory(factory):
    """qa21h c09: SysV segments (shmget through ctypes) are memory outside RLIMIT_AS; the worker's
    IPC namespace has its limits set to 0, so not even a small one can be made."""
    student = make_student(factory, SHM_PROBE)
    try:
        made = student.call("shared_memory", 1 << 20)
        if student.isolation != "namespaces" or not os.access("/proc/sys/kernel/shmmax", os.W_OK):
            pytest.skip("no IPC namespace of the worker's own with writable limits here")
        assert made in ("Invalid argument", "No space left on device"), made
    finally:
        student.close()
    assert int(Path("/proc/sys/kernel/shmmni").read_text()) > 0  # the grader's own namespace is untouched


MEMORY_PROBE = """
import os, select, time

def children_fill(count, mib):
    \"\"\"Start `count` processes that each fill `mib` MiB and wait: how each of them ended
    (None: still running once every one had filled its memory or ended).\"\"\"
    read, write = os.pipe()
    pids = []
    for _ in range(count):
        pid = os.fork()
        if pid == 0:
            os.close(read)
            block = b"\\1" * (mib << 20)
            os.write(write, b"x")
            time.sleep(30)
            os._exit(0)
        pids.append(pid)
    os.close(write)
    ended, ready, deadline = {}, 0, time.monotonic() + 6
    while ready + len(ended) < count and time.monotonic() < deadline:
        if select.select([read], [], [], 0.05)[0]:
            ready += len(os.read(read, 64))
        for pid in pids:
            done, status = (0, 0) if pid in ended else os.waitpid(pid, os.WNOHANG)
            if done:
                ended[pid] = os.WTERMSIG(status) if os.WIFSIGNALED(status) else None
    for pid in pids:
        if pid not in ended:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
            ended[pid] = None
    return sorted(ended.values(), key=str)

def fill(mib):
    return len(b"\\1" * (mib << 20))
"""


def _memory_group(keeper: int) -> Path | None:
    place = sandbox._memory_cgroup()
    return place[0] / f"{sandbox.MEMORY_GROUP_PREFIX}{keeper}" if place else None


@root_only
def test_a_workers_processes_share_one_memory_limit(factory):
    """qa21h c02: RLIMIT_AS bounds each process, so 64 processes of one worker could ask for 64 x
    2 GiB. As root, the worker's keeper puts it in a memory cgroup of its own: its processes
    together hold at most group_memory_bytes, past which the OOM killer stops one of them (and
    only one of them), and the group is gone with the worker."""
    config = SandboxConfig(hidden=hidden_paths(), group_memory_bytes=256 << 20)
    student = Student(factory, [(1, MEMORY_PROBE)], config=config, budget=Budget(call_seconds=8, import_seconds=10, total_seconds=60))
    try:
        assert student.call("children_fill", 2, 40) == [None, None]  # under the limit together: nothing is stopped
        worker = student._worker
        assert worker is not None
        group = _memory_group(worker.keeper)
        if group is None:
            pytest.skip("no memory cgroup this process may make children in (a read-only /sys/fs/cgroup)")
        assert group.is_dir()
        assert signal.SIGKILL in student.call("children_fill", 3, 120)  # 360 MiB together: one of them is stopped
        assert student.call("fill", 16) == 16 << 20  # the worker itself goes on
        with pytest.raises(WorkerFailure, match=r"killed: its processes together went over the 0.25 GiB memory limit"):
            student.call("fill", 400)  # the worker alone, under its own 2 GiB address space
    finally:
        student.close()
    deadline = time.monotonic() + 5
    while group.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not group.exists()


DYNAMO_PROBE = """
import sys, torch

def meta_mask():
    return torch.ones(3, 4, dtype=torch.bool, device="meta").tril()  # (3, 4): torch's Python decomposition

def softmax(x):
    return torch.softmax(x, -1)

def dynamo_loaded():
    return "torch._dynamo" in sys.modules
"""


def test_a_worker_runs_meta_device_and_traced_calls_without_importing_torch_dynamo(factory):
    """A.4's meta-device check and the op tracer reach torch functions that import torch._dynamo
    (~1 s CPU) on their first call; the template defers that (deferdynamo), so neither the
    template before its first fork nor a worker pays it."""
    student = make_student(factory, DYNAMO_PROBE)
    try:
        assert student.call_devices("meta_mask") == ["meta"]
        value, trace = student.traced_call("softmax", torch.zeros(2, 3))
        assert "aten._softmax.default" in trace["aten"] and value.shape == (2, 3)
        assert student.call("dynamo_loaded") is False
    finally:
        student.close()


DEFERRED_THEN_LOADED = """
import sys, torch
from autograder.grading.worker.deferdynamo import CACHE_ATTRIBUTE, defer_dynamo
from autograder.grading.worker.dispatcher import OpTracer
assert defer_dynamo() > 100
with OpTracer() as tracer:
    torch.ones(3, 4, dtype=torch.bool, device="meta").tril()
assert "torch._dynamo" not in sys.modules and "aten.tril.default" in tracer.aten, tracer.aten
import torch._dynamo
with OpTracer() as tracer:
    torch.ones(3, 4, dtype=torch.bool, device="meta").tril()
dispatch = type(tracer._modes[1]).__torch_dispatch__.__wrapped__
assert "aten.tril.default" in tracer.aten and getattr(dispatch, CACHE_ATTRIBUTE)._torchdynamo_disable  # torch's own, cached
compiled = torch.compile(lambda x: torch.ones(3, 4, dtype=torch.bool, device=x.device).tril() & x, backend="eager")
print(compiled(torch.ones(3, 4, dtype=torch.bool)).sum().item())
"""


def test_deferred_dynamo_becomes_torchs_own_disable_once_something_imports_it():
    """Once torch._dynamo is loaded (a submission that compiles), each deferred function is
    disabled by torch._dynamo as torch's wrapper would have done, and compiling works."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run([sys.executable, "-c", DEFERRED_THEN_LOADED], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["6"]


AHEAD_SOURCE = "import os\nprint('loaded')\ndef pid():\n    return os.getpid()\n"


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def test_a_worker_started_ahead_becomes_the_private_worker_and_nothing_outlives_close(factory):
    """`check` starts the second worker while the first works (Student.ahead): start_private takes
    it, the first one's output is kept and the private one's withheld, and closing
    leaves no keeper behind."""
    student = Student(factory, [(1, AHEAD_SOURCE)], ahead=True)
    first = student.call("pid")
    assert student._next is not None  # asked for while the first works
    keepers = [student._worker.keeper]
    student.start_private()
    keepers.append(student._worker.keeper)
    assert student.call("pid") == first  # a pid namespace each: both are their namespace's init...
    assert keepers[0] != keepers[1] and student._generation == 2 and student._next is None  # ...of two keepers
    student.close()
    assert student.output == ["loaded\n"]  # the private one printed "loaded" too: not shown, nor that it printed
    assert all(_gone(keeper) for keeper in keepers)


def test_a_worker_started_ahead_and_never_used_is_ended_by_close(factory):
    student = Student(factory, [(1, AHEAD_SOURCE)], ahead=True)
    student.call("pid")
    first = student._worker.keeper
    student.close()
    assert student._next is None and _gone(first)
    assert Path(f"/proc/{factory.pid}/task/{factory.pid}/children").read_text().split() == []  # the unused one's keeper too
    assert factory._keepers == {} and factory._answered == factory._sent  # no reply left for a later request to mistake


def test_a_prepared_worker_is_the_next_one_of_its_config_and_is_ended_when_unused():
    """`check` asks for its first worker before warming up (WorkerFactory.prepare): a Student with
    that config gets it; one with another config gets a new one (the prepared one is ended); a
    prepared worker nobody took is ended with the factory."""
    fresh = WorkerFactory()
    try:
        config = SandboxConfig(hidden=hidden_paths())
        fresh.prepare(config, stand_ins=current().stand_ins_file)
        prepared = fresh._prepared[3]
        student = Student(fresh, [(1, AHEAD_SOURCE)], config=replace(config))
        student.call("pid")
        assert student._worker.sock is prepared.sock and fresh._prepared is None
        student.close()
        fresh.prepare(config, stand_ins=current().stand_ins_file)
        prepared = fresh._prepared[3]
        other = Student(fresh, [(1, AHEAD_SOURCE)], config=replace(config, output_bytes=config.output_bytes + 1))
        other.call("pid")
        assert other._worker.sock is not prepared.sock and fresh._prepared is None
        other.close()
        assert Path(f"/proc/{fresh.pid}/task/{fresh.pid}/children").read_text().split() == []
        fresh.prepare(config)
    finally:
        fresh.close()
    assert fresh.process.returncode == 0  # it exited after its keepers: the prepared one's too


def test_the_submission_runs_as_the_assignments_module_whatever_its_file_is_called(factory, tmp_path):
    """A file handed in as torch.py (or random.py, alice.py) runs as module `attention`: it must
    not take the place of a library the worker imports."""
    source = "import sys\nimport torch\n\ndef which():\n    return __name__, sys.modules['torch'].__name__, torch.ones(1).dtype == torch.float32\n"
    student = Student(factory, [(1, source)], filename="torch.py")
    try:
        assert tuple(student.call("which")) == ("attention", "torch", True)
    finally:
        student.close()


def test_a_named_tuple_result_comes_back_as_the_tuple_it_is():
    """`return AttentionResult(output, weights)` (a typing.NamedTuple) is the pair the contract
    asks for: it crosses as a plain tuple (qa6s c07 lost A.3, B, C and D: "returned an object of
    type attention.AttentionResult"), read through tuple's own iterator, never the class's."""
    from typing import NamedTuple

    class AttentionResult(NamedTuple):
        output: torch.Tensor
        weights: torch.Tensor

        def __iter__(self):  # a class's own iteration is not what is sent
            return iter(())

    exported = Dispatcher()._export(AttentionResult(torch.ones(2), torch.zeros(3)))  # noqa: SLF001
    assert type(exported) is tuple and [t.tolist() for t in exported] == [[1.0, 1.0], [0.0, 0.0, 0.0]]



@pytest.mark.root
def test_a_machine_without_libseccomp_stops_the_batch_instead_of_grading_zeros(tmp_path):
    """Issue 15's device run: where libseccomp.so.2 could not be loaded, every worker failed to set
    up its sandbox (as root it fails closed) and all 400 submissions got 0 with "the worker exited
    with code 70 in starting the worker". No student code runs before the sandbox is up, so that
    is the machine's fault: the batch now stops at once, says what to install, and writes nothing."""
    if os.geteuid() != 0 or shutil.which("unshare") is None:
        pytest.fail("needs root and util-linux's unshare (the CI machine has both)")
    import pyseccomp  # noqa: F401 - loads the library, whose file /proc/self/maps then names

    library = next(line.split()[-1] for line in Path("/proc/self/maps").read_text().splitlines() if "libseccomp.so" in line)
    inbox, out = tmp_path / "inbox", tmp_path / "out"
    inbox.mkdir()
    shutil.copy(Path(__file__).resolve().parents[1] / "solutions" / "attention" / "attention.py", inbox / "ref.py")
    shutil.copy(inbox / "ref.py", inbox / "ref2.py")
    hide = f'mount --bind /dev/null {library} && exec "$0" -m autograder.cli grade-batch {inbox} --out {out} --seed 1 --jobs 2'
    done = subprocess.run(["unshare", "--mount", "sh", "-c", hide, sys.executable], capture_output=True, text=True, timeout=300,
                          cwd=Path(__file__).resolve().parents[1])
    assert done.returncode == 2, done.stderr[-2000:]
    assert "cannot grade safely on this machine" in done.stderr and "apt-get install libseccomp2" in done.stderr
    assert "internal error" not in done.stderr and not list(out.glob("*/attnkit.json"))


_WARMED = """
import json
from autograder.grading.grader import Grader
from autograder.assignments.attention.checks import part_e, part_f
sizes = []
for clients in (1, 2):
    part_e.reference_render.cache_clear()
    part_f.reference_render.cache_clear()
    with Grader(clients=clients):
        sizes.append((part_e.reference_render.cache_info().currsize, part_f.reference_render.cache_info().currsize))
print(json.dumps({"sizes": sizes, "drawn": len(part_f.reference().drawn)}))
"""


def test_a_pool_grader_makes_the_reference_renders_once_before_its_processes_fork():
    """session.warm_checks: each pool process drew the kit's reference maps on its first
    submission (0.4 s CPU, 16 times at --jobs 16); the pool's parent draws them once. A lone
    grader does not: it would only move that work earlier."""
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    out = subprocess.run([sys.executable, "-c", _WARMED], capture_output=True, text=True, env=env, timeout=300, check=True)
    found = json.loads(out.stdout.splitlines()[-1])
    assert found["drawn"] > 0 and found["sizes"] == [[0, 0], [1, found["drawn"]]], found
