"""qa23h: a red team on the grader's own work (what runs outside the worker's limits), the names of
a batch's entries, and star imports. Each test builds its submission here (they are small, or made
of repeated lines).

Holes found and closed:
- a notebook with one markdown cell of 48,000 newlines held the grader 86 s (a regular expression
  whose `^\\s*` ran over every newline after each line start, once per task not yet found); 300 KB
  of them stopped a batch at its stall watchdog, with no class report;
- 110,000 empty answer cells (7.9 MB, under the 8 MiB limit) were compared pairwise: the batch stopped;
- a file named `similarity.json.py` (or `grades-canvas.csv.py`) took the folder the class report
  writes into: the report stopped ("Is a directory"); test_hostile.py and test_output_names.py;
- a file name that is not UTF-8 (GBK, from a Windows zip) stopped a batch with a traceback, and
  other students' results were lost; a folder's helper file so named did the same in its digest;
- `from scipy.special import *` then a bare `softmax(...)` passed A.2's "by hand" rule (the trace
  does not see numpy; the static pass matched no banned name).
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from autograder.assignments.attention.rules import LIBRARY_NAMES, SOFTMAX_BY_HAND
from autograder.grading.integrity.static import analyze
from autograder.grading.submission import submission_digest

REPO = Path(__file__).resolve().parents[1]
REFERENCE = REPO / "solutions" / "attention" / "attention.py"
# how long loading one of these notebooks may take before the test calls it stuck: each loads in
# seconds; the quadratic work they found took hours (newlines) and minutes (cells) here
LOAD_BOUND_SECONDS = 300

LOAD = """
import sys
from pathlib import Path
from autograder.grading.submission import load_submission
found = load_submission(Path(sys.argv[1]))
print(len(found.chunks), len(found.notes))
"""


def _notebook(cells: list[dict]) -> str:
    return json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, separators=(",", ":"))


def _load(path: Path) -> list[int]:
    """load_submission in its own process, which must end within LOAD_BOUND_SECONDS."""
    done = subprocess.run([sys.executable, "-c", LOAD, str(path)], env={**os.environ, "PYTHONPATH": str(REPO)},
                          capture_output=True, text=True, timeout=LOAD_BOUND_SECONDS, check=True)
    return [int(n) for n in done.stdout.split()]


def test_a_markdown_cell_of_newlines_loads_at_once_and_a_task_in_markdown_is_still_told(tmp_path):
    answer = {"cell_type": "code", "metadata": {"tags": ["attnkit:answer"]}, "source": "import torch\n", "outputs": [], "execution_count": None}
    blank = tmp_path / "newlines.ipynb"
    blank.write_text(_notebook([{"cell_type": "markdown", "metadata": {}, "source": "\n" * 400_000}, answer]), encoding="utf-8")
    assert _load(blank) == [1, 0]
    told = tmp_path / "told.ipynb"  # a task's code turned into markdown is still named
    told.write_text(_notebook([{"cell_type": "markdown", "metadata": {}, "source": "\n" * 1000 + "  def attention_scores(q, k):\n"}, answer]), encoding="utf-8")
    assert _load(told) == [1, 1]


def test_a_hundred_thousand_answer_cells_load_without_pairwise_work(tmp_path):
    cells = [{"cell_type": "code", "metadata": {"tags": ["attnkit:answer"]}, "source": REFERENCE.read_text(encoding="utf-8")}]
    cells += [{"cell_type": "code", "metadata": {"tags": ["attnkit:answer"]}, "source": ""} for _ in range(110_000)]
    path = tmp_path / "cells.ipynb"
    path.write_text(_notebook(cells), encoding="utf-8")
    assert path.stat().st_size < 8 << 20  # under the notebook limit: it must be graded, not refused
    assert _load(path)[0] == 110_001


def test_a_name_that_is_not_utf8_is_graded_with_the_rest_and_resumes(tmp_path):
    """A GBK file name (张三.py, from a Windows zip) beside a reference: both graded, the report
    written; run again, both are kept (the path read back from attnkit.json is the same file)."""
    inbox, out = tmp_path / "inbox", tmp_path / "out"
    inbox.mkdir()
    shutil.copyfile(REFERENCE, inbox / "alice.py")
    shutil.copyfile(REFERENCE, os.path.join(os.fsencode(inbox), "张三".encode("gbk") + b".py"))
    command = [sys.executable, "-m", "autograder.cli", "grade-batch", str(inbox), "--out", str(out), "--parts", "A", "--seed", "3", "--jobs", "2"]
    env = {**os.environ, "PYTHONPATH": str(REPO), "ATTNKIT_LANG": "en"}
    first = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600)
    assert first.returncode == 0, first.stderr[-3000:]
    rows = (out / "grades.csv").read_text(encoding="utf-8").splitlines()[1:]
    assert sorted(row.split(",")[0] for row in rows) == ["____", "alice"] and all(",32," in row or ",32" in row for row in rows), rows
    assert (out / "index.html").is_file() and (out / "____" / "feedback.html").is_file()
    again = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600)
    assert again.returncode == 0 and "2 submission(s) already graded" in again.stderr, again.stderr[-3000:]


def test_a_folder_whose_helper_file_name_is_not_utf8_has_a_digest(tmp_path):
    folder = tmp_path / "folder"
    folder.mkdir()
    shutil.copyfile(REFERENCE, folder / "attention.py")
    helper = Path(os.fsdecode(os.path.join(os.fsencode(folder), b"h\xffx.py")))  # h\udcffx.py, as os.listdir gives it
    helper.write_text("X = 1\n", encoding="utf-8")
    digest = submission_digest(folder)
    assert len(digest) == 64
    helper.write_text("X = 2\n", encoding="utf-8")
    assert submission_digest(folder) not in ("", digest)


def test_a_library_star_import_gives_its_banned_names_to_the_rule():
    scipy_star = "from scipy.special import *\nimport torch\n\ndef masked_softmax(scores, mask=None):\n    return torch.as_tensor(softmax(scores.numpy(), -1))\n"
    facts = analyze([(1, scipy_star)], {}, LIBRARY_NAMES)
    uses = facts.library_uses(set(SOFTMAX_BY_HAND.roots), SOFTMAX_BY_HAND.banned | SOFTMAX_BY_HAND.source_banned)
    assert [f.what for f in uses] == ["softmax (from scipy.special import *)"]
    own = scipy_star + "\ndef softmax(x, dim):\n    e = x.exp()\n    return e / e.sum(dim, keepdim=True)\n"  # its own softmax: no library's
    assert not analyze([(1, own)], {}, LIBRARY_NAMES).library_uses({"masked_softmax"}, SOFTMAX_BY_HAND.banned)
    helper = "def softmax(x, dim):\n    e = x.exp()\n    return e / e.sum(dim, keepdim=True)\n"  # a star import of its own file
    local = "from helpers import *\n\ndef masked_softmax(scores, mask=None):\n    return softmax(scores, -1)\n"
    assert not analyze([(1, local)], {"helpers.py": helper}, LIBRARY_NAMES).library_uses({"masked_softmax"}, SOFTMAX_BY_HAND.banned)
