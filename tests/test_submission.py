"""Reading submissions: .py, .ipynb, folders and zips, with clear errors for everything else."""
from __future__ import annotations

import json
import os
import shutil
import re
import warnings
import zipfile
from pathlib import Path

import pytest

from autograder.errors import SubmissionError
from autograder.grading.submission import GRADED_PUBLIC_CHECKS, MAX_CELL_NOTES, load_submission, notebook_chunks
from autograder.grading.worker.dispatcher import split_chunks as split_chunks_for_tests

REPO = Path(__file__).resolve().parents[1]


def _notebook(cells: list[dict]) -> bytes:
    return json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}).encode()


def _code(source: str, tags: list[str] | None = None) -> dict:
    return {"cell_type": "code", "source": source, "metadata": {"tags": tags or []}, "outputs": [], "execution_count": None}


def test_py_file_is_one_chunk(tmp_path):
    path = tmp_path / "alice.py"
    path.write_text("x = 1\n")
    submission = load_submission(path)
    assert (submission.name, submission.kind, submission.chunks) == ("alice", "py", ((1, "x = 1\n"),))


def test_coding_declaration_is_honoured(tmp_path):
    path = tmp_path / "latin.py"
    path.write_bytes("# -*- coding: latin-1 -*-\n# café\nx = 1\n".encode("latin-1"))
    assert "café" in load_submission(path).chunks[0][1]


def test_notebook_answer_cells_only_and_magics_dropped():
    data = _notebook([_code("import torch", ["attnkit:setup"]), _code("%matplotlib inline\ndef f():\n    return 1", ["attnkit:answer"]), _code("train_for_an_hour()")])
    chunks = notebook_chunks(data, "nb.ipynb")
    text = "".join(t for _, t in chunks)
    assert "import torch" in text and "def f" in text
    assert "%matplotlib" not in text and "train_for_an_hour" not in text


def test_untagged_notebook_uses_every_code_cell():
    data = _notebook([_code("a = 1"), {"cell_type": "markdown", "source": "hi", "metadata": {}}, _code("!pip install x\nb = 2")])
    assert [t for _, t in notebook_chunks(data, "nb.ipynb")] == ["a = 1\n", "pass\nb = 2\n"]  # the shell escape does nothing: b keeps line 2


@pytest.mark.parametrize(
    "metadata, said",
    [({"tags": 7}, 'cell 2: its metadata "tags" is 7, not a list of strings'), ({"tags": [1]}, '"tags" is [1]'),
     ("x", 'cell 2: its metadata is "x", not an object'), ({"nbgrader": "yes"}, '"nbgrader" is "yes", not an object')],
    ids=["tags-int", "tags-not-strings", "metadata-list", "nbgrader-str"],
)
def test_malformed_cell_metadata_is_ignored_with_a_note(tmp_path, metadata, said):
    path = tmp_path / "nb.ipynb"
    path.write_bytes(_notebook([_code("a = 1", ["attnkit:answer"]), {**_code("b = 2"), "metadata": metadata}]))
    submission = load_submission(path)
    assert [t for _, t in submission.chunks] == ["a = 1\n"]
    assert len(submission.notes) == 1 and said in submission.notes[0] and "it was read as a cell" in submission.notes[0]


def test_cell_source_that_is_not_text_is_a_clear_error(tmp_path):
    path = tmp_path / "nb.ipynb"
    path.write_bytes(_notebook([{**_code(""), "source": [1, 2]}]))
    with pytest.raises(SubmissionError, match="cell 1 has a source that is not text"):
        load_submission(path)


def test_invalid_notebook_is_a_clear_error(tmp_path):
    path = tmp_path / "broken.ipynb"
    path.write_text("{not json")
    with pytest.raises(SubmissionError, match="not a valid Jupyter notebook"):
        load_submission(path)


