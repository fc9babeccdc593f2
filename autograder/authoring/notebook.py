"""Build the assignment notebooks from the single source: notebook.md + the reference solution.

solutions/<name>/notebook.md holds the prose and the order of the cells. Each cell starts with a
directive line; what follows it, up to the next directive, is the cell's text:

    <!-- cell: markdown id=NAME -->         prose (a ```python fence inside stays prose)
    <!-- cell: code id=NAME [locked] -->    a code cell; its code is the ```python fence below
    <!-- cell: imports id=NAME -->          the solution file's own import lines (+ a fence, if any)
    <!-- cell: task NAME -->                the function or class NAME of the solution file
    <!-- cell: check NAME -->               public_checks.check_<name>(NAME), a friendly check
    <!-- cell: grade PART -->               nbgrader only: the autograded cell of a part
    <!-- cell: answer ID -->                a markdown cell the student writes an answer in

Two notebooks come out of it:
  - the student notebook (build_student_notebooks): task cells are stubs, exactly what
    autograder.authoring.stubs.stub_source makes of the solution file, never a solution line;
  - the nbgrader source notebook (build_nbgrader_source): task cells keep the reference code
    between ### BEGIN SOLUTION / ### END SOLUTION (nbgrader strips it), and every part ends with
    a locked, autograded cell whose hidden test runs attnkit's own checks of that part.
`locked` cells are read-only in nbgrader. Cell ids come from the directives (id=NAME, or the
kind and argument: task-masked_softmax), so the same source always gives the same bytes.
"""
from __future__ import annotations

import ast
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

import nbformat

from autograder.assignment import current
from autograder.errors import AttnkitError
from autograder.authoring.stubs import BEGIN, TASK_RE, stub_source

NOTEBOOK_SOURCE = "notebook.md"
# Notebook sources in the solution folder, by language. The Chinese notebook has the same cells and
# code; its prose, comments, docstrings, check messages and answer prompts are Chinese. Its code
# comes from the solution file's text in that language (x.zh.py: Manifest.in_language).
NOTEBOOK_SOURCES = {"en": NOTEBOOK_SOURCE, "zh": "notebook.zh.md"}
NOTEBOOK_LANGS = {source: lang for lang, source in NOTEBOOK_SOURCES.items()}
KINDS = ("markdown", "code", "imports", "task", "check", "grade", "answer")
DIRECTIVE_RE = re.compile(r"^<!-- cell: (?P<body>[^>]*?) -->\s*$")
ID_RE = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
ANSWER_PLACEHOLDERS = {"en": "YOUR ANSWER HERE", "zh": "在这里写下你的回答"}
KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}
NBGRADER_SCHEMA = 3
SETUP_TAG, ANSWER_TAG = "attnkit:setup", "attnkit:answer"


def notebook_name(lang: str = "en") -> str:
    """The current assignment's student notebook in `lang` (x.ipynb, x.zh.ipynb for student file x.py)."""
    return current().notebook_name(lang)


def student_notebooks() -> dict[str, str]:
    """Student notebooks: source in the solution folder -> the notebook made of it."""
    return {source: notebook_name(lang) for lang, source in NOTEBOOK_SOURCES.items()}


def solution_texts() -> dict[str, str]:
    """The solution file's texts in the solution folder, by language: the same code in each language's words."""
    return {lang: current().in_language(current().student_file, lang) for lang in NOTEBOOK_SOURCES}


@dataclass(frozen=True)
class CellSpec:
    """One cell of notebook.md: its kind, argument (task name, part...), options and text."""

    kind: str
    arg: str
    cell_id: str
    locked: bool
    text: str
    line: int


def _fence(text: str, where: str) -> str:
    """The code inside the one ```python fence of a code cell's text."""
    match = re.search(r"^```python\n(.*?)^```\s*$", text, re.S | re.M)
    if match is None:
        raise AttnkitError(f"{where}: a code cell needs its code in a ```python fence")
    return match.group(1).rstrip("\n")


