"""qa5x's regression corpus (tests/qa/qa5x/): two to four bugs in different tasks of one file.

Each submission is the reference with the functions of two to four single-bug files of
tests/qa/qa4s and tests/qa/qa4e put together (its header names them): A.1 unscaled with C.1 split
without a transpose and E.1 transposed, A.2 inverted with a pre-norm block, B.1's shared projection
with C.3 lacking W_o, the signature bugs (extra arguments, renamed parameters, a module alias) next
to other parts' bugs... Each bug is charged once, in its own task: Parts A-E score what the single
bugs score apart, summed per part, and the mistakes named are the union of theirs. Part F follows
its own rule (README, "Scoring policy"): a check pays when the student's own code gives the right
values, or when one of the components it grades does with trusted versions of the others; so F
loses points only where two bugs both show in what it measures (m09, m26, m29).
The corpus was graded at seeds 1, 2 and 3 when it was written; here once, seed 3, every part.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from autograder.feedback.results import SubmissionResult
from autograder.grading.batch import grade_batch
from autograder.grading.session import GradeOptions

CORPUS = Path(__file__).resolve().parent / "qa" / "qa5x"
EXPECTED = re.compile(r"^# expected: ((?:[A-F]=[0-9.]+ ?)+)$", re.MULTILINE)
NAMED = re.compile(r"^# mistakes: (.*)$", re.MULTILINE)
FILES = sorted(CORPUS.glob("*.py"))


def _expected(path: Path) -> tuple[dict[str, float], set[str]]:
    text = path.read_text(encoding="utf-8")[:3000]
    scores, named = EXPECTED.search(text), NAMED.search(text)
    assert scores and named, f"{path.name}: the header gives no expected scores or named mistakes"
    parts = {part: float(score) for part, score in (item.split("=") for item in scores.group(1).split())}
    return parts, set() if named.group(1) == "none" else {m.strip() for m in named.group(1).split(",")}


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> dict[str, SubmissionResult]:
    out = tmp_path_factory.mktemp("qa5x_out")
    batch = grade_batch(CORPUS, out, jobs=2, options=GradeOptions(seed=3))
    assert not batch.failed_to_grade, [(s.submission, s.grader_error) for s in batch.failed_to_grade]
    return {result.submission: result for result in batch.submissions}


def test_the_corpus_holds_25_multi_bug_files_of_whole_parts():
    assert len(FILES) >= 25
    for path in FILES:
        scores, _ = _expected(path)
        assert set(scores) == set("ABCDEF"), path.name
        assert len(re.findall(r"^#   qa4[se]/", path.read_text(encoding="utf-8"), re.MULTILINE)) >= 2, path.name


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_each_bug_is_charged_once_in_its_own_task(path, graded):
    result = graded[path.stem]
    scores, named = _expected(path)
    failures = [f"{c.task} {c.check_id}: {c.message[:160]}" for c in result.checks if not c.passed]
    assert {p.part: p.score for p in result.parts} == scores, failures
    assert set(result.mistakes) == named, failures
