"""qa20's files of returned weights that ignore the mask (tests/qa/qa20/, headers as in qa16): the
output of the call is computed with the mask and is right; only the weights returned next to it come
from another, unmasked computation (a variable reused, a second call without the mask).
What was wrong before (main at cd1f0d0), and is fixed:
- b04 (A.3), b30 (B.1), b29 (C.3), b28 (D.1): the mistake was matched from the weights alone, so
  the feedback said "The mask is ignored: pass it on to ..." (sdpa_, selfattn_, mha_, block_mask_ignored)
  to code that passes it on (b28 calls self.attn(x, mask=mask), as the message told it to).
  Unmasked weights next to the right output now name returned_weights_unmasked ("the weights you
  return are not the ones your output was computed with"); the points lost are the same.
- b04, b29: the public checks of A.3 and C.3 said "the mask is ignored" too; they now say the same
  as the grader (B.1's and D.1's public checks said only that the weights are wrong, and still do).
This test grades seed 1, these files in one batch run.
"""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from autograder.feedback.results import SubmissionResult
from tests.corpus import assert_each_bug_in_its_own_part, assert_graded_as_expected, graded_corpus, public_verdicts

CORPUS = Path(__file__).resolve().parent / "qa" / "qa20"
NAMES = ("b04_a3_returns_unmasked_weights_output_masked", "b28_d1_weights_from_second_unmasked_call",
         "b29_c3_returned_weights_unmasked", "b30_b1_returned_weights_unmasked")
FILES = [CORPUS / f"{name}.py" for name in NAMES]
MASK_IGNORED_WORDS = "The mask is ignored"


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> dict[str, SubmissionResult]:
    folder = tmp_path_factory.mktemp("qa20_weights")  # these files only, whatever else qa20 holds
    for path in FILES:
        shutil.copy(path, folder / path.name)
    return graded_corpus(folder, tmp_path_factory.mktemp("qa20_weights_out"))


def test_each_bug_loses_points_in_its_own_part_only():
    assert_each_bug_in_its_own_part(FILES)


@pytest.mark.parametrize("path", FILES, ids=NAMES)
def test_each_submission_scores_its_parts_and_names_only_its_mistakes(path, graded):
    assert_graded_as_expected(graded[path.stem], path)


@pytest.mark.parametrize("name", NAMES)
def test_weights_unmasked_next_to_a_masked_output_are_not_told_the_mask_is_ignored(name, graded):
    failed = [c.message for c in graded[name].checks if not c.passed]
    assert not [m for m in failed if MASK_IGNORED_WORDS in m], failed
    assert any("(weights) returned wrong values" in m and "the output uses the mask, the returned weights ignore it" in m for m in failed), failed


def test_the_public_checks_do_not_say_the_mask_is_ignored_either():
    verdicts = public_verdicts(FILES)
    said = {Path(path).stem: {task: message for task, message in tasks.items() if message} for path, tasks in verdicts.items() if isinstance(tasks, dict)}
    assert set(said) == set(NAMES), verdicts
    assert all(len(failed) == 1 and "mask is ignored" not in next(iter(failed.values())) for failed in said.values()), said
    for name, task in (("b04_a3_returns_unmasked_weights_output_masked", "A.3"), ("b29_c3_returned_weights_unmasked", "C.3")):
        assert "the weights you return ignore the mask, but your output uses it" in said[name].get(task, ""), said[name]