def parse_source(text: str, filename: str = NOTEBOOK_SOURCE) -> list[CellSpec]:
    """Split notebook.md into cell specs. Text before the first directive is a comment."""
    cells: list[CellSpec] = []
    current: tuple[str, str, str, bool, int] | None = None
    body: list[str] = []
    seen: set[str] = set()

    def close() -> None:
        if current is not None:
            kind, arg, cell_id, locked, line = current
            cells.append(CellSpec(kind, arg, cell_id, locked, "\n".join(body).strip("\n"), line))

    for number, line in enumerate(text.splitlines(), start=1):
        match = DIRECTIVE_RE.match(line)
        if match is None:
            body.append(line)
            continue
        close()
        body = []
        where = f"{filename}:{number}"
        words = match.group("body").split()
        kind, rest = (words[0], words[1:]) if words else ("", [])
        if kind not in KINDS:
            raise AttnkitError(f"{where}: unknown cell kind {kind!r}; use one of {', '.join(KINDS)}")
        options = dict(word.split("=", 1) for word in rest if "=" in word)
        args = [word for word in rest if "=" not in word and word != "locked"]
        if len(args) > 1:
            raise AttnkitError(f"{where}: a cell directive takes at most one argument, got {args}")
        arg = args[0] if args else ""
        if kind in ("task", "check", "grade", "answer") and not arg:
            raise AttnkitError(f"{where}: a {kind} cell needs an argument, e.g. '<!-- cell: {kind} X -->'")
        cell_id = options.get("id") or (f"{kind}-{arg}".replace(".", "-") if arg else "")
        if not cell_id:
            raise AttnkitError(f"{where}: a {kind} cell needs an id: '<!-- cell: {kind} id=NAME -->'")
        if not ID_RE.match(cell_id) or cell_id in seen:
            raise AttnkitError(f"{where}: cell id {cell_id!r} is not unique or not [a-zA-Z0-9_-]")
        seen.add(cell_id)
        current = (kind, arg, cell_id, "locked" in rest, number)
    close()
    if not cells:
        raise AttnkitError(f"{filename}: no '<!-- cell: ... -->' directive found")
    return cells


@dataclass(frozen=True)
class SolutionFile:
    """The pieces of the reference solution that the notebook cells are cut from."""

    source: str
    imports: str
    definitions: Mapping[str, tuple[int, int]]  # name -> (first line, last line), 1-based
    tasks: Mapping[str, str]  # name -> "A.1"

    @classmethod
    def read(cls, path: Path) -> SolutionFile:
        if not path.is_file():
            raise AttnkitError(f"no solution file at {path}")
        source = path.read_text(encoding="utf-8")
        tree = ast.parse(source, str(path))
        lines = source.splitlines()
        imports = [
            "\n".join(lines[node.lineno - 1 : node.end_lineno])
            for node in tree.body
            if isinstance(node, (ast.Import, ast.ImportFrom)) and not _is_future(node)
        ]
        definitions: dict[str, tuple[int, int]] = {}
        tasks: dict[str, str] = {}
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
                definitions[node.name] = (first, _extend(lines, node.end_lineno or node.lineno))
                match = TASK_RE.search(ast.get_docstring(node) or "")
                tasks[node.name] = match.group(1) if match else ""
        return cls(source, "\n".join(imports), definitions, tasks)

    def definition(self, name: str, where: str) -> str:
        if name not in self.definitions:
            raise AttnkitError(
                f"{where}: the solution file defines no function or class {name!r}; "
                f"it has {', '.join(self.definitions)}"
            )
        first, last = self.definitions[name]
        return "\n".join(self.source.splitlines()[first - 1 : last])


def _extend(lines: list[str], last: int) -> int:
    """Move a definition's last line past the indented comments that close it (### END SOLUTION),
    which the syntax tree does not count as part of the definition."""
    while last < len(lines) and lines[last].startswith((" ", "\t")) and lines[last].strip():
        last += 1
    return last


