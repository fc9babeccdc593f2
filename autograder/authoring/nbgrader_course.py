"""A ready nbgrader course folder for the current assignment (`attnkit nbgrader init`).

The course holds nbgrader's SOURCE notebook, built from the same notebook.md and reference
solution as the student release, plus the public helper files the notebook imports. Its hidden
test cells call attnkit's own checks inside the grading kernel (autograder.grading.inprocess), so the
configuration puts this attnkit checkout on the kernel's PYTHONPATH.
"""
from __future__ import annotations

import shutil
from pathlib import Path

from autograder.assignment import current
from autograder.errors import AttnkitError
from autograder.authoring.notebook import build_nbgrader_source, notebook_name
from autograder.grading.inprocess import part_points
from autograder.paths import PACKAGE_DIR
from autograder.settings import NBGRADER_CELL_TIMEOUT_SECONDS

CELL_TIMEOUT_S = NBGRADER_CELL_TIMEOUT_SECONDS  # nbgrader's default of 30 s per cell is too short for Part F's training

CONFIG_TEMPLATE = '''\
"""nbgrader configuration of the attnkit {assignment} course (written by `attnkit nbgrader init`).

Run the nbgrader commands from this folder, with the Python environment where attnkit and torch
are installed:  nbgrader generate_assignment {assignment}; nbgrader autograde {assignment};
nbgrader generate_feedback {assignment}.
"""
import os

from nbconvert.preprocessors import CSSHTMLHeaderPreprocessor
from nbgrader.preprocessors import ClearHiddenTests, GetGrades

c = get_config()  # noqa: F821 (nbgrader defines get_config)

c.CourseDirectory.course_id = "{course_id}"

# The hidden test cells run attnkit's own checks inside the grading kernel
# (from autograder.grading.inprocess import grade_part): the kernel inherits this PYTHONPATH.
ATTNKIT_ROOT = {root!r}
_paths = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
os.environ["PYTHONPATH"] = os.pathsep.join([ATTNKIT_ROOT] + [p for p in _paths if p != ATTNKIT_ROOT])

# Part F trains a small model in the notebook: allow more than nbgrader's 30 s per cell.
c.Execute.timeout = {timeout}

# Feedback shows the graded notebook without the hidden test source (nbgrader keeps it by default).
c.GenerateFeedback.preprocessors = [GetGrades, ClearHiddenTests, CSSHTMLHeaderPreprocessor]

c.ClearSolutions.code_stub = {{"python": "# YOUR CODE HERE\\nraise NotImplementedError()"}}
'''


def config_text(attnkit_root: Path = PACKAGE_DIR.parent) -> str:
    """nbgrader_config.py; attnkit_root is the folder that holds the autograder package."""
    manifest = current()
    return CONFIG_TEMPLATE.format(
        assignment=manifest.name, course_id=manifest.nbgrader_course_id, root=str(attnkit_root), timeout=CELL_TIMEOUT_S
    )


def public_helpers() -> tuple[str, ...]:
    """The files next to the notebook that it imports (the manifest's notebook_helpers); nbgrader
    releases them with the notebook and copies the instructor's version over the student's before
    autograding."""
    return current().notebook_helpers


def init_course(course_dir: Path, solution_dir: Path | None = None) -> Path:
    """Create an nbgrader course in course_dir; returns the source notebook's path.

    course_dir may exist, but must not already hold the assignment's source. solution_dir: the
    reference solution's folder (default: the current assignment's).
    """
    manifest = current()
    solution_dir = manifest.solution_dir if solution_dir is None else solution_dir
    course_dir = Path(course_dir).resolve()
    if course_dir.exists() and not course_dir.is_dir():
        raise AttnkitError(f"{course_dir} is a file, not a folder: give a new or existing folder as COURSE_DIR")
    source_dir = course_dir / "source" / manifest.name
    if source_dir.exists():
        raise AttnkitError(
            f"{source_dir} already exists: this course is set up already. "
            "Remove that folder to rebuild it, or pick another COURSE_DIR."
        )
    missing = [name for name in public_helpers() if not (solution_dir / name).is_file()]
    if missing:
        raise AttnkitError(f"{solution_dir} lacks {', '.join(missing)}, which the notebook imports")
    config = course_dir / "nbgrader_config.py"
    if config.exists():
        raise AttnkitError(f"{config} exists already; remove it or pick another COURSE_DIR")
    source_dir.mkdir(parents=True)
    notebook = build_nbgrader_source(solution_dir, source_dir / notebook_name(), part_points)
    for name in public_helpers():
        shutil.copyfile(solution_dir / name, source_dir / name)
    config.write_text(config_text(), encoding="utf-8")
    return notebook
