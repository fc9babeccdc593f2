"""qa26h, the red team's findings (repro files in tests/qa/qa26h or built here):

- An answer cell of 8,000 `h0 = 0` lines (140 KB) held the grader 107 s and the batch's main
  process (its similarity fingerprint loads the notebook again) about 100 s more; 20,000 lines
  (400 KB) passed the grader's 330 s limit, and the main process had not finished after 900 s.
  Finding which tasks an answer cell leaves stubbed asked ast.get_source_segment for each
  statement, which splits the whole cell again each time. The cell's lines are now found once
  (submission._segments): both load in well under a second, a batch of the red team's files 15 s.
- 85,000 empty code cells whose tags are `7` got one note each: 12.7 MB attnkit.json, 13.5 MB
  feedback page and dashboard, 85,000 lines in the instructor's terminal. The notes on malformed
  metadata are now capped as the other cell notes are (MAX_CELL_NOTES, then one that counts the rest).
- `_T = torch; _T._decomp...` reached torch's own Python softmax: the trace caught it (the A.2 rule
  failed), but the static pass read private attributes only on names an import binds to torch.
  A name assigned from one of those is now read as torch too.
Not changed (a policy the README states): f01, the reference with AttentionBlock and
plot_attention left as stubs, gets F 6/8 (Part F stands a trusted block in for an unwritten D.1
around the student's own MultiHeadAttention).
"""
from __future__ import annotations

import ast
import json
from pathlib import Path

from autograder.assignment import current
from autograder.grading.integrity.static import analyze
from autograder.grading.submission import MAX_CELL_NOTES, _segments, load_submission

REPO = Path(__file__).resolve().parents[1]
CORPUS = REPO / "tests" / "qa" / "qa26h"
REFERENCE = REPO / "solutions" / "attention" / "attention.py"


def _code(source: str, tags: object = None) -> dict:
    return {"cell_type": "code", "metadata": {"tags": tags} if tags is not None else {}, "source": source, "outputs": [], "execution_count": None}


def _notebook(path: Path, cells: list[dict]) -> Path:
    path.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}), encoding="utf-8")
    return path


def test_statement_segments_are_the_librarys_with_the_lines_found_once():
    texts = [
        "def f():\n    raise NotImplementedError('x')\n\nx = 1; y = 'é'\r\nclass C:\r\n    pass\rz = 3\n",
        "a = 'ü€'; b = 2  # c\ndef g(x):\n    return 'ß' + x\n",
        "x = 1\x0c\ny = '''a\nb'''; t = [\n 1,\n 2]\n",
        "",
    ]
    for text in texts:
        segment = _segments(text)
        for node in ast.parse(text).body:
            assert segment(node).decode() == ast.get_source_segment(text, node)


def test_a_long_answer_cell_is_read_without_splitting_it_per_statement(tmp_path, monkeypatch):
    def split_again(*args, **kwargs):
        raise AssertionError("ast.get_source_segment splits the whole cell again for each statement")

    monkeypatch.setattr(ast, "get_source_segment", split_again)
    stub = 'def attention_scores(q, k):\n    raise NotImplementedError("Task A.1")\n'
    lines = "".join(f"h{number} = {number}\n" for number in range(2_000))
    found = load_submission(_notebook(tmp_path / "long.ipynb", [_code(stub + lines, ["attnkit:answer"]), _code("def attention_scores(q, k):\n    return q\n")]))
    assert any("h1999 = 1999" in text for _, text in found.chunks)


def test_malformed_metadata_is_told_for_a_few_cells_then_counted(tmp_path):
    cells = [_code("def attention_scores(q, k):\n    return q @ k.mT\n", ["attnkit:answer"])] + [_code("", 7) for _ in range(50)]
    found = load_submission(_notebook(tmp_path / "tags.ipynb", cells))
    told = [note for note in found.notes if 'metadata "tags" is 7' in note]
    assert len(told) == MAX_CELL_NOTES
    assert any(f"{50 - MAX_CELL_NOTES} more cells have metadata of the wrong kind" in note for note in found.notes), found.notes


def test_a_private_torch_name_through_a_name_bound_to_torch_is_read():
    source = (CORPUS / "a2_decomp_table_softmax.py").read_text(encoding="utf-8")
    findings = analyze([(1, source)], library=current().library_names()).findings
    assert any(f.code == "evasion" and f.what == "_T._decomp" for f in findings), findings
    clean = analyze([(1, REFERENCE.read_text(encoding="utf-8"))], library=current().library_names()).findings
    assert not [f for f in clean if f.code == "evasion"]