def _is_future(node: ast.AST) -> bool:
    return isinstance(node, ast.ImportFrom) and node.module == "__future__"


def check_name(name: str) -> str:
    """SelfAttention -> check_self_attention, masked_softmax -> check_masked_softmax."""
    return "check_" + re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


CHECK_COMMENTS = {
    "en": '# Check Task {task}: prints "Task {task} ({name}) passed", or says what to fix.',
    "zh": "# 检查任务 {task}：通过时打印“任务 {task}（{name}）通过”，否则告诉你要改什么。",
}


def _check_code(name: str, task: str, lang: str = "en") -> str:
    language = "" if lang == "en" else f', lang="{lang}"'
    return CHECK_COMMENTS[lang].format(task=task, name=name) + f"\npublic_checks.{check_name(name)}({name}{language})"


def _grade_code(part: str, points: float) -> str:
    """The autograded cell of a part. The visible line never raises, so nbgrader's grade of the
    cell is the number the hidden test leaves as the cell's value: attnkit's score of the part."""
    return "\n".join(
        [
            f"# Autograded test of Part {part} ({points:g} point{'s' if points != 1 else ''}). When your"
            " notebook is graded,",
            "# attnkit's own checks of this part run here: the same checks as `attnkit grade`.",
            f'print("Part {part} is graded here when your instructor autogrades this notebook.")',
            "### BEGIN HIDDEN TESTS",
            "import contextlib as _contextlib, io as _io, warnings as _warnings",
            "from autograder.grading.inprocess import grade_part as _grade_part",
            "with _contextlib.redirect_stderr(_io.StringIO()), _warnings.catch_warnings():",
            '    _warnings.simplefilter("ignore")  # any stderr output would make nbgrader give 0',
            f'    _score = float(_grade_part("{part}", globals()))',
            'import matplotlib.pyplot as _plt',
            '_plt.close("all")',
            "_score",
            "### END HIDDEN TESTS",
        ]
    )


def _nbgrader(cell_id: str, *, solution: bool = False, grade: bool = False, locked: bool = False,
              points: float | None = None) -> dict:
    meta = {
        "grade": grade,
        "grade_id": cell_id,
        "locked": locked,
        "schema_version": NBGRADER_SCHEMA,
        "solution": solution,
    }
    if points is not None:
        meta["points"] = points
    return meta


def _cell(kind: str, cell_id: str, source: str, tag: str = "", nbgrader: dict | None = None):
    """A cell with a stable id. tag: attnkit:setup / attnkit:answer mark the cells that
    `attnkit grade` takes from a notebook (autograder.grading.submission.ANSWER_TAGS)."""
    meta: dict = {"tags": [tag]} if tag else {}
    if nbgrader is not None:
        meta["nbgrader"] = nbgrader
    if kind == "markdown":
        cell = nbformat.v4.new_markdown_cell(source, metadata=meta)
    else:
        cell = nbformat.v4.new_code_cell(source, metadata=meta)
    cell["id"] = cell_id
    return cell


def _task_source(solution: SolutionFile, spec: CellSpec, keep_solution: bool, where: str, lang: str = "en") -> str:
    code = solution.definition(spec.arg, where)
    if BEGIN not in code:
        raise AttnkitError(f"{where}: {spec.arg} has no {BEGIN} block, so it is no task for students")
    if keep_solution:
        return code
    return stub_source(code, where, lang).rstrip("\n")


