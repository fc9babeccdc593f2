"""Helpers of the QA corpora's tests (tests/test_qa_qa*.py): the headers' expected grades, and the
public checks' verdicts."""
from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from autograder.feedback.results import SubmissionResult
from autograder.grading.batch import grade_batch
from autograder.grading.session import GradeOptions

REPO = Path(__file__).resolve().parents[1]


def public_verdicts(files: list[Path]) -> dict[str, dict[str, str | None] | str]:
    """Every public check of every file, by path (tests/public_agreement.py, one process)."""
    run = subprocess.run([sys.executable, str(REPO / "tests" / "public_agreement.py"), *map(str, files)], capture_output=True, text=True, cwd=REPO, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    return json.loads(run.stdout)


FULL = {"A": 32, "B": 10, "C": 28, "D": 12, "E": 10, "F": 8}  # every part's full marks
SCORES = re.compile(r"^# Per-part scores: A=(\S+) B=(\S+) C=(\S+) D=(\S+) E=(\S+) F=(\S+)\.$", re.MULTILINE)
NAMED = re.compile(r"^# Mistakes named: (.*)\.$", re.MULTILINE)


def expected(path: Path) -> tuple[dict[str, float], set[str]]:
    """A corpus file's header (qa16 on): its per-part scores and the mistakes its feedback names."""
    text = path.read_text(encoding="utf-8")
    scores, named = SCORES.search(text), NAMED.search(text)
    assert scores and named, f"{path.name}: the header gives no per-part scores or named mistakes"
    mistakes = set() if named.group(1) == "none" else {m.strip() for m in named.group(1).split(",")}
    return dict(zip("ABCDEF", map(float, scores.groups()))), mistakes


def graded_corpus(corpus: Path, out: Path, seed: int = 1) -> dict[str, SubmissionResult]:
    """The whole corpus graded in one batch run (every part, two grader processes), by file stem."""
    batch = grade_batch(corpus, out, jobs=2, options=GradeOptions(seed=seed))
    return {result.submission: result for result in batch.submissions}


def assert_each_bug_in_its_own_part(files: list[Path]) -> None:
    """The headers: a correct file (c*) expects full marks and names nothing; a bug file
    (b*_<part><task>_..., h*_...) loses points in the part its name gives, only there."""
    for path in files:
        scores, named = expected(path)
        lost = {part for part, score in scores.items() if score < FULL[part]}
        assert (not lost and not named) if path.stem.startswith("c") else lost == {path.stem.split("_")[1][0].upper()}, path.name


def assert_graded_as_expected(result: SubmissionResult, path: Path) -> None:
    """The grade of one file is its header's: per-part scores, and only its mistakes named."""
    assert not result.grader_error, result.grader_error
    scores, named = expected(path)
    failures = [f"{c.task} {c.check_id}: {c.message[:160]}" for c in result.checks if not c.passed]
    assert {p.part: p.score for p in result.parts} == scores, failures
    assert set(result.mistakes) == named, failures
