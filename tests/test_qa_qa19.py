"""qa19's notebooks (tests/qa/qa19/): IPython's `display`, which a Jupyter kernel gives every cell.
What was wrong before (main at 68e5d57), and is fixed:
- n01: a task cell that starts with `display(attention_scores(...))` (a demo line that runs under
  Run All) stopped there with "NameError: name 'display' is not defined": masked_softmax, defined
  below it, was never defined (A 18/32, every A.2 check "masked_softmax is not defined").
- n02: `display(...)` after the definition kept the points, but the feedback said the rest of that
  cell "did not run" because of a NameError the student's notebook never raises.
A graded notebook's cells now have a `display` that shows nothing (worker/dispatcher.py, op_load).
Each notebook's first cell gives its expected scores (`expected: A=32 ...`); graded on seed 1.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from autograder.feedback.results import SubmissionResult
from tests.corpus import graded_corpus
from tests.test_qa_qa10n import expected_scores

CORPUS = Path(__file__).resolve().parent / "qa" / "qa19"
FILES = sorted(CORPUS.glob("*.ipynb"))


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> dict[str, SubmissionResult]:
    return graded_corpus(CORPUS, tmp_path_factory.mktemp("qa19_out"))


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_a_notebook_that_calls_display_is_graded_as_jupyter_runs_it(path, graded):
    result = graded[path.stem]
    assert {p.part: p.score for p in result.parts} == expected_scores(path), [c.message[:160] for c in result.checks if not c.passed]
    assert "display" not in json.dumps([result.events, [c.message for c in result.checks]])