@pytest.mark.parametrize(("text", "said"), [
    ('{"nbformat": 3, "worksheets": [{"cells": []}]}', "is an nbformat 3 notebook"),
    ("[1, 2]", "not a valid Jupyter notebook (AttributeError)"),
    ('{"nbformat": 4, "cells": {"0": "x = 1"}}', "not a valid Jupyter notebook (cells)"),
    ('[' * 100_000 + ']' * 100_000, "not a valid Jupyter notebook (RecursionError)"),
])
def test_notebook_of_an_old_version_or_wrong_shape_is_a_specific_error(tmp_path, text, said):
    path = tmp_path / "old.ipynb"
    path.write_text(text)
    with pytest.raises(SubmissionError, match=re.escape(said)):
        load_submission(path)


def test_folder_submission_finds_entry_and_helpers(tmp_path):
    folder = tmp_path / "bob"
    (folder / "lib").mkdir(parents=True)
    (folder / "attention.py").write_text("from lib.helpers import h\n")
    (folder / "lib" / "helpers.py").write_text("def h(): return 1\n")
    submission = load_submission(folder)
    assert submission.filename == "attention.py"
    assert set(submission.files) == {"lib/helpers.py"}


def test_zip_of_a_folder_is_read_in_memory(tmp_path):
    path = tmp_path / "carol.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("carol/attention.py", "x = 2\n")
        archive.writestr("carol/README.txt", "notes")
    submission = load_submission(path)
    assert submission.chunks == ((1, "x = 2\n"),) and submission.name == "carol"


def test_a_zip_with_two_different_student_files_is_refused_naming_both(tmp_path):
    path = tmp_path / "dave.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("draft/attention.py", "x = 1\n")
        archive.writestr("final/attention.py", "x = 2\n")
    with pytest.raises(SubmissionError, match=r"several different attention.py files \(draft/attention.py, final/attention.py\)"):
        load_submission(path)


def test_a_zip_with_two_identical_student_files_is_graded(tmp_path):
    path = tmp_path / "erin.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("a/attention.py", "x = 1\n")
        archive.writestr("b/attention.py", "x = 1\n")
    assert load_submission(path).chunks == ((1, "x = 1\n"),)


def test_a_zip_with_two_entries_of_the_same_name_is_refused(tmp_path):
    path = tmp_path / "fred.zip"
    with zipfile.ZipFile(path, "w") as archive, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # zipfile warns of the duplicate name: that is the point
        archive.writestr("attention.py", "x = 1\n")
        archive.writestr("attention.py", "x = 2\n")
    with pytest.raises(SubmissionError, match="two entries named 'attention.py'"):
        load_submission(path)


def test_a_notebook_saved_with_a_byte_order_mark_is_read():
    data = b"\xef\xbb\xbf" + _notebook([_code("a = 1")])
    assert [t for _, t in notebook_chunks(data, "nb.ipynb")] == ["a = 1\n"]


@pytest.mark.parametrize("member", ["../evil.py", "/etc/evil.py"])
def test_zip_path_escape_is_refused(tmp_path, member):
    path = tmp_path / "escape.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr(member, "x = 1\n")
    with pytest.raises(SubmissionError, match="outside the archive"):
        load_submission(path)


@pytest.mark.parametrize("text", ["", "\n\n", "# my homework\n"])
def test_an_empty_py_file_is_graded_with_a_note_that_says_it_is_empty(tmp_path, text):
    """qa21p: an empty attention.py was graded 0/100 with every check saying "not defined" and
    no word on why; it is still graded (a 0 the student earned), with a note that says so."""
    path = tmp_path / "attention.py"
    path.write_text(text, encoding="utf-8")
    assert any(note.startswith("attention.py is empty (no code in it), so every task scores 0") for note in load_submission(path).notes)


def test_other_file_kinds_are_refused(tmp_path):
    path = tmp_path / "essay.docx"
    path.write_bytes(b"PK")
    with pytest.raises(SubmissionError, match="expected a .py file"):
        load_submission(path)


