"""Grading inside a container: build the grader image offline, run `attnkit grade` in it.

The image (docker/Dockerfile) is built with `--network none` from a wheelhouse that `pip download`
fills on the host. Grading containers run with no network, memory/CPU/pids limits, a read-only root
file system, a tmpfs scratch at /tmp, the submissions mounted read-only and the output folder as the
only writable mount. Inside, the grader runs as root and drops privileges for student code itself.
"""
from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING

from autograder.errors import AttnkitError
from autograder.paths import REPO_ROOT
from autograder.feedback.results import SubmissionResult, load_submission_result
from autograder.grading.submission import output_name
from autograder.settings import (
    CONTAINER_CPUS, CONTAINER_MEMORY, CONTAINER_PIDS, CONTAINER_SECONDS, CONTAINER_TMPFS, DEFAULT_BASE_IMAGE, IMAGE, LOCAL_BASE_IMAGE,
    RESULT_FILE,
)

if TYPE_CHECKING:  # torch comes with these; grading through a container needs none of it here
    from autograder.grading.session import BatchJob, GradeOptions

DOCKER_DIR = REPO_ROOT / "docker"
DOCKERFILE = DOCKER_DIR / "Dockerfile"
REQUIREMENTS = DOCKER_DIR / "requirements.txt"
WHEELHOUSE = DOCKER_DIR / "wheelhouse"
STAMP_NAME = ".attnkit-wheelhouse"
TORCH_CPU_INDEX = "https://download.pytorch.org/whl/cpu"  # CPU-only torch wheels (+cpu)
# The grader source a grading container needs, mounted read-only under IN_GRADER: the image
# itself is the runtime only and holds no secret. The release (assignments/) is the starter code
# the code-similarity ranking of a batch leaves out as boilerplate.
GRADER_TREES = ("autograder", "solutions", "assignments")
IN_GRADER = "/srv/attnkit/grader"
# Where things are inside a grading container. /srv/attnkit is root-only (0700) in the image:
# student code (another uid) cannot read other submissions or results through it.
IN_SUBMISSIONS = "/srv/attnkit/submissions"
IN_OUT = "/srv/attnkit/out"


@dataclass(frozen=True)
class Limits:
    """Resource limits of one grading container."""

    memory: str = CONTAINER_MEMORY
    cpus: float = CONTAINER_CPUS
    pids: int = CONTAINER_PIDS
    tmpfs: str = CONTAINER_TMPFS  # size of the /tmp scratch
    timeout: float = CONTAINER_SECONDS  # seconds per submission before the container is killed


@dataclass(frozen=True)
class BuildReport:
    tag: str
    base_image: str
    seconds: float
    size_bytes: int


def engine_problem() -> str:
    """"" when a Docker engine answers, else why not (the reason a skipped test prints)."""
    if shutil.which("docker") is None:
        return "the docker command is not installed (apt-get install -y docker.io)"
    try:
        probe = subprocess.run(["docker", "info", "--format", "{{.ServerVersion}}"],
                               capture_output=True, text=True, timeout=30)
    except subprocess.TimeoutExpired:
        return "`docker info` did not answer within 30 s"
    if probe.returncode != 0:
        return f"no Docker engine is reachable (`docker info`: {probe.stderr.strip()[-300:]})"
    return ""


def _docker(args: list[str], *, what: str, timeout: float | None = None,
            check: bool = True) -> subprocess.CompletedProcess[str]:
    try:
        done = subprocess.run(["docker", *args], capture_output=True, text=True, timeout=timeout)
    except FileNotFoundError as error:
        raise AttnkitError("the docker command is not installed: apt-get install -y docker.io") from error
    except subprocess.TimeoutExpired as error:
        raise AttnkitError(f"{what} did not finish within {timeout:g} s") from error
    if check and done.returncode != 0:
        tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-40:])
        raise AttnkitError(f"{what} failed (docker {args[0]}, exit {done.returncode}):\n{tail}")
    return done


def image_exists(tag: str) -> bool:
    return _docker(["image", "inspect", tag], what="docker image inspect", check=False).returncode == 0


def image_size(tag: str) -> int:
    done = _docker(["image", "inspect", "--format", "{{.Size}}", tag], what=f"inspecting image {tag}")
    return int(done.stdout.strip())


