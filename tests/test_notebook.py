"""The notebooks built from solutions/attention/notebook.md and the reference solution."""
from __future__ import annotations

import re
import shutil
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from autograder.errors import AttnkitError
from autograder.authoring.notebook import (
    ANSWER_TAG,
    SETUP_TAG,
    build_nbgrader_source,
    build_notebook,
    build_student_notebooks,
    notebook_name,
    parse_source,
    student_notebooks,
)
from autograder.authoring.nbgrader_course import public_helpers
from autograder.grading.inprocess import part_points
from autograder.authoring.stubs import BEGIN, END, solution_blocks, solution_lines
from autograder.paths import RELEASE_DIR, SOLUTION_DIR

SOLUTION = SOLUTION_DIR / "attention.py"
NOTEBOOK_NAME = notebook_name()  # attention.ipynb
STUDENT_NOTEBOOKS = student_notebooks()
PUBLIC_HELPERS = public_helpers()
PARTS = ("A", "B", "C", "D", "E", "F")


def _task_names() -> list[str]:
    """The functions and classes that hold solution blocks, in file order."""
    return list(dict.fromkeys(b.where.split(".")[0] for b in solution_blocks(SOLUTION.read_text(encoding="utf-8"))))


def _code(nb: nbformat.NotebookNode) -> list[nbformat.NotebookNode]:
    return [c for c in nb.cells if c.cell_type == "code"]


def _execute(nb: nbformat.NotebookNode, folder: Path) -> nbformat.NotebookNode:
    """Run nb in folder (with the public helper files next to it), errors kept as outputs."""
    for name in PUBLIC_HELPERS:
        shutil.copyfile(SOLUTION_DIR / name, folder / name)
    client = NotebookClient(
        nb, timeout=120, kernel_name="python3", allow_errors=True, resources={"metadata": {"path": str(folder)}}
    )
    client.execute()
    return nb


def _errors(cell: nbformat.NotebookNode) -> list[nbformat.NotebookNode]:
    return [o for o in cell.outputs if o.output_type == "error"]


def _stdout(cell: nbformat.NotebookNode) -> str:
    return "".join(o.text for o in cell.outputs if o.output_type == "stream" and o.name == "stdout")


@pytest.fixture(scope="module")
def reference_run(tmp_path_factory) -> nbformat.NotebookNode:
    nb = build_notebook(SOLUTION_DIR, nbgrader=False, keep_solution=True)
    return _execute(nb, tmp_path_factory.mktemp("reference"))


@pytest.fixture(scope="module")
def blank_run(tmp_path_factory) -> nbformat.NotebookNode:
    nb = nbformat.read(RELEASE_DIR / NOTEBOOK_NAME, as_version=4)
    return _execute(nb, tmp_path_factory.mktemp("blank"))


def test_checked_in_notebooks_equal_a_fresh_build(tmp_path):
    fresh = build_student_notebooks(SOLUTION_DIR, tmp_path)
    assert sorted(p.name for p in fresh) == sorted(STUDENT_NOTEBOOKS.values())
    for path in fresh:
        checked_in = RELEASE_DIR / path.name
        assert checked_in.is_file(), f"assignments/attention/{path.name} is missing: run `attnkit release`"
        assert checked_in.read_text(encoding="utf-8") == path.read_text(encoding="utf-8"), (
            f"assignments/attention/{path.name} is stale: run `attnkit release`"
        )


def test_two_builds_give_the_same_bytes(tmp_path):
    first = build_student_notebooks(SOLUTION_DIR, tmp_path / "one")
    second = build_student_notebooks(SOLUTION_DIR, tmp_path / "two")
    assert [p.read_bytes() for p in first] == [p.read_bytes() for p in second]


