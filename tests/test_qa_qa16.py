"""qa16's regression corpus (tests/qa/qa16/): a correct style, a single bug and hostile files, each
charged once, in its own task, and never named as a mistake it is not.

Each file is a whole student attention.py; its header gives its per-part scores and the mistakes
the feedback names. What was wrong before (main at 75efcf6), and is fixed:
- c01, b01: `self.lib = nn.MultiheadAttention(...)` in the block's __init__ (unused in c01, the
  block's attention in b01) made `self` an alias of MultiheadAttention in every class: B.1 and C.3
  lost their rule's point ("SelfAttention.forward uses self"). An alias stored on an object inside
  a definition now counts in that definition only; h01 (the same in C.3's own class) still counts.
- h02, h03: a result of zeros whose instance attribute `detach` computes the library's softmax or
  attention: the worker called value.detach() after its trace, so the grader received the
  library's values and the trace saw zeros only (100). torch.Tensor.detach(value) now.
- h04, h05: a colorbar whose strip is hidden and axis labels and a title drawn with alpha=0 or
  color='none' were "there" (E 10). What shows nothing on the page does not count.
- c02: a hand-written softmax that fills with a tensor (`masked_fill(~mask, torch.tensor(-inf))`)
  and repeats the mask (`mask.repeat`) ran aten operators the "by hand" rule did not know (A 30).
- The tracer seen from inside (an `apply_` callback's stack depth, the speed of tiny ops, the room
  left before the recursion limit: qa16h's probes) told the call whose trace is read from the
  others, so a file could run the library's softmax everywhere else: every call now runs under the
  trace (test_every_call_looks_traced).
- c03: a masked_softmax computed in float32 and cast back (LLaMA's way) failed A.2's gradcheck, whose
  float64 finite differences see float32 rounding. When the gradcheck fails, the gradient is now
  compared with the reference's at the same scores; a gradient that never reaches the scores (qa7h,
  qa9h) is not the reference's.
This test grades seed 1, the whole corpus in one batch run (every part, two grader processes).
"""
from __future__ import annotations

from pathlib import Path

import pytest

from autograder.feedback.results import SubmissionResult
from tests.corpus import assert_each_bug_in_its_own_part, assert_graded_as_expected, graded_corpus

CORPUS = Path(__file__).resolve().parent / "qa" / "qa16"
FILES = sorted(CORPUS.glob("*.py"))


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> dict[str, SubmissionResult]:
    return graded_corpus(CORPUS, tmp_path_factory.mktemp("qa16_out"))


def test_correct_files_expect_full_marks_and_each_bug_loses_points_in_its_own_part_only():
    assert_each_bug_in_its_own_part(FILES)


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_each_submission_scores_its_parts_and_names_only_its_mistakes(path, graded):
    assert_graded_as_expected(graded[path.stem], path)


@pytest.mark.parametrize(("name", "check", "said"), [
    ("h01_c3_library_mha_attribute", "mha_no_library", "uses MultiheadAttention"),
    ("h04_e1_colorbar_that_draws_nothing", "plot_attention_colorbar", "no colorbar"),
    ("h05_e1_axis_labels_and_title_transparent", "plot_attention_axis_labels", "no label on the horizontal and vertical axes"),
])
def test_the_feedback_says_what_went_wrong(graded, name, check, said):
    failed = {c.check_id: c.message for c in graded[name].checks if not c.passed}
    assert said in failed.get(check, ""), failed