# --- the wheelhouse ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Target:
    """The machine the wheels are for: CPython 3.11 on Linux (glibc), whatever the host is."""

    machine: str = "x86_64"  # x86_64 (Gradescope) or aarch64
    python: str = "3.11"

    @property
    def name(self) -> str:
        return f"cp{self.python.replace('.', '')}-{self.machine}"

    def pip_options(self) -> list[str]:
        """`pip download` options that pick this target's wheels (manylinux, glibc 2.17 to 2.28)."""
        platforms = [f"manylinux_2_{minor}_{self.machine}" for minor in (28, 27, 24, 17)]
        platforms.append(f"manylinux2014_{self.machine}")
        abi = self.name.split("-")[0]
        options = ["--only-binary=:all:", "--python-version", self.python, "--implementation", "cp", "--abi", abi]
        for platform in platforms:
            options += ["--platform", platform]
        return options


GRADESCOPE_TARGET = Target("x86_64")  # Gradescope's autograder machines


def engine_target() -> Target:
    """The target of images built by this machine's Docker engine (its architecture)."""
    done = _docker(["info", "--format", "{{.Architecture}}"], what="docker info", check=False)
    machine = {"amd64": "x86_64", "arm64": "aarch64"}.get(done.stdout.strip(), done.stdout.strip())
    return Target(machine if machine in ("x86_64", "aarch64") else "x86_64")


def torch_index() -> str:
    """Where CPU-only torch wheels come from: ATTNKIT_TORCH_INDEX, else PyTorch's CPU index."""
    return os.environ.get("ATTNKIT_TORCH_INDEX", TORCH_CPU_INDEX)


def host_constraints() -> list[str]:
    """`name==version` for every distribution installed where this grader runs (attnkit excepted)."""
    pins = {}
    for dist in metadata.distributions():
        name = dist.metadata["Name"]
        if name and name.lower() != "attnkit":
            pins[name.lower()] = f"{name}=={dist.version}"
    return [pins[key] for key in sorted(pins)]


def wheelhouse_for(target: Target, root: Path = WHEELHOUSE) -> Path:
    return root / target.name


def make_wheelhouse(*, target: Target = GRADESCOPE_TARGET, wheelhouse: Path | None = None,
                    requirements: Path = REQUIREMENTS, python: str = sys.executable) -> Path:
    """Fill `wheelhouse` (default docker/wheelhouse/<target>) with the target's wheels of the
    image's requirements, pinned to the host's versions where the host has them.

    Runs `pip download` on the host (the only step that uses the network: PyPI and the torch
    index). A stamp file holding a hash of the target, requirements and pins makes a second call
    with nothing changed a no-op.
    """
    wheelhouse = wheelhouse or wheelhouse_for(target)
    if not requirements.is_file():
        raise AttnkitError(f"{requirements}: the image's requirements file is missing")
    wheelhouse.mkdir(parents=True, exist_ok=True)
    constraints = "\n".join(host_constraints()) + "\n"
    options = target.pip_options()
    digest = hashlib.sha256((requirements.read_text() + constraints + " ".join(options)).encode()).hexdigest()
    stamp = wheelhouse / STAMP_NAME
    if stamp.is_file() and stamp.read_text().strip() == digest:
        return wheelhouse
    constraints_file = wheelhouse / "constraints.txt"
    constraints_file.write_text(constraints)
    index = torch_index()
    done = subprocess.run(
        [python, "-m", "pip", "download", "--quiet", "--retries", "2", "--timeout", "30", *options, *(["--extra-index-url", index] if index else []),
         "--dest", str(wheelhouse), "-r", str(requirements), "-c", str(constraints_file)],
        capture_output=True, text=True)
    if done.returncode != 0:
        tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-30:])
        raise AttnkitError(f"pip download of {target.name} wheels into {wheelhouse} failed; check that PyPI"
                           f" and {index or 'your pip index'} are reachable from this machine (ATTNKIT_TORCH_INDEX"
                           f" names another torch index):\n{tail}")
    stamp.write_text(digest + "\n")
    return wheelhouse


# --- the image --------------------------------------------------------------------------------

def build_command(*, tag: str, base_image: str, wheelhouse: Path, context: Path = REPO_ROOT,
                  dockerfile: Path = DOCKERFILE) -> list[str]:
    relative = Path(wheelhouse).resolve().relative_to(Path(context).resolve()).as_posix()
    return ["build", "--network", "none", "--force-rm", "--file", str(dockerfile),
            "--build-arg", f"BASE_IMAGE={base_image}", "--build-arg", f"WHEELHOUSE={relative}",
            "--tag", tag, str(context)]


