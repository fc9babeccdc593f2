"""qa4s's regression corpus (tests/qa/qa4s/): Parts A-D written in other styles, and single bugs.

Each file is a whole student attention.py: the reference with one task rewritten. `c*` are correct
in a style the reference and the examples do not use (bmm/baddbmm/einsum, .mT, masks by arange
comparison or numpy, softmax through logsumexp / F.normalize / a multiplied mask, float64 inside,
split and merge by view/unflatten/chunk, a fused in-projection, a loop over heads, setattr on self,
extra buffers and submodules, a __main__ block...): 100 % of A-D. `b*` hold one realistic bug each:
points lost only in the task where it lives (later parts are paid through the trusted stand-ins),
and only the right mistakes named, or none. The comment at the top of each file says what it is,
its per-part scores and the mistakes the feedback names.

The whole corpus is graded in one batch run (Parts A-D, seed 1, two grader processes).
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from autograder.feedback.results import SubmissionResult
from autograder.grading.batch import grade_batch
from autograder.grading.session import GradeOptions

CORPUS = Path(__file__).resolve().parent / "qa" / "qa4s"
SCORES = re.compile(r"^# Per-part scores \(A-D\): A=(\S+) B=(\S+) C=(\S+) D=(\S+)\.$", re.MULTILINE)
NAMED = re.compile(r"^# Mistakes named: (.*)\.$", re.MULTILINE)
FILES = sorted(CORPUS.glob("*.py"))


def _expected(path: Path) -> tuple[dict[str, float], set[str]]:
    text = path.read_text(encoding="utf-8")
    scores, named = SCORES.search(text), NAMED.search(text)
    assert scores and named, f"{path.name}: the header gives no per-part scores or named mistakes"
    mistakes = set() if named.group(1) == "none" else {m.strip() for m in named.group(1).split(",")}
    return dict(zip("ABCD", map(float, scores.groups()))), mistakes


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> dict[str, SubmissionResult]:
    out = tmp_path_factory.mktemp("qa4s_out")
    batch = grade_batch(CORPUS, out, jobs=2, options=GradeOptions(seed=1, parts=frozenset("ABCD")))
    return {result.submission: result for result in batch.submissions}


def test_the_corpus_holds_25_correct_styles_and_25_single_bugs():
    names = [path.stem for path in FILES]
    assert sum(n.startswith("c") for n in names) >= 25 and sum(n.startswith("b") for n in names) >= 25
    for path in FILES:
        scores, named = _expected(path)
        if path.stem.startswith("c"):
            assert scores == {"A": 32, "B": 10, "C": 28, "D": 12} and not named, path.name


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_each_submission_scores_its_parts_and_names_only_its_mistakes(path, graded):
    result = graded[path.stem]
    assert not result.grader_error, result.grader_error
    scores, named = _expected(path)
    failures = [f"{c.task} {c.check_id}: {c.message[:160]}" for c in result.checks if not c.passed]
    assert {p.part: p.score for p in result.parts} == scores, failures
    assert set(result.mistakes) == named, failures
