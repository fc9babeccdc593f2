"""The grader's side of the boundary: the template handle, worker processes and the Student proxy.

Checks talk to student code only through `Student`: every call sends plain data to a worker and
rebuilds plain tensors from the bytes that come back. A worker that hangs, crashes, exits or
goes over a limit is killed; the call fails with a plain reason and the next call gets a fresh
worker that re-imports the submission.
"""
from __future__ import annotations

import builtins
import contextlib
import json
import functools
import re
import os
import select
import shutil
import signal
import socket
import subprocess
import sysconfig
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any, Callable, Iterator

from autograder.assignment import current
from autograder.errors import AttnkitError
from autograder.feedback.i18n import t
from autograder.grading.worker import cpuwait, sandbox
from autograder.grading.chunks import Cells
from autograder.grading.worker.launch import TEMPLATE_ENV, LaunchedTemplate, launch_template, signals_deferred  # noqa: F401  (TEMPLATE_ENV: re-exported)
from autograder.grading.worker.protocol import PROFILED, UNTRACED_KEYS, Handle, ProtocolError, Refused, recv_message, send_message
from autograder.grading.worker.sandbox import SandboxConfig
from autograder.grading.worker.standins import MAX_CALLBACKS_PER_REQUEST, StandInError, StandInRefused
from autograder.paths import PACKAGE_DIR
from autograder.settings import CALL_SECONDS, IMPORT_SECONDS, SUBMISSION_SECONDS

SIGNAL_NAMES: dict[int, str] = {  # how a worker killed by a signal ended, in words (autograder.feedback.i18n "ended.*")
    signal.SIGKILL: t("ended.killed"), signal.SIGSEGV: t("ended.segfault"), signal.SIGXCPU: t("ended.cpu_limit"),
    signal.SIGABRT: t("ended.aborted"), signal.SIGBUS: t("ended.bus_error"), signal.SIGFPE: t("ended.arithmetic"),
    signal.SIGILL: t("ended.illegal"), signal.SIGXFSZ: t("ended.file_size"),
}


class StudentError(Exception):
    """A call into student code did not give a value. str() is the student-facing reason."""


class NotImplementedYet(StudentError):
    pass


class StudentException(StudentError):
    """The student's code raised an exception."""

    def __init__(self, kind: str, message: str, frames: list[str], where: str, bases: frozenset[str] = frozenset()):
        self.kind, self.text, self.frames = kind, message, frames
        self.builtins = bases  # the builtin exception classes it is an instance of, by name
        location = f" ({frames[-1]})" if frames else ""
        super().__init__(f"{where} raised {kind}: {message}{location}")


class WorkerFailure(StudentError):
    """The worker timed out, crashed, exited or broke a limit."""


class BadReturn(StudentError):
    """The student's code returned something that may not cross the boundary."""


class SandboxUnavailable(AttnkitError):
    """The worker's sandbox cannot be built on this machine: nothing can be graded safely."""


class TemplateError(RuntimeError):
    """The template process is gone: a grader problem, not the student's."""


MAX_LOOKED_NAMES = 512  # names kept of what the other calls of one function saw
# where a library is imported, not named; [ \t\f], not \s: a \s* at each line start ran over every
# newline after it (an answer cell of 128,000 blanked lines held the grader 120 s: qa27h n01)
SEABORN_IMPORT_RE = re.compile(r"^[ \t\f]*(?:import[ \t]+[\w., \t]*\bseaborn\b|from[ \t]+seaborn\b)", re.M)
SCRATCH_PREFIX = "attnkit-scratch-"  # + the grader's pid: a killed grader's folders are found and removed
# how long the grader waits for a keeper to report how its killed worker ended (a big process
# dies slowly on a busy machine; the keeper is killed only after, so the worker is never orphaned)
KEEPER_REPORT_SECONDS = 10.0
# The grader's own folders, longest first: a warning from the kit or a library names its file by
# these, which say nothing to the student; they are cut from the output shown (site-packages/torch/... -> torch/...).
HOST_PREFIXES = tuple(sorted({f"{folder}{os.sep}" for folder in (sysconfig.get_path("purelib"), sysconfig.get_path("platlib"), sysconfig.get_path("stdlib"), str(PACKAGE_DIR.parent))}, key=len, reverse=True))
TEMPLATE_CLOSE_SECONDS = 10.0  # a template still warming up finishes that first, then exits
PRIVATE_MESSAGE_NOTE = t("note.private_message")


