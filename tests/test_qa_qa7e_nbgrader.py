"""qa7e's notebooks (tests/qa/qa7e/n*.ipynb) graded by real nbgrader: the same scores as grade-batch.

The notebooks are nbgrader's release of the assignment, filled in and saved the way students'
tools save them (VS Code's one-string sources with CRLF answers, Colab's metadata with a `!pip`
cell, cells moved around, cell magics on answer cells, a bug in E.1, an answer cell whose last line
raises). tests/test_qa_qa7e.py grades every one with grade-batch against the `expected:` line of
its first cell; here nbgrader autogrades six of them (each is a kernel run of the whole notebook, ~1 minute) and must give
every part the same score.
"""
from __future__ import annotations

import shutil

import pytest

from autograder.authoring.nbgrader_course import init_course
from autograder.authoring.notebook import notebook_name
from autograder.paths import ASSIGNMENT
from tests.test_nbgrader_e2e import BIN, _run
from tests.test_qa_qa7e import CORPUS, expected_scores

GRADED = (
    "n02_vscode_string_sources_crlf_answers", "n03_colab_metadata_pip_and_retina", "n04_cells_reordered",
    "n05_cell_magics_time_capture", "n06_bug_e_sorted_query_labels", "n08_answer_cell_ends_in_failing_demo",
)


def _student(name: str) -> str:
    return name.split("_")[0]


@pytest.fixture(scope="module")
def nbgrader_scores(tmp_path_factory) -> dict[str, dict[str, float]]:
    from nbgrader.api import Gradebook

    course = tmp_path_factory.mktemp("qa7e-nbgrader") / "course"
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
@pytest.mark.parametrize("name", GRADED)
def test_nbgrader_scores_every_part_as_grade_batch_does(nbgrader_scores, name):
    assert nbgrader_scores[name] == expected_scores(CORPUS / f"{name}.ipynb"), name