def test_folder_without_entry_names_its_files(tmp_path):
    (tmp_path / "dave").mkdir()
    (tmp_path / "dave" / "a.py").write_text("")
    (tmp_path / "dave" / "b.py").write_text("")
    with pytest.raises(SubmissionError, match="a.py, b.py"):
        load_submission(tmp_path / "dave")


def test_split_chunks_keeps_decorators_with_their_function():
    source = "import math\n@decorator\ndef f():\n    return 1\n\nclass C:\n    pass\n"
    starts = [first for first, _ in split_chunks_for_tests(source)]
    assert starts == [1, 2, 6]


MULTI_LINE_STRINGS = '''"""Module docstring.
Shapes:
    B batch
"""
import math


def broken(x):
    return x /


def causal_mask(n):
    """Task A.4.

Query i may attend to keys 0..i.
"""
    return n


s = f"""a
b {1}
"""
'''


def test_split_chunks_does_not_split_inside_a_multi_line_string():
    """A docstring line at column 0 opened a chunk of its own: with a syntax error anywhere in the
    file, the function holding that docstring was cut in two and lost every point ("not defined")."""
    chunks = split_chunks_for_tests(MULTI_LINE_STRINGS)
    assert [first for first, _ in chunks] == [1, 5, 8, 12, 20]
    first, text = chunks[3]
    namespace: dict = {}
    exec(compile("\n" * (first - 1) + text, "s.py", "exec"), namespace)  # noqa: S102 - the test's own source
    assert namespace["causal_mask"](3) == 3


def test_split_chunks_after_an_unterminated_string_falls_back_to_lines():
    source = 'def f():\n    return 1\n\ndef g():\n    return """never closed\n\ndef h():\n    return 3\n'
    assert [first for first, _ in split_chunks_for_tests(source)] == [1, 4, 7]


@pytest.mark.parametrize("finished", ["attention.py", "attention.ipynb", "attention.zh.ipynb"])
def test_a_whole_release_folder_grades_the_file_the_student_wrote_in(tmp_path, finished):
    """The release folder holds attention.py and both notebooks, all stubs; a student who submits
    the whole folder is graded on the one they finished, not on the untouched attention.py."""
    folder = tmp_path / "erin"
    shutil.copytree(REPO / "assignments" / "attention", folder)
    answer = (REPO / "solutions" / "attention" / "attention.py").read_text(encoding="utf-8")
    if finished == "attention.py":
        (folder / finished).write_text(answer, encoding="utf-8")
    else:
        (folder / finished).write_bytes(_notebook([_code(answer, ["attnkit:answer"])]))
    submission = load_submission(folder)
    assert "NotImplementedError" not in "".join(chunk for _, chunk in submission.chunks)


@pytest.mark.parametrize("copy", ["attention (1).py", "reference.py"])
def test_a_finished_py_file_under_another_name_is_graded_over_the_untouched_stubs(tmp_path, copy):
    """qa21p: `attention (1).py` (a browser's second download) beside the untouched attention.py,
    or reference.py beside an untouched notebook, was passed over for the stub: 0/32, with no word."""
    folder = tmp_path / "finn"
    shutil.copytree(REPO / "assignments" / "attention", folder)
    shutil.copy(REPO / "solutions" / "attention" / "attention.py", folder / copy)
    submission = load_submission(folder)
    assert "NotImplementedError" not in "".join(chunk for _, chunk in submission.chunks)
    assert any(note.startswith(f"graded {copy}, the file with your work in it") and "attention.py" in note for note in submission.notes), submission.notes


def _release_folder(folder: Path, student: str) -> Path:
    """The whole release folder as a student hands it in: the kit's files, their own attention.py."""
    release = REPO / "assignments" / "attention"
    shutil.copytree(release, folder, ignore=shutil.ignore_patterns("__pycache__", ".*"))
    (folder / "attention.py").write_text(student)
    return folder