class WorkerFactory:
    """Starts the template process (fork server). A grader gets one from grading/grader.py's
    Grader, whose constructor starts it before anything secret is loaded.

    The template is a fresh interpreter, not a fork of the grader: it inherits none of the
    grader's memory (a caller may already hold the reference or the hidden checks), none of its
    file descriptors (a multiprocessing pool's pipes, which unpickle what arrives) and only a
    few environment variables. It dies with the grader (a parent-death signal: create the factory
    in a thread that lives as long as the grader), and its keepers and workers die with it.
    `launched`: a template already started by `launch_template()` (before the caller imported
    torch); `client`: which of its control sockets is this factory's (one per pool process).
    """

    _spawned = True  # whether a worker may have been forked (close() waits for its keeper then)
    _prepared: tuple[SandboxConfig, tuple[str, ...], str, RequestedWorker] | None = None  # asked for by prepare(), not taken yet

    def __init__(self, launched: LaunchedTemplate | None = None, client: int = 0) -> None:
        remove_stale_scratch()
        launched = launched or launch_template()
        self.process = launched.process
        self.pid = self.process.pid
        self.control = launched.controls[client]
        self._replies = b""
        self._spawned = False
        self._sent = self._answered = 0  # spawn requests sent, replies read: the template answers in order
        self._keepers: dict[int, tuple[int, int]] = {}  # request number -> its keeper (pid, pidfd), for replies read ahead

    def prepare(self, config: SandboxConfig, preload: tuple[str, ...] = (), stand_ins: str = "") -> None:
        """Ask now for the worker that the next `request` with these arguments will get: the
        template forks it as soon as it is ready, while the caller is still loading (`check`,
        whose grader and template start together)."""
        self._prepared = (config, preload, stand_ins, self.request(config, preload, stand_ins))

    def request(self, config: SandboxConfig, preload: tuple[str, ...] = (), stand_ins: str = "") -> RequestedWorker:
        """Ask for a worker without waiting for it (the template may still be starting); `take`
        it later. What is sent on its socket meanwhile waits there until the worker reads it.
        `preload`: optional libraries (template.PRELOADS) the template imports before it forks,
        because the submission imports them; `stand_ins`: the assignment's worker stand-ins file,
        which the template imports before it forks (the worker cannot read it)."""
        if self._prepared is not None:
            prepared, self._prepared = self._prepared, None
            if prepared[:3] == (config, preload, stand_ins):
                return prepared[3]
            self.take(prepared[3]).kill()  # asked for another config: it ran nothing
        scratch = tempfile.mkdtemp(prefix=f"{SCRATCH_PREFIX}{os.getpid()}-")
        os.chmod(scratch, 0o700)
        data_ours, data_theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        status_read, status_write = os.pipe()
        message = json.dumps({"config": config.to_json(), "scratch": scratch, "preload": list(preload), "stand_ins": stand_ins}).encode()
        requested = RequestedWorker(self._sent, data_ours, status_read, scratch)
        try:
            self._spawned = True
            socket.send_fds(self.control, [message], [data_theirs.fileno(), status_write])
            self._sent += 1
        except OSError as error:
            data_ours.close()
            os.close(status_read)
            shutil.rmtree(scratch, ignore_errors=True)
            raise TemplateError(f"the worker template is not answering ({error})") from None
        finally:
            data_theirs.close()
            os.close(status_write)
        return requested

    def take(self, requested: RequestedWorker) -> WorkerProcess:
        """The worker of a request: waits until the template has forked its keeper."""
        try:
            while requested.number not in self._keepers:
                keeper = json.loads(self._read_reply())["keeper"]
                self._keepers[self._answered] = keeper, _pidfd(keeper)
                self._answered += 1
        except (OSError, ValueError, KeyError) as error:
            requested.sock.close()
            os.close(requested.status_fd)
            raise TemplateError(f"the worker template is not answering ({error})") from None
        keeper, keeper_fd = self._keepers.pop(requested.number)
        return WorkerProcess(keeper=keeper, keeper_fd=keeper_fd, sock=requested.sock, status_fd=requested.status_fd, scratch=requested.scratch)

    def _read_reply(self) -> bytes:
        while b"\n" not in self._replies:
            chunk = self.control.recv(4096)
            if not chunk:
                raise OSError("template closed its socket")
            self._replies += chunk
        line, self._replies = self._replies.split(b"\n", 1)
        return line

    def close(self) -> None:
        """Stop the template; it returns once every keeper it forked has exited (one that never
        forked is killed at once: it may still be warming up)."""
        if self._prepared is not None:  # prepared and never asked for: it ran nothing
            prepared, self._prepared = self._prepared, None
            with contextlib.suppress(TemplateError):
                self.take(prepared[3]).kill()
        self.control.close()
        if not self._spawned:
            self.process.kill()
        try:
            self.process.wait(TEMPLATE_CLOSE_SECONDS)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def ended_text(code: int) -> str:
    """How a process ended, in words, from its exit code (negative: the signal that killed it)."""
    if code < 0:
        return SIGNAL_NAMES.get(-code) or t("ended.signal", signal=-code)
    return t("ended.exit", code=code)


def _kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except OSError:
        pass


def _pidfd(pid: int) -> int:
    """A pidfd of `pid`, opened now: it keeps naming that process after the pid is reused (-1: gone)."""
    try:
        return os.pidfd_open(pid)
    except OSError:
        return -1


def _has_ended(pidfd: int) -> bool:
    return pidfd < 0 or bool(select.select([pidfd], [], [], 0)[0])  # readable once the process has ended


def _kill_and_wait(pidfd: int, timeout: float) -> None:
    """SIGKILL the process of `pidfd` (not our child) and wait (bounded) until it has ended."""
    try:
        signal.pidfd_send_signal(pidfd, signal.SIGKILL)
        select.select([pidfd], [], [], timeout)
    except OSError:  # already gone
        pass


def remove_stale_scratch() -> int:
    """Remove the scratch folders of graders that died without cleaning up (killed); returns how many."""
    removed = 0
    for folder in Path(tempfile.gettempdir()).glob(f"{SCRATCH_PREFIX}*-*"):
        owner = folder.name[len(SCRATCH_PREFIX):].split("-", 1)[0]
        if not owner.isdigit():
            continue
        try:
            os.kill(int(owner), 0)
            continue  # its grader is alive
        except ProcessLookupError:
            pass
        except OSError:
            continue
        shutil.rmtree(folder, ignore_errors=True)
        removed += 1
    return removed


@dataclass
class RequestedWorker:
    """A spawn request sent to the template, its keeper not known yet (WorkerFactory.take)."""

    number: int
    sock: socket.socket
    status_fd: int
    scratch: str


