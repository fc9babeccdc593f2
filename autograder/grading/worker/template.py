"""The template process: a fork server that has imported torch and holds nothing secret.

grading/grader.py's Grader starts it first (before it loads any hidden check or reference), so
`import torch` is paid once per grader. Each spawn request carries two file descriptors (the worker's data socket
and a status pipe) and forks:

    template ─fork→ keeper (setsid; new pid namespace as root) ─fork→ worker (pid 1 inside)

The keeper reports the worker's pid, reads the worker's stdout and stderr (a pipe: it keeps the
first `output_bytes` and counts the rest, so no write of the student's ever fails), waits for it
and reports how it ended (exit code or signal) and its output on the status pipe. When the worker
(the namespace's init) dies, the kernel kills everything the submission started in that namespace.
Parent-death signals chain the life times: grader dies -> template dies -> keeper dies -> worker
dies -> its namespace dies, even when the grader is killed with SIGKILL.

It answers once torch, matplotlib and torch's symbolic shapes are imported (torch._dynamo is
deferred: deferdynamo), and warms up the rest (layers, a heatmap) while no request is waiting,
one step at a time: a cold `attnkit check` does not wait for a warm-up its first worker would
only partly use. Optional libraries a submission imports
(seaborn) are imported here before the first fork that asks for them, and kept.
"""
from __future__ import annotations

import fcntl
import importlib
import json
import os
import select
import signal
import socket
import stat
import sys
import traceback
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot  # noqa: E402,F401  (pre-imported: every worker forks with it loaded)
import numpy  # noqa: E402,F401
import torch  # noqa: E402

from autograder.grading.worker import sandbox, standins  # noqa: E402
from autograder.grading.worker.deferdynamo import defer_dynamo  # noqa: E402
from autograder.grading.worker.dispatcher import Dispatcher, OpTracer  # noqa: E402
from autograder.grading.worker.launch import RENEW  # noqa: E402
from autograder.grading.worker.plotdata import extract_plot  # noqa: E402,F401
from autograder.grading.worker.protocol import ProtocolError, recv_message, send_message  # noqa: E402

PRELOADS = ("seaborn",)  # what a spawn request may ask the template to import before it forks

if tqdm := sys.modules.get("tqdm"):  # torch.hub imports it where it is installed
    # No monitor thread (tqdm's documented off switch): a progress bar at import, in an honest
    # training loop, left it alive through every graded call, where a traced rule cannot be
    # checked while another thread lives.
    tqdm.tqdm.monitor_interval = 0


def preload(names: list[str]) -> None:
    """Import the optional libraries a submission imports (only those in PRELOADS), so that its
    worker forks with them loaded; one not installed is left to the student's own import."""
    for name in names:
        if name in PRELOADS and name not in sys.modules:
            try:
                importlib.import_module(name)
            except ImportError:
                continue
            if name == "seaborn":
                extract_plot(lambda: sys.modules["seaborn"].heatmap(numpy.eye(3), vmin=0, vmax=1))


def warm_up() -> None:
    """Every warm-up step at once (the template runs them one by one while idle: WARM_UP)."""
    for step in WARM_UP:
        step()


def _warm_autograd_imports() -> None:
    """What a worker's first calls import: torch's symbolic shapes and sympy (~0.4 s CPU), which
    every torch._check imports (a tensor on the meta device, the first autograd.grad with
    grad_outputs). torch._dynamo (~1 s more), which torch's Python decompositions, the op tracer's
    dispatch mode and the optimizers would import on their first call, is left unimported until
    something compiles (deferdynamo)."""
    defer_dynamo()
    import torch.fx.experimental.symbolic_shapes  # noqa: F401


def _warm_layers() -> None:
    """Run once what every worker will run (layers, the op tracer) so forks start warm.

    Only kit code runs here, single-threaded (fork-safe); the first forward calls and
    matplotlib's first renders cost ~1 s, which each worker would otherwise pay again.

    The autograd engine must never run here: in a CUDA build of torch its first backward starts
    one thread per device and marks the process, so that every forked worker fails its own
    backward with "Unable to handle autograd's threading in combination with fork-based
    multiprocessing" (pytorch wiki: Autograd and Fork). What the first backward costs is the
    import of sympy through torch's symbolic shapes (~0.4-1.5 s): that import is done instead.
    """
    x = torch.randn(2, 3, 4, dtype=torch.float64, requires_grad=True)
    layer = torch.nn.Linear(4, 4).double()
    norm = torch.nn.LayerNorm(4).double()
    scores = layer(x) @ x.transpose(-2, -1) / 2.0
    scores = scores.masked_fill(torch.ones(3, 3, dtype=torch.bool).tril().logical_not(), float("-inf"))
    weights = torch.exp(scores - scores.amax(-1, keepdim=True).detach())
    norm(torch.nn.functional.dropout(weights / weights.sum(-1, keepdim=True), 0.1) @ x)
    with OpTracer():
        torch.softmax(x, -1)


