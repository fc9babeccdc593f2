"""nbgrader's floor: the least `nbgrader autograde` can cost per torch notebook.

A course with one assignment whose notebook has a single autograded cell (`import torch` and one
assert): autograding it is a kernel start, `import torch` and one cell, nothing attnkit-specific.
Grading the real notebook can only cost more, so a batch that beats this floor tenfold beats
nbgrader tenfold on any torch notebook. Built with nbformat and nbgrader's own commands.
"""
from __future__ import annotations

import shutil
import time
from pathlib import Path

import nbformat

from bench.figures import Measured, NotMeasured, Row
from bench.measure import Stats, run_measured

ASSIGNMENT = "floor"
NOTEBOOK = "floor.ipynb"
LABEL = "nbgrader autograde, trivial one-check torch notebooks (nbgrader's floor)"
CELL = "import torch\nassert torch.ones(2).sum().item() == 2.0"
CONFIG = 'c = get_config()  # noqa: F821\nc.CourseDirectory.course_id = "floor"\n'


def _source() -> nbformat.NotebookNode:
    cell = nbformat.v4.new_code_cell(CELL)
    cell.metadata["nbgrader"] = {"grade": True, "grade_id": "torch-one-check", "locked": True, "points": 1,
                                 "schema_version": 3, "solution": False, "task": False}
    notebook = nbformat.v4.new_notebook(cells=[cell])
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    return notebook


def measure(work: Path, count: int, nbgrader: str, env: dict[str, str]) -> Row:
    """Autograde `count` copies of the trivial notebook, one per student, in one run; the
    per-submission time is the gap between consecutive graded notebooks, as for the real course."""
    course = work / "floor-course"
    if course.exists():
        shutil.rmtree(course)
    (course / "source" / ASSIGNMENT).mkdir(parents=True)
    (course / "nbgrader_config.py").write_text(CONFIG, encoding="utf-8")
    nbformat.write(_source(), course / "source" / ASSIGNMENT / NOTEBOOK)
    made = run_measured([nbgrader, "generate_assignment", ASSIGNMENT], cwd=course, env=env, check=False)
    if made.returncode != 0:
        return NotMeasured(LABEL, f"`nbgrader generate_assignment` exited {made.returncode}")
    released = course / "release" / ASSIGNMENT / NOTEBOOK
    for index in range(count):
        target = course / "submitted" / f"student-{index:03d}" / ASSIGNMENT / NOTEBOOK
        target.parent.mkdir(parents=True)
        shutil.copyfile(released, target)
    started = time.time()
    run = run_measured([nbgrader, "autograde", ASSIGNMENT], cwd=course, env=env, check=False)
    if run.returncode != 0:
        return NotMeasured(LABEL, f"`nbgrader autograde` exited {run.returncode}")
    done = sorted(p.stat().st_mtime for p in course.glob(f"autograded/*/{ASSIGNMENT}/{NOTEBOOK}"))
    if len(done) != count:
        return NotMeasured(LABEL, f"nbgrader wrote {len(done)} graded notebooks for {count} submissions")
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        scores = {(s.score, s.max_score) for s in gradebook.assignment_submissions(ASSIGNMENT)}
    if scores != {(1.0, 1.0)}:
        return NotMeasured(LABEL, f"the one check did not pass everywhere (scores {sorted(scores)}): not a floor")
    gaps = [later - earlier for earlier, later in zip([started, *done], done)]
    return Measured(
        LABEL, count, Stats.of([run.seconds]), Stats.of(gaps), Stats.of([run.peak_mib]), Stats.of([run.peak_rss_mib]),
        derived="time between consecutive graded notebooks (the first includes start-up)",
        note=f"one cell: `{CELL.splitlines()[1]}` after `import torch`; whole run / submissions: {run.seconds / count:.2f} s",
    )
