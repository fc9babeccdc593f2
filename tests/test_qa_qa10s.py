"""qa10s's regression corpus (tests/qa/qa10s/): Parts A-D in styles the kit had not seen, single bugs, each charged once.

Each file is a whole student attention.py (Part E as the kit's own). `c*` are correct: einsum in
implicit-output mode and an exp2 softmax, an online (chunked, flash-style) softmax, the Part A
functions behind parameter-free nn.Module wrappers, a meshgrid causal mask and swapaxes heads, an
lru_cache'd causal mask, read-only properties and a class decorator handing out the kernels, a
functools.reduce pipeline, masked_softmax mapped over the heads, projections straight into heads
through W.weight.view(H, Dh, E), float64 inside and cast back with a frozen dataclass config, a
module-level list of kernels and a block that loops over its steps, a head loop calling A.3 with
F.dropout, a running logaddexp normaliser, bmm over flattened leading dims, one cat+chunk of the
three projections, a mask of any dtype, a Residual helper, einsum transposes for the heads and a
float32-inside softmax for half inputs, a normaliser taken from logcumsumexp or cumsum: 100 % of A-D.
`b*` hold one bug each: points lost only in the task where it lives, and only the right mistake
named, or none. Some bugs show only when batch > 1 (b02, b03), only with a fully blocked query
(b18), or only in a later task's own code (b04: A.3 multiplies the mask into the scores, named as
the same mistake of A.2; b17: C.3 merges its heads interleaved through W_o's view). b08-b16 and
b21-b26 put the bug in an earlier task that B.1/C.3 reach through an nn.Module wrapper, a
property, a class decorator, a pipeline, a list, map(), a partial of a method, a class body's
forward = staticmethod(...), a functools.cache'd table, a property made by a helper
(property(lambda self: fn)), a collections.deque or a ChainMap, a functools.cached_property.

What was unfair before (main at 005ca0f), and is fixed:
- b18: B.1's mask check never blocked every key of a query; W_v applied after the weighted sum
  (bias, not 0, for such a query) kept B 10/10. Now B=8.
- b22, b23: the stand-ins never reached a functools.cache'd table filled with the student's own
  A.1/A.2: B=1 C=8 (b22), B=8 C=24 (b23). Now B=10 C=28.
- b24: the stand-ins never looked inside a property: C=8. b25: nor in a deque: B=1. Now full.
- c21: torch.logcumsumexp was not among the elementary operators of A.2's "by hand" rule (cumsum
  was): A=30. Now full.
- b22-b25: the public checks had the same gaps: B.1 or C.3 failed for A's bug.
- b18: the public B.1 check passed it too; it now also blocks every key of one query.
- c23 (the lead): nn.LayerNorm(embed_dim, eps=1e-6) scored D 11 or 3 by seed (the reference used
  torch's 1e-5); the reference now takes the student's eps up to 1e-3, as the contract says
  (b27: eps=0.5 is charged).
- c24-c26 (the lead): a hand-written softmax whose row max is taken by topk(1) or sort, or whose
  row sum is e @ ones, lost A.2's "by hand" rule (A=30): selection and matrix products are now
  among its elementary operations (the contract, en, says so).
The public checks (tests/public_agreement.py) fail no task but the bug's own; they passed b06 (the
gradient through the residual, lost by x.detach()) until the public D.1 check took the gradient of y
with respect to x.
The comment at the top of each file gives its per-part scores and the mistakes the feedback names;
they hold at seeds 1, 2 and 3 (checked when the corpus was written); this test grades seed 1, the
whole corpus in one batch run (Parts A-D, two grader processes).
"""
from __future__ import annotations

import functools
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.feedback.results import SubmissionResult
from autograder.grading.batch import grade_batch
from autograder.grading.session import GradeOptions
from autograder.grading.worker import standins

REPO = Path(__file__).resolve().parents[1]
CORPUS = REPO / "tests" / "qa" / "qa10s"
SCORES = re.compile(r"^# Per-part scores \(A-D\): A=(\S+) B=(\S+) C=(\S+) D=(\S+)\.$", re.MULTILINE)
NAMED = re.compile(r"^# Mistakes named: (.*)\.$", re.MULTILINE)
FILES = sorted(CORPUS.glob("*.py"))
FULL = {"A": 32, "B": 10, "C": 28, "D": 12}
BUG_PART = {"a": "A", "b": "B", "c": "C", "d": "D"}  # b07_d1_...: the task named after the number


def _expected(path: Path) -> tuple[dict[str, float], set[str]]:
    text = path.read_text(encoding="utf-8")
    scores, named = SCORES.search(text), NAMED.search(text)
    assert scores and named, f"{path.name}: the header gives no per-part scores or named mistakes"
    mistakes = set() if named.group(1) == "none" else {m.strip() for m in named.group(1).split(",")}
    return dict(zip("ABCD", map(float, scores.groups()))), mistakes


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> dict[str, SubmissionResult]:
    out = tmp_path_factory.mktemp("qa10s_out")
    batch = grade_batch(CORPUS, out, jobs=2, options=GradeOptions(seed=1, parts=frozenset("ABCD")))
    return {result.submission: result for result in batch.submissions}


@pytest.fixture(scope="module")
def public() -> dict[str, dict[str, str | None] | str]:
    """Every public check of every file of the corpus, by path (tests/public_agreement.py)."""
    run = subprocess.run([sys.executable, str(REPO / "tests" / "public_agreement.py"), *map(str, FILES)], capture_output=True, text=True, cwd=REPO, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    return json.loads(run.stdout)


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


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_the_public_checks_fail_the_task_with_the_bug_and_no_other(path, public):
    """The public checks stand in for the earlier tasks as the grader does: before, a
    functools.cache'd table, a property's getter and a deque kept the student's own A.1/A.2 there
    too, and B.1 or C.3 failed for A's bug (b22-b25). And they fail where the grader charges: B.1's bias for a query with
    every key blocked (b18) passed them."""
    said = public[str(path)]
    assert isinstance(said, dict), said
    failed = {task for task, message in said.items() if message}
    code = path.stem.split("_")[1]  # b07_d1_...: d1 -> D.1
    allowed = set() if path.stem.startswith("c") else {f"{code[0].upper()}.{code[1:]}"}
    assert failed == allowed, said


def test_the_stand_ins_reach_what_a_memoised_function_of_the_submissions_returned():
    """A @functools.cache table filled on its first call with the student's own functions kept
    them through every request with stand-ins (b22, b23). The walk empties the cache for the
    request, so the table is filled again with the stand-ins, and after it, so that they do not
    outlive the request."""

    def own() -> None: ...

    def stand_in() -> None: ...

    @functools.cache
    def kernels() -> tuple:
        return (own,)

    assert kernels()[0] is own  # filled before the request, as the student's own checks fill it
    restore = standins.rebind([{"kernels": kernels}], {id(own): stand_in}, lambda obj: obj is kernels.__wrapped__)
    assert kernels()[0] is stand_in
    restore()
    assert kernels()[0] is own


def test_the_stand_ins_reach_a_read_only_registry_of_the_submissions():
    """`OPS = types.MappingProxyType({"softmax": masked_softmax})` kept the student's own A.2 in a
    request with stand-ins: the dict behind the proxy is walked like any dict of the submission's."""
    import types

    def own() -> None: ...

    def stand_in() -> None: ...

    ops = types.MappingProxyType({"softmax": own, "scale": 2.0})
    restore = standins.rebind([{"OPS": ops}], {id(own): stand_in}, lambda obj: False)
    assert ops["softmax"] is stand_in and ops["scale"] == 2.0
    restore()
    assert ops["softmax"] is own
