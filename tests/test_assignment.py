"""The engine grades any assignment folder from its manifest: a tiny second assignment
(tests/assignments/dot/: one function, two checks) graded in the worker, with the normal result files."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.assignment import ENV_VAR, ManifestError, current, load_manifest
from autograder.grading.checks.plugin import CheckInfo, manifest_problems
from autograder.grading.inprocess import InProcessStudent
from autograder.grading.worker.api import StudentAPI

DOT = Path(__file__).resolve().parent / "assignments" / "dot"
CORRECT = "import torch\n\ndef dot(x, y):\n    return torch.einsum('...i,...i->...', x, y)\n"
ONLY_VECTORS = "import torch\n\ndef dot(x, y):\n    return torch.dot(x, y)\n"  # fails on (..., n) batches
SUMS_ALL = "def dot(x, y):\n    return (x * y).sum()\n"  # right for two vectors, one number for a batch


@pytest.fixture
def dot_assignment(monkeypatch):
    monkeypatch.setenv(ENV_VAR, str(DOT))
    return current()


def _grade(factory, tmp_path: Path, source: str, name: str) -> dict:
    from autograder.feedback.output import write_submission
    from autograder.grading.session import GradeOptions, grade_submission

    path = tmp_path / f"{name}.py"
    path.write_text(source, encoding="utf-8")
    result, images = grade_submission(path, factory, GradeOptions(seed=3))
    folder = write_submission(result, images, tmp_path / "out")
    assert {"results.json", "attnkit.json", "feedback.md", "feedback.html"} <= {p.name for p in folder.iterdir()}
    return json.loads((folder / "attnkit.json").read_text())


def test_a_second_assignment_is_graded_by_the_same_engine_in_the_worker(dot_assignment, factory, tmp_path):
    assert dot_assignment.name == "dot" and dot_assignment.max_points == 3
    correct = _grade(factory, tmp_path, CORRECT, "alice")
    assert [(c["check_id"], c["points"], c["status"]) for c in correct["checks"]] == [("dot_vectors", 2.0, "passed"), ("dot_batched", 1.0, "passed")]
    buggy = _grade(factory, tmp_path, ONLY_VECTORS, "bob")
    assert [(c["check_id"], c["points"]) for c in buggy["checks"]] == [("dot_vectors", 2.0), ("dot_batched", 0.0)]
    batched = buggy["checks"][1]
    assert batched["status"] == "failed" and batched["message_key"] == "student_raised" and "bob.py:4 in dot" in batched["message"]
    gradescope = json.loads((tmp_path / "out" / "bob" / "results.json").read_text())
    assert gradescope["score"] == 2.0


def test_a_second_assignments_feedback_speaks_its_own_words(dot_assignment, factory, tmp_path):
    """Its pages, in English and Chinese, show its part title, check names, message and hint, and
    none of the attention assignment's words; the result records which assignment it is."""
    from autograder.feedback.formats.html import render_html
    from autograder.feedback.formats.markdown import render_markdown
    from autograder.feedback.results import SubmissionResult

    data = _grade(factory, tmp_path, SUMS_ALL, "carol")
    assert data["assignment"] == "dot" and data["checks"][1]["message_key"] == "wrong_values"
    result = SubmissionResult.from_dict(data)
    own = {
        "en": ("Dot product", "dot: batched (..., n) inputs give (...)", "dot on (2, 3, 5) inputs returned wrong values", "matching entries"),
        "zh": ("点积", "点积：批量 (..., n) 输入得到 (...)", "返回的数值不对", "对应的元素相乘"),
    }
    for lang, expected in own.items():
        for page in (render_markdown(result, lang), render_html(result, tmp_path / "out" / "carol", lang)):
            assert all(text in page for text in expected), (lang, [text for text in expected if text not in page])
            assert "attention" not in page.lower() and "注意力" not in page


def test_a_result_without_an_assignment_is_the_default_ones():
    from autograder.assignment import DEFAULT_ASSIGNMENT
    from autograder.feedback.results import SubmissionResult

    assert SubmissionResult.from_dict({"submission": "old", "source": "old.py", "seed": 1}).assignment == DEFAULT_ASSIGNMENT


def test_the_manifest_gives_the_parts_titles_and_points(dot_assignment):
    assert dot_assignment.part_titles == {"A": "Dot product"} and dot_assignment.part_points == {"A": 3.0}
    assert dot_assignment.check_file("A") == DOT / "checks" / "part_a.py"
    assert DOT / "solution" / "dot.py" in dot_assignment.hidden_paths()  # the worker never sees the reference


def test_the_attention_manifest_matches_its_checks():
    attention = load_manifest(Path(__file__).resolve().parents[1] / "autograder" / "assignments" / "attention")
    assert attention.part_points == {"A": 32, "B": 10, "C": 28, "D": 12, "E": 10, "F": 8, "S": 0}
    assert "MultiHeadAttention" in attention.parts[2].names and "attention.py" in attention.question_html


def test_every_stand_in_the_attention_assignment_asks_for_is_in_the_worker_or_named_grader_side():
    from autograder.assignments.attention.checks.carried import STAND_INS

    attention = load_manifest(Path(__file__).resolve().parents[1] / "autograder" / "assignments" / "attention")
    asked = {name for names in STAND_INS.values() for name in names}
    in_worker = attention.stand_in_names()
    assert attention.grader_side == ("plot_attention",) and not set(attention.grader_side) & set(in_worker)
    assert asked <= set(in_worker) | set(attention.grader_side)
    assert attention.stand_ins_file == str(attention.folder / "standins.py")


