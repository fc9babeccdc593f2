"""qa49p: correct work handed in as classes hand it in (tests/qa/qa49p: Canvas and Moodle names, zips
from macOS Finder and Windows, the whole release folder, BOM, tabs, latin-1, CRLF, a shebang, a
__main__ demo, a helper module beside the file): full marks each, no flag, no note.

`jupyter nbconvert --to script`, run in the release folder, writes attention.py over the stub file
from the finished notebook: the magics as get_ipython() calls, the check cells' `import
public_checks`, the kit's Part F cell (importlib). Beside the notebook it came from, it tied with it
(no stub left) and was graded for being first in name order: 0/100 with magics (NameError), 85/100
and evasion flags without (s10, s20, s22, s23). A .py nbconvert wrote is now graded after a notebook
with as few stubs, is left out of the worker and the static pass, and a note names it. Handed in
alone, it is graded as the notebook it was written from (tests/test_qa_qa50x.py).
"""
from __future__ import annotations

from pathlib import Path

import pytest

from autograder.grading.batch import grade_batch
from autograder.grading.session import GradeOptions
from tests.corpus import FULL

CORPUS = Path(__file__).resolve().parent / "qa" / "qa49p"
EXPORTS = ("s10_notebook_and_its_nbconvert_export", "s20_notebook_and_export_no_magics",
           "s22_release_zip_export_overwrote_py", "s23_release_zip_export_overwrote_py_magics")


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    batch = grade_batch(CORPUS, tmp_path_factory.mktemp("qa49p"), jobs=2, options=GradeOptions(seed=1))
    assert not batch.failed_to_grade, [(s.submission, s.grader_error) for s in batch.failed_to_grade]
    return {s.submission: s for s in batch.submissions}


@pytest.mark.parametrize("path", sorted(CORPUS.iterdir()), ids=lambda p: p.stem)
def test_each_packaging_gets_full_marks_without_a_flag(results, path):
    result = results[path.stem if path.suffix in (".py", ".ipynb", ".zip") else path.name]
    failed = [(c.task, c.check_id, c.message[:160]) for c in result.checks if not c.passed]
    assert {p.part: p.score for p in result.parts} == {part: float(points) for part, points in FULL.items()}, failed
    assert not result.flags, [f.code for f in result.flags]
    notes = [e for e in result.events if "nbconvert" not in e]
    assert notes == [], notes


@pytest.mark.parametrize("name", EXPORTS)
def test_the_notebook_is_graded_and_its_export_named(results, name):
    assert any("graded attention.ipynb; attention.py, a copy of a notebook written by `jupyter nbconvert --to script`" in e for e in results[name].events), results[name].events