def _code_without_prose(source: str) -> list[tuple[int, str]]:
    """The tokens of Python source without its prose (comments, strings) and without lang="zh"."""
    import io
    import tokenize

    source = source.replace(', lang="zh")', ")")
    prose = {tokenize.COMMENT, tokenize.STRING, tokenize.NL, tokenize.NEWLINE}
    prose |= {getattr(tokenize, n) for n in ("FSTRING_START", "FSTRING_MIDDLE", "FSTRING_END") if hasattr(tokenize, n)}
    return [(t.type, t.string) for t in tokenize.generate_tokens(io.StringIO(source).readline) if t.type not in prose]


def test_chinese_notebook_has_the_same_cells_and_code_as_the_english_one():
    english = build_notebook(SOLUTION_DIR, nbgrader=False, keep_solution=False)
    chinese = build_notebook(SOLUTION_DIR, nbgrader=False, keep_solution=False, source="notebook.zh.md")
    assert [(c.id, c.cell_type) for c in chinese.cells] == [(c.id, c.cell_type) for c in english.cells]
    for zh, en in zip(_code(chinese), _code(english)):
        assert _code_without_prose(zh.source) == _code_without_prose(en.source), zh.id
    prose = [c for c in chinese.cells if c.cell_type == "markdown"]
    assert all(re.search(r"[\u4e00-\u9fff]", c.source) for c in prose if c.id != "the-end" and not c.id.startswith("answer-"))
    assert "横轴 = Query 位置" in chinese.cells[[c.id for c in chinese.cells].index("part-e")].source


@pytest.mark.parametrize("name", sorted(STUDENT_NOTEBOOKS.values()))
def test_student_notebook_contains_no_solution_line(name):
    secret = solution_lines(SOLUTION.read_text(encoding="utf-8"))
    nb = nbformat.read(RELEASE_DIR / name, as_version=4)
    shown = {line.strip() for cell in nb.cells for line in cell.source.splitlines()}
    assert secret, "the reference solution has no solution lines: the check below would prove nothing"
    assert not secret & shown
    assert not any(BEGIN in cell.source or END in cell.source for cell in nb.cells)


def test_every_task_has_a_stub_cell_followed_by_its_check_cell():
    nb = build_notebook(SOLUTION_DIR, nbgrader=False, keep_solution=False)
    ids = [c.id for c in nb.cells]
    for name in _task_names():
        assert f"task-{name}" in ids, f"notebook.md has no task cell for {name}"
        task = ids.index(f"task-{name}")
        check = nb.cells[task + 1]
        assert check.id == f"check-{name}" and "public_checks.check_" in check.source
        assert "is not implemented yet" in nb.cells[task].source
        assert ANSWER_TAG in nb.cells[task].metadata["tags"]


def test_the_setup_cell_holds_the_imports_of_the_solution_file():
    nb = build_notebook(SOLUTION_DIR, nbgrader=False, keep_solution=False)
    [setup] = [c for c in nb.cells if SETUP_TAG in c.metadata.get("tags", [])]
    imports = [line for line in SOLUTION.read_text(encoding="utf-8").splitlines() if re.match(r"(import|from) ", line)]
    assert imports and all(line in setup.source.splitlines() for line in imports)


def test_notebook_teaches_in_the_order_of_the_course_text():
    text = (SOLUTION_DIR / "notebook.md").read_text(encoding="utf-8")
    headings = "\n".join(line for line in text.splitlines() if line.startswith("#"))
    topics = ["Query, key and value", "weighted sum", "any distance", "multi-head", "attention block",
              "visualising", "what does a trained model attend to"]
    where = [headings.find(topic) for topic in topics]
    assert -1 not in where, dict(zip(topics, where))
    assert where == sorted(where)
    for term in ("查询", "键", "值", "加权求和", "长程依赖", "多头注意力", "残差连接", "热力图", "代词", "先行词", "主语", "停用词"):
        assert term in text, term
    assert "horizontal axis (横轴) = query positions" in text and "vertical axis (纵轴) = key positions" in text


