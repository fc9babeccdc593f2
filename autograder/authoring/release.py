"""Generate the student release from the reference solution (the single source of truth).

solutions/<name>/ holds the reference. Every .py file in it with solution markers is written to
assignments/<name>/ with each marked block replaced by a stub that raises NotImplementedError
naming its task; every other file is copied as it is. The notebook is built from the same source.
"""
from __future__ import annotations

import ast
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

from autograder.errors import AttnkitError
from autograder.paths import ASSIGNMENT, REPO_ROOT

BEGIN = "### BEGIN SOLUTION"
END = "### END SOLUTION"
TASK_RE = re.compile(r"Task ([A-Z]\.\d+)")
# Files of the solution folder that never go to students.
# attention.zh.py: the Chinese text of the solution (same code), the source of the Chinese notebook.
PRIVATE = {"__pycache__", "notebook.md", "notebook.zh.md", "attention.zh.py"}  # students get the notebooks
STUB_TEXT = {  # the two lines of a stub, by language
    "en": ("# TODO: Implement for Task {task}.", "Task {task}: {where} is not implemented yet"),
    "zh": ("# TODO：在这里完成任务 {task}。", "Task {task}: {where} 还没有实现"),
}


@dataclass(frozen=True)
class SolutionBlock:
    """One marked block: lines [begin, end] (1-based, marker lines included)."""

    begin: int
    end: int
    indent: str
    task: str
    where: str


def _owner_docstrings(tree: ast.Module) -> list[tuple[ast.FunctionDef, str, str]]:
    """(function node, qualified name, task id) for every function, methods included."""
    found: list[tuple[ast.FunctionDef, str, str]] = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            found.append((node, node.name, _task_of(node)))
        elif isinstance(node, ast.ClassDef):
            class_task = _task_of(node)
            for item in node.body:
                if isinstance(item, ast.FunctionDef):
                    found.append((item, f"{node.name}.{item.name}", _task_of(item) or class_task))
    return found


def _task_of(node: ast.FunctionDef | ast.ClassDef) -> str:
    match = TASK_RE.search(ast.get_docstring(node) or "")
    return match.group(1) if match else ""


def solution_blocks(source: str, filename: str = "<solution>") -> list[SolutionBlock]:
    """Find the marked blocks of a solution file and the task each belongs to."""
    lines = source.splitlines()
    owners = _owner_docstrings(ast.parse(source, filename))
    blocks: list[SolutionBlock] = []
    begin = None
    for number, line in enumerate(lines, start=1):
        if line.strip() == BEGIN:
            if begin is not None:
                raise AttnkitError(f"{filename}:{number}: {BEGIN} inside another solution block")
            begin = number
        elif line.strip() == END:
            if begin is None:
                raise AttnkitError(f"{filename}:{number}: {END} without a {BEGIN} before it")
            owner = [(name, task) for node, name, task in owners if node.lineno <= begin <= (node.end_lineno or node.lineno)]
            if not owner or not owner[-1][1]:
                raise AttnkitError(
                    f"{filename}:{begin}: a solution block outside a function whose docstring"
                    " names its task ('Task A.1: ...')"
                )
            indent = lines[begin - 1][: len(lines[begin - 1]) - len(lines[begin - 1].lstrip())]
            blocks.append(SolutionBlock(begin, number, indent, owner[-1][1], owner[-1][0]))
            begin = None
    if begin is not None:
        raise AttnkitError(f"{filename}:{begin}: {BEGIN} is never closed by {END}")
    return blocks


def stub_source(source: str, filename: str = "<solution>", lang: str = "en") -> str:
    """The student version of a solution file: every marked block becomes a stub."""
    todo, raised = STUB_TEXT[lang]
    lines = source.splitlines()
    out: list[str] = []
    cursor = 1
    for block in solution_blocks(source, filename):
        out.extend(lines[cursor - 1 : block.begin - 1])
        out.append(block.indent + todo.format(task=block.task))
        out.append(f'{block.indent}raise NotImplementedError("{raised.format(task=block.task, where=block.where)}")')
        cursor = block.end + 1
    out.extend(lines[cursor - 1 :])
    return "\n".join(out) + "\n"


def solution_lines(source: str) -> set[str]:
    """The stripped code lines inside solution blocks (what the release must never contain)."""
    lines = source.splitlines()
    inside: set[str] = set()
    for block in solution_blocks(source):
        for line in lines[block.begin : block.end - 1]:
            text = line.strip()
            if text and not text.startswith("#"):
                inside.add(text)
    return inside


def build_release(solution_dir: Path, release_dir: Path) -> list[Path]:
    """Write the student release of solution_dir into release_dir (replacing it). Returns files."""
    if not solution_dir.is_dir():
        raise AttnkitError(f"no solution folder at {solution_dir}")
    if release_dir.exists():
        shutil.rmtree(release_dir)
    release_dir.mkdir(parents=True)
    written: list[Path] = []
    for path in sorted(solution_dir.rglob("*")):
        relative = path.relative_to(solution_dir)
        if path.is_dir() or PRIVATE.intersection(relative.parts):
            continue
        target = release_dir / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        if path.suffix == ".py" and BEGIN in path.read_text(encoding="utf-8"):
            target.write_text(stub_source(path.read_text(encoding="utf-8"), str(path)), encoding="utf-8")
        else:
            shutil.copyfile(path, target)
        written.append(target)
    written.extend(_build_notebooks(solution_dir, release_dir))
    return written


def _build_notebooks(solution_dir: Path, release_dir: Path) -> list[Path]:
    from autograder.authoring.notebook import build_student_notebooks  # lazy: notebook.py imports this module

    return build_student_notebooks(solution_dir, release_dir)


def release(name: str = ASSIGNMENT) -> list[Path]:
    return build_release(REPO_ROOT / "solutions" / name, REPO_ROOT / "assignments" / name)
