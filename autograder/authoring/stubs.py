"""The solution markers and the stubs made of them: what a solution file's marked blocks are, which
task each belongs to, and the student version with every block replaced by a stub.

A block lies between `### BEGIN SOLUTION` and `### END SOLUTION` inside a function whose docstring
names its task (`Task A.1: ...`). The release (release.py) and the notebooks (notebook.py) both
make their stubs here, so they say the same.
"""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from autograder.errors import AttnkitError

BEGIN = "### BEGIN SOLUTION"
END = "### END SOLUTION"
TASK_RE = re.compile(r"Task ([A-Z]\.\d+)")
STUB_TEXT = {  # the two lines of a stub, by language
    "en": ("# TODO: Implement for Task {task}.", "Task {task}: {where} is not implemented yet"),
    "zh": ("# TODO：在这里完成任务 {task}。", "任务 {task}：{where} 还没有实现"),
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
