"""qa17's regression corpus (tests/qa/qa17/): a correct style and a single bug, each charged once,
in its own task, and never named as a mistake it is not (headers as in qa16). What was wrong
before (main at 8070361), and is fixed:
- c01: MultiHeadAttention raised HeadCountError, a subclass of ValueError: C.3's ValueError check
  compared the class's name (C 27). The worker now reports the builtin exception classes an
  exception is an instance of.
- b01: the title set only when plot_attention makes its own figure: with ax= given the feedback
  said the title "went to another Axes or figure", blaming plt.title, which the file never calls.
  Which texts went to another figure is now seen; a text that is nowhere is said to be missing.
- c02, c03: SelfAttention and MultiHeadAttention computed in float32 inside and cast back
  (LLaMA's `.float()` idiom): W_k's bias has a gradient of 0 by cancellation, which float32 leaves
  at about 1e-7 (B 9, C 27), and C.3's gradcheck in float64 sees float32 rounding (C 26). A
  parameter's gradient is now compared within the rounding of the module's largest gradient, and
  a failed gradcheck compares the gradient with respect to x with the reference's, as A.2's does.
This test grades seed 1, the whole corpus in one batch run.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from autograder.feedback.results import SubmissionResult
from autograder.grading.batch import grade_batch
from autograder.grading.session import GradeOptions

REPO = Path(__file__).resolve().parents[1]
CORPUS = REPO / "tests" / "qa" / "qa17"
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
    out = tmp_path_factory.mktemp("qa17_out")
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
    ("b01_e1_title_only_for_a_new_figure", "plot_attention_uses_given_axes", "the heatmap on ax has no title, which the figure you make without ax= has"),
])
def test_the_feedback_says_what_went_wrong(graded, name, check, said):
    failed = {c.check_id: c.message for c in graded[name].checks if not c.passed}
    assert said in failed.get(check, ""), failed
