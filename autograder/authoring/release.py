"""Generate the student release from the reference solution (the single source of truth).

solutions/<name>/ holds the reference. Every .py file in it with solution markers is written to
assignments/<name>/ with each marked block replaced by a stub that raises NotImplementedError
naming its task; every other file is copied as it is. The notebook is built from the same source.
"""
from __future__ import annotations

import shutil
from pathlib import Path

from autograder.assignment import current
from autograder.authoring.notebook import NOTEBOOK_SOURCES, build_student_notebooks, solution_texts
from autograder.authoring.stubs import BEGIN, stub_source
from autograder.errors import AttnkitError


def private_files() -> set[str]:
    """Files of the solution folder that never go to students: the notebook sources, and the
    solution's texts in other languages (x.zh.py: same code, the source of the Chinese notebook)."""
    english = solution_texts()["en"]
    return {"__pycache__", *NOTEBOOK_SOURCES.values(), *(text for text in solution_texts().values() if text != english)}


def build_release(solution_dir: Path, release_dir: Path) -> list[Path]:
    """Write the student release of solution_dir into release_dir (replacing it). Returns files."""
    if not solution_dir.is_dir():
        raise AttnkitError(f"no solution folder at {solution_dir}")
    if not any(BEGIN in path.read_text(encoding="utf-8") for path in solution_dir.rglob("*.py")):
        raise AttnkitError(f"{solution_dir} has no {BEGIN} block: its release would hand out the reference as it is; mark what students write")
    if release_dir.exists():
        shutil.rmtree(release_dir)
    release_dir.mkdir(parents=True)
    written: list[Path] = []
    private = private_files()
    for path in sorted(solution_dir.rglob("*")):
        relative = path.relative_to(solution_dir)
        if path.is_dir() or private.intersection(relative.parts):
            continue
        target = release_dir / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        if path.suffix == ".py" and BEGIN in path.read_text(encoding="utf-8"):
            target.write_text(stub_source(path.read_text(encoding="utf-8"), str(path)), encoding="utf-8")
        else:
            shutil.copyfile(path, target)
        written.append(target)
    written.extend(build_student_notebooks(solution_dir, release_dir))
    return written


def release() -> list[Path]:
    """The current assignment's release: assignments/<name>/ from its solution folder."""
    manifest = current()
    return build_release(manifest.solution_dir, manifest.release_dir)
