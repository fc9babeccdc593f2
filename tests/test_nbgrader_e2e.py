"""nbgrader end to end, with the real nbgrader commands: the same scores as `attnkit grade`.

Sets up a course with `attnkit nbgrader init`'s core, runs `nbgrader generate_assignment`, puts
three submissions in place (correct, blank, buggy), runs `nbgrader autograde`, reads nbgrader's
gradebook and compares every part with what `attnkit grade` gives the same notebooks; then
`nbgrader generate_feedback` must not show the hidden tests. Those tests are marked nbgrader
and slow (about two minutes); the init_course tests at the end are quick.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pytest

import autograder
from autograder.errors import AttnkitError
from autograder.grading.inprocess import DEFAULT_SEED
from autograder.assignment import current
from autograder.authoring.nbgrader_course import init_course, public_helpers
from autograder.authoring.notebook import notebook_name
from autograder.paths import ASSIGNMENT, SOLUTION_DIR
from autograder.authoring.stubs import BEGIN, END, solution_lines
from autograder.feedback.results import SubmissionResult

BIN = Path(sys.executable).parent
COURSE_ID, PUBLIC_HELPERS, NOTEBOOK_NAME = current().nbgrader_course_id, public_helpers(), notebook_name()
STUDENTS = ("correct", "blank", "buggy")
# Two realistic mistakes: an upper-triangular causal mask (Part A) and a heatmap drawn
# untransposed, queries on the vertical axis (Part E).
BUGS = ((".tril()  # (Lq, Lk)", ".triu()  # (Lq, Lk)"), ("matrix.T.numpy()", "matrix.numpy()"))


def _run(*command: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}  # nbgrader runs alembic
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, f"{' '.join(command)} failed:\n{done.stdout[-3000:]}\n{done.stderr[-5000:]}"
    return done


def _answers(source: nbformat.NotebookNode) -> dict[str, str]:
    """The reference code of each solution cell of the source notebook, markers removed."""
    return {
        cell.metadata["nbgrader"]["grade_id"]: "\n".join(
            line for line in cell.source.splitlines() if line.strip() not in (BEGIN, END)
        )
        for cell in source.cells
        if cell.metadata.get("nbgrader", {}).get("solution")
    }


def _submission(release: nbformat.NotebookNode, answers: dict[str, str] | None) -> nbformat.NotebookNode:
    """The released notebook with its solution cells answered (None: left blank)."""
    nb = nbformat.from_dict(json.loads(json.dumps(release)))
    for cell in nb.cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if answers is not None and grade_id in answers:
            cell.source = answers[grade_id]
    return nb


def _buggy(answers: dict[str, str]) -> dict[str, str]:
    buggy = dict(answers)
    for right, wrong in BUGS:
        [grade_id] = [key for key, code in buggy.items() if right in code]
        buggy[grade_id] = buggy[grade_id].replace(right, wrong)
    return buggy


def _nbgrader_scores(course: Path) -> dict[str, dict[str, tuple[float, float]]]:
    """student -> part -> (score, max score) from nbgrader's gradebook."""
    from nbgrader.api import Gradebook

    scores: dict[str, dict[str, tuple[float, float]]] = {}
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        for student in STUDENTS:
            [notebook] = gradebook.find_submission(ASSIGNMENT, student).notebooks
            scores[student] = {
                grade.name.removeprefix("grade-"): (float(grade.auto_score), float(grade.max_score))
                for grade in notebook.grades
            }
    return scores


def _attnkit_scores(folder: Path, out: Path) -> dict[str, dict[str, tuple[float, float]]]:
    """student -> part -> (score, max score) from attnkit's own grader (one result per file)."""
    _run(str(BIN / "attnkit"), "grade-batch", str(folder), "--out", str(out), "--seed", str(DEFAULT_SEED), cwd=out.parent)
    scores = {}
    for student in STUDENTS:
        result = SubmissionResult.from_dict(json.loads((out / student / "attnkit.json").read_text(encoding="utf-8")))
        assert not result.grader_error, result.grader_error
        scores[student] = {part.part: (part.score, part.max_score) for part in result.parts}
    return scores