@dataclass
class Deadline:
    """A call's limit, for the call and its stand-in callbacks together: when it is up
    (time.monotonic()), moved on by the time the worker waited for a CPU (WorkerProcess.reply_by)
    and the time the grader took to answer its callbacks (Student._request), never past `latest`."""

    at: float
    latest: float
    mark: cpuwait.Mark | None  # the worker as the call began (its CPU wait then: cpuwait.py)


@dataclass
class WorkerProcess:
    keeper: int
    keeper_fd: int  # a pidfd of the keeper (-1: it was gone): its pid, and the uid made from it, are reused once it is reaped
    sock: socket.socket
    status_fd: int
    scratch: str
    worker: int | None = None
    uid: int | None = None
    isolation: str = ""
    _status: bytes = b""
    ended: dict | None = None

    def read_status(self, timeout: float, until: str = "ended") -> None:
        """Read what the keeper says (the worker's pid, then how it ended) until `until` is known.
        Lines already read are handled first: both may have come in one read."""
        deadline = time.monotonic() + timeout
        while self.ended is None:
            if b"\n" in self._status:
                line, self._status = self._status.split(b"\n", 1)
                try:  # only the keeper writes here; without root a worker of the same uid might reach it
                    data = json.loads(line)
                except ValueError:
                    continue
                if not isinstance(data, dict):
                    continue
                if "worker" not in data:
                    self.ended = data
                    return
                self.worker, self.uid = data["worker"], data["uid"]
                if until == "worker":
                    return
                continue
            ready, _, _ = select.select([self.status_fd], [], [], max(0.0, deadline - time.monotonic()))
            if not ready:
                return
            chunk = os.read(self.status_fd, 1 << 16)
            if not chunk:
                return
            self._status += chunk

    def reply_by(self, deadline: Deadline) -> None:
        """Wait until the worker's reply starts to arrive, by `deadline`, which moves on by the
        time the worker waited for a CPU taken by others (cpuwait.py), up to its latest.
        TimeoutError once it has passed."""
        while not select.select([self.sock], [], [], max(0.0, deadline.at - time.monotonic()))[0]:
            now = cpuwait.of_pid(self.worker)
            given = min(cpuwait.given_back(deadline.mark, now), deadline.latest - deadline.at)
            if given < cpuwait.STARVED_MIN_SECONDS:
                raise TimeoutError
            deadline.at, deadline.mark = deadline.at + given, now  # (given: it ran alone, as at the start)

    def how_it_ended(self) -> str:
        self.read_status(2.0)
        if self.ended is None:
            return t("ended.stopped")
        limit = self.ended.get("memory_group_bytes")
        if self.ended.get("signal") == signal.SIGKILL and type(limit) is int:  # the OOM killer, in the worker's memory group
            return t("ended.memory_group", gib=f"{limit / (1 << 30):g}")
        return ended_text(-self.ended["signal"] if "signal" in self.ended else self.ended["exit"])

    @property
    def output(self) -> tuple[str, int]:
        """(the output the keeper kept, bytes the worker wrote in all); empty before it ended."""
        if self.ended is None:
            return "", 0
        text, total = self.ended.get("output", ""), self.ended.get("output_bytes", 0)
        return (text if type(text) is str else ""), (total if type(total) is int else 0)

    def kill(self) -> None:
        """Kill the worker and all it started, collect its output from the keeper, then kill the
        keeper once it has reaped the worker and said so: a keeper killed first would leave the
        dying worker orphaned for a moment, outliving the grader."""
        if self.worker and self.ended is None:
            if not _has_ended(self.keeper_fd):
                _kill(self.worker)
            self.read_status(KEEPER_REPORT_SECONDS)
        # A keeper that has ended reaped its worker, and the worker's pid namespace (or the
        # keeper's kill_uid) took all it started: its pid and uid may now be another grader's.
        if not _has_ended(self.keeper_fd):
            if self.uid is not None and sandbox.is_root():
                sandbox.kill_uid(self.uid)
            elif self.worker:
                try:
                    os.killpg(self.worker, signal.SIGKILL)
                except OSError:
                    pass
            _kill_and_wait(self.keeper_fd, KEEPER_REPORT_SECONDS)
        if self.keeper_fd >= 0:
            os.close(self.keeper_fd)
        self.sock.close()
        os.close(self.status_fd)
        shutil.rmtree(self.scratch, ignore_errors=True)


@dataclass
class Budget:
    """Wall-clock limits: per call and for the whole submission."""

    call_seconds: float = CALL_SECONDS
    import_seconds: float = IMPORT_SECONDS
    total_seconds: float = SUBMISSION_SECONDS


def without_host_paths(text: str) -> str:
    """`text` with the grader's own folders cut from the file names in it (HOST_PREFIXES)."""
    for prefix in HOST_PREFIXES:
        text = text.replace(prefix, "")
    return text