@pytest.mark.slow  # runs the whole notebook in a Jupyter kernel (about 15 s)
def test_reference_notebook_runs_and_passes_every_check(reference_run):
    failing = {c.id: _errors(c)[0].evalue for c in _code(reference_run) if _errors(c)}
    assert not failing
    for name in _task_names():
        [check] = [c for c in reference_run.cells if c.id == f"check-{name}"]
        assert "passed" in _stdout(check), (name, _stdout(check))
    [train] = [c for c in reference_run.cells if c.id == "part-f-train"]
    assert "pronoun accuracy 100%" in _stdout(train)
    [plot] = [c for c in reference_run.cells if c.id == "part-f-plot"]
    assert any(o.output_type == "display_data" and "image/png" in o.data for o in plot.outputs)
    [source] = [c for c in reference_run.cells if c.id == "part-f-source"]
    assert _stdout(source).count("from this notebook") == 2
    [unseen] = [c for c in reference_run.cells if c.id == "part-f-unseen"]
    assert any(o.output_type == "display_data" and "image/png" in o.data for o in unseen.outputs)
    assert "the model says the pronoun is" in _stdout(unseen)


@pytest.mark.slow  # runs the whole notebook in a Jupyter kernel (about 15 s)
def test_part_f_takes_the_code_from_attention_py_when_the_student_worked_there(tmp_path):
    # the blank notebook, with the student's finished attention.py next to it
    nb = nbformat.read(RELEASE_DIR / NOTEBOOK_NAME, as_version=4)
    shutil.copyfile(SOLUTION, tmp_path / "attention.py")
    run = _execute(nb, tmp_path)
    cells = {c.id: c for c in run.cells}
    assert _stdout(cells["part-f-source"]).count("from attention.py") == 2
    for name in ("part-f-source", "part-f-train", "part-f-plot", "part-f-unseen"):
        assert not _errors(cells[name]), (name, _errors(cells[name]))
    assert "pronoun accuracy 100%" in _stdout(cells["part-f-train"])


@pytest.mark.slow  # runs Part F in a Jupyter kernel (about 10 s)
def test_part_f_runs_on_its_own_when_the_student_worked_in_attention_py(tmp_path):
    """qa31p F2: with the code in attention.py, Run All stops at the first check cell (the task
    cells are stubs); the README says to run the two code cells at the top, then Part F from its
    heading down. The task cells never ran there, so the stubs' names are not even defined."""
    nb = nbformat.read(RELEASE_DIR / NOTEBOOK_NAME, as_version=4)
    start = next(i for i, c in enumerate(nb.cells) if c.id == "part-f")
    nb.cells = [c for c in nb.cells if c.id in ("setup", "helpers")] + nb.cells[start:]
    shutil.copyfile(SOLUTION, tmp_path / "attention.py")
    run = _execute(nb, tmp_path)
    cells = {c.id: c for c in run.cells}
    assert _stdout(cells["part-f-source"]).count("from attention.py") == 2
    for name in ("part-f-source", "part-f-train", "part-f-plot", "part-f-unseen"):
        assert not _errors(cells[name]), (name, _errors(cells[name]))
    said = "".join(o.text for c in run.cells for o in c.get("outputs", []) if o.output_type == "stream")
    assert "pronoun accuracy 100%" in said and "findfont" not in said  # the CJK font's one weight is not reported (qa31p F10)


@pytest.mark.slow  # runs the whole notebook in a Jupyter kernel (about 10 s)
def test_blank_notebook_fails_every_check_with_not_implemented_yet(blank_run):
    for name in _task_names():
        [check] = [c for c in blank_run.cells if c.id == f"check-{name}"]
        [error] = _errors(check)
        assert error.ename == "NotImplementedYet", (name, error.ename, error.evalue)
        assert "is not implemented yet" in error.evalue
        assert error.traceback == [f"NotImplementedYet: {error.evalue}"], error.traceback  # the message, not public_checks.py's source (qa21p)


