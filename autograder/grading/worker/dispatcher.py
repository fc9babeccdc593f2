"""What a worker does with each request. This code runs on the student's side of the boundary.

It holds the student's module namespace and the modules it built, and answers requests made of
plain data: load, call, new, state_dict, load_state_dict, train, vjp, plot. Nothing it returns is
trusted by the grader: the grader only ever rebuilds plain tensors and numbers from the bytes.
The same class serves the in-process backend used inside nbgrader kernels.
"""
from __future__ import annotations

import __future__
import ast
import builtins
import colorsys
import contextlib
import inspect
import linecache
import math
import os
import signal
import socket
import sys
import threading
import time
import traceback
import types
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any, Callable, Iterator

import torch
from torch.utils._python_dispatch import TorchDispatchMode

from autograder.grading.worker import cpuwait, standins
from autograder.grading.worker.devicetrace import DeviceTracer  # here: a worker cannot import after isolation
from autograder.grading.chunks import DEFINITION_RE, SourcePlaces, frame_where, line_where, split_chunks
from autograder.grading.worker.protocol import PROFILED, Handle, Refused

STUDENT_MARK = types.SimpleNamespace(__attnkit_student__=True)  # what a name no module has yet counts as
MAX_COPIED_ELEMENTS = 1 << 24  # a returned tensor up to this size is sent as a copy
MAX_TRACED_NAMES = 16384  # names reported per traced call (a call uses a few dozen; more than torch has, so that no
# flood of other names can push a banned one out of the report: they are sent sorted)
TORCH_DIR = os.path.dirname(torch.__file__) + os.sep
MAX_CALLER_FRAMES = 64  # frames looked at above each torch function call for torch's own Python code
KIT_DIR = str(Path(__file__).resolve().parents[2]) + os.sep  # the autograder package: its stand-ins and tracers are not library code
STDLIB = os.path.dirname(os.__file__)
MAX_LAYOUT_PLACES = 32  # a helper's arguments whose kinds a repair notes
MAX_NOTED_CALLS = 4096  # the earlier task's calls of a repaired helper whose deviation is noted
SAME_PATH = 2.0  # how much further from its repair a helper's own values may be on a later task's call than on the earlier task's
GROSS = 0.5  # a helper's own values this far from its repair's (relative) on the earlier task's calls: any path of it may be that one mistake
FINITE_STEP = 1e-3  # the step of the finite difference that a backward of the submission's own is held to
MAX_GRAPH_NODES = 100_000  # the nodes of an autograd graph looked through for such a backward
NESTED_CLASSES = 2  # how deep a repair looks for a helper in classes defined in a class's body
MAX_REPAIR_SITES = 16  # helpers two tasks share that the grader may repair (op_shared_helpers): a few in any real file
MAX_AUDIT_EVENTS = 64  # audit events reported per worker
AUDITED = frozenset({  # Python audit events reported to the grader (it maps them to integrity flags)
    "socket.getaddrinfo", "socket.__new__", "socket.connect", "socket.bind", "socket.sendto", "os.kill", "os.killpg", "signal.pthread_kill", "subprocess.Popen",
    "os.system", "os.exec", "os.posix_spawn", "os.spawn", "os.fork", "os.forkpty", "ctypes.dlopen", "ctypes.dlsym",
    "gc.get_objects", "gc.get_referrers", "gc.get_referents", "open",
})


def _said(text_of: Callable[[], str], fallback: str) -> str:
    """What the student's exception says of itself: its __str__ (or its class's __name__) is the
    student's code too, and may raise or return no text (the worker would end on it)."""
    try:
        text = text_of()
    except BaseException as error:  # noqa: BLE001 - anything the student's code raises
        return fallback or f"(the message cannot be shown: turning it into text raised {type(error).__name__})"
    return text if isinstance(text, str) else fallback


class CellTimeLimit(BaseException):
    """Stops a notebook cell, or a top-level statement of a .py file, that runs too long while the
    submission loads (a demo or training at the top level): the rest of that cell or statement is
    lost, not the whole submission, as Jupyter runs each cell on its own. Its message is the
    seconds it was given."""


class StudentRaised(Exception):
    """Student code raised: carries a plain description (type, message, student frames)."""

    def __init__(self, error: BaseException, filenames: SourcePlaces):
        self.kind = _said(lambda: type(error).__name__, "Exception")[:100]
        self.builtins = _builtin_bases(type(error))
        self.text = _said(lambda: str(error), "")[:2000]
        stack = traceback.extract_tb(error.__traceback__)
        frames = [f"{filenames.where(f.filename, f.lineno or 0)} in {f.name}: {(f.line or '').strip()}" for f in stack if f.filename in filenames]
        self.frames = frames[-6:]
        # raised by a `raise` on the student's own line (a stub's NotImplementedError), not by a library
        # the code called (torch's NotImplementedError for a meta or sparse tensor: a bug, not a stub)
        self.own = bool(stack) and stack[-1].filename in filenames and (stack[-1].line or "").lstrip().startswith("raise")
        super().__init__(self.kind)

    def as_dict(self) -> dict:
        return {"type": self.kind, "message": self.text, "frames": self.frames, "own": self.own, "builtins": self.builtins}


# read before any submission runs (one may rebind the builtins' names)
BUILTIN_EXCEPTIONS = tuple(v for v in vars(builtins).values() if isinstance(v, type) and issubclass(v, BaseException))


def _builtin_bases(kind: type) -> list[str]:
    """The builtin exception classes an exception is an instance of, by name: a class of the
    student's own, `class HeadCountError(ValueError)`, is a ValueError."""
    return [base.__name__ for base in BUILTIN_EXCEPTIONS if type.__subclasscheck__(base, kind)]


def _display(*objects: Any, **options: Any) -> None:
    """IPython's `display`, which a Jupyter kernel gives every cell: a graded notebook's demo line
    `display(weights)` runs and shows nothing (nobody sees a graded run's output)."""


@contextlib.contextmanager
def _time_limited(deadline: float | None) -> Iterator[None]:
    """Run a notebook cell (or what is left of a .py file) with half the load's time left
    (CellTimeLimit when it is over), so that one slow cell or statement leaves the others time to
    run and the load ends within the grader's limit."""
    if deadline is None or threading.current_thread() is not threading.main_thread():
        yield
        return
    limit = max(0.5, (deadline - time.monotonic()) / 2)
    start = cpuwait.mark("/proc/self", "/proc/thread-self")

    def stop(signum: int, frame: object) -> None:
        nonlocal start
        now = cpuwait.mark("/proc/self", "/proc/thread-self")
        given = cpuwait.given_back(start, now)  # the time a CPU taken by others cost it
        if given >= cpuwait.STARVED_MIN_SECONDS:
            signal.setitimer(signal.ITIMER_REAL, given, 0.0)
            start = now
            return
        raise CellTimeLimit(f"{limit:.0f}")

    previous = signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, limit, 0.0)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0.0)
        signal.signal(signal.SIGALRM, previous)


