"""Packages for grading platforms: a Gradescope autograder.zip and a PrairieLearn question.

Gradescope: the zip holds setup.sh and run_autograder at its root (Gradescope's layout: unpacked
to /autograder/source, the student's files in /autograder/submission, results written to
/autograder/results/results.json) and the grader's source under attnkit/. The offline zip also
holds a wheelhouse for Gradescope's machines (CPython 3.11, manylinux x86-64, CPU-only torch,
whatever the host is), so setup.sh installs without the network; the small (--online) zip
holds none and setup.sh installs the same pinned versions from PyPI and PyTorch's CPU index.
Gradescope's images are private to the course: the secrets in the zip are made root-only.

PrairieLearn: a question folder (info.json with a fresh uuid, question.html, tests/) whose
external grader is the public attnkit runtime image with its PrairieLearn entry point. The
grader source (hidden checks, reference solution, weights) travels in the question's tests/
folder, which PrairieLearn mounts at /grade/tests; the image holds none of it.
"""
from __future__ import annotations

import json
import os
import shutil
import stat
import tempfile
import uuid
import zipfile
from pathlib import Path

from autograder.deployment.docker import (
    DOCKER_DIR, GRADER_TREES, GRADESCOPE_TARGET, IMAGE, host_constraints, make_wheelhouse, wheelhouse_for,
)
from autograder.assignment import current
from autograder.errors import AttnkitError
from autograder.paths import REPO_ROOT
from autograder.settings import PRAIRIELEARN_TIMEOUT_SECONDS
from autograder.feedback.results import write_atomic

GRADESCOPE_DIR = DOCKER_DIR / "gradescope"
# What the grader needs at grading time, relative to the repository root.
SOURCE_TREES = ("autograder", "solutions", "assignments")
SOURCE_FILES = ("pyproject.toml", "docker/install-venv.sh", "docker/install-runtime.sh", "docker/install-grader.sh",
                "docker/warmup.py", "docker/requirements.txt", "docker/entrypoint-grade.sh")
CONSTRAINTS_NAME = "attnkit/docker/constraints.txt"  # the host's versions, for the --online zip
PL_SOURCE = "tests/attnkit"  # in the question folder: PrairieLearn mounts tests/ at /grade/tests
PL_ENTRYPOINT = "/opt/attnkit/bin/entrypoint-prairielearn"


def _tree_files(root: Path, trees: tuple[str, ...]) -> list[Path]:
    files = []
    for tree in trees:
        files += sorted(p for p in (root / tree).rglob("*")
                        if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc")
    return files


def _source_files(root: Path = REPO_ROOT) -> list[Path]:
    files = [root / name for name in SOURCE_FILES] + _tree_files(root, SOURCE_TREES)
    missing = [str(p) for p in files if not p.is_file()]
    if missing:
        raise AttnkitError(f"cannot export: missing {', '.join(missing)} (run `attnkit release` first?)")
    return files


def _add(archive: zipfile.ZipFile, path: Path, name: str, executable: bool = False) -> None:
    info = zipfile.ZipInfo.from_file(path, name)
    info.external_attr = ((0o755 if executable else 0o644) | stat.S_IFREG) << 16
    # Wheels are zip files already: storing them is as small and much faster.
    info.compress_type = zipfile.ZIP_STORED if path.suffix == ".whl" else zipfile.ZIP_DEFLATED
    with path.open("rb") as source, archive.open(info, "w") as target:
        shutil.copyfileobj(source, target, 1 << 20)


def export_gradescope(out: Path, *, wheelhouse: Path | None = None, download: bool = True,
                      online: bool = False) -> Path:
    """Write Gradescope's autograder.zip to `out`.

    Offline (default): with a wheelhouse for Gradescope's machines, filled first unless
    download=False. online=True: no wheelhouse; setup.sh installs from the package indexes.
    """
    out = Path(out)
    if out.suffix != ".zip":
        raise AttnkitError(f"--out {out}: Gradescope takes a .zip file (e.g. --out autograder.zip)")
    wheels: list[Path] = []
    if not online:
        wheelhouse = wheelhouse or wheelhouse_for(GRADESCOPE_TARGET)
        if download:
            make_wheelhouse(target=GRADESCOPE_TARGET, wheelhouse=wheelhouse)
        wheels = sorted(Path(wheelhouse).glob("*.whl"))
        if not any(w.name.startswith("torch-") for w in wheels):
            raise AttnkitError(f"{wheelhouse} holds no torch wheel: export without --no-download to fill it,"
                               " or with --online for a zip that installs from the package index")
    out.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{out.name}.", dir=out.parent)
    os.close(fd)
    try:
        with zipfile.ZipFile(tmp, "w") as archive:
            _add(archive, GRADESCOPE_DIR / "setup.sh", "setup.sh", executable=True)
            _add(archive, GRADESCOPE_DIR / "run_autograder", "run_autograder", executable=True)
            for path in _source_files():
                relative = path.relative_to(REPO_ROOT).as_posix()
                _add(archive, path, f"attnkit/{relative}", executable=relative.endswith(".sh"))
            archive.writestr(CONSTRAINTS_NAME, "\n".join(host_constraints()) + "\n")
            for wheel in wheels:
                _add(archive, wheel, f"wheelhouse/{wheel.name}")
        os.replace(tmp, out)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return out


def prairielearn_info(*, image: str = IMAGE, timeout: int = PRAIRIELEARN_TIMEOUT_SECONDS) -> dict:
    """info.json of the question; a fresh uuid each time, so two copies in one course never collide."""
    assignment = current()
    return {
        "uuid": str(uuid.uuid4()),
        "title": f"{assignment.title} (attnkit)",
        "topic": assignment.topic or assignment.title,
        "tags": ["attnkit", "code"],
        "type": "v3",
        "singleVariant": True,
        "gradingMethod": "External",
        "externalGradingOptions": {
            "enabled": True,
            "image": image,
            "entrypoint": PL_ENTRYPOINT,
            "timeout": timeout,
        },
    }


def export_prairielearn(out: Path, *, image: str = IMAGE, timeout: int = PRAIRIELEARN_TIMEOUT_SECONDS) -> Path:
    """Write a PrairieLearn question folder (or .zip of it) graded by the attnkit runtime image.

    `image` is the name PrairieLearn pulls: push the (public, secret-free) grader image to a
    registry it can reach. The grader source goes into the question's tests/attnkit/.
    """
    out = Path(out)
    if not 1 <= timeout <= 600:
        raise AttnkitError(f"timeout {timeout}: PrairieLearn allows 1 to 600 seconds")
    files: dict[str, bytes] = {
        "info.json": (json.dumps(prairielearn_info(image=image, timeout=timeout), indent=2) + "\n").encode(),
        "question.html": current().question_html.encode(),
    }
    for path in _tree_files(REPO_ROOT, GRADER_TREES):
        files[f"{PL_SOURCE}/{path.relative_to(REPO_ROOT).as_posix()}"] = path.read_bytes()
    if out.suffix == ".zip":
        top = f"attnkit-{current().name}"  # the question's folder, once unpacked
        out.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{out.name}.", dir=out.parent)
        os.close(fd)
        try:
            with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as archive:
                for name, data in files.items():
                    archive.writestr(f"{top}/{name}", data)
            os.replace(tmp, out)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        return out
    if (out / PL_SOURCE).exists():
        shutil.rmtree(out / PL_SOURCE)  # a re-export replaces the grader source, never merges into it
    for name, data in files.items():
        (out / name).parent.mkdir(parents=True, exist_ok=True)
        write_atomic(out / name, data)
    return out