def test_the_kits_own_files_handed_in_unchanged_are_the_kits_not_scanned_as_the_students(tmp_path):
    folder = _release_folder(tmp_path / "dana", "x = 1\n")
    crlf = (folder / "pronoun_task.py").read_bytes().replace(b"\n", b"\r\n")
    (folder / "pronoun_task.py").write_bytes(crlf)  # the same file copied through Windows
    submission = load_submission(folder)
    assert submission.files == {}
    assert {"public_checks.py", "pronoun_task.py", "conftest.py", "test_public.py"} <= set(submission.kit)
    assert submission.kit["pronoun_task.py"] == (REPO / "solutions" / "attention" / "pronoun_task.py").read_text(encoding="utf-8")


def test_the_public_checks_handed_in_give_the_worker_no_version_of_a_task(grade, tmp_path):
    """qa20h h10: the public checks hold working versions of six tasks (their oracles); a folder
    that imported them under the tasks' names scored 95/100. Graded, their checks do nothing and
    nothing else can be imported from them; the honest folder keeps every point."""
    reference = (REPO / "solutions" / "attention" / "attention.py").read_text(encoding="utf-8")
    borrowed = reference.replace("import math\n", "import math\nfrom public_checks import _own_scores as attention_scores\n", 1)
    borrowed = borrowed.replace("def attention_scores(", "def _unused_scores(", 1)
    honest = grade(_release_folder(tmp_path / "honest", reference), parts={"A"})
    assert honest.score == honest.max_score
    result = grade(_release_folder(tmp_path / "borrowed", borrowed), parts={"A"})
    assert result.score == 0
    assert any("cannot import name '_own_scores' from 'public_checks'" in c.message for c in result.checks)


def test_a_modified_copy_of_a_kit_file_is_the_students_and_is_scanned(tmp_path):
    from autograder.assignment import current
    from autograder.grading.integrity.static import analyze

    folder = _release_folder(tmp_path / "erin", "import pronoun_task\nx = 1\n")  # imported: it runs (one nothing imports never runs, and is not read: qa24h)
    for name in ("pronoun_task.py", "public_checks.py"):
        with (folder / name).open("a") as file:
            file.write("\ndef extra(x):\n    return torch.softmax(x, -1)\n")
    submission = load_submission(folder)
    assert set(submission.files) == {"pronoun_task.py"}
    assert "pronoun_task.py" not in submission.kit
    facts = analyze(submission.chunks, submission.files, current().library_names())
    assert any(f.name == "softmax" and f.scope.startswith("pronoun_task.py") for f in facts.findings), facts
    assert submission.kit["public_checks.py"] == GRADED_PUBLIC_CHECKS  # the public checks, changed or not: checks that do nothing (qa20h h10)


def test_a_zip_of_the_whole_release_folder_keeps_the_kits_files_out_of_the_scan(tmp_path):
    folder = _release_folder(tmp_path / "fay", "x = 1\n")
    path = tmp_path / "fay.zip"
    with zipfile.ZipFile(path, "w") as archive:
        for item in sorted(folder.rglob("*")):
            archive.write(item, item.relative_to(tmp_path).as_posix())
    submission = load_submission(path)
    assert submission.files == {}
    assert "public_checks.py" in submission.kit


def test_a_helper_in_a_cell_without_an_answer_tag_runs_as_run_all_runs_it(tmp_path):
    """QA n01: the answer cells call a helper defined in a new untagged cell. Run All and nbgrader
    (whose kernel holds every cell) give the answer cells that helper, so the grader takes it too,
    with the import it needs, and nothing else of that cell (its demo needs the kit's cells)."""
    path = tmp_path / "gil.ipynb"
    path.write_bytes(_notebook([
        _code("import math\n\n@functools.cache\ndef _row_max(x):\n    return x.amax(-1, keepdim=True) * math.e / math.e\n\nscratch = 3\nprint(demo_x)\n"),
        _code("def masked_softmax(scores, mask=None):\n    x = scores - _row_max(scores)\n    return x.exp() / x.exp().sum(-1, keepdim=True)\n", ["attnkit:answer"]),
        _code("import functools\ndef f(scratch):\n    return scratch + len([1])\n", ["attnkit:answer"]),
    ]))
    submission = load_submission(path)
    code = "".join(text for _, text in notebook_chunks(path.read_bytes(), "gil.ipynb"))
    assert code.startswith("import math\n\n@functools.cache\ndef _row_max(x):\n    return x.amax(-1, keepdim=True) * math.e / math.e\n\n\n\n"), code
    assert "scratch = 3" not in code and "demo_x" not in code
    assert len(submission.notes) == 1 and "cell 1 is not an answer cell" in submission.notes[0], submission.notes
    assert "defines _row_max, math," in submission.notes[0]