# ---------------------------------------------------------------------------------------------
# loading the submission: chunk by chunk, so that a broken part costs only itself
# ---------------------------------------------------------------------------------------------
class Dispatcher:
    """Answers requests against the student's code; `stand_ins`: the assignment's stand-ins module
    (its manifest's `worker_standins`, imported before the worker was forked), None for none."""

    def __init__(self, namespace: dict | None = None, stand_ins: ModuleType | None = None):
        self.namespace: dict = namespace if namespace is not None else {}
        self.stand_ins = stand_ins
        self.objects: dict[int, Any] = {}
        self.load_errors: list[dict] = []
        self.uncompiled: dict[str, str] = {}  # a function or class whose code had a syntax error -> where that error is
        self.unrun: dict[str, str] = {}  # a function or class below a statement that raised in its cell or file -> that error and where
        self.filenames = SourcePlaces()  # the student's entry file -> where its lines are in a notebook (chunks.py)
        self.audit: list[str] = []  # what the student's code did that the grader should know (see AUDITED)
        self._ambient = kernel_threads()  # a notebook kernel's own threads (ran_elsewhere); a worker's: its main thread
        self._audit_sent = 0
        self._looked: dict | None = None  # the trace of a `look` call (its names only), sent beside its reply
        self._inside: tuple[str, ...] = ()  # folders the submission may open files in
        # Sends one message to the grader during a request and returns its reply (the worker's
        # socket; in-process, a direct call). Set by whoever serves this dispatcher.
        self.channel: Callable[[dict], dict] | None = None
        self._stand_in_sets: dict[tuple[str, ...], dict[str, Any]] = {}
        self._active: tuple[str, ...] = ()
        self._callbacks = 0
        self._deadline: float | None = None  # loading: when the load's time is up (CellTimeLimit)
        self._helpers: tuple[int, list[types.ModuleType]] = (-1, [])  # len(sys.modules) when looked, the submission's helper modules
        self._watched: tuple[Callable[..., None], set[types.CodeType], _OperationsOf] | None = None  # watch_shared: the profile, the watched code seen working, the mode
        self._notes: dict[str, _Notes] = {}  # a repair -> what it noted of the earlier task's calls

    # -- requests --------------------------------------------------------------------------
    def handle(self, request: dict) -> dict:
        op = request.get("op")
        method: Callable[[dict], Any] | None = getattr(self, f"op_{op}", None) if isinstance(op, str) else None
        if method is None:
            return {"status": "bad_request", "message": f"unknown op {op!r}"}
        # float32 matrix products at full precision, whatever the file set at import: "medium" or
        # "high" (PyTorch's advice on GPUs) computes them in bfloat16 or TF32 on CPUs and GPUs that
        # have it, a setting the contract does not forbid (qa29s c83 lost Part F on an AMX CPU)
        torch.set_float32_matmul_precision("highest")
        try:  # each request with gradients on, whatever a call before left (in-process too: inprocess.py)
            with self._stand_ins(request.get("stand_ins") or [], request.get("handle")), self._repairs(request.get("repairs")), torch.enable_grad(), self._watching():
                response = {"status": "ok", "value": method(request)}
        except StudentRaised as raised:
            response = {"status": "raised", "error": raised.as_dict()}
        except BaseException as error:  # student code may raise anything, SystemExit included
            response = {"status": "raised", "error": StudentRaised(error, self.filenames).as_dict()}
        if len(self.audit) > self._audit_sent:
            response["audit"] = self.audit[self._audit_sent:]
            self._audit_sent = len(self.audit)
        if self._looked is not None:
            response["looked"], self._looked = self._looked, None
        return response

    def _on_audit(self, event: str, args: tuple) -> None:
        """A Python audit hook (it cannot be removed once added): notes what AUDITED lists, when
        the student's code did it (an `open` counts outside the submission's folders only)."""
        if event not in AUDITED or len(self.audit) >= MAX_AUDIT_EVENTS:
            return
        if event == "socket.__new__" and len(args) > 1 and _plain(args[1]) == str(int(socket.AF_UNIX)):
            return  # a local socket: no network (the seccomp filter refuses the others before connect)
        if event == "socket.getaddrinfo" or (event == "socket.__new__" and len(args) > 1):
            detail = (_plain(args[0]) if event == "socket.getaddrinfo" else f"family {_plain(args[1])}")[:120]
        else:
            detail = _plain(args[1] if event.startswith("socket.") and len(args) > 1 else args[0] if args else "")[:120]
        if event == "open":
            path = _plain(args[0]) if args and issubclass(type(args[0]), str) else ""
            if not path or os.path.abspath(path).startswith(self._inside) or not self._called_by_student():
                return
        elif event.startswith("gc.") and not self._called_by_student():
            return  # the worker's own walk of the submission's objects (standins.py), not the student's (qa39s F3)
        self.audit.append(f"{event} {detail}".strip())

    def _called_by_student(self) -> bool:
        """Whether the student's code opened the file itself, directly or through the standard
        library (pathlib, shutil...): a font that matplotlib opens while it draws does not count."""
        frame = sys._getframe(2)  # the Python frame that triggered the event
        while frame is not None and frame.f_code.co_filename.startswith(STDLIB):
            frame = frame.f_back
        return frame is not None and frame.f_code.co_filename in self.filenames

    # -- trusted stand-ins (error carried forward) -------------------------------------------
    @contextlib.contextmanager
    def _stand_ins(self, names: Any, handle: Any = None) -> Iterator[None]:
        """For one request, the named functions of the submission are the grader's stand-ins:
        wherever the submission's modules hold them, and the object the request calls (`handle`).
        Objects of earlier requests are not walked: a request reaches them only through those."""
        if not names:
            yield
            return
        if type(names) is not list or not set(names) <= set(standins.names(self.stand_ins)):
            raise ValueError("unknown stand-ins requested")
        key = tuple(sorted(names))
        if key not in self._stand_in_sets:  # built once: a stand-in class keeps its identity
            self._stand_in_sets[key] = standins.build(self.stand_ins, list(key), self._stand_in_call, lambda name: self.namespace.get(name))
        missing = object()
        replaced = self._stand_in_sets[key]  # the submission's name -> its stand-in
        modules = self._student_globals()
        by_identity = standins.identities([(self.namespace[name], stand_in) for name, stand_in in replaced.items() if callable(self.namespace.get(name))],
                                          lambda obj: _owned(obj, modules))
        saved = {name: self.namespace.get(name, missing) for name in replaced}
        self.namespace.update(replaced)
        restore: Callable[[], None] = lambda: None  # noqa: E731
        try:
            number = handle.number if isinstance(handle, Handle) else handle
            called = [self.objects[number]] if type(number) is int and number in self.objects else []
            restore = standins.rebind([*modules, *called], by_identity, lambda obj: _owned(obj, modules))  # aliases, defaults, closures...
            self._active, self._callbacks = key, 0
            yield
        finally:
            self._active = ()
            restore()
            for name, value in saved.items():
                if value is missing:
                    self.namespace.pop(name, None)
                else:
                    self.namespace[name] = value

    def _student_globals(self) -> list[dict]:
        """The globals of the submission's modules: its entry file and the files of its own it
        imports (looked up again only when a module was imported since: a look costs ~2 ms)."""
        if self._helpers[0] != len(sys.modules):
            root = self._inside[0] + os.sep if self._inside else None
            self._helpers = (len(sys.modules), [m for m in list(sys.modules.values()) if root and isinstance(getattr(m, "__file__", None), str) and m.__file__.startswith(root)])
        return [self.namespace, *(m.__dict__ for m in self._helpers[1] if m.__dict__ is not self.namespace)]

    def _stand_in_call(self, callback: dict) -> Any:
        """One callback to the grader; the trusted value, or StandInError."""
        if callback.get("name") not in self._active or self.channel is None:
            raise standins.StandInError(f"the trusted {callback.get('name')} is not in use now")
        self._callbacks += 1
        if self._callbacks > standins.MAX_CALLBACKS_PER_REQUEST:
            raise standins.StandInError(f"more than {standins.MAX_CALLBACKS_PER_REQUEST} calls to trusted stand-ins in one request")
        reply = self.channel({"status": "callback", "callback": callback})
        if not isinstance(reply, dict) or reply.get("op") != "callback_reply":
            raise standins.StandInError("the grader did not answer the stand-in")
        if reply.get("status") != "ok":
            raise standins.StandInError(str(reply.get("message", "the grader refused the stand-in call"))[:300])
        return reply.get("value")

    def op_ping(self, request: dict) -> str:
        return "pong"

    def op_load(self, request: dict) -> dict:
        """Write the submission's files into `root` and run its entry chunks, from `filename`, as
        the module `module` (the assignment's student file's stem, whatever the submission's file
        is called: what its helper files import; never a name another module already has)."""
        root = Path(request["root"])
        for name, text in request.get("files", {}).items():
            target = root / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
        if str(root) not in sys.path:
            sys.path.insert(0, str(root))
        if not self._inside:  # once per worker process, before any student code runs
            self._inside = (str(root), os.getcwd())
            sys.addaudithook(self._on_audit)
        filename = str(root / request["filename"])
        name = str(request["module"])
        if not name.isidentifier() or not getattr(sys.modules.get(name, STUDENT_MARK), "__attnkit_student__", False):
            raise ValueError(f"the student's module cannot be named {name!r}: a library has that name")
        module = types.ModuleType(name)
        module.__file__ = filename
        module.__attnkit_student__ = True  # type: ignore[attr-defined]  # a student module: the next load may replace it
        sys.modules[module.__name__] = module
        self.namespace = module.__dict__
        self.filenames[filename] = tuple((int(first), int(number)) for first, number in request.get("cells", ()))
        if request.get("kernel"):  # a notebook's cells (or nbconvert's .py of them) run as in a Jupyter kernel, which gives them `display`
            module.display = _display  # type: ignore[attr-defined]
        chunks = request["chunks"]
        _remember_source(filename, chunks)
        seconds = request.get("seconds")  # each cell of a notebook, each slow statement of a .py file, gets a share of the load's time
        self._deadline = time.monotonic() + float(seconds) if isinstance(seconds, (int, float)) and seconds > 0 else None
        for first_line, text in chunks:
            self._run_source(text, filename, first_line, "file" if len(chunks) == 1 else "cell")
        self._deadline = None
        names = sorted(k for k, v in self.namespace.items() if not k.startswith("_") and callable(v))
        return {"errors": self.load_errors, "names": names}

    def _run_source(self, text: str, filename: str, first_line: int, unit: str) -> None:
        """Run one unit ("file", "cell" or, after a syntax error, "statement"); an error is
        recorded with its unit, so the grader says exactly what did not run."""
        padded = "\n" * (first_line - 1) + text
        try:
            code = compile(padded, filename, "exec", dont_inherit=True)
        except (SyntaxError, ValueError, RecursionError, MemoryError):  # RecursionError: an expression too deep for the compiler
            chunks = split_chunks(text)
            if len(chunks) <= 1:
                self._record_syntax_error(padded, filename, unit)
                return
            for offset, chunk in chunks:
                self._run_source(chunk, filename, first_line + offset - 1, "statement")
            return
        self._exec(code, padded, filename, unit)

    def _exec(self, code: types.CodeType, padded: str, filename: str, unit: str) -> None:
        try:
            with _time_limited(self._deadline):
                exec(code, self.namespace)  # noqa: S102 - this is the student's own process
        except BaseException as error:
            raised = StudentRaised(error, self.filenames)
            top = next((frame for frame in traceback.extract_tb(error.__traceback__) if frame.filename == filename), None)
            if isinstance(error, CellTimeLimit) and top is not None:  # where the cell was, not the function it had called
                raised.frames = [f"{self.filenames.where(filename, top.lineno or 0)} in {top.name}: {(top.line or '').strip()}"]
            self.load_errors.append({**raised.as_dict(), "unit": unit})
            stopped = top.lineno if top is not None else None
            if isinstance(error, CellTimeLimit) and unit == "file" and stopped:
                self._run_after(padded, filename, stopped)
                return
            if stopped:  # what is defined below that line never ran: asked for, it is "not defined" because of this
                cause = f"{line_where(stopped, self.filenames.get(filename, ()))}: {raised.kind}: {raised.text[:120]}"
                for name in DEFINITION_RE.findall("\n".join(padded.split("\n")[stopped:])):
                    self.unrun.setdefault(name, cause)

    def _run_after(self, padded: str, filename: str, stopped: int) -> None:
        """Go on with a .py file after the top-level statement its time share stopped (a demo or a
        training loop), as a notebook goes on with its next cell: the statements after it run."""
        tree = ast.parse(padded, filename)  # it compiled, so it parses
        starts = [min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", ()))]) for node in tree.body]
        rest = [node for node, start in zip(tree.body, starts) if start > stopped]
        if not rest:
            return
        flags = 0  # the file's `from __future__ import ...` hold for the rest too
        for node in tree.body:
            for alias in node.names if isinstance(node, ast.ImportFrom) and node.module == "__future__" else ():
                flags |= getattr(getattr(__future__, alias.name, None), "compiler_flag", 0)
        doc = self.namespace.get("__doc__")
        code = compile(ast.Module(body=rest, type_ignores=[]), filename, "exec", flags=flags, dont_inherit=True)
        self._exec(code, padded, filename, "file")
        self.namespace["__doc__"] = doc  # a string statement at the head of the rest is no docstring

    def _record_syntax_error(self, padded: str, filename: str, unit: str) -> None:
        cells = self.filenames.get(filename, ())
        try:
            ast.parse(padded, filename)
            compile(padded, filename, "exec", dont_inherit=True)
            return
        except SyntaxError as error:  # the line quoted in backticks: it may open a bracket it never closes
            line = error.lineno or 0
            self.load_errors.append(
                {"type": "SyntaxError", "message": f"{line_where(line, cells)}: {error.msg}", "frames": [f"{frame_where(Path(filename).name, line, cells)}: `{(error.text or '').strip()}`"], "unit": unit}
            )
        except (ValueError, RecursionError, MemoryError) as error:  # Python cannot compile it either (too deep): said where the unit starts
            line = len(padded) - len(padded.lstrip("\n")) + 1
            self.load_errors.append({"type": type(error).__name__, "message": f"{line_where(line, cells)}: {error}", "frames": [], "unit": unit})
        for name in DEFINITION_RE.findall(padded):  # never ran: asked for, it is "not defined" because of this
            self.uncompiled.setdefault(name, line_where(line, cells))

    def op_names(self, request: dict) -> dict:
        """Which of the requested names exist, and whether each is a class or a function."""
        found = {}
        for name in request["names"]:
            value = self.namespace.get(name)
            found[name] = "class" if isinstance(value, type) else "function" if callable(value) else "missing"
        return found

    def op_shared_code(self, request: dict) -> bool:
        """Whether code of the submission's own that `names` (an earlier task's) may run, a later
        task's `others` may run too (standins.code_reach), apart from what `besides` (the tasks the
        earlier one calls, which have stand-ins of their own) may run: then the later task may be
        wrong only through the earlier one's mistake, which no stand-in replaced (a class both use)."""
        return bool(self._own_code(request["names"], request.get("besides")) & self._reach(request["others"]))

    def op_watch_shared(self, request: dict) -> None:
        """Until `shared_ran`, note whether the requests run code of the submission's own that
        `names` may run, apart from what `besides` may run (op_shared_code's, seen running: a name
        in code that never runs shares nothing, qa35h x02), and that code works on tensors itself:
        a torch operation called from it, or tensors it returns other than its own arguments handed
        back in place. A helper that only checks a shape or reads a size carries no mistake of the
        values (qa39s F2: a mistake written again beside a shared `_check_input` was excused)."""
        watched = self._own_code(request["names"], request.get("besides"))
        numbers = {id(code) for code in watched}
        seen: set[types.CodeType] = set()
        given: dict[int, list[int]] = {}  # a running watched frame -> the ids of its tensor arguments, as called

        def note(frame: types.FrameType, event: str, value: Any) -> None:
            if event not in ("call", "return") or id(frame.f_code) not in numbers or frame.f_code not in watched:  # (watched keeps each id's code alive)
                return
            code = frame.f_code
            if event == "call":
                arguments = [frame.f_locals.get(name) for name in code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]]
                given[id(frame)] = [id(t) for t in _tensors(arguments)]
                return
            handed = given.pop(id(frame), [])
            if any(index >= len(handed) or id(t) != handed[index] for index, t in enumerate(_tensors(value))):
                seen.add(code)

        self._watched = note, seen, _OperationsOf(numbers, watched, seen)

    def op_shared_ran(self, _request: dict) -> bool:
        """Whether watched code ran since `watch_shared` (which this ends)."""
        watched, self._watched = self._watched, None
        return watched is not None and bool(watched[1])

    def op_shared_helpers(self, request: dict) -> list[dict]:
        """Where the submission's own code that `names` and `others` may both run (op_shared_code's)
        lives as a function of a module or a method of a class of its own, which `repairs` may
        replace: {"name", "owner" and "base" (a method: the class named in the module, the class of
        its MRO that holds it), "method", "params" (its arguments besides self)}."""
        shared = self._own_code(request["names"], request.get("besides")) & self._reach(request["others"])
        found = []
        for site, function in self._helper_sites():
            code = function.__code__
            if code in shared:
                many = code.co_flags & (inspect.CO_VARARGS | inspect.CO_VARKEYWORDS)
                params = 99 if many else code.co_argcount + code.co_kwonlyargcount - site["method"]
                found.append({**site, "params": params})
        return found[:MAX_REPAIR_SITES]

    def _helper_sites(self) -> Iterator[tuple[dict, types.FunctionType]]:
        """Each function of the entry module and each method (not a dunder) of its classes' own MROs,
        and of the classes they define in their bodies (owner "Outer.Inner", NESTED_CLASSES deep)."""
        modules = self._student_globals()
        seen: set[int] = set()
        for name, value in list(self.namespace.items()):
            if type(value) is types.FunctionType and _owned(value, modules) and id(value) not in seen:
                seen.add(id(value))
                yield {"name": name, "method": False}, value
            elif isinstance(value, type) and _owned(value, modules):
                yield from _methods(name, value, modules, seen)

    def _class_at(self, owner: str) -> Any:
        """The class a repair site names: one of the entry module's, or one defined in its body."""
        first, *inner = owner.split(".")
        found = self.namespace.get(first)
        for attr in inner:
            found = vars(found).get(attr) if isinstance(found, type) else None
        return found

    @contextlib.contextmanager
    def _repairs(self, repairs: Any) -> Iterator[None]:
        """For one request, each helper of `repairs` (op_shared_helpers's places, each with the kind
        "as" of the assignment's stand-ins' REPAIRS) is that repair: a correct behaviour in place of
        the submission's own, its values from the stand-ins in use."""
        if not repairs:
            yield
            return
        kinds = getattr(self.stand_ins, "REPAIRS", {})
        if type(repairs) is not list or len(repairs) > MAX_REPAIR_SITES or not all(type(r) is dict and r.get("as") in kinds and type(r.get("learn", False)) is bool for r in repairs):
            raise ValueError("unknown repairs requested")
        undo: list[Callable[[], None]] = []
        try:
            for site in repairs:
                undo.append(self._repair(site))
            yield
        finally:
            for restore in reversed(undo):
                restore()

    def _repair(self, site: dict) -> Callable[[], None]:
        """Install one repair; returns what puts the submission's own back."""
        name = site.get("name")
        notes = self._notes.setdefault(_repair_key(site), _Notes())
        given_layouts, given_deviation = site.get("seen"), site.get("deviation")
        if not notes.seen and type(given_layouts) is list and len(given_layouts) <= MAX_LAYOUT_PLACES and all(type(kinds) is list and all(type(k) is str for k in kinds[:64]) for kinds in given_layouts):
            notes.seen.extend({k[:200] for k in kinds[:64]} for kinds in given_layouts)  # noted by another worker of this submission (Part F's private one)
            notes.ran = None  # the code its calls ran there is not known here
        if not notes.learned and type(given_deviation) is list and len(given_deviation) == 2 and all(type(d) is float and d >= 0 for d in given_deviation):
            notes.learned.append(((), (given_deviation[0], given_deviation[1])))  # the typical one another worker noted (op_repair_deviation)
        assert self.stand_ins is not None  # REPAIRS came from it
        weights_at = getattr(self.stand_ins, "WEIGHTS_AT", {}).get(site["as"])
        modules = self._student_globals()
        learn = site.get("learn") is True
        if type(name) is not str:
            raise ValueError("a repair names no helper")
        if site.get("owner") is None:
            if type(self.namespace.get(name)) is not types.FunctionType:
                raise ValueError(f"no function {name} to repair")
            saved = self.namespace[name]
            self.namespace[name] = _gated(self.stand_ins.repair(site["as"], self._trusted, _arguments(saved, False)), saved, _arguments(saved, False), notes, learn, weights_at, modules)
            return lambda: self.namespace.__setitem__(name, saved)
        owner = self._class_at(site["owner"]) if type(site["owner"]) is str else None
        base = next((b for b in getattr(owner, "__mro__", ()) if b.__name__ == site.get("base") and _owned(b, modules) and name in vars(b)), None)
        if base is None or not isinstance(owner, type):
            raise ValueError(f"no method {name} to repair")
        member = vars(base)[name]
        kind = type(member) if type(member) in (staticmethod, classmethod) else None
        function = member.__func__ if kind is not None else member
        if type(function) is not types.FunctionType:
            raise ValueError(f"no method {name} to repair")
        given = _arguments(function, kind is not staticmethod)
        helper = _gated(self.stand_ins.repair(site["as"], self._trusted, given), function, given, notes, learn, weights_at, modules)
        type.__setattr__(base, name, kind(helper) if kind is not None else helper)
        return lambda: type.__setattr__(base, name, member)

    def op_repair_deviation(self, request: dict) -> dict:
        """How far the helper's own values were from the repair's on the earlier task's calls
        (`repairs` with learn; `_deviation`): the typical deviation ([] before any call), and whether
        it differs as a mistake in a helper of the repair's kind does: not 0, and not GROSS (a repair
        of another kind is that far off: a scores helper repaired as the weights, qa44s d11)."""
        gaps = [gap for _, gap in self._notes.get(_repair_key(request.get("repair")), _Notes()).learned]
        typical = _typical(gaps) if gaps else None
        return {"differs": typical is not None and 0 < typical[1] < GROSS, "typical": list(typical) if typical else []}

    def op_repair_layouts(self, request: dict) -> list[list[str]]:
        """The kinds of argument each place of a repaired helper was given by the earlier task's
        calls (`repairs` with learn), for another worker of the same submission to answer alike."""
        return [sorted(kinds) for kinds in self._notes.get(_repair_key(request.get("repair")), _Notes()).seen]

    def _trusted(self, name: str) -> Callable[..., Any]:
        """The stand-in in use for the submission's `name` (a repair's values come from it)."""
        found = self._stand_in_sets.get(self._active, {}).get(name) if self._active else None
        if found is None:
            raise standins.StandInError(f"the trusted {name} is not in use now")
        return found

    def _reach(self, names: Any) -> set[types.CodeType]:
        modules = self._student_globals()
        return standins.code_reach([self.namespace[n] for n in names or () if type(n) is str and n in self.namespace], lambda obj: _owned(obj, modules))

    def _own_code(self, names: Any, besides: Any) -> set[types.CodeType]:
        return self._reach(names) - self._reach(besides)

    @contextlib.contextmanager
    def _watching(self) -> Iterator[None]:
        """For one request, the profile of `watch_shared` (the main thread's: the student's code runs there)."""
        if self._watched is None:
            yield
            return
        before = sys.getprofile()
        sys.setprofile(self._watched[0])
        try:
            with self._watched[2]:
                yield
        finally:
            sys.setprofile(before)

    def op_call(self, request: dict) -> Any:
        target = self._target(request)
        args, kwargs = _strided(request.get("args", []), request.get("noncontiguous", [])), request.get("kwargs", {})
        self._seed(request)
        if request.get("device_trace"):  # where new tensors would sit on another device than the inputs
            owner = getattr(target, "__self__", None)
            inputs = _tensors([args, list(kwargs.values())])
            if isinstance(owner, torch.nn.Module):
                inputs += [*owner.parameters(), *owner.buffers()]
            with DeviceTracer(inputs, self.filenames) as tracer:
                target(*args, **kwargs)
            return sorted(tracer.found.values(), key=lambda found: found["where"])
        # every call of what a rule covers runs under the trace (`look`), its trace read or not: its
        # stack depth, its speed, the room left before the recursion limit do not tell them apart
        tracer = self._tracer(request) if request.get("trace") or request.get("look") else None
        before = threads_seen() if tracer is not None else None
        # one line calls the student, traced or not
        try:
            with tracer or contextlib.nullcontext():
                value = target(*args, **kwargs)
        finally:
            if tracer is not None and not request.get("trace"):  # a `look`: what it ran is judged with the rule's own call (qa20h h01)
                self._looked = self._seen(tracer, before)
        if tracer is not None and request.get("trace"):
            return {"value": self._export(value), **self._seen(tracer, before), "probe": probe_tracer()}
        if request.get("devices"):  # where the tensors of the result live (e.g. "meta"), not their values
            return [str(t.device) for t in _tensors(value)]
        if request.get("echo"):  # the arguments as they are after the call (to spot in-place changes)
            return {"value": self._export(value), "args": [self._export(a) for a in args]}
        return self._export(value)

    def _tracer(self, request: dict) -> OpTracer:
        """The trace of a call: profiled where the client's `look` asks, chained to this request's watch."""
        profiled = request.get("look") == PROFILED
        return OpTracer(self._student_globals() if profiled else [], profiled, self._watched[0] if self._watched is not None else None)

    def _seen(self, tracer: OpTracer, before: Any) -> dict:
        """A trace's report, and whether code ran in another thread or process during the call."""
        return {**tracer.report(), "elsewhere": ran_elsewhere(before, threads_seen(), self._ambient)}

    def op_new(self, request: dict) -> Handle:
        cls = self.namespace.get(request["cls"])
        if not isinstance(cls, type):
            raise self._undefined(request["cls"], "is not defined as a class")
        self._seed(request)
        obj = cls(*request.get("args", []), **request.get("kwargs", {}))
        handle = Handle(len(self.objects) + 1)
        self.objects[handle.number] = obj
        return handle

    def op_describe(self, request: dict) -> dict:
        """A module's parameters (name -> shape), its training flag and its submodules' classes (and their bases)."""
        obj = self._object(request["handle"])
        if not isinstance(obj, torch.nn.Module):
            return {"module": False, "type": type(obj).__name__}
        return {
            "module": True,
            "type": type(obj).__name__,
            "training": bool(obj.training),
            # every name a module or parameter is registered under: a layer aliased from a dict
            # made first (self.W_q = self.layers["q"]) is still W_q, as state_dict() says
            "parameters": {n: list(p.shape) for n, p in obj.named_parameters(remove_duplicate=False)},
            "children": {n: _layer_class(c) for n, c in obj.named_modules(remove_duplicate=False) if n},
            # the classes each submodule is an instance of (a subclass of the submission's own
            # MultiHeadAttention is one too), nearest first, up to nn.Module
            "lineage": {n: [k.__name__ for k in type(c).__mro__[:type(c).__mro__.index(torch.nn.Module)]]
                        for n, c in obj.named_modules(remove_duplicate=False) if n},
            "attributes": {n: type(v).__name__ for n, v in vars(obj).items() if not n.startswith("_")},
            "dropout_p": {n: float(m.p) for n, m in obj.named_modules(remove_duplicate=False) if isinstance(m, torch.nn.Dropout)},
            "norm_eps": {n: float(m.eps) for n, m in obj.named_modules(remove_duplicate=False) if isinstance(m, torch.nn.LayerNorm)},
            "aliases": _aliases(obj),
        }

    def op_state_dict(self, request: dict) -> dict:
        module = self._module(request["handle"])
        return {k: v.detach().clone() for k, v in module.state_dict().items()}

    def op_load_state_dict(self, request: dict) -> dict:
        module = self._module(request["handle"])
        result = module.load_state_dict(request["state"], strict=request.get("strict", True))
        return {"missing": list(result.missing_keys), "unexpected": list(result.unexpected_keys)}

    def op_train(self, request: dict) -> bool:
        module = self._module(request["handle"])
        module.train(bool(request["mode"]))
        return bool(module.training)

    def op_vjp(self, request: dict) -> dict:
        """Outputs of a call and the gradients of sum(output[i] * grad_outputs[i]) w.r.t. inputs."""
        target = self._target(request)
        args = _strided(request.get("args", []), request.get("noncontiguous", []))
        wrt = request.get("wrt", [])
        for index in wrt:
            args[index] = args[index].detach().clone().requires_grad_(True)
        self._seed(request)
        tracer = self._tracer(request) if request.get("look") else None  # as op_call's
        before = threads_seen() if tracer is not None else None
        try:
            with tracer or contextlib.nullcontext():
                outputs = target(*args, **request.get("kwargs", {}))
        finally:
            if tracer is not None:
                self._looked = self._seen(tracer, before)
        # the outputs as the traced call left them: a backward of the student's own (an autograd.Function)
        # runs untraced, and one that writes into them (qa45h h02, h17) is refused below
        exported = self._export(outputs)
        versions = _versions(outputs)
        selected = outputs if isinstance(outputs, (tuple, list)) else (outputs,)
        pairs = [(o, g) for o, g in zip(selected, request["grad_outputs"]) if g is not None]
        if not all(isinstance(o, torch.Tensor) for o, _ in pairs):
            raise TypeError("the outputs to differentiate are not tensors")
        inputs = [args[i] for i in wrt]
        if any(tuple(o.shape) != tuple(g.shape) for o, g in pairs):  # a result of the wrong shape: the checks name it, not autograd
            return {"outputs": exported, "grads": [None] * len(inputs), "param_grads": {}}
        pairs = [(o, g) for o, g in pairs if o.requires_grad]  # a detached output: no gradient reaches anything
        named = list(target.__self__.named_parameters(remove_duplicate=False)) if request.get("params") else []
        params = list({id(p): p for _, p in named}.values())  # each once; every name it has gets its gradient
        with _EngineCalls() as engine:
            grads = torch.autograd.grad(
                [o for o, _ in pairs], inputs + params, [g for _, g in pairs], allow_unused=True
            ) if pairs else (None,) * (len(inputs) + len(params))
        if _versions(outputs) != versions:
            raise RuntimeError("the backward of your code changed the results its forward returned (in place)")
        own_backward = _custom_backward([o for o, _ in pairs]) or _hooked([o for o, _ in pairs] + inputs + params) or engine.called
        if own_backward and not self._follows_forward(request, target, args, inputs + params, grads, pairs, selected):
            raise RuntimeError("the gradients your backward (an autograd.Function or a hook) gives are not those of your forward")
        by_id = {id(p): g for p, g in zip(params, grads[len(inputs):])}
        return {
            "outputs": exported,
            "grads": [self._export(g) for g in grads[: len(inputs)]],
            "param_grads": {n: self._export(by_id[id(p)]) for n, p in named},
        }

    def _follows_forward(self, request: dict, target: Callable, args: list, leaves: list, grads: tuple, pairs: list, selected: Any) -> bool:
        """Whether the gradients of `leaves` agree with a central difference of the forward along one
        random direction (sum(grad_output * change of output) / step): a backward of the
        submission's own, or hooks that change gradients, must give the gradients of its forward
        (qa45h h19, qa46h h07: the library's gradients for a forward that returns zeros). Seeded as
        the call was."""
        if any(leaf.dtype not in (torch.float32, torch.float64) for leaf in leaves):
            return True  # a step of half precision says nothing
        chosen = [(next(i for i, s in enumerate(selected) if s is o), g) for o, g in pairs]
        generator = torch.Generator().manual_seed(0)
        directions = [torch.randn(leaf.shape, generator=generator, dtype=torch.float64) for leaf in leaves]
        saved = [leaf.detach().clone() for leaf in leaves]
        moved = []
        try:
            for sign in (1.0, -1.0):
                with torch.no_grad():
                    for leaf, start, direction in zip(leaves, saved, directions):
                        leaf.copy_(start.double().add(direction, alpha=sign * FINITE_STEP).to(leaf.dtype))
                self._seed(request)
                outputs = target(*args, **request.get("kwargs", {}))  # gradients on, as the call was (qa46h h08 read no_grad)
                moved.append([o.detach() if isinstance(o, torch.Tensor) else o for o in (outputs if isinstance(outputs, (tuple, list)) else (outputs,))])
        finally:
            with torch.no_grad():
                for leaf, start in zip(leaves, saved):
                    leaf.copy_(start)
        differences = sum(float((g.double() * (moved[0][i].double() - moved[1][i].double())).sum()) for i, g in chosen) / (2 * FINITE_STEP)
        linear = sum(float((g.double() * d).sum()) for g, d in zip(grads, directions) if g is not None)
        return abs(differences - linear) <= 0.1 * max(abs(differences), abs(linear)) + 1e-6

    def op_plot(self, request: dict) -> dict:
        from autograder.grading.worker.plotdata import plot_call

        target, args, kwargs = self._target(request), request.get("args", []), request.get("kwargs", {})
        for index in request.get("live", []):  # as a model's output: requiring grad, not a leaf
            args[index] = args[index].detach().requires_grad_(True) * 1
        options = {"over_open": True} if request.get("over_open") is True else {}
        if request.get("picture", True) is False:  # only which Axes holds what (plotdata.plot_call)
            return plot_call(target, args, kwargs, picture=False, **options)
        return plot_call(target, args, kwargs, **options)

    # -- helpers ---------------------------------------------------------------------------
    def _undefined(self, name: str, said: str) -> NameError:
        """`name` is missing: because its code did not compile (say where), or not written
        (the words of i18n's note.not_defined, note.not_a_class, note.*_uncompiled, note.*_unrun)."""
        if name in self.uncompiled and name not in self.namespace:
            return NameError(f"{name} {said}: its code has a syntax error ({self.uncompiled[name]}), so it never ran")
        if name in self.unrun and name not in self.namespace:
            return NameError(f"{name} {said}: the code above it stopped with an error ({self.unrun[name]}), so it never ran")
        return NameError(f"{name} {said}")

    def _target(self, request: dict) -> Callable:
        if "handle" in request:
            obj = self._object(request["handle"])
            method = request.get("method") or "__call__"
            return getattr(obj, method)
        value = self.namespace.get(request["name"])
        if value is None:
            raise self._undefined(request["name"], "is not defined in your file")
        if not callable(value):
            raise TypeError(f"{request['name']} is not a function")
        return value

    def _object(self, handle: Any) -> Any:
        number = handle.number if isinstance(handle, Handle) else handle
        if number not in self.objects:
            raise LookupError("this object no longer exists (the worker was restarted)")
        return self.objects[number]

    def _module(self, handle: Any) -> torch.nn.Module:
        obj = self._object(handle)
        if not isinstance(obj, torch.nn.Module):
            raise TypeError(f"expected an nn.Module, got {type(obj).__name__}")
        return obj

    @staticmethod
    def _seed(request: dict) -> None:
        if request.get("seed") is not None:
            torch.manual_seed(int(request["seed"]))

    def _export(self, value: Any) -> Any:
        """Keep what can cross the boundary; modules stay here and are sent as handles."""
        if isinstance(value, torch.nn.Module):
            handle = Handle(len(self.objects) + 1)
            self.objects[handle.number] = value
            return handle
        if type(value) is list:
            return [self._export(v) for v in value]
        if isinstance(value, tuple):  # a named tuple (typing.NamedTuple) is the pair the contract asks for too
            return tuple(self._export(v) for v in tuple.__iter__(value))
        if isinstance(value, torch.Tensor) and type(value) in (torch.Tensor, torch.nn.Parameter):
            # torch.Tensor's own methods, not the value's: a `detach` stored on the tensor would run after the trace
            detached = torch.Tensor.detach(value)  # a copy of its own: nothing the student left behind (a __del__) rewrites it later;
            return torch.Tensor.clone(detached) if detached.numel() <= MAX_COPIED_ELEMENTS else detached  # not a huge view: refused as such
        if type(value).__module__ == "numpy" and hasattr(value, "dtype"):
            return Refused(f"a numpy {type(value).__name__}; return a torch.Tensor")
        return value


