"""qa6s's regression corpus (tests/qa/qa6s/): Parts A-D in styles the earlier corpora lack, and single bugs.

Each file is a whole student attention.py. `c*` are correct: einsum everywhere, typing.Protocol
with the earlier functions as default arguments, closure factories, functools.partial task
functions, earlier functions as class attributes (staticmethod, plain, a class), dataclass
configs and a frozen dataclass holding the functions, typing.NamedTuple results, half-precision
aware softmax, module helper methods and properties, broadcast multiply-and-sum, its own
parameter names and defaulted extras, a prescaled q, a scale buffer, torch.nn.functional where
the contract allows, unbind/cat and unflatten/movedim heads, a dict registry with lambdas, float64
inside, keyword-only extras, a static namespace class, torch.where at every step, a loop over
heads, a fused projection from the named layers, @torch.enable_grad, a softmax autograd.Function:
100 % of A-D. `b*` hold one realistic bug each, many in the styles above so that the earlier
function reaches the later ones through a default value, a closure, a partial, a class attribute,
a dataclass field or a dict: points lost only in the task where the bug lives, and only the right
mistakes named, or none. Two are folders whose Part A is in a helper file of the student's own.
b44 and b45 (lead, round 10) read `res.output` of c07's named results in the later tasks: a
stand-in returned a plain tuple, and B.1 lost 2 points for A.3's bug; it now returns the named
tuple the submission's own function returns.
The comment at the top of each file says what it is, its per-part scores
and the mistakes the feedback names; they hold at seeds 1, 2 and 3 (checked when the corpus was
written); this test grades seed 1.

The whole corpus is graded in one batch run (Parts A-D, seed 1, two grader processes).
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from autograder.feedback.results import SubmissionResult
from autograder.grading.batch import grade_batch
from autograder.grading.session import GradeOptions

CORPUS = Path(__file__).resolve().parent / "qa" / "qa6s"
SCORES = re.compile(r"^# Per-part scores \(A-D\): A=(\S+) B=(\S+) C=(\S+) D=(\S+)\.$", re.MULTILINE)
NAMED = re.compile(r"^# Mistakes named: (.*)\.$", re.MULTILINE)
FILES = sorted([*CORPUS.glob("*.py"), *(p for p in CORPUS.iterdir() if p.is_dir() and not p.name.startswith("_"))])  # a folder: its attention.py and a helper file
FULL = {"A": 32, "B": 10, "C": 28, "D": 12}


def _expected(path: Path) -> tuple[dict[str, float], set[str]]:
    text = (path / "attention.py" if path.is_dir() else path).read_text(encoding="utf-8")
    scores, named = SCORES.search(text), NAMED.search(text)
    assert scores and named, f"{path.name}: the header gives no per-part scores or named mistakes"
    mistakes = set() if named.group(1) == "none" else {m.strip() for m in named.group(1).split(",")}
    return dict(zip("ABCD", map(float, scores.groups()))), mistakes


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> dict[str, SubmissionResult]:
    out = tmp_path_factory.mktemp("qa6s_out")
    batch = grade_batch(CORPUS, out, jobs=2, options=GradeOptions(seed=1, parts=frozenset("ABCD")))
    return {result.submission: result for result in batch.submissions}


def test_the_corpus_holds_30_correct_styles_and_30_single_bugs_each_losing_points_in_one_part():
    names = [path.stem for path in FILES]
    assert sum(n.startswith("c") for n in names) >= 30 and sum(n.startswith("b") for n in names) >= 30
    for path in FILES:
        scores, named = _expected(path)
        lost = {part for part, score in scores.items() if score < FULL[part]}
        assert (not lost and not named) if path.stem.startswith("c") else len(lost) == 1, path.name


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_each_submission_scores_its_parts_and_names_only_its_mistakes(path, graded):
    result = graded[path.stem]
    assert not result.grader_error, result.grader_error
    scores, named = _expected(path)
    failures = [f"{c.task} {c.check_id}: {c.message[:160]}" for c in result.checks if not c.passed]
    assert {p.part: p.score for p in result.parts} == scores, failures
    assert set(result.mistakes) == named, failures