def test_many_cells_giving_definitions_make_a_few_notes(tmp_path):
    """A chain of 20 helper cells, each calling the next: all are taken, and the feedback names the
    first MAX_CELL_NOTES cells and counts the rest instead of 20 notes."""
    path = tmp_path / "chain.ipynb"
    helpers = [_code(f"def f{i}(x):\n    return f{i + 1}(x)\n") for i in range(20)]
    path.write_bytes(_notebook([_code("def masked_softmax(s, mask=None):\n    return f0(s)\n", ["attnkit:answer"]), *helpers]))
    submission = load_submission(path)
    code = "".join(text for _, text in notebook_chunks(path.read_bytes(), "chain.ipynb"))
    assert all(f"def f{i}(x)" in code for i in range(20)), code
    assert len(submission.notes) == MAX_CELL_NOTES + 1 and "12 more cells" in submission.notes[-1], submission.notes


def test_a_solution_written_in_a_new_cell_below_the_stub_is_graded_as_run_all_runs_it(grade, reference_source):
    """QA qa3p n06: the task's answer cell still holds the stub and the student's code is in a new
    (untagged) cell below it. nbgrader graded it 100 (its kernel ran every cell); attnkit graded
    the stub: A.4 lost its points. The later definition is the one Run All leaves, so it is graded;
    a definition in a new cell above the answer cell is not (the answer cell replaces it), and the
    scratch cells' demos are not run."""
    stub = reference_source.replace("    size_k = size_q if size_k is None else size_k\n    return torch.ones(", "    raise NotImplementedError\n    return torch.ones(", 1)
    assert stub != reference_source
    solution = "def causal_mask(size_q, size_k=None, device=None):\n    return torch.ones(size_q, size_q if size_k is None else size_k, dtype=torch.bool, device=device).tril()\n"
    wrong = "def causal_mask(size_q, size_k=None, device=None):\n    return torch.ones(size_q, size_q if size_k is None else size_k, dtype=torch.bool, device=device).triu()\n"
    cells = [_code(wrong), _code(stub, ["attnkit:answer"]), _code(solution + "print(causal_mask(3), undefined_demo_tensor)\n"), _code("print(causal_mask(3))\n")]
    result = grade(_notebook(cells).decode(), name="below", suffix=".ipynb", parts={"A"})
    assert result.score == result.max_score == 32, [(c.name, c.points, c.message) for c in result.checks if c.points < c.max_points]
    assert any("cell 3 is not an answer cell" in event and "causal_mask" in event for event in result.events), result.events
    assert not any("cell 1 " in event for event in result.events), result.events


def test_the_kits_own_cells_are_not_taken_for_an_answer_that_reads_their_names():
    """An answer that reads a name one of the kit's demo cells binds (`toy`, `tokens`) works under Run
    All, but the kit's cells need the kit's files and earlier demos: none of them is taken (the
    answer gets a NameError where it reads the name, its task only)."""
    released = json.loads((REPO / "assignments" / "attention" / "attention.ipynb").read_text(encoding="utf-8"))
    answer = next(cell for cell in released["cells"] if "def plot_attention" in "".join(cell["source"]))
    answer["source"] = "".join(answer["source"]) + "\n\ndef _demo():\n    return plot_attention(toy, tokens, tokens)\n"
    text = "".join(code for _, code in notebook_chunks(json.dumps(released).encode(), "attention.ipynb"))
    assert "def _demo" in text and 'tokens = ["the"' not in text and "import public_checks" not in text