def _plain(value: Any, nested: bool = False) -> str:
    """An audit event's argument as text without running code of the submission's (an object of a
    str subclass of its own: its __str__ ran inside the audit hook, where no profile sees: qa42h F2):
    the C methods of str, bytes, int and tuple, on any subclass; a type's name for anything else."""
    kind = type(value)  # not isinstance: it reads a __class__ the object may compute
    if issubclass(kind, str):
        return str.__str__(value)
    if issubclass(kind, (bytes, bytearray)):
        return bytes.decode(bytes(memoryview(value)), "utf-8", "replace")
    if issubclass(kind, int):
        return int.__repr__(value)
    if issubclass(kind, tuple) and not nested:  # an address: (host, port)
        return "(" + ", ".join(_plain(v, True) for v in tuple.__iter__(tuple.__getitem__(value, slice(0, 8)))) + ")"
    return f"<{type.__getattribute__(kind, '__name__')}>"


def _owned(obj: Any, modules: list[dict]) -> bool:
    """Whether a function or class is the submission's own: defined in one of its modules."""
    if isinstance(obj, types.FunctionType):
        return any(obj.__globals__ is globals_ for globals_ in modules)
    if isinstance(obj, type):
        module = sys.modules.get(getattr(obj, "__module__", None) or "")
        return module is not None and any(module.__dict__ is globals_ for globals_ in modules)
    return False


