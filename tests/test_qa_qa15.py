"""qa15's regression corpus (tests/qa/qa15/, tests/qa/qa15n/): single bugs and hostile
files, each charged once, in its own task, and never named as a mistake it is not.

Each file is a whole student attention.py; its header gives its per-part scores and the mistakes
the feedback names. What was wrong before (main at d9d51c1), and is fixed:
- b01-b03: the mask applied only when `mask.any()`: a mask that blocks every key (a batch of
  padding only) was never tried: 100. A.2, A.3 and C.3 now try one.
- b04: merge_heads ending in `.squeeze()`: C.2 was tried with B=2 and S>1 only: 100.
- b05: the values of an all-blocked row right (zeros), its gradient NaN (`torch.where`): A.2's
  gradient check named fully_masked_nan, whose words say the values are NaN; it now names nothing
  and says the gradient alone is wrong. b02, b03 now say which mask failed (the one that blocks
  every key), and C.3 no longer names mha_mask_ignored there (skipped and inverted masks give the
  same weights); c01-c03 are correct styles around such masks (a helper's second look: none lost).
- h01, h02: library attention through torch.ao's quantizable MultiheadAttention, whose forward is
  Python (linear, bmm, softmax): the trace saw no name of a library attention: A.3's and C.3's rules
  passed. The trace now notes the classes and functions of torch's own Python code on the stack.
- qa15n n01, n02: a notebook whose later task cell writes an earlier task again (an unscaled
  MultiHeadAttention in the block's cell, an unscaled attention_scores in B.1's): the earlier task
  was charged (C=8, A=27), though its check cell saw it right. A task is now graded as its check
  cell saw it, as the contract says, and the feedback says the later definition was not run.
- qa15n n03-n10 (a second look, at 2fe2985, each against what its check cells printed under Run All
  in a real kernel): the check cell of a task was "the check after the first cell that defines
  it", so a draft of masked_softmax in A.1's cell made A.2's own cell count as written after A.1's
  check, once A.2's check cell was deleted or edited (n07-n09: A 18), or the tags were lost (n03,
  n06); and only `def`/`class` were left out, not an import of nn.MultiheadAttention under the
  task's name or a def under `if` (n04, n05: C 7, A 18). A task's check cell is now the first check
  cell (an edited one too) that uses it or a later task, every statement binding the task counts,
  and n10 (the real code in A.1's cell, the stub left in A.2's) loses A.2, as its check saw.
The public checks (tests/public_agreement.py) fail the bug's own task and no other for b01-b05 (none for c01-c03),
with the same masks and sizes; h01 and h02 are hostile (the public checks trust the student).
This test grades seed 1, the whole corpus in one batch run (every part, two grader processes).
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from autograder.feedback.results import SubmissionResult
from autograder.grading.batch import grade_batch
from autograder.grading.session import GradeOptions
from tests.corpus import public_verdicts

REPO = Path(__file__).resolve().parents[1]
CORPUS = REPO / "tests" / "qa" / "qa15"
NOTEBOOKS = REPO / "tests" / "qa" / "qa15n"
SCORES = re.compile(r"^# Per-part scores: A=(\S+) B=(\S+) C=(\S+) D=(\S+) E=(\S+) F=(\S+)\.$", re.MULTILINE)
NAMED = re.compile(r"^# Mistakes named: (.*)\.$", re.MULTILINE)
FILES = sorted(CORPUS.glob("*.py"))
HOSTILE = ("h01", "h02")  # the public checks trust the student; the grader does not
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


@pytest.fixture(scope="module")
def public() -> dict[str, dict[str, str | None] | str]:
    """Every public check of every file a student writes in good faith, by path."""
    return public_verdicts([path for path in FILES if path.stem[:3] not in HOSTILE])


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
    ("b02_a3_mask_skipped_when_all_false", "sdpa_mask_edges", "with a mask of shape (2, 3, 4, 5) that blocks every key (weights)"),
    ("b03_c3_mask_skipped_when_all_false", "mha_mask", "with a mask of shape (2, 1, 1, 5) that blocks every key (weights)"),
    ("b05_a2_nan_gradient_through_a_where", "masked_softmax_fully_blocked_gradient", "though its values are zeros"),
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


@pytest.mark.parametrize("path", [p for p in FILES if p.stem[:3] not in HOSTILE], ids=[p.stem for p in FILES if p.stem[:3] not in HOSTILE])
def test_the_public_checks_fail_the_task_with_the_bug_and_no_other(path, public):
    said = public[str(path)]
    assert isinstance(said, dict), said
    code = path.stem.split("_")[1]  # b01_a2_...: a2 -> A.2
    assert {task for task, message in said.items() if message} == (set() if path.stem.startswith("c") else {f"{code[0].upper()}.{code[1:]}"}), said


@pytest.mark.parametrize(("name", "scores", "said"), [
    ("n03_tags_lost_a2_draft_in_the_a1_cell", FULL, ""),
    ("n04_c3_library_class_imported_under_its_name_in_the_e1_cell", FULL, "cell 36 defines MultiHeadAttention again, after the check of that task (cell 31)"),
    ("n05_a2_redefined_under_an_if_in_the_e1_cell", FULL, "defines masked_softmax again, after the check of that task (cell 10)"),
    ("n06_a2_draft_in_the_a1_cell_real_in_a_new_cell", FULL, "cell 9 is not an answer cell"),
    ("n07_a2_draft_in_the_a1_cell_a2_check_deleted", FULL, ""),
    ("n08_a2_draft_in_the_a1_cell_a2_check_edited", FULL, ""),
    ("n09_a2_check_edited_rewritten_in_the_a3_cell", FULL, "defines masked_softmax again, after the check of that task (cell 10)"),
    ("n10_a2_in_the_a1_cell_stub_left_in_its_own", {**FULL, "A": 18}, ""),
])
def test_a_task_is_graded_as_its_own_check_cell_saw_it(grade, name, scores, said):
    result = grade(NOTEBOOKS / f"{name}.ipynb", seed=1, parts=set("ABCDE"))
    assert {p.part: p.score for p in result.parts} == {part: scores[part] for part in "ABCDE"}, [c.message for c in result.checks if not c.passed]
    assert not said or any(said in event for event in result.events), result.events
    assert said or not any("after the check of that task" in event for event in result.events), result.events