def test_a_definition_written_again_counts_up_to_its_tasks_check_cell(tmp_path):
    """A task's answer is what its check cell saw, as nbgrader grades at its grade cell (qa6e n12): a
    function written again in a new cell between the stub and the check cell is graded; one written
    again after the check cell (a scratch experiment) is not, and gets no note."""
    released = json.loads((REPO / "assignments" / "attention" / "attention.ipynb").read_text(encoding="utf-8"))
    cells = released["cells"]
    stub = next(i for i, cell in enumerate(cells) if "def causal_mask" in "".join(cell["source"]))
    check = next(i for i in range(stub + 1, len(cells)) if cells[i]["cell_type"] == "code")
    cells.insert(check + 1, _code("def causal_mask(size_q, size_k=None, device=None):\n    return 'scratch after the check'\n"))
    cells.insert(stub + 1, _code("def causal_mask(size_q, size_k=None, device=None):\n    return 'below the stub'\n"))
    data = json.dumps(released).encode()
    text = "".join(code for _, code in notebook_chunks(data, "attention.ipynb"))
    assert "'below the stub'" in text and "scratch after the check" not in text
    path = tmp_path / "attention.ipynb"
    path.write_bytes(data)
    path_notes = load_submission(path).notes
    assert len(path_notes) == 1 and f"cell {stub + 2} is not an answer cell" in path_notes[0], path_notes


def _answer_cells_written(tmp_path: Path, where: dict[str, str]) -> tuple[str, tuple[str, ...]]:
    """The graded code of the released notebook with these answer cells' code replaced
    ({task name: code}), and the notes: (code, notes)."""
    released = json.loads((REPO / "assignments" / "attention" / "attention.ipynb").read_text(encoding="utf-8"))
    for cell in released["cells"]:
        source = "".join(cell["source"])
        for name, code in where.items():
            if "attnkit:answer" in cell["metadata"].get("tags", []) and re.search(rf"^(def|class) {name}\b", source, re.MULTILINE):
                cell["source"] = code
    path = tmp_path / "attention.ipynb"
    path.write_text(json.dumps(released), encoding="utf-8")
    return "".join(code for _, code in notebook_chunks(path.read_bytes(), "attention.ipynb")), load_submission(path).notes


DRAFT = "def masked_softmax(scores, mask=None):\n    return 'draft'\n"
REAL = "def masked_softmax(scores, mask=None):\n    return 'real'\n"
SCORES_CELL = "def attention_scores(q, k):\n    return q @ k.transpose(-2, -1) / k.shape[-1] ** 0.5\n"


def test_a_draft_of_a_task_in_an_earlier_tasks_cell_is_replaced_by_the_tasks_own_cell(tmp_path):
    """QA qa15 nb_16: a draft of masked_softmax in A.1's cell and the real one in A.2's cell, above
    A.2's check: Run All checks the real one, so it is graded (the first cell defining a task set
    its check cell: A.1's, and A.2's own cell was left out as written after the check: A.2 lost 14)."""
    code, notes = _answer_cells_written(tmp_path, {"attention_scores": SCORES_CELL + DRAFT, "masked_softmax": REAL})
    assert code.index("'real'") > code.index("'draft'") and not notes, notes


def test_a_stub_left_in_a_tasks_own_cell_replaces_an_answer_in_an_earlier_tasks_cell(tmp_path):
    """QA qa15 nb_11: the real masked_softmax in A.1's cell, the stub left in A.2's cell: A.2's check
    sees the stub under Run All, and so does the grader (the stub was left out as written again
    after A.1's check: 100)."""
    stub = "def masked_softmax(scores, mask=None):\n    raise NotImplementedError('the stub of A.2')\n"
    code, notes = _answer_cells_written(tmp_path, {"attention_scores": SCORES_CELL + REAL, "masked_softmax": stub})
    assert code.index("the stub of A.2") > code.index("'real'") and not notes, notes