def default_base_image() -> str:
    """ATTNKIT_BASE_IMAGE when set, else python:3.11-slim."""
    return os.environ.get("ATTNKIT_BASE_IMAGE") or DEFAULT_BASE_IMAGE


def build_image(*, tag: str = IMAGE, base_image: str | None = None, download: bool = True) -> BuildReport:
    """Build the grader image offline: wheelhouse first (pip download on the host), then docker build.

    `download=False` builds from docker/wheelhouse/<target>/ as it is (air-gapped servers bring their own).
    """
    base_image = base_image or default_base_image()
    problem = engine_problem()
    if problem:
        raise AttnkitError(f"cannot build the grader image: {problem}")
    if not image_exists(base_image) and _docker(["pull", base_image], what="docker pull",
                                                 timeout=900, check=False).returncode != 0:
        hint = (f"build the registry-free local one with docker/build-base.sh and pass"
                f" --base-image {LOCAL_BASE_IMAGE}" if base_image != LOCAL_BASE_IMAGE
                else "run docker/build-base.sh")
        raise AttnkitError(f"base image {base_image} is not on this machine and cannot be pulled: {hint}")
    target = engine_target()
    wheelhouse = make_wheelhouse(target=target) if download else wheelhouse_for(target)
    if not any(wheelhouse.glob("torch-*.whl")):
        raise AttnkitError(f"{wheelhouse} holds no torch wheel: run without --no-download to fill it")
    start = time.monotonic()
    env = dict(os.environ, DOCKER_BUILDKIT="0")  # the classic builder honours --network none
    done = subprocess.run(["docker", *build_command(tag=tag, base_image=base_image, wheelhouse=wheelhouse)],
                          capture_output=True, text=True, env=env)
    if done.returncode != 0:
        tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-40:])
        raise AttnkitError(f"docker build of {tag} failed:\n{tail}")
    return BuildReport(tag, base_image, round(time.monotonic() - start, 1), image_size(tag))


# --- grading in containers --------------------------------------------------------------------

def run_command(*, image: str, limits: Limits, mounts: list[tuple[Path, str, bool]],
                command: list[str], name: str, entrypoint: str = "") -> list[str]:
    """The `docker run` arguments of a grading container. mounts: (host path, path inside, writable).

    The grader source (GRADER_TREES) is always mounted read-only under the root-only /srv/attnkit:
    the image holds none of it.

    When the host user is not root, the results are handed to them (ATTNKIT_OUT_OWNER): the grader
    inside runs as root.
    """
    args = ["run", "--rm", "--name", name, "--init",
            "--network", "none",
            "--read-only",
            "--tmpfs", f"/tmp:rw,nosuid,nodev,size={limits.tmpfs}",
            "--memory", limits.memory, "--memory-swap", limits.memory,
            "--cpus", f"{min(limits.cpus, float(os.cpu_count() or 1)):g}",
            "--pids-limit", str(limits.pids),
            "--security-opt", "no-new-privileges",
            "--cap-drop", "ALL"]
    for cap in ("CHOWN", "DAC_OVERRIDE", "FOWNER", "KILL", "SETGID", "SETUID", "SYS_CHROOT"):
        args += ["--cap-add", cap]
    source = [(REPO_ROOT / tree, f"{IN_GRADER}/{tree}", False) for tree in GRADER_TREES]
    for host, inside, writable in [*source, *mounts]:
        spec = f"type=bind,source={Path(host).resolve()},target={inside}"
        args += ["--mount", spec if writable else spec + ",readonly"]
    if os.getuid() != 0:
        args += ["--env", f"ATTNKIT_OUT_OWNER={os.getuid()}:{os.getgid()}"]
    if entrypoint:
        args += ["--entrypoint", entrypoint]
    return [*args, image, *command]


def _run_container(args: list[str], name: str, timeout: float) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(["docker", *args], capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired as error:
        subprocess.run(["docker", "kill", name], capture_output=True)
        raise AttnkitError(f"grading container {name} ran past {timeout:g} s and was killed") from error


def _check_image(image: str) -> None:
    problem = engine_problem()
    if problem:
        raise AttnkitError(f"cannot grade in Docker: {problem}")
    if not image_exists(image):
        raise AttnkitError(f"grader image {image} is not built: run `attnkit docker build` first")


def _container_name(prefix: str) -> str:
    return f"attnkit-{prefix}-{uuid.uuid4().hex[:10]}"


def _mtime(path: Path) -> int | None:
    return path.stat().st_mtime_ns if path.is_file() else None


def _failure(what: str, done: subprocess.CompletedProcess[str]) -> AttnkitError:
    tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-30:])
    return AttnkitError(f"{what} (container exit code {done.returncode}):\n{tail}")


