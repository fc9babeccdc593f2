"""The benchmark's submissions: student notebooks answered with the reference code, some with a bug.

The course comes from `attnkit nbgrader init` and `nbgrader generate_assignment`, and the notebooks
are its released notebook with the answer cells filled in, so every grader reads the very same
files: attnkit and otter <student>.ipynb, nbgrader a byte-for-byte copy in
submitted/<student>/attention/attention.ipynb. Without nbgrader (--skip nbgrader) the template is
attnkit's own student notebook, assignments/attention/attention.ipynb. A variant is the reference answer with one
text replacement in one answer cell; each replacement must match exactly once, so a change in the
reference solution makes the benchmark stop with a clear message instead of planting nothing.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import nbformat

from bench.measure import BenchError

ASSIGNMENT = "attention"
NOTEBOOK = "attention.ipynb"
BEGIN, END = "### BEGIN SOLUTION", "### END SOLUTION"
BIN = Path(sys.executable).parent


@dataclass(frozen=True)
class Variant:
    """A kind of submission: the reference answers, optionally with text replaced in one cell."""

    name: str
    correct: bool
    what: str
    right: str = ""
    wrong: str = ""


# Correct in another style, and realistic mistakes in Parts A, C and E.
VARIANTS = (
    Variant("reference", True, "the reference answers"),
    Variant("einsum", True, "correct: scores with torch.einsum",
            "q @ k.transpose(-2, -1) / math.sqrt(d)", 'torch.einsum("...qd,...kd->...qk", q, k) / d ** 0.5'),
    Variant("triu-mask", False, "A.4 causal mask upper-triangular", ".tril()  # (Lq, Lk)", ".triu()  # (Lq, Lk)"),
    Variant("no-scale", False, "A.1 scores not divided by sqrt(d)",
            "q @ k.transpose(-2, -1) / math.sqrt(d)", "q @ k.transpose(-2, -1)"),
    Variant("heads-mixed", False, "C.1 heads split along the wrong axis",
            ".reshape(B, S, num_heads, E // num_heads).transpose(1, 2)", ".reshape(B, num_heads, S, E // num_heads)"),
    Variant("heatmap-untransposed", False, "E.1 heatmap with queries on the vertical axis",
            "matrix.T.numpy()", "matrix.numpy()"),
)
# The order submissions cycle through: half correct, half buggy.
CYCLE = ("reference", "triu-mask", "einsum", "no-scale", "reference", "heads-mixed", "einsum", "heatmap-untransposed")


@dataclass(frozen=True)
class Submission:
    student: str
    variant: Variant
    notebook: Path  # the copy attnkit and otter grade


def _env() -> dict[str, str]:
    return {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}


def _run(command: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(command, cwd=cwd, env=_env(), capture_output=True, text=True, timeout=900)
    if done.returncode != 0:
        raise BenchError(f"{' '.join(command)} failed (exit {done.returncode}):\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}")
    return done


def init_course(course: Path) -> str:
    """`attnkit nbgrader init COURSE` (its core function while the CLI lacks the command); returns how."""
    probe = subprocess.run([str(BIN / "attnkit"), "nbgrader", "--help"], capture_output=True, text=True, env=_env())
    if probe.returncode == 0:
        _run([str(BIN / "attnkit"), "nbgrader", "init", str(course)], cwd=course.parent)
        how = "attnkit nbgrader init"
    else:
        from autograder.authoring.nbgrader_course import init_course as core_init

        core_init(course)
        how = "autograder.authoring.nbgrader_course.init_course (the CLI has no `nbgrader` command yet)"
    _run([str(BIN / "nbgrader"), "generate_assignment", ASSIGNMENT], cwd=course)
    return how


def reference_answers() -> dict[str, str]:
    """cell id -> the reference code of each answer cell of the student notebook, markers removed."""
    from autograder.authoring.notebook import ANSWER_TAG, build_notebook
    from autograder.paths import SOLUTION_DIR

    filled = build_notebook(SOLUTION_DIR, nbgrader=False, keep_solution=True)
    return {
        cell["id"]: "\n".join(line for line in cell.source.splitlines() if line.strip() not in (BEGIN, END))
        for cell in filled.cells
        if ANSWER_TAG in cell.metadata.get("tags", [])
    }


def template(course: Path | None) -> nbformat.NotebookNode:
    """The notebook students get: nbgrader's release when there is a course, else attnkit's release."""
    from autograder.paths import RELEASE_DIR

    path = course / "release" / ASSIGNMENT / NOTEBOOK if course is not None else RELEASE_DIR / NOTEBOOK
    if not path.is_file():
        raise BenchError(f"no student notebook at {path}; run `attnkit release` (or the nbgrader course setup) first")
    return nbformat.read(path, as_version=4)


def variant_answers(answers: dict[str, str], variant: Variant) -> dict[str, str]:
    if not variant.right:
        return dict(answers)
    hits = [key for key, code in answers.items() if variant.right in code]
    if len(hits) != 1 or answers[hits[0]].count(variant.right) != 1:
        raise BenchError(f"variant {variant.name}: {variant.right!r} occurs in {len(hits)} answer cells, not "
                         "once; update VARIANTS in bench/notebooks.py to the reference solution")
    changed = dict(answers)
    changed[hits[0]] = changed[hits[0]].replace(variant.right, variant.wrong)
    return changed


def answered(blank: nbformat.NotebookNode, answers: dict[str, str]) -> nbformat.NotebookNode:
    """The student notebook with its answer cells filled in."""
    notebook = nbformat.from_dict(json.loads(json.dumps(blank)))
    filled = set()
    for cell in notebook.cells:
        key = cell.metadata.get("nbgrader", {}).get("grade_id") or cell.get("id")
        if cell.cell_type == "code" and key in answers:
            cell.source = answers[key]
            filled.add(key)
    if filled != set(answers):
        raise BenchError(f"the student notebook lacks the answer cells {sorted(set(answers) - filled)}")
    return notebook


def write_submissions(inbox: Path, count: int, course: Path | None = None, course_count: int = 0) -> list[Submission]:
    """count answered notebooks in inbox/; the first course_count also in the course's submitted/."""
    blank = template(course)
    answers = reference_answers()
    by_name = {variant.name: variant for variant in VARIANTS}
    texts = {name: nbformat.writes(answered(blank, variant_answers(answers, by_name[name]))) for name in CYCLE}
    inbox.mkdir(parents=True, exist_ok=True)
    submissions = []
    for index in range(count):
        variant = by_name[CYCLE[index % len(CYCLE)]]
        student = f"s{index:03d}-{variant.name}"
        path = inbox / f"{student}.ipynb"
        path.write_text(texts[variant.name], encoding="utf-8")
        if course is not None and index < course_count:
            target = course / "submitted" / student / ASSIGNMENT / NOTEBOOK
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)
        submissions.append(Submission(student, variant, path))
    return submissions


def cyclic_inbox(submissions: list[Submission], inbox: Path, count: int) -> Path:
    """A folder of count notebooks, reusing the submissions cyclically (for batch-size scaling)."""
    if inbox.exists():
        shutil.rmtree(inbox)
    inbox.mkdir(parents=True)
    for index in range(count):
        source = submissions[index % len(submissions)]
        shutil.copyfile(source.notebook, inbox / f"c{index:04d}-{source.variant.name}.ipynb")
    return inbox