def build_notebook(
    solution_dir: Path,
    *,
    nbgrader: bool,
    keep_solution: bool,
    points: Callable[[str], float] | None = None,
    source: str = NOTEBOOK_SOURCE,
) -> nbformat.NotebookNode:
    """The notebook of solution_dir as a NotebookNode.

    nbgrader=False: the student notebook (stubs when keep_solution is False; keep_solution=True
    gives the reference-filled variant the tests execute). nbgrader=True: the nbgrader source,
    whose grade cells carry points(part) points.
    """
    md_path = solution_dir / source
    if not md_path.is_file():
        raise AttnkitError(f"no notebook source at {md_path}")
    specs = parse_source(md_path.read_text(encoding="utf-8"), str(md_path))
    lang = NOTEBOOK_LANGS.get(source, "en")
    solution = SolutionFile.read(solution_dir / solution_texts()[lang])
    if nbgrader and points is None:
        raise AttnkitError("the nbgrader notebook needs the points of each part")
    cells = []
    for spec in specs:
        where = f"{md_path}:{spec.line}"
        readonly = _nbgrader(spec.cell_id, locked=True) if nbgrader else None
        if spec.kind == "markdown":
            cells.append(_cell("markdown", spec.cell_id, spec.text, nbgrader=readonly))
        elif spec.kind == "code":
            meta = readonly if spec.locked else None
            cells.append(_cell("code", spec.cell_id, _fence(spec.text, where), nbgrader=meta))
        elif spec.kind == "imports":
            code = solution.imports + ("\n\n" + _fence(spec.text, where) if spec.text else "")
            cells.append(_cell("code", spec.cell_id, code, SETUP_TAG, nbgrader=readonly))
        elif spec.kind == "task":
            code = _task_source(solution, spec, keep_solution or nbgrader, where, lang)
            meta = _nbgrader(spec.cell_id, solution=True) if nbgrader else None
            cells.append(_cell("code", spec.cell_id, code, ANSWER_TAG, nbgrader=meta))
        elif spec.kind == "check":
            task = solution.tasks.get(spec.arg, "")
            if not task:
                raise AttnkitError(f"{where}: {spec.arg} is no task of the solution file")
            cells.append(_cell("code", spec.cell_id, _check_code(spec.arg, task, lang), nbgrader=readonly))
        elif spec.kind == "grade":
            if not nbgrader:
                continue
            part_points = float(points(spec.arg))
            if part_points <= 0:
                continue
            meta = _nbgrader(spec.cell_id, grade=True, locked=True, points=part_points)
            cells.append(_cell("code", spec.cell_id, _grade_code(spec.arg, part_points), nbgrader=meta))
        elif spec.kind == "answer":
            text = spec.text or ANSWER_PLACEHOLDERS[lang]
            cells.append(_cell("markdown", spec.cell_id, text))
    notebook = nbformat.v4.new_notebook(cells=cells)
    notebook.metadata = {
        "kernelspec": dict(KERNELSPEC),
        "language_info": {"name": "python"},
    }
    nbformat.validate(notebook)
    return notebook


def write_notebook(notebook: nbformat.NotebookNode, path: Path) -> Path:
    """Write a notebook atomically, with a trailing newline (stable bytes)."""
    from autograder.feedback.results import write_atomic

    write_atomic(path, nbformat.writes(notebook) + "\n")
    return path


def build_student_notebooks(solution_dir: Path, release_dir: Path) -> list[Path]:
    """Write the student notebooks (English, Chinese) into the release folder; returns them."""
    written = []
    for source, name in student_notebooks().items():
        if (solution_dir / source).is_file():
            notebook = build_notebook(solution_dir, nbgrader=False, keep_solution=False, source=source)
            written.append(write_notebook(notebook, release_dir / name))
    return written


def build_nbgrader_source(solution_dir: Path, target: Path, points: Callable[[str], float]) -> Path:
    """Write the nbgrader source notebook (solutions and hidden tests inside) to target.

    points(part) gives each part's points: nbgrader_course passes attnkit's own
    (autograder.grading.inprocess.part_points), so both grading paths have the same totals.
    """
    notebook = build_notebook(solution_dir, nbgrader=True, keep_solution=True, points=points)
    return write_notebook(notebook, target)
