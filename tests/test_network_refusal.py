"""Student code gets no network socket, even where the kernel refuses a network namespace.

The worker installs a seccomp filter (autograder.grading.worker.sandbox.refuse_network) before student
code runs. Here a template whose unshare() always fails stands in for Docker's default seccomp
profile and Gradescope; the real thing, a container started with networking on, is proven in
tests/test_docker.py.
"""
from __future__ import annotations

import socket

import pytest

from autograder.grading.session import hidden_paths
from autograder.grading.worker import sandbox
from autograder.grading.worker.client import Budget, Student
from autograder.grading.worker.sandbox import SandboxConfig, is_root
from tests.test_worker import NoNamespacesFactory  # unshare() always refused, as under Docker's default profile


PROBE = '''
import errno, socket

def sockets(port):
    found = {}
    for name, family, kind in (("inet", socket.AF_INET, socket.SOCK_STREAM),
                               ("inet6", socket.AF_INET6, socket.SOCK_STREAM),
                               ("udp", socket.AF_INET, socket.SOCK_DGRAM),
                               ("packet", socket.AF_PACKET, socket.SOCK_RAW),
                               ("netlink", socket.AF_NETLINK, socket.SOCK_RAW)):
        try:
            socket.socket(family, kind).close()
            found[name] = "open"
        except OSError as error:
            found[name] = errno.errorcode.get(error.errno, str(error))
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as conn:  # numeric: no getaddrinfo
            conn.settimeout(2)
            conn.connect(("127.0.0.1", port))
            conn.sendall(b"LEAK")
        found["connect"] = "connected"
    except OSError as error:
        found["connect"] = errno.errorcode.get(error.errno, str(error))
    left, right = socket.socketpair()  # local sockets stay allowed
    left.sendall(b"x")
    found["unix"] = right.recv(1).decode()
    left.close()
    right.close()
    return found
'''


@pytest.fixture
def listener():
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(0.5)
    yield server
    server.close()


def _accepted(server: socket.socket) -> bool:
    try:
        connection, _ = server.accept()
    except OSError:
        return False
    connection.close()
    return True


@pytest.mark.skipif(sandbox.pyseccomp is None, reason="pyseccomp or libseccomp.so.2 is not installed")
@pytest.mark.skipif(not is_root(), reason="the uid-drop fallback is taken only when grading as root")
def test_without_namespaces_student_code_gets_no_network_socket(listener):
    factory = NoNamespacesFactory()
    try:
        student = Student(factory, [(1, PROBE)], config=SandboxConfig(hidden=hidden_paths()),
                          budget=Budget(call_seconds=5, import_seconds=20, total_seconds=60))
        try:
            found = student.call("sockets", listener.getsockname()[1])
            assert student.isolation == "uid"  # namespaces refused: the filter is all that stands
        finally:
            student.close()
    finally:
        factory.close()
    assert found == {"inet": "EACCES", "inet6": "EACCES", "udp": "EACCES", "packet": "EACCES",
                     "netlink": "EACCES", "connect": "EACCES", "unix": "x"}
    assert not _accepted(listener)
    # The control: the same connection from the grader's side is accepted.
    socket.create_connection(listener.getsockname(), timeout=2).close()
    assert _accepted(listener)