def _warm_plot() -> None:
    extract_plot(_warm_heatmap)  # the path every plot_attention check takes, tight bbox included


def _warm_heatmap() -> Any:
    figure, ax = matplotlib.pyplot.subplots()
    image = ax.imshow(numpy.eye(3, 4), vmin=0, vmax=1, cmap="Blues", aspect="auto")
    figure.colorbar(image, ax=ax, label="weight")
    ax.set_xticks(range(4), labels=["a", "b", "c", "d"], rotation=45, ha="right")
    ax.set_yticks(range(3), labels=["x", "y", "z"])
    ax.set_xlabel("query")
    ax.set_ylabel("key")
    ax.set_title("warm-up")
    return ax


WARM_UP = (_warm_autograd_imports, _warm_layers, _warm_plot)  # the first is always worth it: every worker's backward needs it


def main(argv: list[str] | None = None) -> None:
    """Entry point of the template's own interpreter: `python -c ... warm|cold <control fds>
    <grader pid>` (one control socket per client, comma-separated: the processes of a grading
    pool; cold: warm up only the autograd imports, see launch_template)."""
    warm, control_fds, grader = (argv or sys.argv)[-3] != "cold", (argv or sys.argv)[-2].split(","), int((argv or sys.argv)[-1])
    sandbox.set_parent_death_signal()  # the grader dies (even by SIGKILL): the template dies too
    if os.getppid() != grader:  # it died before the signal was armed
        os._exit(1)
    serve_template([socket.socket(fileno=int(fd)) for fd in control_fds], warm)


def serve_template(controls: list[socket.socket] | socket.socket, warm: bool = True) -> None:
    """Loop of the template process: one spawn per request, until every client has closed its socket."""
    controls = [controls] if isinstance(controls, socket.socket) else controls
    torch.set_num_threads(1)
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # keepers are reaped by the kernel
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    waiting = list(controls)  # select(), not a selector: the template holds no descriptor but these
    WARM_UP[0]()  # before any fork: every worker needs it (torch._dynamo deferred, sympy imported)
    steps = list(WARM_UP[1:] if warm else ())  # single-threaded: a fork never lands in the middle of a step
    while waiting:
        ready, _, _ = select.select(waiting, [], [], 0 if steps else None)
        if not ready and steps:
            steps.pop(0)()
        for control in ready:
            _serve_one(control, controls, waiting)
    _wait_for_keepers()
    os._exit(0)


def _serve_one(control: socket.socket, controls: list[socket.socket], waiting: list[socket.socket]) -> None:
    """One spawn request from one client, or its end (then its socket is dropped)."""
    try:
        message, fds, _, _ = socket.recv_fds(control, 1 << 16, 2)
    except OSError:
        message, fds = b"", []
    if not message:
        waiting.remove(control)
        control.close()
        for fd in fds:
            os.close(fd)
        return
    if message == RENEW and len(fds) == 1:  # the grader stopped this client's process: its replacement talks on the new socket
        renewed = socket.socket(fileno=fds[0])
        controls[controls.index(control)] = renewed
        waiting[waiting.index(control)] = renewed
        control.close()
        return
    try:
        spawn = json.loads(message)
        preload(list(spawn.get("preload", [])))
        standins.load(str(spawn.get("stand_ins", "")))  # the assignment's stand-ins: its folder is hidden from the worker
    except (ValueError, AttributeError, TypeError):
        pass  # a malformed request fails in the keeper, where it is reported
    template = os.getpid()
    pid = os.fork()
    if pid == 0:
        for other in controls:
            other.close()
        code = 1
        try:
            sandbox.set_parent_death_signal()  # the template dies: the keeper, then its worker, die too
            if os.getppid() == template:
                code = _keeper(json.loads(message), fds[0], fds[1])
        finally:
            os._exit(code)
    for fd in fds:
        os.close(fd)
    try:
        control.sendall(json.dumps({"keeper": pid}).encode() + b"\n")
    except OSError:  # that client is gone; its worker ends when its socket closes
        waiting.remove(control)
        control.close()


