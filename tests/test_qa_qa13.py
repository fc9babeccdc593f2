"""qa13's regression corpus (tests/qa/qa13/): two correct styles the contract allows and ten single
bugs, each charged once, in its own task, and never named as a mistake it is not.

Each file is a whole student attention.py; its header gives its per-part scores and the mistakes
the feedback names. What was unfair before (main at dc46d49), and is fixed:
- c01: a library softmax in A.3 (the contract bans one in A.2 only) cost A.3's rule: A=31. Now 32.
- c02: LayerNorm eps 1e-3, which the contract allows, cost Part F's output check against the
  reference model's logits (eps 1e-5), named as trained_maps_differ though the maps matched:
  F=7. Now the check's reference takes the block's eps, as Part D's does, and a mismatch names
  trained_maps_differ only where the maps differ.
- b01, b02: an A.1 for 3-D inputs only (torch.bmm, a 3-letter einsum) was told "k is transposed
  on the wrong axes", which it is not; scores_wrong_transpose is now named only where it shows
  (torch's refusal of a 3-axis permute, or the values of k.transpose(1, 2) on a 4-D input it
  does not crash on).
- b03, b04: a mask squeezed in A.2, or viewed as (B, 1, Lq, Lk) in C.3, broke on a (B, 1, 1, Lk)
  key-padding mask, which the contract allows ("broadcastable"); no check used one: 100. A.2's
  broadcast check and C.3's mask check now do.
- b07, b08: C.3 with a library softmax after a finfo.min or -inf fill gives a query whose keys
  are all blocked weights of 1/Lk or NaN (the contract: all zeros); C.3's masks never blocked a
  whole query (B.1's did): 100. C.3's mask check now blocks every key of one query.
- b05, b06: plt.title/plt.xlabel/plt.ylabel with ax= given put the text on another Axes (the
  contract: a title= goes on the heatmap's own Axes); the ax= check never passed a title nor
  read the labels there: 100. It now does, and finds the colorbar in ax's figure (b09: the
  colorbar drawn on plt.gcf(), which is not ax's figure: 100, now E 9).
- b10: tick labels swapped on a map drawn the right way round was named heatmap_transposed
  ("the heatmap is transposed"), advice that would transpose a right map; it is now said as it is.
The public checks (tests/public_agreement.py) fail the bug's own task and no other: before, they
failed c02's D.1 (their reference took torch's eps) and passed b03 and b04 (no key-padding mask)
and b07 and b08 (no query with every key blocked in C.3).
Notebooks (tests/qa/qa13n/): a helper or constant that a task cell takes from a cell the student
added is the one its check cell saw ("a task is graded as its check cell saw it"): before, the
last definition anywhere won, so a scratch cell below the check that broke the helper cost
points (n11: A 31, n13: E 9) and one that fixed a broken helper earned them (n12: 100); a helper
defined only below the check (n10) counted, though Run All stops that check with a NameError.
This test grades seed 1, the whole corpus in one batch run (every part, two grader processes).
"""
from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.feedback.results import SubmissionResult
from autograder.grading.batch import grade_batch
from autograder.grading.session import GradeOptions

REPO = Path(__file__).resolve().parents[1]
CORPUS = REPO / "tests" / "qa" / "qa13"
SCORES = re.compile(r"^# Per-part scores: A=(\S+) B=(\S+) C=(\S+) D=(\S+) E=(\S+) F=(\S+)\.$", re.MULTILINE)
NAMED = re.compile(r"^# Mistakes named: (.*)\.$", re.MULTILINE)
FILES = sorted(CORPUS.glob("*.py"))
FULL = {"A": 32, "B": 10, "C": 28, "D": 12, "E": 10, "F": 8}
NOTEBOOKS = REPO / "tests" / "qa" / "qa13n"
NOTEBOOK_LOSSES = {  # the parts that are not full
    "n10_e1_helper_defined_below_check_cell": {"E": 0.0},
    "n11_helper_above_a2_broken_in_scratch_after_check": {},
    "n12_bug_a2_helper_above_fixed_only_in_scratch_after_check": {"A": 30.0},  # NaN in a fully blocked row: its gradient check too (qa35n F1)
    "n13_cmap_constant_changed_in_scratch_after_e_check": {},
}


