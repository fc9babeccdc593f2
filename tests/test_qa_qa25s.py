"""qa25s's files (tests/qa/qa25s/, headers as in qa16; the notebooks' in their metadata, below): 19
correct files and notebooks in styles no earlier round had (torch.func.vmap scores, a child module
with a buffer, an `@` overload, typing.overload, as_strided heads, a hand-made rearrange parser,
pcolormesh, heads folded into the batch, an MHA class made by a factory, ...), all 100, and single
bugs. What was wrong before (main at e65d9e7), and is fixed:
- b11, b15, b31-b38, b40, b41, n02: an A.1 mistake also cost 20 of C's 28 points where C.3 reaches
  attention_scores through something the stand-ins' rebinding does not follow (a plain
  nn.Module() or argparse.Namespace used as a namespace, a frozenset, a weakref, a ContextVar's
  default, a namedtuple field's default, itertools.cycle, an object with __slots__, and the
  closures of torch's wrappers: torch.func.vmap, torch.autocast, enable_grad, set_grad_enabled).
  b13: an A.3 mistake was charged again in B.1 through a weakref, told as selfattn_mask_ignored.
  b43 (and qa24s n04, qa24s b23): a mistake in code both tasks share (a class's split), which no
  stand-in can replace, was charged again in C.3 (C 5, fair 25). Now a later check that still
  fails with the stand-ins passes when it passes against the reference with an earlier task's
  charged catalogue mistake planted, where the later task's code can run code of that earlier
  task's own (read in the worker without running it: standins.code_reach, through any holder).
- b44 (two bugs, the guard): the same shared class and C.3's own scale by √E: C.3 is still charged
  its own bug (C 5: C.1's 3 and the 20 the scale alone costs). qa5x m40 (A.1 and B.1 each leave out
  the scale, B.1 sharing no code with A.1) is still charged twice.
- b24: interpolation="hanning" keeps every cell centre's colour, which the smoothing check reads:
  it got E 10 where the contract asks for one flat colour per cell; E.1's flat-cells check now
  charges such a picture one point (E 9).
Left open, a decision on the contract (pinned at today's grade, noted on issue 15):
- b02: A.2 takes the row max before masking, so a blocked key scoring far above the allowed ones
  (about 104 in float32) empties the row: 100, fair A 30, unless the contract allows the styles
  earlier rounds judged correct that do the same (qa4s c11, qa7s c17).
b10 has a second bug of its own in C.3 (vmap's in_dims mis-broadcasts a (B, 1, Lq, Lk) mask).
This test grades seed 1, these files in one batch run.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from autograder.feedback.results import SubmissionResult
from tests.corpus import assert_each_bug_in_its_own_part, assert_graded_as_expected, graded_corpus

CORPUS = Path(__file__).resolve().parent / "qa" / "qa25s"
FILES = sorted(CORPUS.glob("*.py"))
NOT_SINGLE = ("b02_", "b10_", "b26_", "b44_")  # left open (b02); two bugs (b10, b44); no bug by the contract (b26: A.3 says nothing of the dtype)
NOTEBOOKS = {  # stem -> (per-part scores, mistakes named)
    "n01_correct_filled_from_reference_pcolormesh": ({"A": 32, "B": 10, "C": 28, "D": 12, "E": 10, "F": 8}, set()),
    "n02_bug_a1_scaled_by_d_argparse_namespace_in_c3_cell": ({"A": 27, "B": 10, "C": 28, "D": 12, "E": 10, "F": 8}, {"scores_scaled_by_d"}),
}


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> dict[str, SubmissionResult]:
    return graded_corpus(CORPUS, tmp_path_factory.mktemp("qa25s_out"))


def test_the_corpus_is_whole():
    assert len(FILES) == 61 and sorted(p.stem for p in CORPUS.glob("*.ipynb")) == sorted(NOTEBOOKS)


def test_each_bug_loses_points_in_its_own_part_only():
    assert_each_bug_in_its_own_part([p for p in FILES if not p.name.startswith(NOT_SINGLE)])


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_each_submission_scores_its_parts_and_names_only_its_mistakes(path, graded):
    assert_graded_as_expected(graded[path.stem], path)


@pytest.mark.parametrize("stem", sorted(NOTEBOOKS))
def test_each_notebook_scores_its_parts(stem, graded):
    parts, mistakes = NOTEBOOKS[stem]
    result = graded[stem]
    assert {p.part: p.score for p in result.parts} == parts
    assert set(result.mistakes) == mistakes


def test_a_later_check_charged_through_shared_code_says_where(graded):
    carried = [c for c in graded["b43_c1_heads_class_interleaved_shared_with_c3"].checks if c.task == "C.3" and c.message]
    assert carried and all(c.passed and c.message == "correct given your Part C; that mistake is charged in C.1" for c in carried)