@dataclass
class Student:
    """The proxy through which checks reach a submission's code."""

    factory: WorkerFactory
    chunks: list[tuple[int, str]]
    files: dict[str, str] = field(default_factory=dict)
    filename: str = field(default_factory=lambda: current().student_file)  # the submission's file, as its tracebacks name it
    config: SandboxConfig = field(default_factory=SandboxConfig)
    budget: Budget = field(default_factory=Budget)
    events: list[str] = field(default_factory=list)
    load_errors: list[dict] = field(default_factory=list)
    output: list[str] = field(default_factory=list)
    audit: list[str] = field(default_factory=list)  # audit events the worker reported (autograder.grading.integrity.record)
    ahead: bool = False  # start the next worker while the first one works (`check`; see _ensure_worker)
    kit: dict[str, str] = field(default_factory=dict)  # the kit's own files handed in unchanged: the worker gets them, the static pass does not read them
    read: frozenset[str] | None = None  # the student's files the static pass read, the only ones the worker gets (None: every one)
    cells: Cells = ()  # a notebook: where each chunk is in it, for "cell 7, line 3" (grading/chunks.py)
    kernel: bool = False  # the code ran in a Jupyter kernel (a notebook, or nbconvert's .py of one): it has `display`
    _worker: WorkerProcess | None = None
    _started: float = field(default_factory=time.monotonic)
    _import_failure: str = ""
    _generation: int = 0
    # (where, the stand-ins then in use) -> the timeout it hit: with other stand-ins, other code runs
    _hung: dict[tuple[str, tuple[str, ...]], str] = field(default_factory=dict)
    _private_worker: int = 0  # the first worker generation that held private data (0: none); every later one counts as holding it
    _next: RequestedWorker | None = None  # that worker, asked for and not used yet
    _closing: list[tuple[WorkerProcess, int]] = field(default_factory=list)  # asked to exit, not reaped yet (with their generation)
    _stand_ins: tuple[str, ...] = ()  # earlier functions replaced by trusted stand-ins (error carried forward)
    _repairs: tuple[str, ...] = ()  # helpers two tasks share, repaired (error carried forward), as text: part of the setting
    _repaired: list[dict] = field(default_factory=list)  # those repairs, sent with every request
    _trusted: Callable[[Any], Any] | None = None  # answers the stand-ins' callbacks, grader side
    _callbacks: int = 0  # callbacks answered in the current request
    _classes: dict[int, str] = field(default_factory=dict)  # handle number -> the class it was made from
    _traced_roots: frozenset[str] = field(default_factory=lambda: current().traced_roots())  # read once, asked on every call
    _profiled_roots: frozenset[str] = field(default_factory=lambda: current().profiled_roots())
    # (what a rule covers, the stand-ins then in use) -> the names the traces of its other calls saw:
    # a rule's own call is one of many, and a file that knows its inputs is hand-written there alone (qa20h h01, h13)
    _looked: dict[tuple[str, tuple[str, ...]], dict[str, set[str]]] = field(default_factory=dict)
    _banned_words: frozenset[str] = field(default_factory=lambda: current().banned_words())  # what of those traces is kept

    @property
    def worker_files(self) -> dict[str, str]:
        """The helper files the worker gets: the kit's own, and those of the student's that the
        static pass read (`read`: session.new_student). No other can run: a `triton.py` handed in
        beside the answer, which no import names and no installed library is called, was not read
        and ran when torch._dynamo imported triton (qa29h r01)."""
        return {**self.kit, **{name: text for name, text in self.files.items() if self.read is None or name in self.read}}

    # -- life cycle ------------------------------------------------------------------------
    @functools.cached_property
    def _preloads(self) -> tuple[str, ...]:
        """The optional libraries the submission's source imports (seaborn): the template imports
        them once, before forking, instead of each worker on its own (read once: a source may be megabytes)."""
        sources = [source for _, source in self.chunks] + list(self.worker_files.values())
        return ("seaborn",) if any(SEABORN_IMPORT_RE.search(source) for source in sources) else ()

    def _ensure_worker(self) -> WorkerProcess:
        if self._worker is not None:
            return self._worker
        if self._import_failure:
            raise WorkerFailure(self._import_failure)
        self._check_total()
        # Ctrl-C or SIGTERM waits until the worker is this Student's to close: raised in between,
        # its keeper (never known, or dropped) waited for a worker blocked on a socket that the
        # exception's traceback kept open, and the template waited 10 s for that keeper.
        with signals_deferred():
            requested, self._next = self._next or self._request_worker(), None
            worker = self.factory.take(requested)
            self._worker = worker
            self._generation += 1
            worker.read_status(5.0, until="worker")
            if self.ahead and self._generation == 1:
                # `check`: the second worker (a part's private one: start_private) forks and
                # enters its sandbox while this one works, on the core the grader and this
                # worker leave idle by taking turns; one more worker life when none is needed.
                with contextlib.suppress(TemplateError):  # then the next one is asked for when needed
                    self._next = self._request_worker()
        try:
            ready = self._exchange(None, "starting the worker", self.budget.import_seconds)
            if ready.get("status") == "no_sandbox":  # said before any student code ran: this machine cannot grade safely
                reason = (f"cannot grade safely on this machine: the worker's sandbox could not be set up ({str(ready.get('error', ''))[:500]}). "
                          "Nothing was graded; fix this, then run the same command again")
                try:
                    self._discard_worker(reason)
                finally:
                    raise SandboxUnavailable(reason)  # noqa: B012 - this, not a failure to end the worker, is the news
            worker.isolation = str(ready.get("isolation", ""))[:40]
            loaded = self._request({"op": "load", "chunks": self.chunks, "cells": self.cells, "kernel": self.kernel, "files": self.worker_files, "filename": self.filename, "module": self.module, "seconds": self.budget.import_seconds}, "importing your file", self.budget.import_seconds)
        except WorkerFailure as failure:
            self._import_failure = t("note.import_failed", failure=failure)
            raise WorkerFailure(self._import_failure) from None
        if self._generation == 1:
            errors = loaded.get("errors") if isinstance(loaded, dict) else None
            self.load_errors = [e for e in errors[:50] if isinstance(e, dict)] if isinstance(errors, list) else []
        return worker

    def _request_worker(self) -> RequestedWorker:
        return self.factory.request(self.config, self._preloads, current().stand_ins_file)

    @property
    def own_modules(self) -> frozenset[str]:
        """The module names the worker gives the submission beyond its files the static pass
        reads: its entry module and the kit's files (what its code may import)."""
        return frozenset({self.module} | {PurePosixPath(name).parts[0].removesuffix(".py") for name in self.kit})

    @property
    def module(self) -> str:
        """The module the submission runs as: the assignment's student file's stem, whatever its file is called."""
        return PurePosixPath(current().student_file).stem

    @property
    def isolation(self) -> str:
        return self._worker.isolation if self._worker else ""

    def close(self) -> None:
        """Ask the worker to exit, collect its output, kill whatever is left (always); a worker
        started ahead and never used is killed (it ran nothing of the submission's)."""
        unused = None
        try:
            self._ask_to_exit()
            if self._next is not None:
                requested, self._next = self._next, None
                with contextlib.suppress(TemplateError):  # the template is gone: its keepers died with it
                    unused = self.factory.take(requested)
                    unused.read_status(KEEPER_REPORT_SECONDS, until="worker")
                    if unused.worker:
                        _kill(unused.worker)  # it dies while the other one exits
        finally:
            try:
                self._reap_closing()
            finally:
                if unused is not None:
                    unused.kill()

    def _ask_to_exit(self) -> None:
        """Ask the current worker to exit; it is reaped and its output kept by _reap_closing."""
        if self._worker is not None:
            worker, self._worker = self._worker, None
            self._closing.append((worker, self._generation))
            try:
                send_message(worker.sock, {"op": "exit"})
            except OSError:
                pass

    def _reap_closing(self) -> None:
        """Wait for the workers asked to exit, kill what is left of them, keep their output in order."""
        while self._closing:
            worker, generation = self._closing.pop(0)
            try:
                worker.read_status(KEEPER_REPORT_SECONDS)
            finally:
                worker.kill()
                self._keep_output(worker, generation)

    def _discard_worker(self, reason: str) -> None:
        self._reap_closing()
        if self._worker is not None:
            worker, self._worker = self._worker, None
            try:
                worker.kill()
            finally:
                self._keep_output(worker, self._generation)
        self.events.append(reason)

    def _keep_output(self, worker: WorkerProcess, generation: int) -> None:
        """What the worker printed, within one cap for all the submission's workers together (qa19h:
        a file that printed 64 KiB at import and ended its worker on every call kept 6.7 MB);
        output past it was dropped (by the keeper, or here): say so, once."""
        text, total = worker.output
        if self._private_worker and generation >= self._private_worker:  # it held private data: none of its output is shown,
            text, total = "", 0  # nor how much, nor whether there was any (a note when it printed: 1 bit, qa19r)
        room = self.config.output_bytes - sum(map(len, self.output))
        if self.output and len(text) > room:  # earlier workers printed their share already
            note = t("note.output_cap_workers", kept=self.config.output_bytes)
            if note not in self.events:
                self.events.append(note)
            text = text[:max(room, 0)]
        elif total > self.config.output_bytes:
            dropped = total - self.config.output_bytes
            text += "\n" + t("note.output_trailer", dropped=dropped, kept=self.config.output_bytes)
            self.events.append(t("note.output_dropped", total=total, kept=self.config.output_bytes, dropped=dropped))
        if text:
            self.output.append(without_host_paths(text))

    def _check_total(self) -> None:
        if time.monotonic() - self._started > self.budget.total_seconds:
            raise WorkerFailure(t("note.time_budget", seconds=f"{self.budget.total_seconds:.0f}"))

    # -- one exchange ----------------------------------------------------------------------
    def _deadline(self, seconds: float) -> Deadline:
        worker = self._worker
        return Deadline(time.monotonic() + seconds, self._started + self.budget.total_seconds, cpuwait.of_pid(worker.worker if worker else None))

    def _exchange(self, message: dict | None, where: str, timeout: float, deadline: Deadline | None = None) -> dict:
        """Send `message` (None: nothing) and read the reply by `deadline` (default: `timeout`
        seconds from now), however it trickles in; `timeout` names the limit in the message."""
        worker = self._worker
        assert worker is not None
        deadline = self._deadline(timeout) if deadline is None else deadline
        try:
            worker.sock.settimeout(max(deadline.at - time.monotonic(), 1e-3))
            if message is not None:
                send_message(worker.sock, message)
            worker.reply_by(deadline)
            response = recv_message(worker.sock, deadline=deadline.at)
        except TimeoutError:
            reason = self._hung[(where, self._setting())] = t("note.timed_out", seconds=f"{timeout:.0f}", where=where)
            self._discard_worker(reason)
            raise WorkerFailure(reason) from None
        except (EOFError, OSError, ProtocolError) as error:
            ended = worker.how_it_ended()
            if isinstance(error, ProtocolError):
                ended = t("ended.invalid_reply", error=error)
            if self.holds_private():  # an exit code, a signal or a reply's bytes are the submission's to choose
                ended = t("ended.private")
            reason = self._explain(ended, where)
            self._discard_worker(reason)
            raise WorkerFailure(reason) from None
        return response

    def _explain(self, ended: str, where: str) -> str:
        return t("note.worker_ended", ended=ended, where=where)

    def _request(self, message: dict, where: str, timeout: float | None = None) -> Any:
        self._callbacks = 0
        seconds = timeout or self.budget.call_seconds
        deadline = self._deadline(seconds)  # one limit for the call, its stand-in callbacks included
        response = self._exchange(message, where, seconds, deadline)
        while response.get("status") == "callback":  # a stand-in asks for a trusted value
            if self._callbacks > 2 * MAX_CALLBACKS_PER_REQUEST:
                self._discard_worker(t("note.callbacks", where=where))
                raise WorkerFailure(t("note.too_many_callbacks", where=where, count=MAX_CALLBACKS_PER_REQUEST))
            began = time.monotonic()
            answer = self.answer_callback(response.get("callback"))
            deadline.at = min(deadline.latest, deadline.at + time.monotonic() - began)  # the grader's time, not the call's
            response = self._exchange(answer, where, seconds, deadline)
        looked = response.get("looked")
        if message.get("look") and isinstance(looked, dict) and not self.holds_private():
            seen = self._looked.setdefault((self._target_name(message), self._setting()), {"ops": set(), "aten": set(), "untraced": set()})
            for kind in ("ops", "aten"):  # only what some rule bans by name (junk names cannot crowd out a softmax: qa20 review)
                names = looked.get(kind)
                kept = {str(n)[:200] for n in (names if isinstance(names, list) else []) if any(word in str(n) for word in self._banned_words)}
                seen[kind].update(sorted(kept)[:MAX_LOOKED_NAMES - len(seen[kind])])
            seen["untraced"].update(key for key in UNTRACED_KEYS if looked.get(key) is not False)  # a look that did not say is one that could not (qa42h F4)
        events = response.get("audit")
        if isinstance(events, list):  # a worker holding private data: the event's name only (its path or argument is the submission's to choose: qa19r)
            self.audit.extend((str(e).split(" ", 1)[0] if self.holds_private() else str(e))[:200] for e in events[:64] if len(self.audit) < 256)
        status = response.get("status")
        if status == "ok":
            return response.get("value")
        if status == "raised":
            error = response.get("error")
            error = error if isinstance(error, dict) else {}
            kind, text = str(error.get("type", "Exception"))[:100], str(error.get("message", ""))[:2000]
            frames = error.get("frames")
            frames = [str(f)[:300] for f in frames[-6:]] if isinstance(frames, list) else []
            if kind == "NotImplementedError" and error.get("own") is not False:  # a stub's, not one a library raised
                text = "" if self.holds_private() else text
                raise NotImplementedYet(f"{where}: not implemented yet ({text})" if text else f"{where}: not implemented yet")
            if kind in ("MemoryError",) or "can't allocate memory" in text or "DefaultCPUAllocator" in text:
                raise WorkerFailure(t("note.memory", where=where, gib=self.config.memory_bytes >> 30))
            bases = error.get("builtins")
            bases = frozenset(b for b in bases if isinstance(b, str) and _builtin_exception(b)) if isinstance(bases, list) else frozenset()
            if self.holds_private():
                # Any call of this worker could have stashed the weights and raise them: its own
                # message, an exception class named (or given bases) on the fly, a source line
                # rewritten in linecache, or which of the builtin exceptions it raises (qa18h: 5
                # bits a call). None of it is kept.
                text, frames, bases, kind = PRIVATE_MESSAGE_NOTE, [], frozenset(), "Exception"
            raise StudentException(kind, text[:500], frames, where, bases)
        raise WorkerFailure(t("note.bad_status", status="…" if self.holds_private() else repr(str(status)[:100]), where=where))

    # -- error carried forward: trusted stand-ins for earlier functions --------------------
    @property
    def stand_ins_active(self) -> tuple[str, ...]:
        return self._stand_ins

    @contextlib.contextmanager
    def stand_ins(self, names: list[str], trusted: Callable[[Any], Any]) -> Iterator[None]:
        """Within the block, every request runs with `names` replaced by stand-ins in the worker;
        their callbacks are answered by `trusted` (grader side; the reference never leaves it).
        The assignment's grader-side names (its manifest's `grader_side`) stay here: the check that
        calls them draws in the grader instead."""
        unknown = sorted(set(names) - set(current().stand_in_names()) - set(current().grader_side))
        if unknown:
            raise ValueError(f"no stand-in for {', '.join(unknown)}")
        saved = self._stand_ins, self._trusted
        self._stand_ins, self._trusted = tuple(names), trusted
        try:
            yield
        finally:
            self._stand_ins, self._trusted = saved

    def _setting(self) -> tuple[str, ...]:
        """The stand-ins and repairs in use: with others, other code runs."""
        return self._stand_ins + self._repairs

    @contextlib.contextmanager
    def repairing(self, repairs: list[dict], learn: bool = False) -> Iterator[None]:
        """Within the block, every request runs with these helpers of the submission's own
        (`shared_helpers`' places, each with its repair's kind "as") repaired in the worker. `learn`:
        the calls are the earlier task's, whose layouts of arguments the repair notes; otherwise it
        answers only calls laid out as those were (a worker started since has noted none)."""
        repairs = [{**repair, "learn": learn} for repair in repairs]
        saved = self._repairs, self._repaired
        self._repairs, self._repaired = tuple(sorted(json.dumps(r, sort_keys=True) for r in repairs)), repairs
        try:
            yield
        finally:
            self._repairs, self._repaired = saved

    def answer_callback(self, callback: Any) -> dict:
        """The reply to one stand-in callback: the trusted value, or why there is none."""
        self._callbacks += 1
        refusal = ""
        if self._callbacks > MAX_CALLBACKS_PER_REQUEST:
            refusal = f"more than {MAX_CALLBACKS_PER_REQUEST} calls to trusted stand-ins in one request"
        elif self._trusted is None or not isinstance(callback, dict) or callback.get("name") not in self._stand_ins:
            refusal = "that trusted stand-in is not in use now"
        if not refusal and self._trusted is not None:  # (refusal is set when there is none)
            try:
                return {"op": "callback_reply", "status": "ok", "value": self._trusted(callback)}
            except StandInRefused as error:
                refusal = str(error)
        return {"op": "callback_reply", "status": "refused", "message": refusal}

    def request(self, message: dict, where: str) -> Any:
        self._check_total()
        hung = self._hung.get((where, self._setting())) or self._hung.get((where.removesuffix(" backward"), self._setting()))
        if hung:  # one hang costs one timeout, not one per check (nor a second one for its backward: qa33p)
            raise WorkerFailure(t("note.not_called_again", reason=hung))
        in_worker = [name for name in self._stand_ins if name not in current().grader_side]
        if in_worker:
            message = {**message, "stand_ins": in_worker}
        if self._repaired:
            message = {**message, "repairs": self._repaired}
        self._ensure_worker()
        value = self._request(message, where)
        return _reject_refused(value, where, private=self.holds_private())

    # -- what checks use -------------------------------------------------------------------
    def names(self, *names: str) -> dict[str, str]:
        return self.request({"op": "names", "names": list(names)}, "looking up names")

    def shared_code(self, names: list[str], others: list[str], besides: list[str] | None = None) -> bool:
        """Whether the submission's own code that `names` may run (apart from what `besides` may
        run), `others` may run too (read, not run)."""
        return self.request({"op": "shared_code", "names": names, "others": others, "besides": besides or []}, "looking up names") is True

    def shared_helpers(self, names: list[str], others: list[str], besides: list[str]) -> list[dict]:
        """Where the submission's own code that `names` may run (apart from what `besides` may run)
        and `others` may run too lives: the helpers a repair may replace."""
        found = self.request({"op": "shared_helpers", "names": names, "others": others, "besides": besides}, "looking up names")
        return [site for site in found if isinstance(site, dict)] if isinstance(found, list) else []

    def repair_deviation(self, repair: dict) -> tuple[bool, list[float]]:
        """How far the helper's own values were from the repair's on the earlier task's calls
        (`repairing(learn=True)`): whether they differ as a mistake of the helper's does, and the
        typical absolute and relative difference ([] before any call)."""
        found = self.request({"op": "repair_deviation", "repair": repair}, "looking up names")
        found = found if isinstance(found, dict) else {}
        typical = found.get("typical")
        typical = list(typical) if isinstance(typical, list) and len(typical) == 2 and all(type(d) is float for d in typical) else []
        return found.get("differs") is True, typical

    def repair_layouts(self, repair: dict) -> list[list[str]]:
        """What a repair noted of the earlier task's calls (`repairing(learn=True)`), to send with it."""
        found = self.request({"op": "repair_layouts", "repair": repair}, "looking up names")
        return [[str(k)[:200] for k in kinds[:64]] for kinds in found[:64] if isinstance(kinds, list)] if isinstance(found, list) else []

    @contextlib.contextmanager
    def noting_shared_code(self, names: list[str], besides: list[str]) -> Iterator[list[bool]]:
        """Within the block, note whether the requests run the submission's own code that `names`
        may run (apart from what `besides` may run); after it, the list holds the answer (False
        where the worker could not tell)."""
        ran: list[bool] = []
        try:
            self.request({"op": "watch_shared", "names": names, "besides": besides}, "looking up names")
            yield ran
        finally:
            try:
                ran.append(self.request({"op": "shared_ran"}, "looking up names") is True)
            except StudentError:  # the worker is gone (a limit): nothing noted
                ran.append(False)

    def _look(self, target: str | Handle) -> bool | str:
        """Whether a call of `target` runs under the trace though its trace is not read: every call
        of what a rule covers does, and what each saw is judged with the rule's own (other_calls).
        PROFILED for what must be written by hand: its trace notes other libraries' Python functions too."""
        name = self._classes.get(target.number, "") if isinstance(target, Handle) else target
        return (PROFILED if name in self._profiled_roots else True) if name in self._traced_roots else False

    def _target_name(self, message: dict) -> str:
        handle = message.get("handle")
        return self._classes.get(handle.number, "") if isinstance(handle, Handle) else str(message.get("name", ""))

    def other_calls(self, name: str) -> dict[str, list[str]]:
        """What the traces of the other calls of `name` (a function, or a class's methods) saw so
        far with the stand-ins now in use (torch functions and operators, and under "untraced" what
        kept one from seeing all: UNTRACED_KEYS): a rule's verdict reads them too."""
        seen = self._looked.get((name, self._setting()), {})
        return {kind: sorted(names) for kind, names in seen.items()}

    def call(self, name: str, *args: Any, seed: int | None = None, noncontiguous: tuple[int, ...] = (), **kwargs: Any) -> Any:
        """Call a function of the submission; `noncontiguous` lists arguments to pass as strided views."""
        message = {"op": "call", "name": name, "args": list(args), "kwargs": kwargs, "seed": seed, "noncontiguous": list(noncontiguous), "look": self._look(name)}
        return self.request(message, name)

    def traced_call(self, name: str, *args: Any, **kwargs: Any) -> tuple[Any, dict]:
        """The value, and the trace: {"ops": torch function names, "aten": operators, "probe": the tripwire's trace}.

        A reply that is not that dict (code in the submission changed the worker's: qa20h h07) has
        no value and no trace: (None, {}), which the rule's judge reads as tracing switched off, as
        it reads a malformed reply of method(..., trace=True)."""
        result = self.request({"op": "call", "name": name, "args": list(args), "kwargs": kwargs, "trace": True, "look": self._look(name)}, name)
        if not isinstance(result, dict):
            return None, {}
        return result.get("value"), result

    def call_devices(self, name: str, *args: Any, **kwargs: Any) -> list[str]:
        """Call, and get back only the devices of the result's tensors (for results that cannot
        cross the boundary, such as tensors on the "meta" device)."""
        devices = self.request({"op": "call", "name": name, "args": list(args), "kwargs": kwargs, "devices": True, "look": self._look(name)}, name)
        if not isinstance(devices, list) or not all(isinstance(d, str) for d in devices):
            raise BadReturn(t("note.no_tensors", where=name))
        return devices

    def echo_call(self, name: str, *args: Any, **kwargs: Any) -> tuple[Any, list[Any]]:
        """Call, and get back the arguments as the call left them."""
        result = self.request({"op": "call", "name": name, "args": list(args), "kwargs": kwargs, "echo": True, "look": self._look(name)}, name)
        if not isinstance(result, dict) or "value" not in result or not isinstance(result.get("args"), list):  # a reply written by the submission's code
            raise BadReturn(t("note.no_tensors", where=name))
        return result["value"], list(result["args"])

    def new(self, cls: str, *args: Any, seed: int | None = None, **kwargs: Any) -> Handle:
        handle = self.request({"op": "new", "cls": cls, "args": list(args), "kwargs": kwargs, "seed": seed}, f"{cls}(...)")
        if not isinstance(handle, Handle):
            raise BadReturn(t("note.no_object", where=f"{cls}(...)"))
        self._classes[handle.number] = cls
        return handle

    def method(self, handle: Handle, method: str, *args: Any, where: str = "", seed: int | None = None, trace: bool = False, **kwargs: Any) -> Any:
        message = {"op": "call", "handle": handle, "method": method, "args": list(args), "kwargs": kwargs, "seed": seed, "trace": trace, "look": self._look(handle)}
        value = self.request(message, where or method)
        if isinstance(value, Handle):  # module.double() returns the module: of the same class
            self._classes[value.number] = self._classes.get(handle.number, "")
        return value

    def describe(self, handle: Handle, where: str = "") -> dict:
        return self.request({"op": "describe", "handle": handle}, where or "inspecting your module")

    def state_dict(self, handle: Handle, where: str = "") -> dict:
        return self.request({"op": "state_dict", "handle": handle}, where or "state_dict()")

    def holds_private(self) -> bool:
        """Whether private data has entered a worker of this submission. From then on every worker
        counts as holding it: one that died is replaced by one that may be given values computed
        from it (qa19r: a Part F forward that crashed on its second call left the map of its first
        call, the weights' values, to be drawn and printed in a fresh, unguarded worker)."""
        return self._private_worker != 0

    def start_private(self) -> None:
        """Data that must not become public (the Part F reference weights) is about to enter the
        worker: end the current one first (what it printed is kept), so that only a fresh worker,
        which alone ever holds the data, has its output and messages withheld."""
        if self.holds_private():
            return
        self._ask_to_exit()  # reaped later (close): it exits while the next one starts
        self._ensure_worker()
        if self._worker is not None:  # the in-process backend has no separate output to guard
            self._private_worker = self._generation

    def load_state_dict(self, handle: Handle, state: dict, where: str = "", strict: bool = True, private: bool = False) -> dict:
        """Load a state into a module; `private`: the state is not public (the Part F reference
        weights): nothing this worker prints reaches the feedback, nor does what its calls raise."""
        if private and not self.holds_private():
            self._ensure_worker()
            if self._worker is not None:  # the in-process backend has no separate output to guard
                self._private_worker = self._generation
        return self.request({"op": "load_state_dict", "handle": handle, "state": state, "strict": strict}, where or "load_state_dict()")

    def train(self, handle: Handle, mode: bool, where: str = "") -> bool:
        return self.request({"op": "train", "handle": handle, "mode": mode}, where or "train()")

    def vjp(self, target: str | Handle, args: list, grad_outputs: list, wrt: list[int], where: str = "", method: str = "forward", params: bool = False, **kwargs: Any) -> dict:
        message = {"op": "vjp", "args": args, "kwargs": kwargs, "grad_outputs": grad_outputs, "wrt": wrt, "params": params, "look": self._look(target)}
        message.update({"handle": target, "method": method} if isinstance(target, Handle) else {"name": target})
        return self.request(message, where or "backward()")

    def plot(self, name: str, *args: Any, picture: bool = True, live: tuple[int, ...] = (), over_open: bool = False, **kwargs: Any) -> dict:
        if name in self._stand_ins:  # a grader-side stand-in: the submission's own must not answer
            raise StandInError(f"{name} is a grader-side stand-in now; draw in the grader")
        message = {"op": "plot", "name": name, "args": list(args), "kwargs": kwargs, "live": list(live), **({"over_open": True} if over_open else {})}
        return self.request(message if picture else {**message, "picture": False}, name)


def _builtin_exception(name: str) -> bool:
    """Whether a name is a builtin exception class's."""
    kind = getattr(builtins, name, None)
    return isinstance(kind, type) and issubclass(kind, BaseException)


def _reject_refused(value: Any, where: str, private: bool = False) -> Any:
    """Raise BadReturn if anything in the value is a Refused placeholder (`private`: without
    saying why, which names the type the submission returned: qa19h named one by the weights)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, Refused):
            raise BadReturn(t("note.returned", where=where, why="…" if private else item.why))
        if isinstance(item, (list, tuple)):
            stack.extend(item)
        elif isinstance(item, dict):
            stack.extend(item.values())
    return value