def _aliases(module: torch.nn.Module) -> dict[str, str]:
    """Each submodule name under which an object registered earlier is registered again -> that
    first name (self.dropout = self.attn.dropout gives {"dropout": "attn.dropout"} or the reverse)."""
    first: dict[int, str] = {}
    aliases = {}
    for name, sub in module.named_modules(remove_duplicate=False):
        if not name:
            continue
        if id(sub) in first:
            aliases[name] = first[id(sub)]
        else:
            first[id(sub)] = name
    return aliases


def _layer_class(module: torch.nn.Module) -> str:
    """The class name describe reports for a submodule: the torch.nn layer it is (a student's
    subclass of nn.Linear, say with its own init, is an nn.Linear, as isinstance says), else the
    name of its own class."""
    for cls in type(module).__mro__:
        if cls is not torch.nn.Module and getattr(cls, "__module__", "").startswith("torch.nn."):
            return cls.__name__
    return type(module).__name__


def _custom_backward(outputs: list[torch.Tensor]) -> bool:
    """Whether the graph behind `outputs` holds a backward written in Python (an autograd.Function's)
    other than a stand-in's (the grader computes that one)."""
    nodes, seen = [o.grad_fn for o in outputs], set[int]()
    while nodes and len(seen) < MAX_GRAPH_NODES:
        node = nodes.pop()
        if node is None or id(node) in seen:
            continue
        if isinstance(node, torch.autograd.function.BackwardCFunction) and getattr(type(node), "_forward_cls", None) is not standins.Remote:
            return True
        seen.add(id(node))
        nodes.extend(next_node for next_node, _ in node.next_functions)
    return False


