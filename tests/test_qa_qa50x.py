"""qa50x: a notebook handed in as the .py that `jupyter nbconvert --to script` (Jupyter's "Save and
Export Notebook As › Executable Script") wrote from it: x01-x13 are the exports of the correct
qa49n notebooks (magics, shell escapes, help lines, %%time and %%capture on task cells, helper
cells, the Chinese notebook), x16 one without magics; x14, x15 and x17 the export of a correct
one with one mistake in A.1 (x17: in a cell under %%time, which nbconvert writes as one line).

Graded as Python runs it, an export stopped at its first get_ipython() line or at its check
cells' `import public_checks`: 0/100 for each correct one. It is now graded as the notebook it was
written from (grading/submission.py, _export_read): each `# In[ ]:` mark begins a cell, the
IPython syntax comes back from nbconvert's get_ipython() calls, and the feedback names the lines
of the .py file.
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from autograder.grading.batch import grade_batch
from autograder.grading.session import GradeOptions
from autograder.grading.submission import _ipython_syntax
from tests.corpus import FULL

CORPUS = Path(__file__).resolve().parent / "qa" / "qa50x"
BUGS = {"x14_bug_a1_scaled_by_d": 27, "x15_bug_a1_name_error_line_166": 26, "x17_bug_a1_scaled_by_d_in_a_time_cell": 27}  # A's score


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    batch = grade_batch(CORPUS, tmp_path_factory.mktemp("qa50x"), jobs=2, options=GradeOptions(seed=1))
    assert not batch.failed_to_grade, [(s.submission, s.grader_error) for s in batch.failed_to_grade]
    return {s.submission: s for s in batch.submissions}


@pytest.mark.parametrize("path", sorted(CORPUS.glob("*.py")), ids=lambda p: p.stem)
def test_an_export_is_graded_as_its_notebook(results, path):
    result = results[path.stem]
    failed = [(c.task, c.check_id, c.message[:160]) for c in result.checks if not c.passed]
    assert {p.part: p.score for p in result.parts} == {**FULL, "A": BUGS.get(path.stem, FULL["A"])}, failed
    assert not result.flags, [f.code for f in result.flags]
    assert "so it is graded as that notebook (attention.ipynb) is" in result.events[0], result.events
    assert all("line" in note and "cell " not in note.replace("the cell at line", "") for note in result.events[1:]), result.events


def test_a_mistake_is_named_and_placed_on_the_line_of_the_export(results):
    assert set(results["x14_bug_a1_scaled_by_d"].mistakes) == {"scores_scaled_by_d"}
    assert set(results["x17_bug_a1_scaled_by_d_in_a_time_cell"].mistakes) == {"scores_scaled_by_d"}
    raised = [c.message for c in results["x15_bug_a1_name_error_line_166"].checks if "NameError" in c.message]
    assert raised and all("x15_bug_a1_name_error_line_166.py:166 in attention_scores" in m for m in raised), raised[:1]


def test_a_helper_cell_is_named_by_the_line_of_its_mark(results):
    notes = results["x04_split_helper_cells_notes_duplicates"].events
    text = (CORPUS / "x04_split_helper_cells_notes_duplicates.py").read_text(encoding="utf-8").splitlines()
    lines = [int(note.split("the cell at line ")[1].split(" ")[0]) for note in notes if "the cell at line" in note]
    assert len(lines) == 2 and all(text[line - 1].startswith("# In[") for line in lines), (lines, notes)


@pytest.mark.parametrize(("written", "notebook"), [
    ("get_ipython().run_line_magic('timeit', '-o f(x)')", "%timeit -o f(x)"),
    ("    t = get_ipython().run_line_magic('timeit', '-o f(x)')", "    t = %timeit -o f(x)"),
    ("files = get_ipython().getoutput('ls *.py')", "files = !ls *.py"),
    ("get_ipython().system('pip install seaborn')", "!pip install seaborn"),
    ("get_ipython().run_line_magic('pinfo', 'torch.amax')", "%pinfo torch.amax"),
    ("get_ipython().run_line_magic('run', 'helpers.py')", "%run helpers.py"),
    ("get_ipython().run_cell_magic('time', '', 'x = 1\\ny = 2\\n')", "%%time\nx = 1\ny = 2"),
    ("get_ipython().run_line_magic(name, 'x')", "get_ipython().run_line_magic(name, 'x')"),  # not what nbconvert writes: left as it is
    ("x = get_ipython()", "x = get_ipython()"),
])
def test_ipython_syntax_comes_back_from_what_nbconvert_wrote(written, notebook):
    assert _ipython_syntax(written) == notebook


def test_an_export_of_many_cells_is_read_in_linear_time(tmp_path):
    """30,000 cells of a magic each, 1.7 MB: each cell's place is counted once, not from the top."""
    path = tmp_path / "attention.py"
    path.write_text("#!/usr/bin/env python\n# coding: utf-8\n" + "\n# In[ ]:\n\n\nget_ipython().run_line_magic('time', 'x = 1')\n" * 30_000)
    script = f"from autograder.grading.submission import load_submission\nload_submission({str(path)!r})\nprint('read')\n"
    done = subprocess.run([sys.executable, "-c", script], check=True, timeout=120, cwd=Path(__file__).resolve().parents[1], capture_output=True, text=True)
    assert done.stdout.strip() == "read", done.stdout