def test_nbgrader_source_marks_solutions_hidden_tests_points_and_locks():
    from nbgrader.nbgraderformat import MetadataValidator

    points = {"A": 4.0, "B": 2.5, "C": 3.0, "D": 2.0, "E": 0.0, "F": 1.5}
    nb = build_notebook(SOLUTION_DIR, nbgrader=True, keep_solution=True, points=points.__getitem__)
    MetadataValidator().validate_nb(nb)
    meta = {c.id: c.metadata.get("nbgrader", {}) for c in nb.cells}
    for name in _task_names():
        cell = next(c for c in nb.cells if c.id == f"task-{name}")
        assert meta[cell.id]["solution"] and not meta[cell.id]["locked"]
        assert BEGIN in cell.source and END in cell.source
        assert meta[f"check-{name}"]["locked"] and not meta[f"check-{name}"]["grade"]
    grades = {c.id: c for c in nb.cells if meta[c.id].get("grade")}
    assert sorted(grades) == [f"grade-{p}" for p in PARTS if points[p] > 0]  # no cell for a 0-point part
    for grade_id, cell in grades.items():
        part = grade_id[-1]
        assert meta[grade_id]["points"] == points[part] and meta[grade_id]["locked"]
        assert "### BEGIN HIDDEN TESTS" in cell.source and f'_grade_part("{part}", globals())' in cell.source
        visible = cell.source.split("### BEGIN HIDDEN TESTS")[0]
        assert "grade_part" not in visible and "raise" not in visible and "assert" not in visible
    prose = [c for c in nb.cells if c.cell_type == "markdown" and c.id.startswith(("title", "part-"))]
    assert prose and all(meta[c.id]["locked"] for c in prose)


def test_nbgrader_source_points_default_to_attnkit_part_points(tmp_path):

    path = build_nbgrader_source(SOLUTION_DIR, tmp_path / NOTEBOOK_NAME, part_points)
    nb = nbformat.read(path, as_version=4)
    got = {c.id[-1]: c.metadata["nbgrader"]["points"] for c in nb.cells if c.id.startswith("grade-")}
    assert got == {part: part_points(part) for part in PARTS if part_points(part) > 0}


def test_unknown_cell_kind_is_reported_with_its_line():
    with pytest.raises(AttnkitError, match=r"nb\.md:3: unknown cell kind 'picture'"):
        parse_source("intro\n\n<!-- cell: picture id=x -->\n", "nb.md")


def test_duplicate_cell_ids_are_refused():
    with pytest.raises(AttnkitError, match="not unique"):
        parse_source("<!-- cell: markdown id=a -->\nx\n<!-- cell: markdown id=a -->\ny\n", "nb.md")


def test_a_task_cell_naming_no_function_of_the_solution_is_refused(tmp_path):
    shutil.copyfile(SOLUTION, tmp_path / "attention.py")
    (tmp_path / "notebook.md").write_text("<!-- cell: task attention_weights -->\n", encoding="utf-8")
    with pytest.raises(AttnkitError, match="defines no function or class 'attention_weights'"):
        build_notebook(tmp_path, nbgrader=False, keep_solution=False)


def test_each_notebook_says_what_its_check_cells_print():
    """The zh notebook said check cells print "Task X.Y ... passed"; they print in Chinese."""
    source = (SOLUTION_DIR / "public_checks.py").read_text(encoding="utf-8")
    assert 'f"任务 {self.id}（{self.name}）通过" if self.lang == "zh" else f"Task {self.id} ({self.name}) passed"' in source
    said = {"attention.ipynb": "prints `Task X.Y (name) passed`", "attention.zh.ipynb": "通过时打印 `任务 X.Y（函数名或类名）通过`"}
    for name in STUDENT_NOTEBOOKS.values():
        text = (RELEASE_DIR / name).read_text(encoding="utf-8")
        assert said[name] in text, name
    assert "passed" not in (RELEASE_DIR / "attention.zh.ipynb").read_text(encoding="utf-8")  # nor its check cells' comments (qa31p F5)
