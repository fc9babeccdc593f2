"""qa28s and qa28h: a notebook's `%run` of a helper file, and one long line of many statements.

- qa28s n10, n12, n13: a correct notebook handed in with a helpers.py that its A.2 task cell runs
  with `%run helpers.py` scored 76 (A 18, E 0: NameError): the line became `from helpers import *`,
  which leaves out names with a leading underscore and those `__all__` does not list, where %run
  gives the notebook every name the script defines; `%run helpers` and `%run -i helpers.py` were
  blanked as other magics. Now each is an import of every name the file's top level binds (for
  the first 20 such lines, 500 names each: 10,000 of them of a file of 50,000 names made gigabytes).
- qa28h s01, s02: a notebook answer cell of one line holding 20,000 statements and a non-ASCII
  character loaded in 8 s, and 7.7 MB of such a line held the grader 205 s and the batch's main
  process two minutes more: `_segments` encoded the whole line again for each statement. It now
  encodes the cell once and slices bytes (ast's columns count UTF-8 bytes): 0.7 s for s02.
- qa28s b28, b46: `ax = ax or plt.gca()` (or seaborn's ax=None) drew over a figure already open,
  where the contract says "otherwise make a new figure": E.1's given-Axes check now also draws the
  probe while a figure is open (E 9). The other 102 files of qa28s (50 correct styles, single bugs
  of A and E) were graded as their headers say. Six smoothing kernels that keep each cell centre's
  colour (b22, b34-b37, b310: bilinear, catrom, lanczos, spline16, hermite, hanning) got E 10, where
  the contract asks for one flat colour per cell: E.1's flat-cells check now charges them one point.
- qa28h z02, q01: a later task's bug hidden in an earlier function behind a flag the later task
  sets passed with trusted stand-ins ("correct with trusted versions of your functions"), charged
  nowhere: a stand-in's pass now pays only where a replaced task lost points (or is not graded yet).
- qa28h x01: a one-point decoy in A.1 (scores divided by d on 2-D inputs only) answered for C.3's
  own division by d through a no-op helper both call: an earlier task's mistake answers for a later
  task only where no check of the earlier task that passed on its own fails against the reference
  with that mistake planted. Left open: the same mistake written in full in each task, with any
  code both run (a no-op helper, a base class), is still charged once (the red team's w01-w04, v02,
  v04, x03): telling a mistake in shared code from one written again needs the code each task ran.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from autograder.feedback.results import SubmissionResult
from autograder.grading.submission import load_submission
from tests.corpus import assert_each_bug_in_its_own_part, assert_graded_as_expected, graded_corpus

QA = Path(__file__).resolve().parent / "qa"
CORPUS = QA / "qa28s"
FILES = sorted(CORPUS.glob("*.py"))
FOLDERS = sorted(p for p in CORPUS.iterdir() if p.is_dir())
RED = sorted((QA / "qa28h").glob("*.py"))


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> dict[str, SubmissionResult]:
    return graded_corpus(CORPUS, tmp_path_factory.mktemp("qa28s_out"))


@pytest.fixture(scope="module")
def red(tmp_path_factory) -> dict[str, SubmissionResult]:
    return graded_corpus(QA / "qa28h", tmp_path_factory.mktemp("qa28h_out"))


def test_the_corpora_are_whole():
    assert (len(FILES), [p.name for p in FOLDERS], len(RED)) == (104, ["n10_run_helpers_with_private_names", "n13_run_dash_i_helpers"], 6)


# c31 is the helper's own slip, a correct drawing loaded through __import__, which the contract forbids (E 0)
NOT_SINGLE = ("c31_",)


def test_each_bug_loses_points_in_its_own_part_only():
    assert_each_bug_in_its_own_part([p for p in FILES if not p.name.startswith(NOT_SINGLE)])


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_each_submission_scores_its_parts_and_names_only_its_mistakes(path, graded):
    assert_graded_as_expected(graded[path.stem], path)


@pytest.mark.parametrize("path", RED, ids=lambda p: p.stem)
def test_a_mistake_is_charged_where_it_is_written(path, red):
    assert_graded_as_expected(red[path.stem], path)


def test_a_bug_behind_a_flag_pays_as_the_same_bug_written_in_place(red):
    def total(stem: str) -> float:
        return sum(part.score for part in red[stem].parts)

    assert (total("z02_c3_bug_in_split_mode_flag"), total("q01_d1_bug_in_mha_mode_flag")) == (total("z04_c3_no_transpose_inline"), total("q02_d1_no_w_o_inline"))
    assert total("x01_a1_wrong_2d_c3_inline") == total("v03_c3_inline_only") - 1


@pytest.mark.parametrize("folder", FOLDERS, ids=lambda p: p.name)
def test_notebooks_that_run_a_helper_file_get_full_marks(folder, graded):
    result = graded[folder.name]
    failures = [f"{c.task} {c.check_id}: {c.message[:160]}" for c in result.checks if not c.passed]
    assert {p.part: p.score for p in result.parts} == {"A": 32, "B": 10, "C": 28, "D": 12, "E": 10, "F": 8} and not failures, failures


def _folder(tmp_path: Path, run_line: str, helpers: str) -> Path:
    folder = tmp_path / "handin"
    folder.mkdir()
    cell = {"cell_type": "code", "metadata": {"tags": ["attnkit:answer"]}, "outputs": [], "execution_count": None,
            "source": f"{run_line}\ndef attention_scores(q, k):\n    return _scale(q @ k.mT)\n"}
    (folder / "attention.ipynb").write_text(json.dumps({"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}), encoding="utf-8")
    (folder / "helpers.py").write_text(helpers, encoding="utf-8")
    return folder


@pytest.mark.parametrize("run_line", ["%run helpers.py", "%run helpers", "%run -i ./helpers.py", "  %run helpers.py  "])
def test_run_gives_every_name_the_helper_file_binds(tmp_path, run_line):
    helpers = "__all__ = ['shown']\nimport math\n_LIMIT = 3\ndef _scale(x):\n    return x / math.sqrt(x.size(-1))\ndef shown():\n    pass\nfrom os import *\n"
    code = "".join(text for _, text in load_submission(_folder(tmp_path, run_line, helpers)).chunks)
    run = next(line for line in code.splitlines() if "helpers" in line)
    assert run.strip() == "from helpers import *; from helpers import _LIMIT, _scale, math, shown", run


def test_many_runs_of_a_file_of_many_names_make_little_code(tmp_path):
    helpers = "".join(f"_n{number} = {number}\n" for number in range(50_000))
    folder = _folder(tmp_path, "%run helpers.py\n" * 10_000, helpers)
    code = "".join(text for _, text in load_submission(folder).chunks)  # 10,000 x 50,000 names: gigabytes, before
    runs = [line for line in code.splitlines() if "helpers" in line]
    assert len(runs) == 10_000 and len(code) < 1_000_000
    assert runs[0].startswith("from helpers import *; from helpers import _n0, _n1, _n10")
    assert runs[-1] == "from helpers import *"


def test_run_of_a_file_not_handed_in_imports_it_and_says_so_there(tmp_path):
    folder = _folder(tmp_path, "%run other.py", "")
    code = "".join(text for _, text in load_submission(folder).chunks)
    assert "from other import *" in code


def test_one_line_of_many_statements_is_read_once(tmp_path):
    stub = 'def attention_scores(q, k):\n    raise NotImplementedError("Task A.1")\n'
    line = "é = 0; " + "; ".join(f"v{n} = {n}" for n in range(20_000)) + "  # " + "x" * 200_000 + "\n"
    cell = {"cell_type": "code", "metadata": {"tags": ["attnkit:answer"]}, "outputs": [], "execution_count": None, "source": stub + line}
    path = tmp_path / "long.ipynb"
    path.write_text(json.dumps({"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}), encoding="utf-8")
    found = load_submission(path)  # 20,000 statements x 0.3 MB per encode: about 1,000 s before
    assert any("v19999 = 19999" in text for _, text in found.chunks)
