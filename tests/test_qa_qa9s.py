"""qa9s's regression corpus (tests/qa/qa9s/): each bug charged once, whatever way the later tasks reach the earlier functions.

Each file is a whole student attention.py (Part E as the kit's own). `c*` are correct: the task
functions as bound methods of the submission's own object (masked_softmax = _ops.softmax), a
block whose attn is its own subclass of MultiHeadAttention, a namedtuple table of the Part A
functions, torch.vmap over the heads, a generator over the heads, torch.utils.checkpoint, a
logsumexp softmax, chunk/stack and unbind/cat for the heads, k.mT, an arange causal mask, einsum
sums, a fused q/k/v projection, functools.wraps decorators on the forwards, the max shift under
no_grad, broadcast products, stacked projection weights, a functools.partial instance attribute,
a classmethod factory, a generator-unpacked projection, a named-tuple block result, a __call__
object, scores masked in place, bmm over contiguous views, a block reading self.attn.head_dim,
a block building its attention from a class attribute: 100 % of A-D.
`b*` hold one bug each, with later tasks reaching the buggy function in one of those ways (and
torch.func.functional_call in the block): points lost only in the task where the bug lives, and
only the right mistakes named, or none (b30-b33: bugs whose names are checked: mask_after_softmax,
mha_scaled_by_embed_dim, mha_weights_without_heads, and none for dropout around the whole sum).

What was unfair before (main at 0208f42), and is fixed:
- c01: `masked_softmax = _ops.softmax` was read as an alias of the library softmax (A.3's
  sdpa_no_library, A=31): `_Ops()` (a class name starting with _) was not seen as making an own object.
- c02: D.1's block_parameters compared the class name of self.attn (D=11); a subclass is one now.
- b01: C.3 reached the buggy softmax through the object (_ops.softmax): C=8 (and A=17, c01's alias).
- b22: the same, A.3 and B.1 too (_ops.attend calls self.softmax): A=11 B=1 C=8.
- b02, b19: C.3 reached the buggy function through a namedtuple: C=8.
- b03: the block's subclass of MultiHeadAttention kept the buggy class as its base: D=1 (b20: D=11).
- b23, b24: a stand-in had no vmap rule: C=8 (A.2's bug), C=24 and mha_mask_ignored named (A.3's).
- b25: a stand-in's result was a view that autograd refused to change in place: C=24.
- b26: the stand-in MultiHeadAttention had no head_dim for the block to read: D=1.
The comment at the top of each file says what it is, its per-part scores and the mistakes the
feedback names; they hold at seeds 1, 2 and 3 (checked when the corpus was written); this test
grades seed 1, the whole corpus in one batch run (Parts A-D, two grader processes).
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from autograder.feedback.results import SubmissionResult
from autograder.grading.batch import grade_batch
from autograder.grading.session import GradeOptions

CORPUS = Path(__file__).resolve().parent / "qa" / "qa9s"
SCORES = re.compile(r"^# Per-part scores \(A-D\): A=(\S+) B=(\S+) C=(\S+) D=(\S+)\.$", re.MULTILINE)
NAMED = re.compile(r"^# Mistakes named: (.*)\.$", re.MULTILINE)
FILES = sorted(CORPUS.glob("*.py"))
FULL = {"A": 32, "B": 10, "C": 28, "D": 12}
BUG_PART = {"a": "A", "b": "B", "c": "C", "d": "D"}  # b07_a3_...: the task named after the number


def _expected(path: Path) -> tuple[dict[str, float], set[str]]:
    text = path.read_text(encoding="utf-8")
    scores, named = SCORES.search(text), NAMED.search(text)
    assert scores and named, f"{path.name}: the header gives no per-part scores or named mistakes"
    mistakes = set() if named.group(1) == "none" else {m.strip() for m in named.group(1).split(",")}
    return dict(zip("ABCD", map(float, scores.groups()))), mistakes


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> dict[str, SubmissionResult]:
    out = tmp_path_factory.mktemp("qa9s_out")
    batch = grade_batch(CORPUS, out, jobs=2, options=GradeOptions(seed=1, parts=frozenset("ABCD")))
    return {result.submission: result for result in batch.submissions}


def test_the_corpus_holds_20_correct_styles_and_20_single_bugs_each_losing_points_in_its_own_part():
    names = [path.stem for path in FILES]
    assert sum(n.startswith("c") for n in names) >= 20 and sum(n.startswith("b") for n in names) >= 20
    for path in FILES:
        scores, named = _expected(path)
        lost = {part for part, score in scores.items() if score < FULL[part]}
        if path.stem.startswith("c"):
            assert not lost and not named, path.name
        else:
            assert lost == {BUG_PART[path.stem.split("_")[1][0]]}, path.name


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_each_submission_scores_its_parts_and_names_only_its_mistakes(path, graded):
    result = graded[path.stem]
    assert not result.grader_error, result.grader_error
    scores, named = _expected(path)
    failures = [f"{c.task} {c.check_id}: {c.message[:160]}" for c in result.checks if not c.passed]
    assert {p.part: p.score for p in result.parts} == scores, failures
    assert set(result.mistakes) == named, failures
