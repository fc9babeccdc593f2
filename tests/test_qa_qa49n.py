"""qa49n: correct notebooks handed in as real students hand them in (tests/qa/qa49n; each first
markdown cell says what was edited, and `expected:` full marks): executed with outputs and figures,
cells run out of order, Colab, VS Code and nbformat 4.4 metadata, CRLF sources, a byte-order mark,
one-string sources, LMS renames, the Chinese notebook in Chinese identifiers, task cells split and
duplicated, %%time on check cells.

A line of IPython's own syntax was blanked only when it began with % or !: a help request
(`torch.amax?`) or a value taken from a magic (`t = %timeit -o ...`, `files = !ls`) stayed as it was
and made its cell invalid Python, so a helper cell above A.2 holding one defined nothing (A 18/32,
n17, n18, n23), and a task cell holding one got a SyntaxError note for a line Jupyter runs (n20,
n21); an indented %timeit blanked left its loop empty (n19). Such a line now does nothing (`pass`,
or None for the value), its indentation kept (grading/submission.py, _magic_blanked).
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from autograder.grading.batch import grade_batch
from autograder.grading.session import GradeOptions
from autograder.grading.submission import _checked_code, file_language
from tests.test_qa_qa10n import expected_scores

CORPUS = Path(__file__).resolve().parent / "qa" / "qa49n"


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    batch = grade_batch(CORPUS, tmp_path_factory.mktemp("qa49n"), jobs=2, options=GradeOptions(seed=1))
    assert not batch.failed_to_grade, [(s.submission, s.grader_error) for s in batch.failed_to_grade]
    return {s.submission: s for s in batch.submissions}


@pytest.mark.parametrize("path", sorted(CORPUS.iterdir()), ids=lambda p: p.stem)
def test_each_correct_notebook_gets_full_marks(results, path):
    failed = [(c.task, c.check_id, c.message[:160]) for c in results[path.stem].checks if not c.passed]
    assert {p.part: p.score for p in results[path.stem].parts} == expected_scores(path), failed


@pytest.mark.parametrize("name", ["n19_indented_timeit_in_a4_task_cell", "n20_help_line_in_e1_task_cell", "n21_shell_assignment_in_a1_task_cell"])
def test_a_line_jupyter_runs_gets_no_error_note(results, name):
    assert not [e for e in results[name].events if "Error" in e], results[name].events


@pytest.mark.parametrize(("line", "graded"), [
    ("torch.amax?", "pass"), ("x = 1\n  torch.nn.functional.softmax??", "x = 1\n  pass"), ("?plot_attention", "pass"), ("torch.*max*?", "pass"),
    ("    %timeit f(i)", "pass"), ("!pip install seaborn", "pass"),  # a cell of one indented line: IPython takes its indentation off
    ("t = %timeit -o f(x)", "t = None"), ("x = 1\n  files = !ls *.py", "x = 1\n  files = None"), ("a, b = %time g()", "a, b = g()"),  # %time gives its expression's value (qa51h)
    ("x = 1  # why?", "x = 1  # why?"), ("y = a % b", "y = a % b"), ("z = a != b", "z = a != b"), ("w %= 3", "w %= 3"),
])
def test_a_line_of_ipython_syntax_does_nothing_and_python_is_kept(line, graded):
    assert _checked_code(line) == graded


def test_a_magic_in_a_loop_leaves_the_loop_valid():
    code = _checked_code("for i in range(3):\n    %timeit f(i)\nx = 1")
    compile(code, "cell", "exec")
    assert code.count("\n") == 2


@pytest.mark.parametrize(("name", "lang"), [
    ("attention.zh.ipynb", "zh"), ("attention.zh (2).ipynb", "zh"), ("attention.zh(1).ipynb", "zh"), ("attention.zh-3.ipynb", "zh"),
    ("attention.zh.py", "zh"), ("attention (1).ipynb", "en"), ("attention.ipynb", "en"), ("zh.ipynb", "en"),
])
def test_a_renamed_copy_of_the_chinese_notebook_keeps_its_language(name, lang):
    assert file_language(name) == lang


def test_a_line_of_a_million_spaces_is_read_in_one_pass(tmp_path):
    """The first rule for a value taken from a magic had two ways to match each space: a line of
    4,000 spaces took 19 s, and a notebook may hold lines of millions. Run apart, so that a
    regression fails here rather than holding the test run."""
    script = "from autograder.grading.submission import _checked_code\nfor line in (' ' * 10**6 + 'x', ' \\t' * 10**6 + '= %', 'a ' * 10**6):\n    _checked_code(line)\n"
    subprocess.run([sys.executable, "-c", script], check=True, timeout=120, cwd=Path(__file__).resolve().parents[1])