def test_a_task_written_again_in_a_later_tasks_cell_is_left_out_with_a_note(tmp_path):
    """A task written again in a later task's cell, below the task's own check, is what no check of
    that task saw: left out, and the feedback says so."""
    code, notes = _answer_cells_written(tmp_path, {"masked_softmax": REAL, "causal_mask": DRAFT + "def causal_mask(n, m=None, device=None):\n    return n\n"})
    assert "'real'" in code and "'draft'" not in code and "def causal_mask(n" in code, code
    assert len(notes) == 1 and "defines masked_softmax again, after the check of that task (cell 10)" in notes[0], notes


@pytest.mark.parametrize("notebook", ["attention.ipynb", "attention.zh.ipynb"])
def test_a_notebook_whose_tags_were_lost_grades_without_the_kits_own_cells(notebook):
    """QA qa3p n10: an editor that drops cell metadata (tags) leaves a notebook with no answer cell,
    graded as all its code cells; the kit's own cells (checks, demos, Part F's importlib) cost the
    student 15 points as 'your file uses importlib'. Those cells, unchanged, are the kit's. Since
    qa10n the cells that write the tasks are its answer cells (a Colab drive-mount cell run whole
    cost 15 points the same way), and its other cells give only what those use."""
    released = json.loads((REPO / "assignments" / "attention" / notebook).read_text(encoding="utf-8"))
    for cell in released["cells"]:
        cell["metadata"] = {"id": "colab"}
        if "def causal_mask" in "".join(cell["source"]):
            cell["source"] = "".join(cell["source"]).replace("\n", "\r\n")  # saved on Windows: still the answer
    scratch = _code("print(causal_mask(3))\n")
    released["cells"].append(scratch)
    text = "".join(code for _, code in notebook_chunks(json.dumps(released).encode(), notebook))
    assert "public_checks" not in text and "importlib" not in text and "pronoun_task" not in text
    assert "import torch" in text and "def causal_mask" in text and "def plot_attention" in text
    assert "print(causal_mask(3))" not in text  # qa10n: the cells that write the tasks are the answers; a scratch cell is not run, as beside tagged ones


def _with_outputs(size: int) -> bytes:
    """A notebook whose answer is one line of code and whose outputs (a picture) take `size` bytes."""
    picture = {"output_type": "display_data", "metadata": {}, "data": {"image/png": "A" * size}}
    return _notebook([{**_code("def f():\n    return 1\n", ["attnkit:answer"]), "outputs": [picture]}])


def test_a_notebook_large_with_its_outputs_is_read_the_same_from_a_file_a_folder_and_a_zip(tmp_path):
    """QA qa3p n25: a 3.6 MB notebook (pictures left in its outputs) got 0/100 as a file ('over the
    2 MiB limit') and 100/100 in a folder (Gradescope's, PrairieLearn's): outputs are not graded."""
    data = _with_outputs(3 << 20)
    (tmp_path / "sub").mkdir()
    for path in (tmp_path / "ada.ipynb", tmp_path / "sub" / "attention.ipynb"):
        path.write_bytes(data)
    with zipfile.ZipFile(tmp_path / "ada.zip", "w") as archive:
        archive.writestr("attention.ipynb", data)
    for path in (tmp_path / "ada.ipynb", tmp_path / "sub", tmp_path / "ada.zip"):
        assert [code for _, code in load_submission(path).chunks] == ["def f():\n    return 1\n"], path


