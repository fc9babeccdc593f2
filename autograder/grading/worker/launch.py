"""Starting the worker template process, without importing torch here.

The grader calls `launch_template()` first, before its own `import torch`: the template (a fresh
interpreter that imports torch, matplotlib and warms up) then starts while the grader imports,
instead of after it. `autograder.grading.worker.client.WorkerFactory` takes the launched template over.
"""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

TEMPLATE_ENV = ("PATH", "HOME", "LANG", "LC_ALL", "LC_CTYPE", "LD_LIBRARY_PATH", "MPLCONFIGDIR", "VIRTUAL_ENV")


STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)
RENEW = b'{"renew": true}'  # on a client's control socket, with a new socket: the template serves that client on it from now on


@contextmanager
def signals_deferred() -> Iterator[None]:
    """Ctrl-C or SIGTERM during a cleanup (closing a worker, the template) takes effect after it:
    a cleanup cut short would leave a worker or keeper outliving the grader. In the main thread
    (the only one where Python runs signal handlers) the handlers only note the signal meanwhile;
    it is raised again when the cleanup is done."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []
    previous = {sig: signal.signal(sig, lambda signum, frame: caught.append(signum)) for sig in STOP_SIGNALS}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        if caught:
            signal.raise_signal(caught[0])


@dataclass
class LaunchedTemplate:
    """The template's process and the grader's ends of its control sockets (one per client: the
    processes of a grading pool share one template, each through its own socket)."""

    process: subprocess.Popen
    controls: list[socket.socket]

    def serving(self, clients: int) -> LaunchedTemplate:
        """This template for the first `clients` of its control sockets: the others are closed (the
        template drops a client whose socket closes), e.g. a batch launched for --jobs 8 on 3 left."""
        for control in self.controls[clients:]:
            control.close()
        del self.controls[clients:]
        return self

    def renew(self, client: int) -> None:
        """A new control socket for `client`, whose process was stopped mid-request: replies owed to
        that process may still be on the old one. The template takes the new one in its place."""
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            socket.send_fds(self.controls[client], [RENEW], [theirs.fileno()])
        finally:
            theirs.close()
        self.controls[client].close()
        self.controls[client] = ours

    def discard(self) -> None:
        """Stop a template nothing used (killed: it has no keeper to wait for); nothing if it ended."""
        for control in self.controls:
            control.close()
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()

    def close(self, timeout: float = 10.0) -> None:
        """Close every control socket; the template then exits once its keepers have."""
        for control in self.controls:
            control.close()
        try:
            self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def launch_template(clients: int = 1, warm: bool = True) -> LaunchedTemplate:
    """Start the template: a fresh interpreter with only TEMPLATE_ENV and no inherited descriptor
    but its control sockets. It dies with the thread that calls this (a parent-death signal):
    call it from a thread that lives as long as the grader. `warm`: run every warm-up step while
    idle (for a grader that forks many workers); else only the autograd imports (a one-shot
    `check`: its first worker is forked before drawing once more would pay, measured 1 s CPU)."""
    pairs = [socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM) for _ in range(clients)]
    package_root = str(Path(__file__).resolve().parents[3])  # the folder that holds the autograder package
    env = {k: v for k, v in os.environ.items() if k in TEMPLATE_ENV}
    env["PYTHONPATH"] = package_root
    # OpenMP (libgomp) reads its thread limit once, when `import torch` loads it here: a worker then
    # never starts a thread for torch.set_num_threads(1000) or OMP_NUM_THREADS in a submission. It
    # could not (the process and address-space limits): libgomp exited with code 1, unexplained.
    env["OMP_THREAD_LIMIT"] = "1"
    fds = [theirs.fileno() for _, theirs in pairs]
    # SIGINT ignored from the first line: a Ctrl-C to the process group is the grader's to handle (it
    # closes the template); one that landed in the template's `import torch` killed it
    entry = "import signal; signal.signal(signal.SIGINT, signal.SIG_IGN); from autograder.grading.worker.template import main; main()"
    command = [sys.executable, "-c", entry, "warm" if warm else "cold", ",".join(map(str, fds)), str(os.getpid())]
    process = subprocess.Popen(command, pass_fds=fds, stdin=subprocess.DEVNULL, env=env, cwd="/")
    for _, theirs in pairs:
        theirs.close()
    return LaunchedTemplate(process, [ours for ours, _ in pairs])
