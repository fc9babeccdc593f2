"""Generate the student release from the reference solution (the single source of truth).

solutions/<name>/ holds the reference. Every .py file in it with solution markers is written to
assignments/<name>/ with each marked block replaced by a stub that raises NotImplementedError
naming its task; every other file is copied as it is. The notebook is built from the same source.
"""
from __future__ import annotations

import shutil
from pathlib import Path

from autograder.authoring.notebook import build_student_notebooks
from autograder.authoring.stubs import BEGIN, stub_source
from autograder.errors import AttnkitError
from autograder.paths import ASSIGNMENT, REPO_ROOT

# Files of the solution folder that never go to students.
# attention.zh.py: the Chinese text of the solution (same code), the source of the Chinese notebook.
PRIVATE = {"__pycache__", "notebook.md", "notebook.zh.md", "attention.zh.py"}  # students get the notebooks


def build_release(solution_dir: Path, release_dir: Path) -> list[Path]:
    """Write the student release of solution_dir into release_dir (replacing it). Returns files."""
    if not solution_dir.is_dir():
        raise AttnkitError(f"no solution folder at {solution_dir}")
    if release_dir.exists():
        shutil.rmtree(release_dir)
    release_dir.mkdir(parents=True)
    written: list[Path] = []
    for path in sorted(solution_dir.rglob("*")):
        relative = path.relative_to(solution_dir)
        if path.is_dir() or PRIVATE.intersection(relative.parts):
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


def release(name: str = ASSIGNMENT) -> list[Path]:
    return build_release(REPO_ROOT / "solutions" / name, REPO_ROOT / "assignments" / name)