def _hooked(tensors: list[torch.Tensor]) -> bool:
    """Whether a hook of the submission's own may change the gradients that reach these tensors
    (Tensor.register_hook, register_post_accumulate_grad_hook)."""
    return any(getattr(t, "_backward_hooks", None) or getattr(t, "_post_accumulate_grad_hooks", None) for t in tensors)


class _EngineCalls:
    """Whether the autograd engine called Python in a backward, besides the stand-ins' own
    autograd.Function (the grader computes that one): a hook of the submission's own on a node of
    the graph (grad_fn.register_hook, register_prehook), which no attribute of a tensor shows
    (round 39: a forward that computed nothing earned B.1's and C.3's gradient checks), a hook on
    a tensor, or an autograd.Function's backward however deep in the graph. A profile of this
    thread, where the engine runs a graph on the CPU (it runs a CUDA node's on its own threads:
    `_custom_backward` and `_hooked` still look there); `chain`, the request's own profile, still
    gets every event."""

    def __init__(self) -> None:
        self.chain = sys.getprofile()
        self.engine = torch.autograd.Variable._execution_engine
        self.callers: list[types.FrameType] = []  # frames in which the engine runs (a hook may run one again)
        self.called = False

    def note(self, frame: types.FrameType, event: str, value: Any) -> None:
        if event == "c_call" and getattr(value, "__self__", None) is self.engine:
            self.callers.append(frame)
        elif event in ("c_return", "c_exception") and getattr(value, "__self__", None) is self.engine and self.callers:
            self.callers.pop()
        elif event == "call" and self.callers and frame.f_back is self.callers[-1]:
            node = frame.f_locals.get("self") if frame.f_code is FUNCTION_APPLY else None
            self.called = self.called or getattr(type(node), "_forward_cls", None) is not standins.Remote
        if self.chain is not None:
            self.chain(frame, event, value)

    def __enter__(self) -> _EngineCalls:
        sys.setprofile(self.note)
        return self

    def __exit__(self, *exc: object) -> None:
        sys.setprofile(self.chain)


FUNCTION_APPLY = torch.autograd.function.BackwardCFunction.apply.__code__  # the engine's way into an autograd.Function's backward


def _versions(value: Any) -> list[int]:
    """The version counters of the tensors in a value (each in-place change adds one), read with
    torch's own descriptor (not one a Tensor subclass may override)."""
    return [torch._C.TensorBase._version.__get__(t) for t in _tensors(value)]


def _tensors(value: Any) -> list[torch.Tensor]:
    """The tensors in a value (a tensor, or a tuple, list or dict of them), in order."""
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, (list, tuple)):
        return [t for item in value for t in _tensors(item)]
    if type(value) is dict:
        return [t for item in value.values() for t in _tensors(item)]
    return []


def _remember_source(filename: str, chunks: list) -> None:
    """Put the submission's lines into linecache, so that a traceback shows the line of the
    student's file that raised (the file itself may not be readable where the code runs)."""
    lines: list[str] = []
    for first_line, text in chunks:
        lines.extend([""] * (first_line - 1 - len(lines)))
        lines[first_line - 1:] = text.splitlines(keepends=True)
    lines = [line if line.endswith("\n") else line + "\n" for line in lines]
    linecache.cache[filename] = (sum(map(len, lines)), None, lines, filename)  # mtime None: never re-read


def _methods(owner: str, cls: type, modules: list[dict], seen: set[int]) -> Iterator[tuple[dict, types.FunctionType]]:
    """The repair sites of a class (Dispatcher._helper_sites), then of the classes in its body."""
    for base in cls.__mro__:
        for attr, member in list(vars(base).items()) if _owned(base, modules) else ():
            function = member.__func__ if type(member) in (staticmethod, classmethod) else member
            if type(function) is types.FunctionType and not attr.startswith("__") and id(function) not in seen:
                seen.add(id(function))
                yield {"name": attr, "owner": owner, "base": base.__name__, "method": type(member) is not staticmethod}, function
    if owner.count(".") < NESTED_CLASSES:
        for attr, member in list(vars(cls).items()):
            if isinstance(member, type) and not attr.startswith("__") and _owned(member, modules):
                yield from _methods(f"{owner}.{attr}", member, modules, seen)


def _repair_key(site: Any) -> str:
    """A repair's key in the worker's notes of layouts: its place and kind, not how it is sent."""
    return repr(sorted((k, v) for k, v in site.items() if k not in ("learn", "seen", "deviation"))) if type(site) is dict else ""


@dataclass
class _Notes:
    """What a repair notes of the earlier task's calls of its helper, for the later task's."""

    seen: list[set[str]] = field(default_factory=list)  # the kinds of argument each place got
    learned: list[tuple[tuple[str, ...], tuple[float, float]]] = field(default_factory=list)  # each call's layout and deviation (_deviation)
    reads: dict[tuple[str, ...], bool] = field(default_factory=dict)  # whether the calls of a layout read their modules' parameters
    ran: set[tuple[types.CodeType, int]] | None = field(default_factory=set)  # the submission's bytecode they ran (None: not known here)
    lost: bool = False  # a trace of theirs was switched off before it ended


