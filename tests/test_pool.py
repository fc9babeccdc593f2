"""A batch's grader process stuck on one submission, or dead on it, costs that submission alone.

The pool's process is stopped past its limit (or found dead), replaced by a fresh one on a new
control socket of the same template, the submission's result says what happened (en, zh), and
the batch goes on; a re-run grades that submission again and keeps the others.

No submission known makes the grader's own work hang or die (each one found was fixed), so these
tests make it happen by hand in the pool's forked process: a patched `Student._request` that never
returns, or a patched `session.grade_safely` that exits, stand for such an unknown fault.
"""
from __future__ import annotations

import multiprocessing
import os
import shutil
import time
from pathlib import Path

import pytest

from autograder.feedback.formats.view import translate_note
from autograder.feedback.results import load_submission_result
from autograder.grading import batch, session
from autograder.grading.worker import client
from autograder.grading.worker.client import remove_stale_scratch

from tests.batches import REFERENCE

LIMIT = 20.0  # the grader's limit on one submission in these tests: Part B of the reference takes ~1 s
OPTIONS = session.GradeOptions(seed=1, parts=frozenset("B"))


def inbox_of(tmp_path: Path, *names: str) -> Path:
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    for name in names:
        shutil.copyfile(REFERENCE, inbox / name)
    return inbox


def by_source(results) -> dict:
    return {Path(r.source).name: r for r in results.submissions}


@pytest.mark.timing
def test_a_grader_process_stuck_on_one_submission_is_stopped_replaced_and_the_batch_goes_on(tmp_path, monkeypatch):
    honest_grade, honest_request = session.grade_safely, client.Student._request
    stuck: list[str] = []  # this process's submission, then one entry per request answered

    def grade(path, factory, options, name):  # runs in the pool's forked process
        stuck[:] = [path.name]
        return honest_grade(path, factory, options, name)

    def request(self, *args, **kwargs):  # stuck in the grader's own work after a few requests: the student's worker is alive
        if stuck[0].startswith("a_stuck") and len(stuck) > 3:
            time.sleep(3600)
        stuck.append("answered")
        return honest_request(self, *args, **kwargs)

    monkeypatch.setattr(batch, "grader_seconds", lambda budget: LIMIT)
    monkeypatch.setattr(session, "grade_safely", grade)
    monkeypatch.setattr(client.Student, "_request", request)
    inbox, out = inbox_of(tmp_path, "a_stuck.py", "b.py", "c.py"), tmp_path / "out"
    started = time.monotonic()
    # one process: the two after the stuck one can only be graded by its replacement
    results = by_source(batch.grade_batch(inbox, out, jobs=1, options=OPTIONS))
    took = time.monotonic() - started

    reason = results["a_stuck.py"].grader_error
    assert f"the grader's own work on this submission ran past {LIMIT:g} s and was stopped" in reason, reason
    assert load_submission_result(out / "a_stuck" / "attnkit.json").grader_error == reason  # written, as the others
    assert "评分程序处理这份提交超过了 20 秒" in (translate_note(reason, "zh") or "")
    for name in ("b.py", "c.py"):
        assert not results[name].grader_error and results[name].score == results[name].max_score > 0, results[name].grader_error
    assert took < LIMIT + 90, f"the batch took {took:.0f} s"
    assert not multiprocessing.active_children(), "a pool process outlived the batch"
    assert remove_stale_scratch() == 0, "the stopped process's scratch folders were left"

    monkeypatch.undo()  # the fault gone: a re-run grades the stopped one again, and only it
    graded = []
    again = by_source(batch.grade_batch(inbox, out, jobs=1, options=OPTIONS, progress=lambda n, total, result: graded.append(result.submission)))
    assert graded == ["a_stuck"]
    assert not again["a_stuck.py"].grader_error and again["a_stuck.py"].score == again["a_stuck.py"].max_score


def test_a_grader_process_that_dies_on_one_submission_is_replaced_and_the_batch_goes_on(tmp_path, monkeypatch):
    honest = session.grade_safely

    def dying(path, factory, options, name):  # runs in the pool's forked process
        if path.name == "b_dies.py":
            os._exit(9)  # as if the OOM killer took the grader process
        return honest(path, factory, options, name)

    monkeypatch.setattr(session, "grade_safely", dying)
    inbox, out = inbox_of(tmp_path, "a.py", "b_dies.py", "c.py", "d.py"), tmp_path / "out"
    results = by_source(batch.grade_batch(inbox, out, jobs=2, options=OPTIONS))

    reason = results["b_dies.py"].grader_error
    assert "the grader process grading this submission ended (exited with code 9)" in reason, reason
    assert "评分进程结束了（退出了（退出码 9））" in (translate_note(reason, "zh") or "")
    assert load_submission_result(out / "b_dies" / "attnkit.json").grader_error == reason
    for name in ("a.py", "c.py", "d.py"):
        assert not results[name].grader_error and results[name].score == results[name].max_score > 0, results[name].grader_error
    assert not multiprocessing.active_children()
