"""qa14's regression corpus (tests/qa/qa14/): two correct styles the contract allows, single bugs
and hostile files, each charged once, in its own task, and never named as a mistake it is not.

Each file is a whole student attention.py; its header gives its per-part scores and the mistakes
the feedback names. What was wrong before (main at c871439), and is fixed:
- c01, c02: C.3 returning its output or its weights as float32 (the contract states no dtype for
  C.3) crashed the grader in the dropout check ("Float did not match Double", shown to the
  student by `attnkit check`) and lost the gradcheck: C=25 and 26. The checks now compare within
  the rounding of the dtypes, and the gradcheck takes a float32 step for a float32 result.
- b01: `scores -= row_max` changes the caller's scores when no mask is given (with one, masked_fill
  made a copy first): the in-place check passed a mask only: 100. It now also calls without one.
- b02: the block's own nn.Dropout(0.1) was told to "apply self.dropout to the attention output",
  which it does; it is now told its rate (p=0.1, where dropout=0.5 was given).
- b04-b07: ax.axis("off"), ax.set_axis_off(), ax.xaxis.set_visible(False) made the whole figure
  unreadable ("a tick label of the description lies outside the image": E=0); hidden axis labels
  earned their point (E=10). Tick labels, axis labels and titles are now read as drawn.
- b08, b09: the library in every call but the traced one, told apart by a look at the stack from a
  __torch_function__ (or by the line that calls the student): 100. b10, b11: the library run inside
  a tensor subclass's __torch_function__ (the trace is off there): 100. The trace now notes an
  argument's own __torch_function__, and one line calls the student, traced or not.
- b12: an Axes subclass whose get_xlabel/get_ylabel/get_title claim text never drawn: E=10. b13: a
  stand-in object set as the image's colorbar: E=10. The worker now reads the Text artists and
  takes only a drawn Colorbar.
- b15: zeros returned, with an object whose __del__ writes a library softmax into them after the
  call (the reply was encoded after it ran): 100. The worker now sends a copy taken at return.
- b16, b17: a colorbar whose Axes is hidden or has no size: E=10. Only a colorbar on the page counts.
- h01: torch.__getstate__()["_C"] reached torch's private names, which the static pass did not see
  (a name as text in a subscript), and popped the trace's modes around library calls: 100 with no
  flag. __getstate__ is now read as the evasion it is (each rule its code reaches fails, as does E).
- b18, b19: A.3 giving a 3-D mask a head axis of its own, or expanding a 2-D mask over q.size(0):
  A.3 never had a (B, Lq, Lk) mask with 3-D inputs nor an (Lq, Lk) mask with 4-D ones, and the
  later parts re-graded with a trusted A.3: 100. A.3 now checks both (A=27; A=31.5 since qa50s, an edge check of its own).
- b20, b21: B.1 or C.3 fusing the projections' weights on the first forward and using them from
  then on (training changes nothing): 100. Their values checks now load other weights and run
  again: B=4, C=19. The public checks do the same.
- b22: causal_mask sliced from a 16x16 table (nanoGPT's block_size buffer): A.4 was tried up to
  size 5: 100. It now tries 33x40 and 130 (not 1030: a right mask filled entry by entry would
  take 5.6 s there): A=29; the public check tries 130.
- b14: a mask never applied lost the A.2 dtype check on some seeds only (A=22 or 23): now on every
  seed (a blocked key lies near its row's maximum).
The public checks (tests/public_agreement.py) fail the bug's own task and no other for the files a
student writes in good faith (b01-b07, b14, c01, c02): before, they passed the hidden axes of
b04-b07. They are not a defence against hostile files (b08-b13), which the grader catches.
The notebook tests/qa/qa14n/n01 (a Colab copy without cell tags whose masked_softmax cell does not
parse) was told "masked_softmax is not defined in your file": it is now told where the syntax error is.
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
CORPUS = REPO / "tests" / "qa" / "qa14"
SCORES = re.compile(r"^# Per-part scores: A=(\S+) B=(\S+) C=(\S+) D=(\S+) E=(\S+) F=(\S+)\.$", re.MULTILINE)
NAMED = re.compile(r"^# Mistakes named: (.*)\.$", re.MULTILINE)
FILES = sorted(CORPUS.glob("*.py"))
HOSTILE = {f"b{n:02d}" for n in (*range(8, 14), 15)} | {"h01"}  # the public checks trust the student; the grader does not
FULL = {"A": 32, "B": 10, "C": 28, "D": 12, "E": 10, "F": 8}
NOTEBOOK = REPO / "tests" / "qa" / "qa14n" / "n01_a2_untagged_cell_syntax_error.ipynb"


def _expected(path: Path) -> tuple[dict[str, float], set[str]]:
    text = path.read_text(encoding="utf-8")
    scores, named = SCORES.search(text), NAMED.search(text)
    assert scores and named, f"{path.name}: the header gives no per-part scores or named mistakes"
    mistakes = set() if named.group(1) == "none" else {m.strip() for m in named.group(1).split(",")}
    return dict(zip("ABCDEF", map(float, scores.groups()))), mistakes


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> dict[str, SubmissionResult]:
    out = tmp_path_factory.mktemp("qa14_out")
    batch = grade_batch(CORPUS, out, jobs=2, options=GradeOptions(seed=1))
    return {result.submission: result for result in batch.submissions}


@pytest.fixture(scope="module")
def public() -> dict[str, dict[str, str | None] | str]:
    """Every public check of every file a student writes in good faith, by path."""
    return public_verdicts([path for path in FILES if path.stem[:3] not in HOSTILE])


def test_correct_files_expect_full_marks_and_each_bug_loses_points_in_its_own_part_only():
    for path in (p for p in FILES if not p.stem.startswith("h")):  # h: hostile, charged as the contract says
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
    ("b02_d1_block_dropout_fixed_p", "built self.dropout with p=0.1"),
    ("b08_a2_library_softmax_except_when_traced", "uses torch.distributions.Categorical"),  # a banned name since qa25h (was told by its __torch_function__)
    ("b10_a3_library_attention_in_torch_function", "__torch_function__"),
    ("b13_e1_colorbar_claimed_not_drawn", "The heatmap has no colorbar: add one"),
])
def test_the_feedback_says_what_went_wrong(graded, name, said):
    failures = [c.message for c in graded[name].checks if not c.passed]
    assert any(said in message for message in failures), failures
    assert not any("The heatmap has no colorbar: The heatmap has no colorbar" in message for message in failures), failures


def test_a_mask_never_applied_costs_the_same_on_another_seed(grade):
    path = CORPUS / "b14_a2_mask_ignored.py"
    result = grade(path, seed=1841987840, parts={"A"})
    assert {p.part: p.score for p in result.parts} == {"A": _expected(path)[0]["A"]}


@pytest.mark.parametrize("path", [p for p in FILES if p.stem[:3] not in HOSTILE], ids=[p.stem for p in FILES if p.stem[:3] not in HOSTILE])
def test_the_public_checks_fail_the_task_with_the_bug_and_no_other(path, public):
    said = public[str(path)]
    assert isinstance(said, dict), said
    code = path.stem.split("_")[1]  # b01_a2_...: a2 -> A.2
    assert {task for task, message in said.items() if message} == (set() if path.stem.startswith("c") else {f"{code[0].upper()}.{code[1:]}"}), said


def test_a_notebook_cell_that_does_not_parse_is_said_where_it_fails(grade):
    """Without cell tags, the cells that define the tasks are the answers: one that does not parse
    still defines masked_softmax by its text, so the feedback points at its syntax error."""
    result = grade(NOTEBOOK, seed=1, parts={"A"})
    failures = [c.message for c in result.checks if c.task == "A.2" and not c.passed]
    assert failures and all("its code has a syntax error (cell 10, line 16), so it never ran" in m for m in failures), failures
    assert {p.part: p.score for p in result.parts} == {"A": 18.0}