def _gated(helper: Callable[..., Any], own: Callable[..., Any], given: Callable[[tuple, dict], tuple[Any, list]], notes: _Notes, learn: bool, weights_at: int | None, modules: list[dict]) -> Callable[..., Any]:
    """A repair that answers only calls that hand the helper, in each place, a kind of argument the
    earlier task's calls did there (`learn`: those calls, noted); or a dropout where they always
    gave None, or another module where they gave modules, that the helper's own code (`own`)
    applies (its values change when it is swapped for an identity; a dropout that drops nothing
    needs no test). A later task that hands it other kinds of argument, or the same in other
    places (a dropout where the mask goes, a module swapped with the tensor, a LayerNorm that its
    own code never applies), is on a path of the helper's that the earlier task's checks never
    tried, which no repair answers for (qa43h b01, b02, b03, b05), unless it is a value where they
    always gave None that changes nothing of the helper's own values (`_as_if_none`: a scale only
    the later task sets, qa48s b10): then it is answered as the call with None there.

    The helper's own values are compared with the repair's on every call (`_deviation`): on the
    earlier task's, each gap is noted with the call's layout; on the later task's, the gap must be
    alike (`_alike`: a helper 0.9 times right there is 0.9 times right here), or the later task's
    path of the helper is not the one the earlier task's calls tried (qa46h h01, h03, h06: a 4-D
    input, a flag on one module, a LayerNorm; qa44s d07, d11, d13). Where that gap says nothing
    (the earlier calls were grossly off: `_gross`), a later call, given what the earlier calls gave
    where it gives another kind (`_as_before`), must run no bytecode of the submission's modules
    (`modules`: their globals) that they did not (`_ran_before`), and, handed a module with
    parameters, find its own code reading them where the earlier calls laid out alike did
    (`_reads_parameters`): round 39, a helper that triples every layer's result on B.1's path and
    skips, or all but skips, C.3's flagged W_o (qa46h h11, h14; qa47h h04, h05, h07, h10). Its
    values come back as the helper's own do (`_packed_as`)."""

    def gate(*args: Any, **kwargs: Any) -> Any:
        layout = _layout(given(args, kwargs)[1])
        with_parameters = _with_parameters(given(args, kwargs)[1])
        if learn:
            notes.seen.extend(set() for _ in range(min(len(layout), MAX_LAYOUT_PLACES) - len(notes.seen)))
            for place, kind in enumerate(layout[:MAX_LAYOUT_PLACES]):
                notes.seen[place].add(kind)
            if with_parameters and not notes.reads.get(layout):
                notes.reads[layout] = _reads_parameters(own, args, kwargs, with_parameters)
            with _Ran(modules) as ran:
                returned = _own_values(own, args, kwargs)
            notes.lost = notes.lost or ran.lost
            if notes.ran is not None:
                notes.ran |= ran.ran
            values = helper(*args, **kwargs)
            if len(notes.learned) < MAX_NOTED_CALLS:
                notes.learned.append((layout, _deviation(returned, values)))
            return _packed_as(returned, values)
        unseen = [place for place, kind in enumerate(layout) if place >= len(notes.seen) or kind not in notes.seen[place]]
        other = [place for place in unseen if not (place < len(notes.seen) and _may_stand_for(layout[place], notes.seen[place]))]
        if other:
            as_before = _as_if_none(own, given(args, kwargs)[0] is not None, args, kwargs, other, notes.seen)
            if as_before is None:
                raise TypeError("the repaired helper is called with other arguments than the earlier task gives it")
            return gate(*as_before[0], **as_before[1])
        applied = [place for place in unseen if layout[place] not in (IDLE_DROPOUT, "NoneType", "bool tensor")]
        if applied and not _applies(own, given, args, kwargs, applied):
            raise TypeError("the helper of yours does not apply the module it is given")
        nones = [place for place in unseen if layout[place] == "NoneType"]
        if nones and not _none_is_zero(own, given(args, kwargs)[0] is not None, args, kwargs, nones):
            raise TypeError("the helper of yours gives other values for None than for a zero tensor")
        masks = [place for place in unseen if layout[place] == "bool tensor"]
        if masks and not _masks(own, weights_at, given(args, kwargs)[0] is not None, args, kwargs, masks):
            raise TypeError("the helper of yours does not block what the mask it is given blocks")
        gross = _gross(notes.learned)
        if gross and with_parameters and notes.reads.get(layout, any(notes.reads.values())) and not _reads_parameters(own, args, kwargs, with_parameters):
            raise TypeError("the helper of yours does not apply the module it is given here, as it did on the earlier task's calls")
        if gross and notes.ran is not None and not _ran_before(own, given(args, kwargs)[0] is not None, args, kwargs, _as_before(layout, unseen, notes.seen), notes, modules):
            raise TypeError("the helper of yours runs code here that it did not run on the earlier task's calls: a path of its own")
        returned = _own_values(own, args, kwargs)
        values = helper(*args, **kwargs)
        if not _alike(_deviation(returned, values), layout if not unseen else None, notes.learned):
            raise TypeError("the helper of yours gives other values here than on the earlier task's calls: a path of its own")
        return _packed_as(returned, values)

    return gate


def _as_if_none(own: Callable[..., Any], method: bool, args: tuple, kwargs: dict, places: list[int], seen: list[set[str]]) -> tuple[tuple, dict] | None:
    """The call with None in `places`, where the earlier task's calls always gave None (a default
    only the later task sets: a scale, qa48s b10), when the helper's own values are the same with
    None there; None otherwise (another place, values that change, an error either way)."""
    if not all(place < len(seen) and seen[place] == {"NoneType"} for place in places):
        return None
    call = _rebound(own, method, args, kwargs, dict.fromkeys(places))
    if call is None:
        return None
    returned = _own_values(own, args, kwargs)
    return call if returned is not None and _same_values(returned, _own_values(own, *call)) else None


def _as_before(layout: tuple[str, ...], unseen: list[int], seen: list[set[str]]) -> dict[int, Any]:
    """What the earlier task's calls gave in the places where a later call gives another kind:
    None where they gave None (a dropout or a mask now), a zero where they gave tensors (None now,
    as `_none_is_zero` found it taken); another module stays (no other can stand for it)."""
    return {place: None if seen[place] == {"NoneType"} else torch.zeros(()) for place in unseen
            if seen[place] == {"NoneType"} or layout[place] == "NoneType"}


def _ran_before(own: Callable[..., Any], method: bool, args: tuple, kwargs: dict, earlier: dict[int, Any], notes: _Notes, modules: list[dict]) -> bool:
    """Whether the submission's own helper, called as here but given `earlier` in those places,
    runs only bytecode of its modules that the earlier task's calls ran (`_Ran`; a trace switched
    off there or here, or arguments it cannot be given so: no). A mask of lower rank than the
    call's tensors may be given lifted to their rank, the same mask by the contract's broadcasting,
    where the helper's values do not change with it, or it raises with both (qa48s b02: a branch
    that lifts C.3's 2-D mask itself, which B.1's 3-D masks never took)."""
    def ran_before(values: dict[int, Any]) -> tuple[bool, Any]:
        call = _rebound(own, method, args, kwargs, values)
        if call is None:
            return False, None
        with _Ran(modules) as ran:
            returned = _own_values(own, *call)
        return notes.ran is not None and not notes.lost and not ran.lost and ran.ran <= notes.ran, returned

    before, returned = ran_before(earlier)
    if before:
        return True
    lifted = {place: mask for place, mask in _lifted_masks(own, method, args, kwargs).items() if place not in earlier}
    if not lifted or _rebound(own, method, args, kwargs, earlier) is None:
        return False
    same, returned_lifted = ran_before({**earlier, **lifted})
    return same and _same_values(returned_lifted, returned)  # or both raise (b02: its transposed weights on C.3's cross-attention)


def _lifted_masks(own: Callable[..., Any], method: bool, args: tuple, kwargs: dict) -> dict[int, torch.Tensor]:
    """The bool tensors of a call (by place, in the order of the helper's parameters) of lower rank
    than its highest-rank float tensor, with leading dimensions of size 1 up to that rank."""
    signature = inspect.signature(own)
    try:
        bound = signature.bind(*args, **kwargs).arguments
    except TypeError:
        return {}
    given = [bound.get(name) for name in list(signature.parameters)[int(method):]]
    rank = max((value.dim() for value in given if isinstance(value, torch.Tensor) and value.is_floating_point()), default=0)
    return {place: value.reshape((1,) * (rank - value.dim()) + tuple(value.shape)) for place, value in enumerate(given)
            if isinstance(value, torch.Tensor) and value.dtype == torch.bool and value.dim() < rank}


def _rebound(own: Callable[..., Any], method: bool, args: tuple, kwargs: dict, values: dict[int, Any]) -> tuple[tuple, dict] | None:
    """A call's arguments with `values` in those places (of the helper's parameters' order, besides
    self); None for a helper of *args or **kwargs, or a call its signature does not take."""
    if not values:
        return args, kwargs
    signature = inspect.signature(own)
    parameters = list(signature.parameters.values())[int(method):]
    if any(p.kind in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD) for p in parameters) or max(values) >= len(parameters):
        return None
    try:
        bound = signature.bind(*args, **kwargs)
    except TypeError:
        return None
    bound.apply_defaults()
    bound.arguments.update({parameters[place].name: value for place, value in values.items()})
    return bound.args, bound.kwargs


class _Ran:
    """The bytecode of the submission's own modules (`own`: their globals) that runs while it is
    on: each instruction (code, offset), by a trace of this thread, so that a branch taken only on
    a later task's path shows; `lost`: the trace was switched off or replaced before it ended.
    Code made with globals of its own (exec) is not traced."""

    def __init__(self, own: list[dict]) -> None:
        self.own = {id(globals_) for globals_ in own}
        self.ran: set[tuple[types.CodeType, int]] = set()
        self.lost = False
        self.hook = self.call  # the one object set as the trace: a bound method is made anew at each read

    def call(self, frame: types.FrameType, event: str, value: Any) -> Callable[..., Any] | None:
        if id(frame.f_globals) not in self.own:
            return None
        frame.f_trace_opcodes, frame.f_trace_lines = True, False
        return self.step

    def step(self, frame: types.FrameType, event: str, value: Any) -> Callable[..., Any]:
        if event == "opcode":
            self.ran.add((frame.f_code, frame.f_lasti))
        return self.step

    def __enter__(self) -> _Ran:
        self.before = sys.gettrace()
        if self.own:
            sys.settrace(self.hook)
        return self

    def __exit__(self, *exc: object) -> None:
        self.lost = bool(self.own) and sys.gettrace() is not self.hook
        sys.settrace(self.before)


def _own_values(own: Callable[..., Any], args: tuple, kwargs: dict) -> Any:
    """What the submission's own helper returns for a call, on copies of its tensors and of the
    random state, with gradients on as in the call itself (qa46h h05 read no_grad); None when it raises."""
    def copy(value: Any) -> Any:
        return value.detach().clone().requires_grad_(value.requires_grad) if isinstance(value, torch.Tensor) and type(value) is torch.Tensor else value

    try:
        with torch.random.fork_rng(devices=[]), torch.enable_grad():
            return own(*map(copy, args), **{key: copy(value) for key, value in kwargs.items()})
    except Exception:  # noqa: BLE001 - its own code fails here
        return None


def _deviation(returned: Any, values: Any) -> tuple[float, float]:
    """How far a helper's own values are from its repair's: the largest absolute and relative
    difference of their tensors, in order ((0, 0) within float rounding; infinite when they
    cannot be compared: its own raised, or gave other tensors)."""
    ours, theirs = _tensors(returned), _tensors(values)
    if returned is None or len(ours) != len(theirs) or any(a.shape != b.shape for a, b in zip(ours, theirs)):
        return math.inf, math.inf
    largest, relative = 0.0, 0.0
    for a, b in zip(ours, theirs):
        a, b = a.detach().double(), b.detach().double()
        if torch.allclose(a, b, rtol=1e-4, atol=1e-5):
            continue
        gap = float(torch.nan_to_num((a - b).abs(), nan=math.inf).max())
        largest, relative = max(largest, gap), max(relative, gap / max(float(b.abs().max()), 1e-6))
    return largest, relative


def _typical(gaps: list[tuple[float, float]]) -> tuple[float, float]:
    """The earlier task's typical deviation: the lower median of its calls' (one path of the helper
    far off, a module flagged for it, does not make every other path look alike: qa46h h06)."""
    middle = (len(gaps) - 1) // 2
    return sorted(g[0] for g in gaps)[middle], sorted(g[1] for g in gaps)[middle]


def _gross(learned: list[tuple[tuple[str, ...], tuple[float, float]]]) -> bool:
    """Whether the helper's own values were typically grossly off the repair's on the earlier
    task's calls (GROSS, or raised): how far off they are on a later call then says nothing."""
    typical = _typical([g for _, g in learned]) if learned else (0.0, 0.0)
    return math.isinf(typical[0]) or typical[1] >= GROSS