def test_checks_that_disagree_with_the_manifest_are_refused():
    infos = {"x": CheckInfo("A.1", 2, "x"), "y": CheckInfo("B.1", 1, "y")}
    assert manifest_problems(infos, {"A": 2.0, "B": 1.0}) == []
    assert manifest_problems(infos, {"A": 3.0}) == ["part A: its checks carry 2 points, the manifest says 3", "part B: not in the assignment's manifest (parts: A)"]


def test_a_broken_manifest_says_where_and_what(tmp_path):
    with pytest.raises(ManifestError, match="manifest.toml is missing"):
        load_manifest(tmp_path)
    (tmp_path / "manifest.toml").write_text('name = "x"\ntitle = "X"\nstudent_file = "x.py"\nsolution = "x.py"\n[parts.A]\ntitle = "A"\n')
    with pytest.raises(ManifestError, match=r"\[parts.A\] needs title \(a string\) and points"):
        load_manifest(tmp_path)


def test_an_unknown_assignment_is_named_with_the_known_ones(monkeypatch):
    monkeypatch.setenv(ENV_VAR, "no-such-assignment")
    with pytest.raises(ManifestError, match=r"no assignment 'no-such-assignment' \(ATTNKIT_ASSIGNMENT\).*one of attention"):
        current()


def test_both_students_satisfy_the_typed_seam(factory):
    from autograder.grading.worker.client import Student

    assert isinstance(InProcessStudent({}), StudentAPI)
    assert isinstance(Student(factory, [(1, "")]), StudentAPI)


def test_the_engine_imports_no_assignment():
    """No engine module imports an assignment's package, by an import statement or by its name
    in a string (importlib): the assignment's words, mistakes, hints and checks are reached through
    its manifest (autograder/assignment.py, the one loader)."""
    import ast

    root = Path(__file__).resolve().parents[1]
    importing = []
    for path in sorted((root / "autograder").rglob("*.py")):
        relative = path.relative_to(root).as_posix()
        if relative.startswith("autograder/assignments/"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [node.module or ""] if isinstance(node, ast.ImportFrom) else [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                names.append(node.value)  # importlib.import_module("autograder.assignments....")
            if any(name.startswith("autograder.assignments.") or name == "autograder.assignments" for name in names):
                importing.append(f"{relative}:{node.lineno}")
    assert importing == []


def _names_in(path: Path, words: set[str]) -> list[str]:
    """Where a module's code (not its comments or docstrings) uses one of `words`: as an identifier,
    an attribute, a keyword, a definition's name, or a word of a string."""
    import ast
    import re

    pattern = re.compile(r"\b(" + "|".join(sorted(map(re.escape, words))) + r")\b", re.IGNORECASE)
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {
        id(node.body[0].value) for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
        and node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)
    }
    found = []
    for node in ast.walk(tree):
        names = []
        if isinstance(node, ast.Name):
            names = [node.id]
        elif isinstance(node, ast.Attribute):
            names = [node.attr]
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names = [node.name]
        elif isinstance(node, ast.keyword) and node.arg:
            names = [node.arg]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            names = pattern.findall(node.value)
        found += [f"{name}:{node.lineno}" for name in names if name in words or pattern.fullmatch(name)]
    return found


def test_the_engine_names_nothing_of_the_attention_assignment():
    """The engine knows no attention-specific name: none of the names students define (the
    manifest's tasks and parts) nor the student file's stem appears in its code, only in
    autograder/assignments/ (comments and docstrings may give examples)."""
    manifest = current()
    words = {name for _, name in manifest.tasks} | {name for part in manifest.parts for name in part.names}
    words |= {Path(manifest.student_file).stem, *manifest.grader_side}
    root = Path(__file__).resolve().parents[1]
    naming = {}
    for path in sorted((root / "autograder").rglob("*.py")):
        relative = path.relative_to(root).as_posix()
        if not relative.startswith("autograder/assignments/") and (found := _names_in(path, words)):
            naming[relative] = found
    assert naming == {}


def test_an_assignment_outside_the_package_is_graded_by_a_pool_whose_checks_import_relatively(tmp_path):
    """The pool's warm-up (session.warm_checks) imported each check file on its own, and one that
    pytest imports fine (`from .helpers import ...`) stopped the grader before any grading
    (round 22 review). The pool grades such an assignment as a lone grader does."""
    folder = tmp_path / "dot"
    shutil.copytree(DOT, folder)
    (folder / "checks" / "helpers.py").write_text("TOLERANCE = 1e-9\n", encoding="utf-8")
    checks = folder / "checks" / "part_a.py"
    checks.write_text(checks.read_text(encoding="utf-8").replace("import torch\n", "import torch\n\nfrom .helpers import TOLERANCE  # noqa: F401\n", 1), encoding="utf-8")
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    for name, source in (("alice", CORRECT), ("bob", ONLY_VECTORS), ("carol", SUMS_ALL)):
        (inbox / f"{name}.py").write_text(source, encoding="utf-8")
    env = {**os.environ, ENV_VAR: str(folder), "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    done = subprocess.run([sys.executable, "-m", "autograder.cli", "grade-batch", str(inbox), "--out", str(tmp_path / "out"), "--jobs", "2", "--seed", "3"],
                          capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    scores = {name: json.loads((tmp_path / "out" / name / "attnkit.json").read_text())["checks"] for name in ("alice", "bob", "carol")}
    assert {name: [c["points"] for c in checks] for name, checks in scores.items()} == {"alice": [2.0, 1.0], "bob": [2.0, 0.0], "carol": [2.0, 0.0]}