def grade_command(path: Path, name: str, options: GradeOptions) -> list[str]:
    """The `attnkit grade` a container runs for one submission: its results go to OUT/`name`/, the
    name the batch gave it (submission.output_names), so that alice.py and alice.zip never share one."""
    return ["grade", f"{IN_SUBMISSIONS}/{path.name}", "--out", IN_OUT, "--name", name, *options.cli_arguments()]


def _grade_one(path: Path, name: str, out_dir: Path, *, image: str, limits: Limits, options: GradeOptions) -> SubmissionResult:
    result_file = out_dir / name / RESULT_FILE
    before = _mtime(result_file)
    container = _container_name("grade")
    args = run_command(image=image, limits=limits, name=container,
                       mounts=[(path, f"{IN_SUBMISSIONS}/{path.name}", False), (out_dir, IN_OUT, True)],
                       command=grade_command(path, name, options))
    done = _run_container(args, container, limits.timeout)
    if done.returncode != 0 or _mtime(result_file) in (None, before):
        raise _failure(f"grading {path} in a container wrote no new {result_file}", done)
    return load_submission_result(result_file)


def grade_in_docker(path: Path, out_dir: Path, options: GradeOptions, *, image: str = IMAGE,
                    limits: Limits = Limits(), name: str = "") -> SubmissionResult:
    """Grade one submission (.py, .ipynb, .zip or folder) in a fresh container; results in
    out_dir/<name>/ (default: submission.output_name)."""
    path = Path(path)
    if not path.exists():
        raise AttnkitError(f"{path}: no such submission")
    _check_image(image)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    return _grade_one(path, name or output_name(path), out_dir, image=image, limits=limits, options=options)


@dataclass(frozen=True)
class DockerRunner:
    """A runner of the batch loop (grading/batch.py) that grades in containers of `image`.

    By default one container runs `attnkit grade-batch` over the batch folder (the grader's own
    per-submission worker isolation inside it; the same loop decides there what is left to
    grade). With per_submission, each submission gets a fresh container, `jobs` of them at a time.
    """

    image: str = IMAGE
    limits: Limits = Limits()
    jobs: int = 1
    per_submission: bool = False
    lock_tag: str = "docker"  # the container's grade-batch holds OUT's own lock

    def run(self, job: BatchJob) -> Iterator[tuple[Path, SubmissionResult]]:
        _check_image(self.image)
        job.out_dir.mkdir(parents=True, exist_ok=True)
        if self.per_submission:
            def grade(todo: tuple[Path, str]) -> SubmissionResult:
                path, name = todo  # the batch's name for it (submission.output_names), as on the local paths
                return _grade_one(path, name, job.out_dir, image=self.image, limits=self.limits, options=job.options)

            with ThreadPoolExecutor(max_workers=self.jobs) as pool:
                yield from zip([path for path, _ in job.todo], pool.map(grade, job.todo))
            return
        container = _container_name("batch")
        command = ["grade-batch", IN_SUBMISSIONS, "--out", IN_OUT, "--jobs", str(self.jobs), *job.options.cli_arguments(),
                   *(["--force"] if job.force else []), *(["--shard", str(job.shard)] if job.shard else [])]
        args = run_command(image=self.image, limits=self.limits, name=container, command=command,
                           mounts=[(job.directory, IN_SUBMISSIONS, False), (job.out_dir, IN_OUT, True)])
        rounds = -(-len(job.todo) // self.jobs)
        done = _run_container(args, container, self.limits.timeout * rounds + 120)
        missing = [path.name for path, name in job.todo if not (job.out_dir / name / RESULT_FILE).is_file()]
        if done.returncode != 0 or missing:
            raise _failure(f"the batch container did not grade {', '.join(missing) or 'everything'}", done)
        for path, name in job.todo:
            yield path, load_submission_result(job.out_dir / name / RESULT_FILE)


def describe(report: BuildReport) -> str:
    return (f"built {report.tag} on {report.base_image} in {report.seconds:g} s:"
            f" {report.size_bytes / 1e6:.0f} MB")
