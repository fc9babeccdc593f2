"""Packages for grading platforms: a Gradescope autograder.zip and a PrairieLearn question.

Gradescope: the zip holds setup.sh and run_autograder at its root (Gradescope's layout: unpacked
to /autograder/source, the student's files in /autograder/submission, results written to
/autograder/results/results.json), the grader's source under attnkit/ and a wheelhouse, so that
setup.sh installs everything offline.

PrairieLearn: a question folder (info.json, question.html) whose external grader is the attnkit
grader image with its PrairieLearn entry point (reads /grade/student, writes
/grade/results/results.json).
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

from autograder.docker import DOCKER_DIR, IMAGE, WHEELHOUSE, make_wheelhouse
from autograder.errors import AttnkitError
from autograder.paths import REPO_ROOT

GRADESCOPE_DIR = DOCKER_DIR / "gradescope"
# What the grader needs at grading time, relative to the repository root.
SOURCE_TREES = ("autograder", "solutions", "assignments")
SOURCE_FILES = ("pyproject.toml", "docker/install-venv.sh", "docker/install-grader.sh", "docker/warmup.py",
                "docker/requirements.txt", "docker/entrypoint-grade.sh")
PL_ENTRYPOINT = "/opt/attnkit/bin/entrypoint-prairielearn"


def _source_files(root: Path = REPO_ROOT) -> list[Path]:
    files = [root / name for name in SOURCE_FILES]
    for tree in SOURCE_TREES:
        files += sorted(p for p in (root / tree).rglob("*")
                        if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc")
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


def export_gradescope(out: Path, *, wheelhouse: Path = WHEELHOUSE, download: bool = True) -> Path:
    """Write Gradescope's autograder.zip to `out`; fills the wheelhouse first unless download=False."""
    out = Path(out)
    if out.suffix != ".zip":
        raise AttnkitError(f"--out {out}: Gradescope takes a .zip file (e.g. --out autograder.zip)")
    if download:
        make_wheelhouse(wheelhouse=wheelhouse)
    wheels = sorted(Path(wheelhouse).glob("*.whl"))
    if not any(w.name.startswith("torch-") for w in wheels):
        raise AttnkitError(f"{wheelhouse} holds no torch wheel: export without --no-download to fill it")
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
            for wheel in wheels:
                _add(archive, wheel, f"wheelhouse/{wheel.name}")
        os.replace(tmp, out)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return out


QUESTION_HTML = """<pl-question-panel>
  <p>Upload your <code>attention.py</code> (the attention assignment of attnkit). It is graded by the
  attnkit autograder: hidden checks of every task, with feedback on each.</p>
  <pl-file-upload file-names="attention.py"></pl-file-upload>
</pl-question-panel>

<pl-submission-panel>
  <pl-external-grader-results></pl-external-grader-results>
  <pl-file-preview></pl-file-preview>
</pl-submission-panel>
"""


def prairielearn_info(*, image: str = IMAGE, timeout: int = 300) -> dict:
    return {
        "uuid": str(uuid.uuid5(uuid.NAMESPACE_URL, "attnkit/attention")),
        "title": "Attention in PyTorch (attnkit)",
        "topic": "Attention",
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


def export_prairielearn(out: Path, *, image: str = IMAGE, timeout: int = 300) -> Path:
    """Write a PrairieLearn question folder (or .zip of it) graded by the attnkit image.

    `image` is the name PrairieLearn pulls: push the grader image to a registry it can reach.
    """
    out = Path(out)
    if not 1 <= timeout <= 600:
        raise AttnkitError(f"timeout {timeout}: PrairieLearn allows 1 to 600 seconds")
    files = {
        "info.json": json.dumps(prairielearn_info(image=image, timeout=timeout), indent=2) + "\n",
        "question.html": QUESTION_HTML,
    }
    if out.suffix == ".zip":
        out.parent.mkdir(parents=True, exist_ok=True)
        with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
            for name, text in files.items():
                archive.writestr(f"attnkit-attention/{name}", text)
        return out
    out.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (out / name).write_text(text, encoding="utf-8")
    return out