def _alike(gap: tuple[float, float], layout: tuple[str, ...] | None, learned: list[tuple[tuple[str, ...], tuple[float, float]]]) -> bool:
    """Whether a later call's deviation (`_deviation`) is like the earlier task's: within SAME_PATH
    times the largest of its calls laid out alike that did not raise (a dropout's random draws vary
    it), or, for a layout they never gave (`layout` None: an argument that stands for another kind),
    the typical one, absolute or relative. Anything is alike where the earlier calls were typically
    grossly off (GROSS, or raised): a helper that wrong there may be wrong in any way here, one
    mistake (qa40s d17: a `.T` that is wrong for 3-D and raises for 4-D)."""
    if not learned:
        return False  # no earlier call noted: no path to compare with
    if _gross(learned):
        return True
    typical = _typical([g for _, g in learned])
    same = [g for noted, g in learned if noted == layout and not math.isinf(g[0])]
    reference = (max(g[0] for g in same), max(g[1] for g in same)) if same else typical
    return gap[0] <= SAME_PATH * reference[0] or gap[1] <= SAME_PATH * reference[1]


def _packed_as(returned: Any, values: Any) -> Any:
    """A repair's tuple of values in the container the submission's own helper `returned` them in:
    a dict (its keys in order), a named tuple, a list, or one tensor that stacks them (qa44s b04,
    b05, b20); else the tuple."""
    if type(values) is not tuple or not values:
        return values
    count, first = len(values), values[0]
    if type(returned) is dict and len(returned) == count:
        return dict(zip(returned, values))
    if isinstance(returned, tuple) and hasattr(type(returned), "_fields") and len(returned) == count:
        return type(returned)(*values)
    if type(returned) is list and len(returned) == count:
        return list(values)
    if isinstance(returned, torch.Tensor) and all(isinstance(v, torch.Tensor) and v.shape == first.shape for v in values):
        for dim in range(first.dim() + 1):
            if returned.shape == (*first.shape[:dim], count, *first.shape[dim:]):
                return torch.stack(values, dim)
    return values


IDLE_DROPOUT = "module: a dropout that drops nothing"


def _may_stand_for(kind: str, kinds: set[str]) -> bool:
    """Whether an argument of `kind` may go where the earlier task gave `kinds`: a dropout where it
    gave None, a module where it gave modules (if the helper applies it: `_applies`), None where it
    gave float tensors (if the helper takes it for zeros: `_none_is_zero`, a bias left out), a mask
    where it gave None (if the helper's weights block what it blocks: `_masks`)."""
    dropout = kind == IDLE_DROPOUT or kind == "module: Dropout"
    return ((dropout and kinds == {"NoneType"}) or (kind.startswith("module: ") and all(k.startswith("module: ") for k in kinds))
            or (kind == "NoneType" and kinds == {"tensor"}) or (kind == "bool tensor" and kinds == {"NoneType"}))


def _masks(own: Callable[..., Any], weights_at: int | None, method: bool, args: tuple, kwargs: dict, places: list[int]) -> bool:
    """Whether the submission's own helper, handed a mask where the earlier task's calls gave None
    (its code drops the mask: qa44s d12), masks as the contract asks: its weights are exactly 0
    wherever the masks block and each row that keeps a key sums as it does with None, and masks
    that block nothing change nothing (run as `_own_values`; an error there, a helper whose weights
    cannot be told apart (`weights_at` None: the stand-ins' WEIGHTS_AT names no place for its
    repair kind), or one of *args: no). qa44s d15: weights multiplied by the mask, not normalized again."""
    signature = inspect.signature(own)
    parameters = list(signature.parameters.values())[int(method):]
    if weights_at is None or any(p.kind in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD) for p in parameters):
        return False
    try:
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        masks = [bound.arguments[parameters[place].name] for place in places]
        results = []
        for given in (masks, [None] * len(masks), [torch.ones_like(mask) for mask in masks]):
            bound.arguments.update({parameters[place].name: mask for place, mask in zip(places, given)})
            returned = _own_values(own, bound.args, bound.kwargs)
            if returned is None:
                return False
            results.append([t.detach() for t in _tensors(returned)])
        masked, plain = results[0][weights_at], results[1][weights_at]
        blocked = torch.zeros(masked.shape, dtype=torch.bool)
        for mask in masks:
            blocked |= ~mask.expand(masked.shape)
        kept = ~blocked.all(dim=-1)  # rows that keep a key
        if masked.shape != plain.shape or not bool((masked[blocked] == 0).all()):
            return False
        if not torch.allclose(masked.sum(dim=-1)[kept].double(), plain.sum(dim=-1)[kept].double(), rtol=1e-4, atol=1e-5):
            return False
    except Exception:  # noqa: BLE001 - its own code fails there: not a path the repair answers for
        return False
    return _same_values(results[1], results[2])


def _none_is_zero(own: Callable[..., Any], method: bool, args: tuple, kwargs: dict, places: list[int]) -> bool:
    """Whether the submission's own helper gives the same values when the None it is handed in
    `places` (of its parameters' order, besides self) is a zero tensor: its path for None is the
    one the earlier task's calls tried (run as `_own_values`; an error there, or a helper of *args:
    no). qa44s b19: a Linear helper given no bias."""
    zeroed = _rebound(own, method, args, kwargs, {place: torch.zeros(()) for place in places})
    if zeroed is None:
        return False
    given, zeros = _own_values(own, args, kwargs), _own_values(own, *zeroed)
    return given is not None and zeros is not None and _same_values(given, zeros)


def _applies(own: Callable[..., Any], given: Callable[[tuple, dict], tuple[Any, list]], args: tuple, kwargs: dict, places: list[int]) -> bool:
    """Whether the submission's own helper gives other values when the modules it is handed in
    `places` (of its parameters' order) are identities (run as `_own_values`; an error there: no)."""
    modules = {id(value) for value in (given(args, kwargs)[1][place] for place in places)}
    idle = torch.nn.Identity()
    swap = lambda value: idle if id(value) in modules else value  # noqa: E731
    plain, idled = _own_values(own, args, kwargs), _own_values(own, tuple(map(swap, args)), {k: swap(v) for k, v in kwargs.items()})
    return plain is not None and idled is not None and not _same_values(plain, idled)  # an error: not a path the repair answers for


def _with_parameters(values: list) -> list[torch.nn.Module]:
    """The modules with parameters among a helper's arguments, each once."""
    found = {id(v): v for v in values if isinstance(v, torch.nn.Module) and any(True for _ in v.parameters())}
    return list(found.values())


def _reads_parameters(own: Callable[..., Any], args: tuple, kwargs: dict, modules: list[torch.nn.Module]) -> bool:
    """Whether the submission's own helper gives other values while the `modules` it is handed
    hold other parameters (each moved by a random step, in place of the module's own for this one
    probe; the modules themselves stay the ones it was given). Run as `_own_values`; an error
    there: no."""
    plain = _own_values(own, args, kwargs)
    moved: list[tuple[torch.nn.Module, str, torch.nn.Parameter]] = []
    generator = torch.Generator().manual_seed(0)
    try:
        for owner in {id(m): m for module in modules for m in module.modules()}.values():
            for name, parameter in list(owner._parameters.items()):
                if isinstance(parameter, torch.nn.Parameter):
                    step = torch.randn(parameter.shape, generator=generator).to(parameter.device, parameter.dtype)
                    moved.append((owner, name, parameter))
                    owner._parameters[name] = torch.nn.Parameter(parameter.detach() + step, parameter.requires_grad)
        other = _own_values(own, args, kwargs)
    finally:
        for owner, name, parameter in reversed(moved):
            owner._parameters[name] = parameter
    return plain is not None and other is not None and not _same_values(plain, other)


def _same_values(a: Any, b: Any) -> bool:
    """Whether two results hold the same tensors: as many, each of the same shape, dtype and values."""
    a, b = _tensors(a), _tensors(b)
    return len(a) == len(b) and all(x.shape == y.shape and x.dtype == y.dtype and torch.equal(x, y) for x, y in zip(a, b))


def _layout(values: list) -> tuple[str, ...]:
    """The kinds of a helper's arguments, in order: a float, bool or other tensor, a module by its
    class (a dropout that drops nothing, in eval mode or at rate 0, apart), or a value's type."""
    def kind(value: Any) -> str:
        if isinstance(value, torch.Tensor):
            return "bool tensor" if value.dtype == torch.bool else "tensor" if value.is_floating_point() else "other tensor"
        if isinstance(value, torch.nn.Dropout) and (not value.training or value.p == 0):
            return IDLE_DROPOUT
        return f"module: {type(value).__qualname__}" if isinstance(value, torch.nn.Module) else type(value).__name__

    return tuple(kind(value) for value in values)


def _arguments(function: types.FunctionType, method: bool) -> Callable[[tuple, dict], tuple[Any, list]]:
    """What a repair of `function` is given: its `self` or `cls` (None for a function) and its other
    arguments in the order of its own parameters, however it was called (keywords in any order)."""
    signature = inspect.signature(function)

    def given(args: tuple, kwargs: dict) -> tuple[Any, list]:
        try:
            bound = signature.bind(*args, **kwargs)
        except TypeError:
            values = [*args, *kwargs.values()]
        else:
            bound.apply_defaults()
            values = []
            for parameter, value in bound.arguments.items():
                kind = signature.parameters[parameter].kind
                values.extend(value if kind is inspect.Parameter.VAR_POSITIONAL else value.values() if kind is inspect.Parameter.VAR_KEYWORD else [value])
        return (values[0], values[1:]) if method and values else (None, values)

    return given


def _strided(args: list, positions: list) -> list:
    """The arguments, with those at `positions` made non-contiguous (same values, other strides).

    Tensors always cross the boundary contiguous; this is how a check asks for the other kind:
    the axes in memory in reverse order (the first one kept outermost from three axes on), and
    the last one a slice of a longer one, so that no view that merges two axes is possible
    (merge_heads' `x.transpose(1, 2).view(...)`, which fails on every contiguous input, worked on
    a swap of the last two axes alone: qa37s b08; nor `k.view(-1, Lk, d)` on the heads of
    split_heads, which keeps the batch and head axes apart: qa43s b06).
    """
    args = list(args)
    for index in positions:
        if isinstance(index, int) and 0 <= index < len(args) and isinstance(args[index], torch.Tensor) and args[index].dim() >= 2:
            value = args[index]
            kept = 1 if value.dim() >= 3 else 0
            order = [*range(kept), *range(value.dim() - 1, kept - 1, -1)]  # the axes from outermost to innermost in memory
            wide = value.new_zeros(*(2 * value.shape[a] if a == value.dim() - 1 else value.shape[a] for a in order))
            inverse = [order.index(a) for a in range(value.dim())]
            view = wide.narrow(order.index(value.dim() - 1), 0, value.shape[-1]).permute(*inverse)
            view.copy_(value)
            args[index] = view
    return args


# what Tensor and torch's own plain subclasses (nn.Parameter, nn.Buffer) answer a torch function with
_PLAIN_TORCH_FUNCTIONS = (torch.Tensor.__torch_function__.__func__, torch._C._disabled_torch_function_impl)


