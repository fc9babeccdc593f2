"""QA corpus of helper `paths` (tests/qa/paths/), graded in one batch: where feedback says a
mistake is. A notebook's answer cells run as one file; its feedback named lines of that joined
file ("attention.py:245"), which no student can find in Jupyter. It now names "cell N, line M":
N counts every cell from the top (markdown too), M the lines inside the cell, on every path
(grade, grade-batch, check, watch), with a note that says so (en, zh); in nbgrader's kernel, as
IPython names a cell: "Cell In[7], line 3". A function whose code did
not compile was "not defined in your file"; it now says its code has a syntax error, and where."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

from autograder.feedback.checkview import message as checkview_message
from autograder.grading.batch import grade_batch
from autograder.grading.session import GradeOptions
from autograder.grading.submission import load_submission

REPO = Path(__file__).resolve().parents[1]
CORPUS = REPO / "tests" / "qa" / "paths"
REFERENCE = REPO / "solutions" / "attention" / "attention.py"

EXPECTED = {  # per-part scores, seed 1
    "notebook_places": {"A": 26, "B": 10, "C": 24, "D": 12, "E": 10, "F": 8},  # A.2's rule (2) and A.4's syntax error; C.1
    "places": {"A": 30, "B": 10, "C": 24, "D": 12, "E": 10, "F": 8},
}


def _inbox(folder: Path) -> Path:
    folder.mkdir()
    for path in sorted(CORPUS.iterdir()):
        text = path.read_text(encoding="utf-8")
        if text.startswith("# snippet"):  # appended to the reference: its later definitions win
            text = REFERENCE.read_text(encoding="utf-8") + "\n\n" + text
            (folder / path.name).write_text(text, encoding="utf-8")
        else:
            shutil.copyfile(path, folder / path.name)
    return folder


def test_notebook_cells_keep_their_numbers():
    cells = load_submission(CORPUS / "notebook_places.ipynb").cells
    numbers = [number for _, number in cells]
    assert numbers[0] == 4 and 10 in numbers and 26 in numbers  # the setup cell is the 4th: two markdown cells before it
    assert load_submission(REFERENCE).cells == ()


def test_feedback_names_places_as_jupyter_shows_them(tmp_path):
    out, inbox = tmp_path / "out", _inbox(tmp_path / "inbox")
    batch = grade_batch(inbox, out, jobs=2, options=GradeOptions(seed=1))
    results = {r.submission: r for r in batch.submissions}
    assert {name: {p.part: p.score for p in r.parts} for name, r in results.items()} == EXPECTED

    notebook = results["notebook_places"]
    messages = [c.message for c in notebook.checks if c.task == "C.1" and not c.passed]
    assert messages and all("(cell 26, line 3 in split_heads: batch, seq, dim = x.shap)" in m for m in messages)
    assert any("SyntaxError: cell 16, line 3: invalid syntax" in e for e in notebook.events)  # the magic on line 1 kept its line
    assert any(f.code == "library_call" and f.detail == "masked_softmax: torch.softmax (cell 10, line 4)" for f in notebook.flags)
    # a definition skipped for its syntax error: "not defined" says why, and where (it said only "not defined in your file")
    said = "causal_mask is not defined in your file: its code has a syntax error (cell 16, line 3), so it never ran"
    assert [c.message for c in notebook.checks if c.task == "A.4"] == [f"causal_mask raised NameError: {said}"] * 3
    a4 = [c for c in notebook.checks if c.task == "A.4"][0]
    assert checkview_message(a4, "zh") == "你的文件里没有定义 `causal_mask`：它的代码有语法错误（第 16 个单元格第 3 行），所以没有运行"
    c1 = [c for c in notebook.checks if c.task == "C.1"][0]
    assert "你的代码在 第 26 个单元格第 3 行 抛出了 AttributeError" in checkview_message(c1, "zh")
    assert any('"cell N, line M" in this feedback is the N-th cell from the top' in e for e in notebook.events)
    feedback = (out / "notebook_places" / "feedback.md").read_text(encoding="utf-8")
    assert "attention.py:" not in feedback and "cell 26, line 3" in feedback

    plain = results["places"]  # a .py file: places in the file, no note
    line = (inbox / "places.py").read_text(encoding="utf-8").splitlines().index("    batch, seq, dim = x.shap") + 1
    assert any(f"(places.py:{line} in split_heads:" in c.message for c in plain.checks)
    assert not any("cell N, line M" in e for e in plain.events)
    saved = json.loads((out / "places" / "attnkit.json").read_text(encoding="utf-8"))
    assert saved["submission"] == "places"


def test_nbgrader_cells_are_named_as_ipython_names_them(tmp_path):
    """nbgrader runs the checks in the student's kernel (grading/inprocess.py): a crash named no
    place at all (only the worker's file was the student's); now the cell, as IPython's own
    tracebacks name it beside the cell: `Cell In[1], line 4`."""
    import nbformat
    from nbclient import NotebookClient

    notebook = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell("import torch\n\ndef split_heads(x, num_heads):\n    batch, seq, dim = x.shap\n    return x"),
        nbformat.v4.new_code_cell("from autograder.grading.inprocess import grade_part\ngrade_part('C', globals())"),
    ])
    NotebookClient(notebook, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}).execute()
    printed = "".join(output.get("text", "") for output in notebook.cells[1].outputs)
    assert "split_heads raised AttributeError: 'Tensor' object has no attribute 'shap' (Cell In[1], line 4 in split_heads: batch, seq, dim = x.shap)" in printed
