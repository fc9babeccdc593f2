"""qa28s and qa28h: a notebook's `%run` of a helper file, and one long line of many statements.

- qa28s n10, n12, n13: a correct notebook handed in with a helpers.py that its A.2 task cell runs
  with `%run helpers.py` scored 76 (A 18, E 0: NameError): the line became `from helpers import *`,
  which leaves out names with a leading underscore and those `__all__` does not list, where %run
  gives the notebook every name the script defines; `%run helpers` and `%run -i helpers.py` were
  blanked as other magics. Now each is an import of every name the file's top level binds.
- qa28h s01, s02: a notebook answer cell of one line holding 20,000 statements and a non-ASCII
  character loaded in 8 s, and 7.7 MB of such a line held the grader 205 s and the batch's main
  process two minutes more: `_segments` encoded the whole line again for each statement. It now
  encodes the cell once and slices bytes (ast's columns count UTF-8 bytes): 0.7 s for s02.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from autograder.grading.batch import grade_batch
from autograder.grading.session import GradeOptions
from autograder.grading.submission import load_submission

CORPUS = Path(__file__).resolve().parent / "qa" / "qa28s"
FOLDERS = sorted(p for p in CORPUS.iterdir() if p.is_dir())


def test_notebooks_that_run_a_helper_file_get_full_marks(tmp_path):
    assert [p.name for p in FOLDERS] == ["n10_run_helpers_with_private_names", "n13_run_dash_i_helpers"]
    batch = grade_batch(CORPUS, tmp_path / "out", jobs=2, options=GradeOptions(seed=1))
    for result in batch.submissions:
        failures = [f"{c.task} {c.check_id}: {c.message[:160]}" for c in result.checks if not c.passed]
        assert result.score == result.max_score and not failures, (result.submission, failures)


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