@pytest.fixture(scope="module")
def course(tmp_path_factory) -> Path:
    """A course that went through generate_assignment, autograde and generate_feedback."""
    root = tmp_path_factory.mktemp("nbgrader")
    course = root / "course"
    init_course(course)
    _run(str(BIN / "nbgrader"), "generate_assignment", ASSIGNMENT, cwd=course)
    release = nbformat.read(course / "release" / ASSIGNMENT / NOTEBOOK_NAME, as_version=4)
    answers = _answers(nbformat.read(course / "source" / ASSIGNMENT / NOTEBOOK_NAME, as_version=4))
    for student, filled in (("correct", answers), ("blank", None), ("buggy", _buggy(answers))):
        target = course / "submitted" / student / ASSIGNMENT / NOTEBOOK_NAME
        target.parent.mkdir(parents=True)
        nbformat.write(_submission(release, filled), target)
    start = time.perf_counter()
    _run(str(BIN / "nbgrader"), "autograde", ASSIGNMENT, cwd=course)
    seconds = time.perf_counter() - start
    print(f"\nnbgrader autograde: {seconds:.1f} s for {len(STUDENTS)} submissions")
    _run(str(BIN / "nbgrader"), "generate_feedback", ASSIGNMENT, cwd=course)
    return course


@pytest.mark.nbgrader
@pytest.mark.slow
def test_released_notebook_has_neither_solutions_nor_hidden_tests(course):
    text = (course / "release" / ASSIGNMENT / NOTEBOOK_NAME).read_text(encoding="utf-8")
    nb = nbformat.reads(text, as_version=4)
    shown = {line.strip() for cell in nb.cells for line in cell.source.splitlines()}
    assert not solution_lines((SOLUTION_DIR / "attention.py").read_text(encoding="utf-8")) & shown
    assert "grade_part" not in text and "HIDDEN TESTS" not in text and BEGIN not in text


@pytest.mark.nbgrader
@pytest.mark.slow
def test_nbgrader_scores_every_part_like_attnkit_grade(course, tmp_path):
    nbgrader = _nbgrader_scores(course)
    folder = tmp_path / "in"
    folder.mkdir()
    for student in STUDENTS:  # attnkit names a result after its file: one file per student
        (folder / f"{student}.ipynb").write_bytes((course / "submitted" / student / ASSIGNMENT / NOTEBOOK_NAME).read_bytes())
    attnkit = _attnkit_scores(folder, tmp_path / "out")
    for student in STUDENTS:
        graded = {part: got for part, got in attnkit[student].items() if got[1] > 0}
        assert set(nbgrader[student]) == set(graded), student
        for part, (score, max_score) in graded.items():
            assert nbgrader[student][part] == pytest.approx((score, max_score), abs=1e-6), (student, part)
    total = {s: sum(score for score, _ in nbgrader[s].values()) for s in STUDENTS}
    maximum = sum(max_score for _, max_score in nbgrader["correct"].values())
    assert total["correct"] == pytest.approx(maximum)
    assert total["blank"] < total["buggy"] < total["correct"]
    assert 0 < nbgrader["buggy"]["A"][0] < nbgrader["buggy"]["A"][1]  # partial credit, not 0 or all


@pytest.mark.nbgrader
@pytest.mark.slow
def test_feedback_shows_scores_but_no_hidden_test_source(course):
    for student in STUDENTS:
        html = (course / "feedback" / student / ASSIGNMENT / "attention.html").read_text(encoding="utf-8")
        assert "Score:" in html
        for secret in ("HIDDEN TESTS", "grade_part", "autograder.grading.inprocess"):
            assert secret not in html, (student, secret)


def test_init_course_writes_config_source_notebook_and_helpers(tmp_path):
    notebook = init_course(tmp_path / "course")
    source = tmp_path / "course" / "source" / ASSIGNMENT
    assert notebook == source / NOTEBOOK_NAME
    assert sorted(p.name for p in source.iterdir()) == sorted([NOTEBOOK_NAME, *PUBLIC_HELPERS])
    for name in PUBLIC_HELPERS:
        assert (source / name).read_bytes() == (SOLUTION_DIR / name).read_bytes()
    config = (tmp_path / "course" / "nbgrader_config.py").read_text(encoding="utf-8")
    assert f'course_id = "{COURSE_ID}"' in config and "ClearHiddenTests" in config
    package_root = str(Path(autograder.__file__).resolve().parents[1])
    assert f"ATTNKIT_ROOT = {package_root!r}" in config
    compile(config, "nbgrader_config.py", "exec")


def test_init_course_refuses_a_course_that_exists(tmp_path):
    init_course(tmp_path / "course")
    with pytest.raises(AttnkitError, match="already exists"):
        init_course(tmp_path / "course")


def test_init_course_refuses_a_file_as_course_folder(tmp_path):
    (tmp_path / "course").write_text("not a folder", encoding="utf-8")
    with pytest.raises(AttnkitError, match="is a file"):
        init_course(tmp_path / "course")