def _wait_for_keepers(limit_seconds: int = 10) -> None:
    """Exit after the keepers: the grader has killed their workers, so they are ending (a
    template that exited first would leave them orphaned, outliving the grader)."""
    signal.alarm(limit_seconds)  # a keeper that never ends: SIGALRM ends the template anyway
    try:
        while True:
            os.waitpid(-1, 0)  # with SIGCHLD ignored: returns (ECHILD) once every child is gone
    except ChildProcessError:
        pass


def _write_status(fd: int, data: dict) -> None:
    os.write(fd, json.dumps(data).encode() + b"\n")


def _keeper(request: dict, data_fd: int, status_fd: int) -> int:
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    os.setsid()
    config = sandbox.SandboxConfig.from_json(request["config"])
    privileged = config.isolate and sandbox.is_root()
    uid = sandbox.UID_BASE + os.getpid()
    # A pid namespace: when the worker (its pid 1) dies, the kernel kills all it started, setsid
    # daemons included. Without root, a user namespace (where the kernel allows one) makes it.
    try:
        sandbox.unshare(sandbox.CLONE_NEWPID if privileged else sandbox.CLONE_NEWUSER | sandbox.CLONE_NEWPID)
        pid_namespace = True
    except OSError:
        pid_namespace = False
    group = sandbox.MemoryGroup.make(config.group_memory_bytes) if privileged else None  # the worker's processes together
    output_read, output_write = os.pipe()  # the worker's stdout and stderr; read here, capped
    worker = os.fork()
    if worker == 0:
        os.close(status_fd)
        os.close(output_read)
        code = 70
        try:
            code = _worker_main(config, data_fd, output_write, uid if privileged else None, pid_namespace, request)
        except BaseException:  # the worker could not even start: say why on stderr
            traceback.print_exc()
        finally:
            os._exit(code)
    os.close(data_fd)
    os.close(output_write)
    if group is not None:
        sandbox.protect_from_oom()
    _write_status(status_fd, {"worker": worker, "uid": uid if privileged else None, "pid_namespace": pid_namespace})
    kept, total, status = _collect_output(worker, output_read, config.output_bytes)
    if privileged and not pid_namespace:
        sandbox.kill_uid(uid)
    ended: dict[str, Any] = {"signal": os.WTERMSIG(status)} if os.WIFSIGNALED(status) else {"exit": os.WEXITSTATUS(status)}
    if group is not None:
        if group.out_of_memory():
            ended["memory_group_bytes"] = config.group_memory_bytes
        group.remove()
    ended.update(output=kept.decode("utf-8", errors="replace"), output_bytes=total)
    _write_status(status_fd, ended)
    return 0


def _collect_output(worker: int, fd: int, limit: int) -> tuple[bytes, int, int]:
    """Read the worker's output until it ends: (the first `limit` bytes, bytes written, wait status).

    Output past `limit` is read and dropped, so a flood never fills a pipe, a disk or memory,
    and never makes a write fail in the student's code.
    """
    kept = bytearray()
    total = 0

    def take(chunk: bytes) -> None:
        nonlocal total
        total += len(chunk)
        if len(kept) < limit:
            kept.extend(chunk[: limit - len(kept)])

    try:
        ended = os.pidfd_open(worker)
    except (AttributeError, OSError):  # an old kernel: poll instead
        ended = -1
    status = None
    open_pipe = True
    while status is None:
        watched = [fd] if open_pipe else []
        ready, _, _ = select.select(watched + ([ended] if ended >= 0 else []), [], [], None if ended >= 0 else 0.05)
        if fd in ready:
            chunk = os.read(fd, 1 << 16)
            open_pipe = bool(chunk)
            take(chunk)
        if ended < 0 or ended in ready:
            pid, wait_status = os.waitpid(worker, os.WNOHANG)
            status = wait_status if pid else None
    os.set_blocking(fd, False)  # what is left in the pipe now, no more (a leftover child may write on)
    for _ in range(256):
        try:
            chunk = os.read(fd, 1 << 16)
        except BlockingIOError:
            break
        if not chunk:
            break
        take(chunk)
    os.close(fd)
    if ended >= 0:
        os.close(ended)
    return bytes(kept), total, status


def _std_streams_on_the_pipe() -> None:
    """sys.stdout and sys.stderr made again over fds 1 and 2, now the keeper's pipe: the ones the
    interpreter opened at start still take fd 1 for what it was then (a file, when the grader's
    output is redirected: seekable), so sys.stdout.reconfigure(encoding="utf-8"), which Windows
    users write for Chinese output, failed with 'Illegal seek' and the file's import stopped."""
    for name in ("stdout", "stderr"):
        old = getattr(sys, name)
        fd = 1 if name == "stdout" else 2
        new = open(fd, "w", encoding=old.encoding, errors=old.errors, buffering=1 if old.line_buffering else -1, closefd=False)
        setattr(sys, name, new)
        setattr(sys, f"__{name}__", new)