def _own_torch_function(kind: type) -> bool:
    """Whether objects of this type answer torch functions with code of their own."""
    handler = getattr(kind, "__torch_function__", None)
    return getattr(handler, "__func__", handler) not in _PLAIN_TORCH_FUNCTIONS


class _OperationsOf(torch.overrides.TorchFunctionMode):
    """Notes (into `seen`) the watched code objects that make a tensor with a torch operation
    themselves: the first frame above the operation that is not torch's own (nn.Linear's forward
    is its caller's); `x.dim()`, `x.size(-1)` make none."""

    def __init__(self, numbers: set[int], watched: set[types.CodeType], seen: set[types.CodeType]):
        super().__init__()
        self.numbers, self.watched, self.seen = numbers, watched, seen

    def __torch_function__(self, func, types, args=(), kwargs=None):
        result = func(*args, **(kwargs or {}))
        frame = sys._getframe(1)
        while frame is not None and frame.f_code.co_filename.startswith(TORCH_DIR):
            frame = frame.f_back
        if frame is not None and id(frame.f_code) in self.numbers and frame.f_code in self.watched and _tensors(result):
            self.seen.add(frame.f_code)
        return result


class _FunctionNames(torch.overrides.TorchFunctionMode):
    """Every torch function called through Python (torch.softmax, F.softmax, Tensor.softmax...).

    An argument whose type has its own __torch_function__ (a tensor subclass, or any object) is
    handed the function with this mode switched off, as _AtenOps hands a __torch_dispatch__: what
    it runs then (nn.MultiheadAttention, a look at the stack) is not seen, so that it ran is noted.

    Library code written in Python reaches torch functions with plain names (the quantizable
    MultiheadAttention of torch.ao runs linear, bmm, softmax): the classes and functions of torch's
    own Python code on the stack of each call are noted too, by the first part of their qualified
    name ("MultiheadAttention" for MultiheadAttention._forward_impl)."""

    def __init__(self, seen: set[str], subclassed: list[bool]):
        super().__init__()
        self.seen = seen
        self.subclassed = subclassed
        self._callers: dict[types.CodeType, str] = {}  # code -> its name to note ('' for code not of torch's)

    def __torch_function__(self, func, types, args=(), kwargs=None):
        self.seen.add(str(getattr(func, "__name__", func)))
        frame = sys._getframe(1)
        for _ in range(MAX_CALLER_FRAMES):
            if frame is None:
                break
            code = frame.f_code
            name = self._callers.get(code)
            if name is None:
                name = self._callers[code] = code.co_qualname.split(".", 1)[0] if code.co_filename.startswith(TORCH_DIR) else ""
            if name:
                self.seen.add(name)
            frame = frame.f_back
        if not self.subclassed and any(_own_torch_function(kind) for kind in types):
            self.subclassed.append(True)
        return func(*args, **(kwargs or {}))


class _AtenOps(TorchDispatchMode):
    """Every aten operator that runs, however it was reached (torch.ops, C-level calls, aliases).

    A tensor subclass with its own __torch_dispatch__ among the arguments (`types`) is handed the
    operator with this mode switched off: whatever its __torch_dispatch__ runs (a library softmax)
    is not seen. That it ran is noted (`subclassed`), never what it ran."""

    def __init__(self, seen: set[str], subclassed: list[bool]):
        super().__init__()
        self.seen = seen
        self.subclassed = subclassed

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.seen.add(str(func))  # aten._softmax.default
        if not self.subclassed and any(kind is not torch.Tensor for kind in types):  # torch's own calls may list Tensor itself
            self.subclassed.append(True)
        return func(*args, **(kwargs or {}))


_LIBRARY_NAMES: dict[types.CodeType, tuple[str, ...]] = {}  # a library's code -> what _LibraryCalls notes of it (() for torch's and the kit's), for every call


class _LibraryCalls:
    """Every Python function of another library that runs (scipy.special.softmax), by the first and
    the last part of its qualified name, as _FunctionNames notes torch's: a library that computes
    in numpy calls no torch function, so only a profile sees it, however the file reached it (a
    name carried out of an exception, a text-built getattr: qa41h b06, b13). The submission's own
    code (its modules' globals), torch's (traced by the modes) and the kit's are not noted.

    `chain`: the worker's own profile of the request (watch_shared's), which still gets every
    event; no other is ever called. `lost`: another profile was on when the call began (one the
    file set: it would run where this one does not look) or is on when it ends (qa42h F1, F3)."""

    def __init__(self, seen: set[str], own: list[dict], chain: Callable[..., Any] | None):
        self.seen = seen
        self.own = {id(globals_) for globals_ in own}
        self.chain = chain
        self.hook = self.note  # the one object set as the profile: a bound method is made anew at each read
        self.lost = False

    def note(self, frame: types.FrameType, event: str, value: Any) -> None:
        if event == "call" and id(frame.f_globals) not in self.own:
            code = frame.f_code
            names = _LIBRARY_NAMES.get(code)
            if names is None:
                parts = code.co_qualname.split(".")
                names = _LIBRARY_NAMES[code] = () if code.co_filename.startswith((TORCH_DIR, KIT_DIR)) else (parts[0], parts[-1])
            self.seen.update(names)
        if self.chain is not None:
            self.chain(frame, event, value)

    def __enter__(self) -> _LibraryCalls:
        self.lost = sys.getprofile() is not self.chain
        sys.setprofile(self.hook)
        return self

    def __exit__(self, *exc: object) -> None:
        self.lost = self.lost or sys.getprofile() is not self.hook
        sys.setprofile(self.chain)


class OpTracer:
    """Records what a call runs, at three levels: torch function names, aten operators and, with
    `profile`, the Python functions of other libraries (`own`: the globals of the submission's
    modules; `chain`: the worker's own profile of the request, see _LibraryCalls).

    It records everything and judges nothing: which names break a rule is decided in the grader
    (autograder.grading.integrity.rules), where the student's code cannot change the lists.
    """

    def __init__(self, own: list[dict] | None = None, profile: bool = True, chain: Callable[..., Any] | None = None) -> None:
        self.functions: set[str] = set()
        self.aten: set[str] = set()
        self.subclassed: list[bool] = []  # a type's own __torch_function__ or __torch_dispatch__ ran (untraced)
        self._library = _LibraryCalls(self.functions, own or [], chain)
        self._modes: tuple[Any, ...] = (_FunctionNames(self.functions, self.subclassed), _AtenOps(self.aten, self.subclassed))
        if profile:  # a profile slows every Python line ~1.7x: only where a rule asks for it (the client's `look`)
            self._modes += (self._library,)

    def __enter__(self) -> OpTracer:
        for mode in self._modes:
            mode.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        for mode in reversed(self._modes):
            mode.__exit__(*exc)

    def report(self) -> dict:
        return {"ops": sorted(self.functions)[:MAX_TRACED_NAMES], "aten": sorted(self.aten)[:MAX_TRACED_NAMES], "subclassed": bool(self.subclassed),
                "unprofiled": self._library.lost}


def threads_seen() -> tuple[frozenset[int], int | None]:
    """(the threads that run Python now, and in this process's own pid namespace the last pid it
    gave out, or -1 while another process lives in it: None outside one).

    The trace sees only the thread that calls: another thread or a child process may run any
    library code (asyncio.to_thread, a logging QueueListener, tqdm's thread_map, a process
    os.spawnl started at import: libraries start them without the source naming a thread). In its
    own pid namespace (the root sandbox) the worker is pid 1 and every thread or process made since
    has a new pid. Threads that never run Python (torch's own) are not counted while they live."""
    threads = frozenset(sys._current_frames())
    if os.getpid() != 1:
        return threads, None
    try:
        if any(entry.isdigit() and entry != "1" for entry in os.listdir("/proc")):
            return threads, -1
        with open("/proc/sys/kernel/ns_last_pid", encoding="ascii") as handle:
            return threads, int(handle.read().strip() or 0)
    except (OSError, ValueError):
        return threads, None


KERNEL_PACKAGES = frozenset({"ipykernel", "IPython", "zmq", "jupyter_client", "tornado", "debugpy", "_pydevd_bundle", "pydevd", "comm"})


def kernel_threads() -> frozenset[int]:
    """The calling thread, and the threads of a notebook kernel's own machinery: a Thread whose
    class or target comes from the kernel's packages (IPython's history saver, ipykernel's
    heartbeat and IOPub threads). In nbgrader the student's cells run in the kernel before the
    grader: a thread one of them started (a logging QueueListener that computes a softmax) is
    not the kernel's, though it was there before grading began."""
    found = {threading.get_ident()}
    for thread in threading.enumerate():
        runner = getattr(thread, "_target", None) or type(thread).run
        places = (str(getattr(runner, "__module__", "") or ""), type(thread).__module__)
        if thread.ident is not None and (any(place.split(".")[0] in KERNEL_PACKAGES for place in places) or _progress_monitor(thread)):
            found.add(thread.ident)
    return frozenset(found)


def _progress_monitor(thread: threading.Thread) -> bool:
    """tqdm's monitor thread, as tqdm made it: a progress bar in a notebook cell starts it, and it
    lives on (it only sleeps and refreshes bars); it cost a correct notebook B.1's point in
    nbgrader. Its class and its run's code must be tqdm's own file's, unchanged."""
    monitor = sys.modules.get("tqdm._monitor")
    cls = getattr(monitor, "TMonitor", None)
    run = getattr(cls, "run", None)
    return (cls is not None and type(thread) is cls and getattr(thread, "_target", None) is None and run is not None
            and os.path.realpath(run.__code__.co_filename) == os.path.realpath(str(getattr(monitor, "__file__", ""))))


def ran_elsewhere(before: tuple[frozenset[int], int | None], after: tuple[frozenset[int], int | None], ambient: frozenset[int]) -> bool:
    """Whether code may have run outside the traced thread during a call: a thread that was not
    part of a notebook kernel (`ambient`: kernel_threads) was alive when the
    call began or ended, another process lived, or a thread or process was made meanwhile."""
    return bool((before[0] | after[0]) - ambient - {threading.get_ident()}) or (before[1] is not None and (after[1] != before[1] or before[1] < 0))


def probe_tracer() -> dict:
    """A tripwire: trace a known library softmax, reached two ways, and a library's Python
    function, after the student's call.

    The grader expects `softmax` and `rgb_to_hsv` among the functions and `aten._softmax.default`
    among the operators; when one is missing, the tracing machinery was patched or switched off.
    """
    scores = torch.zeros(1, 2)
    with OpTracer() as tracer:
        torch.softmax(scores, -1)
        torch.ops.aten._softmax.default(scores, -1, False)
        colorsys.rgb_to_hsv(0.0, 0.0, 0.0)  # a library's Python function: the profile's tripwire
    return tracer.report()