def test_a_notebook_over_the_limit_says_to_clear_its_outputs_as_a_file_or_in_a_folder(tmp_path):
    """QA qa3p n13: in Gradescope's and PrairieLearn's folder it was 'more than 200 files or 8 MiB of code'."""
    (tmp_path / "sub").mkdir()
    for path in (tmp_path / "huge.ipynb", tmp_path / "sub" / "attention.ipynb"):
        path.write_bytes(_with_outputs(9 << 20))
    for path in (tmp_path / "huge.ipynb", tmp_path / "sub"):
        with pytest.raises(SubmissionError, match=r"over the 8 MiB limit of a notebook: its outputs .* Clear them"):
            load_submission(path)


@pytest.mark.timing
def test_a_slow_statement_at_the_top_of_a_py_file_is_stopped_alone(grade):
    """A demo loop left at the top level of a .py file, between two tasks, used to time out the
    whole import: every check scored 0. Now that statement alone is stopped at its share of the
    import limit and the statements after it run (with the file's `from __future__` flags), as a
    notebook's cells do, and a note says where it stopped and what to do."""
    from autograder.feedback.i18n import t
    from autograder.grading.worker.client import Budget
    from tests.conftest import REFERENCE

    demo = ("_end = time.monotonic() + 60\n"
            "while time.monotonic() < _end:  # a demo left at the top level\n"
            "    pass\n\n\n"
            "def later(x: NotDefinedAnywhere) -> None:  # evaluated without the __future__ flag: NameError\n"
            "    pass\n\n\n")
    text = REFERENCE.read_text(encoding="utf-8")
    text = "from __future__ import annotations\nimport time\n" + text.replace("class SelfAttention(", demo + "class SelfAttention(", 1)
    result = grade(text, name="slow_demo", parts={"A", "B"}, budget=Budget(call_seconds=5, import_seconds=6, total_seconds=120))
    assert result.score == result.max_score, [(c.name, c.message) for c in result.checks if c.points < c.max_points]
    note = t("note.statement_time_limit", seconds="3", frame="slow_demo.py:")
    assert any(e.startswith(note.split("(")[0]) and "while time.monotonic() < _end" in e for e in result.events), result.events
    assert not any("NameError" in e or "not defined" in e for e in result.events), result.events
    from autograder.feedback.formats.view import translate_note
    said = next(e for e in result.events if "while time.monotonic() < _end" in e)
    assert "顶层语句" in (translate_note(said, "zh") or ""), said


def test_a_users_own_pytest_settings_do_not_reach_the_checks(grade, monkeypatch):
    """PYTEST_ADDOPTS=-v (needs the terminal plugin the checks leave out) or -x stopped every run
    of the checks: "the hidden checks could not run". The grader sets the user's settings aside."""
    from tests.conftest import REFERENCE

    monkeypatch.setenv("PYTEST_ADDOPTS", "-v -x")
    result = grade(REFERENCE.read_text(encoding="utf-8"), name="addopts", parts={"A"})
    assert not result.grader_error, result.grader_error
    assert [(p.part, p.score) for p in result.parts] == [("A", 32.0)]
    assert os.environ["PYTEST_ADDOPTS"] == "-v -x"  # given back


def test_a_task_written_in_a_new_cell_below_its_check_cell_is_named_in_a_note(tmp_path):
    """qa21p: attention_scores written in a new cell below the A.1 check cell was not run (a task
    is graded as its check cell saw it) and the stub's "not implemented yet" was all it was told."""
    notebook = json.loads((REPO / "assignments" / "attention" / "attention.ipynb").read_text(encoding="utf-8"))
    check = next(i for i, cell in enumerate(notebook["cells"]) if cell["cell_type"] == "code" and "check_attention_scores" in "".join(cell["source"]))
    notebook["cells"].insert(check + 1, _code("import math\n\ndef attention_scores(q, k):\n    return q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])\n"))
    path = tmp_path / "attention.ipynb"
    path.write_text(json.dumps(notebook), encoding="utf-8")
    notes = load_submission(path).notes
    assert any(f"cell {check + 2} defines attention_scores again, after the check of that task (cell {check + 1})" in note for note in notes), notes