def _worker_main(config, data_fd: int, output_fd: int, uid: int | None, pid_namespace: bool, request: dict) -> int:
    sandbox.set_parent_death_signal()
    sys.stdout.flush()
    sys.stderr.flush()
    os.dup2(output_fd, 1)  # stdout and stderr: the keeper's pipe (it keeps the first output_bytes)
    os.dup2(output_fd, 2)
    os.close(output_fd)
    _std_streams_on_the_pipe()
    if not pid_namespace:
        os.setpgid(0, 0)
    address_space = sandbox.vm_size()
    isolation = "process"
    if uid is not None:
        try:
            sandbox.enter_private_root(config, pid_namespace)
            isolation = "namespaces"
        except OSError:
            isolation = "uid"
            scratch = request["scratch"]
            os.makedirs(scratch, mode=0o700, exist_ok=True)
            os.chown(scratch, uid, uid)
            os.chdir(scratch)
    else:
        os.makedirs(request["scratch"], exist_ok=True)
        os.chdir(request["scratch"])
    scratch = os.getcwd()
    os.environ.clear()
    os.environ.update(HOME=scratch, TMPDIR=scratch, PATH="/usr/bin:/bin", MPLCONFIGDIR=scratch, OMP_NUM_THREADS="1")
    torch.set_num_threads(1)
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a too-large write fails instead of killing
    _close_other_fds(data_fd)  # before the limits: RLIMIT_NOFILE would hide descriptors above it
    sock = socket.socket(fileno=data_fd)
    try:  # no student code has run yet: a failure here is this machine's, and the grader is told so
        sandbox.apply_limits(config, address_space)
        if uid is not None:
            sandbox.drop_privileges(uid)
        if uid is not None or sandbox.pyseccomp is not None:  # fails closed when grading as root
            sandbox.refuse_network()  # no network even where the kernel refused a network namespace
    except OSError as error:
        send_message(sock, {"status": "no_sandbox", "error": str(error)[:500]})
        return 70
    dispatcher = Dispatcher(stand_ins=standins.load(str(request.get("stand_ins", ""))))  # imported before the fork
    streams = (sys.stdout, sys.stderr)  # the worker's own, kept before any student code: flushing them runs none of it

    def channel(message: dict) -> dict:  # a stand-in's callback to the grader, during a request
        send_message(sock, message)
        return recv_message(sock)

    dispatcher.channel = channel
    send_message(sock, {"status": "ready", "isolation": isolation, "uid": os.getuid(), "scratch": scratch})
    while True:
        try:
            request = recv_message(sock)
        except (EOFError, ProtocolError, OSError):
            return 0
        if request.get("op") == "exit":
            return 0
        request.setdefault("root", os.path.join(scratch, "submission"))
        response = dispatcher.handle(request)
        for stream in (sys.stdout, sys.stderr, *streams):  # the student's may be theirs (the contract lets the code replace them)
            try:
                stream.flush()
            except BaseException:  # noqa: BLE001 - a Tee with no flush, a log file closed at the end (qa37h F4): what it printed is its own
                pass
        send_message(sock, response)


def _close_other_fds(keep: int) -> None:
    """An empty stdin; every descriptor but 0, 1, 2, `keep` and read-only files closed.

    Student code must not be able to write into the grader through a descriptor it inherited
    (a multiprocessing pool's pipes unpickle what arrives; a terminal; a directory would let it
    fchdir out of the chroot). The template is a fresh interpreter, so there should be none:
    this is the second line of defence. Read-only regular files stay open: matplotlib keeps its
    fonts open and reads glyphs from them later.
    """
    read_end, write_end = os.pipe()  # an empty stdin that is at its end (no device needed)
    os.dup2(read_end, 0)
    os.close(read_end)
    os.close(write_end)
    for name in os.listdir("/proc/self/fd") if os.path.isdir("/proc/self/fd") else map(str, range(3, 1024)):
        fd = int(name)
        if fd <= 2 or fd == keep:
            continue
        try:
            mode = os.fstat(fd).st_mode
            read_only = fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_ACCMODE == os.O_RDONLY
        except OSError:
            continue
        if not (stat.S_ISREG(mode) and read_only):
            os.close(fd)
