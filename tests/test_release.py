"""The student release: generated from the solution, in sync, self-contained, free of solutions."""
from __future__ import annotations

import ast
import json
import sys
from pathlib import Path

import pytest

from autograder.errors import AttnkitError
from autograder.authoring.release import build_release
from autograder.authoring.stubs import solution_blocks, solution_lines, stub_source

REPO = Path(__file__).resolve().parents[1]
SOLUTION = REPO / "solutions" / "attention"
RELEASE = REPO / "assignments" / "attention"
ALLOWED_IMPORTS = {"torch", "numpy", "matplotlib", "pytest", "attention", "public_checks", "pronoun_task"}


def _files(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file() and "__pycache__" not in p.parts}


def test_checked_in_release_equals_a_fresh_generation(tmp_path):
    build_release(SOLUTION, tmp_path / "attention")
    fresh, checked_in = _files(tmp_path / "attention"), _files(RELEASE)
    assert sorted(fresh) == sorted(checked_in), "file lists differ: run `attnkit release`"
    stale = [name for name in fresh if fresh[name] != checked_in[name]]
    assert not stale, f"out of date: {stale}; run `attnkit release`"


def test_release_contains_no_solution_line():
    secret = solution_lines((SOLUTION / "attention.py").read_text(encoding="utf-8"))
    assert len(secret) > 30
    for name, data in _files(RELEASE).items():
        text = data.decode("utf-8")
        if name.endswith(".ipynb"):
            text = "\n".join("".join(c["source"]) for c in json.loads(text)["cells"])
        leaked = {line.strip() for line in text.splitlines()} & secret
        assert not leaked, f"{name} contains solution lines: {sorted(leaked)[:5]}"


def test_release_contains_no_hidden_check():
    hidden_names = {p.name for p in (REPO / "autograder" / "assignments" / "attention" / "checks").glob("part_*.py")}
    assert len(hidden_names) == 6  # part_a.py ... part_f.py: the folder is where the manifest says
    for name, data in _files(RELEASE).items():
        assert Path(name).name not in hidden_names
        assert b"attnkit_check" not in data and b"autograder.assignments" not in data, name


def test_release_needs_only_torch_numpy_matplotlib_pytest():
    stdlib = set(sys.stdlib_module_names)
    for path in RELEASE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module] if isinstance(node, ast.ImportFrom) and node.level == 0 else []
            for name in names:
                top = name.split(".")[0]
                assert top in stdlib or top in ALLOWED_IMPORTS, f"{path.name} imports {name}"


def test_every_stub_raises_not_implemented_naming_its_task():
    stub = (RELEASE / "attention.py").read_text(encoding="utf-8")
    blocks = solution_blocks((SOLUTION / "attention.py").read_text(encoding="utf-8"))
    assert len(blocks) >= 13
    for block in blocks:
        assert f'raise NotImplementedError("Task {block.task}: {block.where} is not implemented yet")' in stub


def test_stub_of_a_block_outside_a_task_is_refused():
    source = "def helper():\n    ### BEGIN SOLUTION\n    return 1\n    ### END SOLUTION\n"
    with pytest.raises(AttnkitError, match="names its task"):
        stub_source(source)


def test_unclosed_block_is_refused():
    source = 'def f():\n    """Task A.1."""\n    ### BEGIN SOLUTION\n    return 1\n'
    with pytest.raises(AttnkitError, match="never closed"):
        stub_source(source)
