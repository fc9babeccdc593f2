"""qa15's regression corpus (tests/qa/qa15/, tests/qa/qa15n/): single bugs and hostile
files, each charged once, in its own task, and never named as a mistake it is not.

Each file is a whole student attention.py; its header gives its per-part scores and the mistakes
the feedback names. What was wrong before (main at d9d51c1), and is fixed:
- b01-b03: the mask applied only when `mask.any()`: a mask that blocks every key (a batch of
  padding only) was never tried: 100. A.2, A.3 and C.3 now try one.
- b04: merge_heads ending in `.squeeze()`: C.2 was tried with B=2 and S>1 only: 100.
- h01, h02: library attention through torch.ao's quantizable MultiheadAttention, whose forward is
  Python (linear, bmm, softmax): the trace saw no name of a library attention: A.3's and C.3's rules
  passed. The trace now notes the classes and functions of torch's own Python code on the stack.
- qa15n n01, n02: a notebook whose later task cell writes an earlier task again (an unscaled
  MultiHeadAttention in the block's cell, an unscaled attention_scores in B.1's): the earlier task
  was charged (C=8, A=27), though its check cell saw it right. A task is now graded as its check
  cell saw it, as the contract says, and the feedback says the later definition was not run.
The public checks are not asked to agree here: they do not try these masks or sizes.
This test grades seed 1, the whole corpus in one batch run (every part, two grader processes).
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from autograder.feedback.results import SubmissionResult
from autograder.grading.batch import grade_batch
from autograder.grading.session import GradeOptions

REPO = Path(__file__).resolve().parents[1]
CORPUS = REPO / "tests" / "qa" / "qa15"
NOTEBOOKS = REPO / "tests" / "qa" / "qa15n"
SCORES = re.compile(r"^# Per-part scores: A=(\S+) B=(\S+) C=(\S+) D=(\S+) E=(\S+) F=(\S+)\.$", re.MULTILINE)
NAMED = re.compile(r"^# Mistakes named: (.*)\.$", re.MULTILINE)
FILES = sorted(CORPUS.glob("*.py"))
FULL = {"A": 32, "B": 10, "C": 28, "D": 12, "E": 10, "F": 8}


def _expected(path: Path) -> tuple[dict[str, float], set[str]]:
    text = path.read_text(encoding="utf-8")
    scores, named = SCORES.search(text), NAMED.search(text)
    assert scores and named, f"{path.name}: the header gives no per-part scores or named mistakes"
    mistakes = set() if named.group(1) == "none" else {m.strip() for m in named.group(1).split(",")}
    return dict(zip("ABCDEF", map(float, scores.groups()))), mistakes


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> dict[str, SubmissionResult]:
    out = tmp_path_factory.mktemp("qa15_out")
    batch = grade_batch(CORPUS, out, jobs=2, options=GradeOptions(seed=1))
    return {result.submission: result for result in batch.submissions}


def test_correct_files_expect_full_marks_and_each_bug_loses_points_in_its_own_part_only():
    for path in FILES:
        scores, named = _expected(path)
        lost = {part for part, score in scores.items() if score < FULL[part]}
        assert (not lost and not named) if path.stem.startswith("c") else lost == {path.stem.split("_")[1][0].upper()}, path.name


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_each_submission_scores_its_parts_and_names_only_its_mistakes(path, graded):
    result = graded[path.stem]
    assert not result.grader_error, result.grader_error
    scores, named = _expected(path)
    failures = [f"{c.task} {c.check_id}: {c.message[:160]}" for c in result.checks if not c.passed]
    assert {p.part: p.score for p in result.parts} == scores, failures
    assert set(result.mistakes) == named, failures


@pytest.mark.parametrize(("name", "check", "said"), [
    ("h01_a3_quantizable_mha", "sdpa_no_library", "uses MultiheadAttention"),
    ("h02_c3_quantizable_mha", "mha_no_library", "uses MultiheadAttention"),
])
def test_the_feedback_says_what_went_wrong(graded, name, check, said):
    failed = {c.check_id: c.message for c in graded[name].checks if not c.passed}
    assert said in failed.get(check, ""), failed


@pytest.mark.parametrize(("name", "task", "cell", "check"), [
    ("n01_c3_redefined_in_the_block_cell", "MultiHeadAttention", 34, 32),
    ("n02_a1_redefined_in_the_b1_cell", "attention_scores", 21, 8),
])
def test_a_task_written_again_below_its_check_is_graded_as_the_check_saw_it(grade, name, task, cell, check):
    result = grade(NOTEBOOKS / f"{name}.ipynb", seed=1)
    assert {p.part: p.score for p in result.parts} == FULL, [c.message for c in result.checks if not c.passed]
    said = f"cell {cell} defines {task} again, after the check of that task (cell {check})"
    assert any(said in event for event in result.events), result.events
