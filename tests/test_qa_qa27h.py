"""qa27h, the red team's findings (built here; the red team's files were 1-2 MB):

- A notebook whose E.1 answer cell (below A.4's check cell) ends in N copies of `causal_mask=0`:
  each binds a task again below its check, and the loader kept a cell's other statements by a
  list's `in` (N²): 128,000 statements (2 MB) took 118 s to load, in the grader and again in the
  batch's main process (its similarity fingerprint, where no limit holds and the pool waits). Then
  the grader spent 120 s more looking for a seaborn import: `^\\s*` under re.M ran over all the
  blanked lines from each line start. Now 3.9 s to load and 3.3 s to grade.
- 60,000 one-line functions that each name `eval`: one integrity flag per function (4.5 MB of
  flags in attnkit.json, a 2.9 MB class dashboard). Flags of one code for scopes that no part holds
  are now capped (MAX_SCOPE_FLAGS, then one that counts the rest); a part's flags all stay (strict
  mode zeroes the parts they name).
"""
from __future__ import annotations

import json

from autograder.grading.integrity.flags import EVASION
from autograder.grading.integrity.record import MAX_SCOPE_FLAGS, source_flags
from autograder.grading.integrity.static import Finding, SourceFacts
from autograder.grading.submission import load_submission
from autograder.grading.worker.client import SEABORN_IMPORT_RE


def _code(source: str, tags: list[str] | None = None, grade: bool = False) -> dict:
    metadata: dict = {"tags": tags} if tags else {}
    if grade:
        metadata["nbgrader"] = {"grade": True, "grade_id": "check", "points": 1}
    return {"cell_type": "code", "metadata": metadata, "source": source, "outputs": [], "execution_count": None}


def test_statements_that_bind_a_task_again_below_its_check_are_left_out_however_many(tmp_path):
    answer = ["attnkit:answer"]
    cells = [
        _code("def causal_mask(size_q, size_k=None, device=None):\n    return size_q\n", answer),
        _code("assert causal_mask(1) == 1", grade=True),
        _code("def plot_attention(w, q, k):\n    return w\n" + "causal_mask = 0\n" * 3_000 + "KEPT = 1\n", answer),
    ]
    path = tmp_path / "late.ipynb"
    path.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}), encoding="utf-8")
    found = load_submission(path)
    last = found.chunks[-1][1]
    assert "def plot_attention" in last and "KEPT = 1" in last and "causal_mask = 0" not in last
    assert last.count("\n") >= 3_000  # blanked, not removed: the lines keep their numbers
    assert any("defines causal_mask again, after the check of that task" in note for note in found.notes)


def test_a_seaborn_import_is_found_after_any_number_of_blank_lines():
    assert SEABORN_IMPORT_RE.search("x = 1\n" + "\n" * 100_000 + "  import numpy, seaborn\n")
    assert SEABORN_IMPORT_RE.search("\tfrom seaborn import heatmap")
    assert not SEABORN_IMPORT_RE.search("# seaborn\ns = 'import seaborn'\nimport seaborn_like\n" + "\n" * 100_000)


def test_flags_of_scopes_no_part_holds_are_capped_and_counted():
    findings = tuple(Finding(EVASION, "eval", number, f"f{number}") for number in range(1, 5_001))
    findings += (Finding(EVASION, "eval", 9_999, "masked_softmax"),)  # a task's: kept, whatever the cap
    facts = SourceFacts(findings=findings, references={}, defined=frozenset(), aliases={})
    flags = source_flags(facts)
    assert len([f for f in flags if not f.part]) == MAX_SCOPE_FLAGS + 1
    assert any(f.detail == f"the same in {5_000 - MAX_SCOPE_FLAGS:,} more functions" for f in flags)
    assert any(f.part == "A" and "masked_softmax" in f.detail for f in flags)
