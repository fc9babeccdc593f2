"""qa25h, the red team's findings (all fixed; repro files in tests/qa/qa25h or built here):

- A notebook of one untagged cell of N `h = 1` lines and K answer cells each with a check cell and a
  cell of its own that reads h: the walk that finds what the student's own cells give the answers
  looked at every binding of h once per check cell (K x N): 1.8 MB held the grader 110 s (and the
  batch's main process 85 s more for the similarity fingerprint, `attnkit report` 90 s); 8.3 MB
  about 35 min. Each range of cells is now walked from where a wider one stopped (bisect), each
  cell is parsed once per notebook, and a notebook whose own cells hold more than
  NOTEBOOK_MAX_OWN_STATEMENTS top-level statements runs none of them and says so (2.5 MB of
  `h = 1` lines alone took 46 s): 2.3 s, 10 s and 4.9 s now.
- A submission named `x.attnkit-partial.py` got a results folder that the clean-up of a killed
  writer's temporaries tried to unlink: every later grade-batch into that folder, --force too,
  stopped with IsADirectoryError.
- A masked_softmax that returns 250 MB pushed the grader to 4.5 GB: each check's frames held its
  replies until the next garbage collection (a check's exception keeps its traceback), and
  gradcheck drew float64 vectors of the output's size (2 GB). A check's frames now let go at once,
  and remote_gradcheck refuses an output of another shape first: 1.09 GB (two replies in flight).
- A.2's "by hand" rule was switched off by torch.distributions.Categorical / OneHotCategorical
  (`.logits` is s - logsumexp(s)): their names are banned as SoftmaxTransform's were.
"""
from __future__ import annotations

import gc
import json
import shutil
import weakref
from pathlib import Path

import pytest
import torch

from autograder.grading.batch import grade_batch
from autograder.grading.session import GradeOptions
from autograder.grading.submission import load_submission
from autograder.settings import NOTEBOOK_MAX_OWN_STATEMENTS

REPO = Path(__file__).resolve().parents[1]
CORPUS = REPO / "tests" / "qa" / "qa25h"
REFERENCE = REPO / "solutions" / "attention" / "attention.py"


def _code(source: str, tags: list[str] | None = None, grade: bool = False) -> dict:
    metadata: dict = {"tags": tags} if tags else {}
    if grade:
        metadata["nbgrader"] = {"grade": True, "grade_id": "check", "points": 1}
    return {"cell_type": "code", "metadata": metadata, "source": source, "outputs": [], "execution_count": None}


def _notebook(path: Path, cells: list[dict]) -> Path:
    path.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}), encoding="utf-8")
    return path


def test_own_cells_past_the_bound_run_nothing_and_say_so(tmp_path):
    answer = _code("def attention_scores(q, k):\n    return helper(q, k)\n", ["attnkit:answer"])
    under = _notebook(tmp_path / "under.ipynb", [_code("def helper(q, k):\n    return q\n" + "h = 1\n" * 100), answer])
    over = _notebook(tmp_path / "over.ipynb", [_code("def helper(q, k):\n    return q\n" + "h = 1\n" * NOTEBOOK_MAX_OWN_STATEMENTS), answer])
    kept = load_submission(under)
    assert len(kept.chunks) == 2 and "def helper" in kept.chunks[0][1]  # the helper the answer reads is run
    dropped = load_submission(over)
    assert len(dropped.chunks) == 1 and "def helper" not in dropped.chunks[0][1]
    assert any(f"{NOTEBOOK_MAX_OWN_STATEMENTS + 1:,} top-level statements" in note for note in dropped.notes), dropped.notes


def test_a_name_bound_many_times_is_read_once_for_every_check_cell(tmp_path):
    """K check cells that each read h, below one cell that binds it N times: every binding is kept,
    once, and each answer cell sees it (the walk was K x N)."""
    cells = [_code("h = 1\n" * 50)]
    for number in range(40):
        cells += [_code(f"def f{number}():\n    return 0\n", ["attnkit:answer"]), _code(f"def f{number}():\n    return h\n"), _code("1", grade=True)]
    found = load_submission(_notebook(tmp_path / "many.ipynb", cells))
    own = [text for _, text in found.chunks if "h = 1" in text]
    assert len(own) == 1 and own[0].count("h = 1") == 50


def test_a_results_folder_named_like_a_temporary_does_not_stop_later_runs(tmp_path):
    inbox, out = tmp_path / "inbox", tmp_path / "out"
    inbox.mkdir()
    shutil.copy(REFERENCE, inbox / "evil.attnkit-partial.py")
    options = GradeOptions(seed=1, parts=frozenset({"A"}))
    first = grade_batch(inbox, out, jobs=1, options=options)
    assert (out / "evil.attnkit-partial").is_dir() and first.submissions[0].score == 32
    again = grade_batch(inbox, out, jobs=1, options=options)  # resumed: the folder is its result
    forced = grade_batch(inbox, out, jobs=1, force=True, options=options)
    assert again.submissions[0].score == forced.submissions[0].score == 32


def test_a_checks_frames_let_go_of_its_values_at_once():
    from autograder.grading.checks.plugin import _outcome

    class Big:
        pass

    held: list[weakref.ref] = []

    def check() -> None:
        value = Big()
        held.append(weakref.ref(value))
        raise AssertionError("wrong")

    gc.disable()  # what frees it must not be a collection
    try:
        error = _outcome(check, {})
        assert isinstance(error, AssertionError) and held[0]() is None
        assert error.__traceback__ is not None  # kept, for an internal error's report
    finally:
        gc.enable()


def test_gradcheck_refuses_an_output_of_another_shape_before_it_draws_vectors():
    from autograder.assignments.attention.checks.remote_grad import remote_gradcheck
    from autograder.grading.checks.plugin import CheckFailure

    class Student:
        calls = 0

        def call(self, name, *args, **kwargs):
            Student.calls += 1
            return torch.zeros(10_000_000, dtype=torch.uint8)

    with pytest.raises(CheckFailure, match="shape"):
        remote_gradcheck(Student(), "masked_softmax", [torch.randn(2, 3, 4)], (torch.ones(2, 3, 4, dtype=torch.bool),))
    assert Student.calls == 1


@pytest.mark.parametrize("name", ["categorical_softmax", "onehot_novalidate"])
def test_a_distributions_log_softmax_fails_the_by_hand_rule(name, tmp_path):
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    shutil.copy(CORPUS / f"{name}.py", inbox / f"{name}.py")
    result = grade_batch(inbox, tmp_path / "out", jobs=1, options=GradeOptions(seed=1, parts=frozenset({"A"}))).submissions[0]
    failed = [c for c in result.checks if not c.passed]
    assert [c.check_id for c in failed] == ["masked_softmax_by_hand"], [(c.check_id, c.message) for c in failed]
    assert "Categorical" in failed[0].message
