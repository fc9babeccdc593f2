"""qa6e's notebooks (tests/qa/qa6e/n*.ipynb) graded by real nbgrader: the same scores as grade-batch.

The notebooks are nbgrader's release of the assignment, filled in and edited the way students do.
tests/test_qa_qa6e.py grades every one with grade-batch against the `expected:` line of its first
cell; here nbgrader autogrades a few of them (all eleven take ~10 minutes: each is a kernel run of the
whole notebook) and must give every part the same score, n05 included (a helper in a new cell
above the task cell: attnkit takes the definitions of the student's own cells, nbgrader runs them).
and n12 (a scratch cell after Part E's grade cell redefines plot_attention: both grade Part E as its
grade cell saw it, E 10).
"""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from autograder.authoring.nbgrader_course import init_course
from autograder.authoring.notebook import notebook_name
from autograder.paths import ASSIGNMENT
from tests.test_nbgrader_e2e import BIN, _run
from tests.test_qa_qa6e import CORPUS, expected_scores

GRADED = (
    "n01_outputs_left_run_out_of_order_answers", "n05_helper_in_new_cell_above", "n06_ipython_magics_in_task_cells",
    "n08_bug_d_pre_norm", "n09_mha_left_as_stub", "n12_scratch_redefinition_after_part_e",
)


def _student(name: str) -> str:
    return name.split("_")[0]


@pytest.fixture(scope="module")
def nbgrader_scores(tmp_path_factory) -> dict[str, dict[str, float]]:
    from nbgrader.api import Gradebook

    course = tmp_path_factory.mktemp("qa6e-nbgrader") / "course"
    init_course(course)
    _run(str(BIN / "nbgrader"), "generate_assignment", ASSIGNMENT, cwd=course)
    for name in GRADED:
        target = course / "submitted" / _student(name) / ASSIGNMENT / notebook_name()
        target.parent.mkdir(parents=True)
        shutil.copyfile(CORPUS / f"{name}.ipynb", target)
    _run(str(BIN / "nbgrader"), "autograde", ASSIGNMENT, cwd=course)
    scores = {}
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        for name in GRADED:
            [notebook] = gradebook.find_submission(ASSIGNMENT, _student(name)).notebooks
            scores[name] = {grade.name.removeprefix("grade-"): float(grade.auto_score) for grade in notebook.grades}
    return scores


@pytest.mark.nbgrader
@pytest.mark.slow
@pytest.mark.parametrize(
    "name", GRADED,
)
def test_nbgrader_scores_every_part_as_grade_batch_does(nbgrader_scores, name):
    assert nbgrader_scores[name] == expected_scores(Path(CORPUS / f"{name}.ipynb")), name