def _expected(path: Path) -> tuple[dict[str, float], set[str]]:
    text = path.read_text(encoding="utf-8")
    scores, named = SCORES.search(text), NAMED.search(text)
    assert scores and named, f"{path.name}: the header gives no per-part scores or named mistakes"
    mistakes = set() if named.group(1) == "none" else {m.strip() for m in named.group(1).split(",")}
    return dict(zip("ABCDEF", map(float, scores.groups()))), mistakes


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> dict[str, SubmissionResult]:
    out = tmp_path_factory.mktemp("qa13_out")
    batch = grade_batch(CORPUS, out, jobs=2, options=GradeOptions(seed=1))
    return {result.submission: result for result in batch.submissions}


@pytest.fixture(scope="module")
def public() -> dict[str, dict[str, str | None] | str]:
    """Every public check of every file of the corpus, by path."""
    run = subprocess.run([sys.executable, str(REPO / "tests" / "public_agreement.py"), *map(str, FILES)], capture_output=True, text=True, cwd=REPO, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    return json.loads(run.stdout)


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


@pytest.mark.parametrize(("name", "said"), [
    ("b01_a1_bmm_3d_only", "batch1 must be a 3D tensor"),
    ("b03_a2_mask_squeezed", "mask.squeeze()"),  # the crash, with the line it came from
    ("b04_c3_mask_viewed_b1_lq_lk", "with a mask of shape (2, 1, 1, 5)"),
    ("b05_e1_title_via_plt_title", "the heatmap is on ax but its title went to another Axes or figure"),
    ("b06_e1_axis_labels_via_plt", "the heatmap is on ax but its xlabel, ylabel went to another Axes or figure"),
    ("b09_e1_colorbar_on_gcf", "the heatmap is on ax but its colorbar went to another Axes or figure"),
    ("b10_e1_tick_labels_swapped", "the cells run queries across, one column per query, but the horizontal axis is labelled with the key tokens"),
])
def test_the_feedback_says_what_went_wrong(graded, name, said):
    failures = [c.message for c in graded[name].checks if not c.passed]
    assert any(said in message for message in failures), failures


def test_the_transposed_axes_mistake_is_still_named_where_it_shows(grade):
    """k.transpose(1, 2) and k.permute(0, 2, 1) are right on 3-D inputs only, as bmm is: they are
    told apart by their values on a 4-D input with heads = keys = head size, and by torch's own
    refusal of a 3-axis permute."""
    from tests.conftest import REFERENCE

    text = REFERENCE.read_text(encoding="utf-8")
    line = next(row for row in text.splitlines() if "return" in row and "math.sqrt" in row and "k.transpose(-2, -1)" in row)
    for wrong in ("k.transpose(1, 2)", "k.permute(0, 2, 1)"):
        result = grade(text.replace(line, line.replace("k.transpose(-2, -1)", wrong)), name="fixed_axes", parts={"A"})
        assert "scores_wrong_transpose" in result.mistakes, [c.message for c in result.checks if not c.passed]


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_the_public_checks_fail_the_task_with_the_bug_and_no_other(path, public):
    said = public[str(path)]
    assert isinstance(said, dict), said
    code = path.stem.split("_")[1]  # b03_a2_...: a2 -> A.2
    assert {task for task, message in said.items() if message} == (set() if path.stem.startswith("c") else {f"{code[0].upper()}.{code[1:]}"}), said


@pytest.fixture(scope="module")
def notebooks(tmp_path_factory) -> dict[str, SubmissionResult]:
    batch = grade_batch(NOTEBOOKS, tmp_path_factory.mktemp("qa13n_out"), jobs=2, options=GradeOptions(seed=1))
    return {result.submission: result for result in batch.submissions}


@pytest.mark.parametrize("name", sorted(NOTEBOOK_LOSSES))
def test_a_notebook_is_graded_as_its_check_cells_saw_the_helpers(notebooks, name):
    assert sorted(path.stem for path in NOTEBOOKS.glob("*.ipynb")) == sorted(NOTEBOOK_LOSSES)
    result = notebooks[name]
    failures = [f"{c.task} {c.check_id}: {c.message[:160]}" for c in result.checks if not c.passed]
    assert {p.part: p.score for p in result.parts} == {part: float(points) for part, points in FULL.items()} | NOTEBOOK_LOSSES[name], failures
