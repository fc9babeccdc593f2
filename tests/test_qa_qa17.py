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

from pathlib import Path

import pytest

from autograder.feedback.results import SubmissionResult
from tests.corpus import assert_each_bug_in_its_own_part, assert_graded_as_expected, graded_corpus

CORPUS = Path(__file__).resolve().parent / "qa" / "qa17"
FILES = sorted(CORPUS.glob("*.py"))


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> dict[str, SubmissionResult]:
    return graded_corpus(CORPUS, tmp_path_factory.mktemp("qa17_out"))


def test_correct_files_expect_full_marks_and_each_bug_loses_points_in_its_own_part_only():
    assert_each_bug_in_its_own_part(FILES)


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_each_submission_scores_its_parts_and_names_only_its_mistakes(path, graded):
    assert_graded_as_expected(graded[path.stem], path)


@pytest.mark.parametrize(("name", "check", "said"), [
    ("b01_e1_title_only_for_a_new_figure", "plot_attention_uses_given_axes", "the heatmap on ax has no title, which the figure you make without ax= has"),
])
def test_the_feedback_says_what_went_wrong(graded, name, check, said):
    failed = {c.check_id: c.message for c in graded[name].checks if not c.passed}
    assert said in failed.get(check, ""), failed
