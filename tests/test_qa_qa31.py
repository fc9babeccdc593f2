"""qa31s, qa31h and qa31p: a mask dropped only in self-attention, a batch stopped by one folder,
packages read as Python reads them, and failures that are the file's, not the task's.

- qa31s (99 unseen files: 46 correct styles, 53 single bugs, 7 of them notebooks; headers set
  from the grader after the helper's review). s01, s02, p11 (now b52, b53, b44): C.3 dropped the
  mask when key was left out or Lq == Lk, or transposed a square mask. C.3's mask check only
  tried Lq != Lk with key and value given, so C.3 kept its points and D.1 lost 3, named
  block_mask_ignored, though the block passed its mask on. C.3's mask check now also calls the
  module as the block does (self-attention, a square mask by name): C 26, D 12, mha_mask_ignored.
  n06 (now c46): a C.3 cell that defines masked_softmax again below A.2's check cell is graded as
  the check cell saw it (the contract), 100.
- qa31h: one submission stopped every batch: a folder nested 1,200 deep (Path.rglob recursed once
  a level: RecursionError in submission_digest, outside any handler, in the pool process and then
  in the batch's main process), a 64 GiB file (read whole before its size was added), a FIFO (its
  read blocks forever). h03, h05: `from mylib import *` made the static pass read every module of
  mylib, so an old attempt no one imports (F.softmax) cost the by-hand rule's 2 points (98); now
  only the modules mylib's `__init__.py` names (`__all__`): 100; h06 lists the attempt there and
  uses it: 98. h02: `from hw.softmax_utils import` in hw/attention.py (PyCharm runs from the
  project's top) got 6 once files beside the entry were moved to the top; they are now beside the
  entry and where they were handed in: 100. h07: the released public checks in hw/ are the graded
  stub there too.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.errors import SubmissionError
from autograder.feedback.checkview import message
from autograder.feedback.formats.view import hint_text
from autograder.feedback.results import CheckResult, SubmissionResult
from autograder.grading.batch import grade_batch
from autograder.grading.session import GradeOptions
from autograder.grading.submission import load_submission, submission_digest
from tests.corpus import FULL, assert_each_bug_in_its_own_part, assert_graded_as_expected, graded_corpus

QA = Path(__file__).resolve().parent / "qa"
CORPUS, RED = QA / "qa31s", QA / "qa31h"
FILES = sorted(CORPUS.glob("*.py"))
NOTEBOOKS = {  # stem -> (per-part scores, mistakes named); the rest score full marks and name nothing
    "b32_a_bug_a2_wrong_axis_helper_called_by_c3": ({**FULL, "A": 18}, {"softmax_wrong_axis"}),
    "b33_e_bug_e1_extent_ticks_on_edges": ({**FULL, "E": 8}, set()),
}
REPO = Path(__file__).resolve().parents[1]
STUB = REPO / "assignments" / "attention" / "attention.py"


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> dict[str, SubmissionResult]:
    return graded_corpus(CORPUS, tmp_path_factory.mktemp("qa31s_out"))


def test_the_corpus_is_whole():
    notebooks = sorted(p.stem for p in CORPUS.glob("*.ipynb"))
    assert (len(FILES), len(notebooks)) == (92, 7) and set(NOTEBOOKS) <= set(notebooks)


def test_each_bug_loses_points_in_its_own_part_only():
    assert_each_bug_in_its_own_part(FILES)


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_each_submission_scores_its_parts_and_names_only_its_mistakes(path, graded):
    assert_graded_as_expected(graded[path.stem], path)


@pytest.mark.parametrize("stem", sorted(p.stem for p in CORPUS.glob("*.ipynb")))
def test_each_notebook_scores_its_parts(stem, graded):
    parts, mistakes = NOTEBOOKS.get(stem, (FULL, set()))
    assert {p.part: p.score for p in graded[stem].parts} == parts
    assert set(graded[stem].mistakes) == mistakes


def test_a_mask_dropped_only_in_self_attention_is_charged_in_c3(graded):
    for stem in ("b52_c3_mask_dropped_when_key_defaults", "b53_c3_mask_dropped_when_lq_equals_lk", "b44_c3_mask_broadcast_wrong_axis_for_3d"):
        lost = {c.check_id for c in graded[stem].checks if c.points < c.max_points}
        assert lost == {"mha_mask"}, (stem, lost)


def test_packages_and_folders_are_read_as_python_reads_them(tmp_path):
    graded = graded_corpus(RED, tmp_path)
    scores = {name: sum(p.score for p in result.parts) for name, result in graded.items()}
    assert scores == {"c03_r06_control": 100, "c04_r05_control": 100, "c06_h05_without_old_try": 100, "h02_pycharm_pkg_import": 100,
                      "h03_star_pkg_unimported_scratch": 100, "h05_star_pkg_init_reexport": 100,
                      "h06_star_pkg_all_names_the_library_attempt": 98, "h07_pycharm_public_checks_oracle": 86}
    assert [f.code for f in graded["h06_star_pkg_all_names_the_library_attempt"].flags] == ["library_call"]
    assert {c.task for c in graded["h07_pycharm_public_checks_oracle"].checks if c.points < c.max_points} == {"A.2"}


def test_files_outside_the_graded_files_folder_and_written_files_are_read_as_python_finds_them(tmp_path):
    """qa32h, the red team of this round's fixes: with the work in hw/, an old attempt at the top
    (attention.py, a test.py named like a library) was read as a helper and charged (98), a
    top-level utils/ shadowed hw/utils.py (6); `__all__ = "softmax scores".split()` hid the
    modules from the static pass, so the worker lacked them (6); `__all__` naming a function of
    __init__.py read an old module of that name (98); `%%writefile "utils/x.py"` and
    `%%writefile utils\\x.py` were not read (86); the public checks written by `%%writefile
    utils/public_checks.py` gave their own answers to four tasks (85, fair 83, as the control)."""
    graded = graded_corpus(QA / "qa32h", tmp_path)
    scores = {name: sum(p.score for p in result.parts) for name, result in graded.items()}
    assert scores == {**{name: 100 for name in graded}, "r08_writefile_folder_public_checks_oracle": 83}
    assert not any(result.flags for result in graded.values())
    lost = {c.task for c in graded["r08_writefile_folder_public_checks_oracle"].checks if c.points < c.max_points}
    assert lost == {"A.1", "A.4", "C.1", "C.2"}


def _deep(folder: Path, levels: int, name: str = "d") -> None:
    """`levels` folders one inside the other under `folder`, a file at the bottom (made from the
    bottom's parent each time: the path may be longer than the system takes at once)."""
    here = os.open(folder, os.O_RDONLY)
    try:
        for _ in range(levels):
            os.mkdir(name, dir_fd=here)
            below = os.open(name, os.O_RDONLY, dir_fd=here)
            os.close(here)
            here = below
        with open(os.open("notes.txt", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=here), "w") as notes:
            notes.write("x")
    finally:
        os.close(here)


@pytest.fixture
def deep_made():
    """The folders _deep made in a test, removed after it by coreutils' rm, which walks any depth:
    shutil.rmtree (and pytest's cleanup of old temporary folders with it) recurses once a level."""
    made: list[tuple[Path, str]] = []
    yield made
    for folder, name in made:
        subprocess.run(["rm", "-rf", "--", str(folder / name)], check=True, timeout=120)


def test_a_folder_nested_deep_is_read_down_to_where_it_can_be_listed(tmp_path, deep_made):
    """1,200 levels: read whole; 2,500: the levels past what the system can open are passed over
    (qa32h M4: a subfolder that could not be listed refused the whole hand-in)."""
    for name, levels in (("deep", 1200), ("deeper", 2500)):
        folder = tmp_path / name
        folder.mkdir()
        (folder / "attention.py").write_bytes(STUB.read_bytes())
        _deep(folder, levels, "dd")
        deep_made.append((folder, "dd"))
        assert submission_digest(folder) and load_submission(folder).filename == "attention.py", name
    with pytest.raises(SubmissionError, match="no submission at"):
        load_submission(tmp_path / "gone")


def test_a_pipe_or_a_file_larger_than_memory_is_never_read(tmp_path):
    pipe = tmp_path / "pipe.py"
    os.mkfifo(pipe)
    big = tmp_path / "big"
    big.mkdir()
    (big / "attention.py").write_bytes(STUB.read_bytes())
    with open(big / "weights.bin", "wb") as sparse:
        sparse.truncate(64 << 30)  # sparse: no disk used, and never read
    assert submission_digest(pipe) == "" and submission_digest(big) == ""
    with pytest.raises(SubmissionError, match="is not a file"):
        load_submission(pipe)
    assert load_submission(big).filename == "attention.py"


def test_one_broken_submission_does_not_stop_the_batch(tmp_path, deep_made):
    """qa31h: the batch died (no grades.csv) at a folder 1,200 deep, and hung at a FIFO; each now has its result."""
    batch = tmp_path / "batch"
    batch.mkdir()
    for name in ("a01.py", "z99.py"):
        (batch / name).write_bytes(STUB.read_bytes())
    os.mkfifo(batch / "m01_fifo.py")
    (batch / "s02_deep").mkdir()
    (batch / "s02_deep" / "attention.py").write_bytes(STUB.read_bytes())
    _deep(batch / "s02_deep", 1200)
    deep_made.append((batch / "s02_deep", "d"))
    result = grade_batch(batch, tmp_path / "out", jobs=2, options=GradeOptions(seed=1, parts=frozenset("A")))
    assert sorted(s.submission for s in result.submissions) == ["a01", "m01_fifo", "s02_deep", "z99"]
    assert [s.submission for s in result.failed_to_grade] == ["m01_fifo"]
    assert all((tmp_path / "out" / name / "attnkit.json").is_file() for name in ("a01", "m01_fifo", "s02_deep", "z99"))


def _failed(text: str, key: str = "student_raised") -> CheckResult:
    return CheckResult(check_id="attention_scores_shape", name="attention_scores: output shape", part="A", task="A.1", points=0.0, max_points=1.0,
                       status="failed", message=text, message_key=key)


def test_a_failure_that_is_the_files_gets_no_hint_of_the_task():
    """qa31p F3: under a syntax error every check gave its task's idea ("Only the last two axes...")."""
    never_ran = "attention_scores raised NameError: attention_scores is not defined in your file: its code has a syntax error (line 2), so it never ran"
    assert hint_text(_failed(never_ran), "en") == "" and hint_text(_failed("f1: holds several different attention.py files", "submission_unreadable"), "en") == ""
    assert hint_text(_failed("attention_scores raised NameError: attention_scores is not defined in your file"), "en")  # written nowhere: the idea helps


def test_a_part_f_task_says_whose_code_is_missing():
    """qa31p F4: "Task F.1 (AttentionBlock) is not implemented yet" for a task with nothing to write."""
    stub = CheckResult(check_id="trained_maps", name="trained model", part="F", task="F.1", points=0.0, max_points=3.0, status="failed",
                       message="AttentionBlock: not implemented yet (it raised NotImplementedError)")
    assert message(stub, "en") == "Task F.1 runs your AttentionBlock (Task D.1), which is not implemented yet: it still raises NotImplementedError"
    assert message(_failed("attention_scores: not implemented yet (it raised NotImplementedError)"), "en").startswith("Task A.1 (attention_scores) is not implemented yet")


def test_the_cjk_fonts_single_weight_is_not_reported_on_every_figure():
    """qa31p F10: `findfont: Failed to find font weight normal for WenQuanYi Zen Hei` above a passed check."""
    script = ("import logging, matplotlib; matplotlib.use('Agg'); import matplotlib.pyplot as plt, public_checks\n"
              "assert public_checks.use_cjk_font(), 'no CJK font installed (scripts/ci-prereqs.sh installs one)'\n"
              "fig, ax = plt.subplots(); ax.set_title('注意力 attention'); fig.savefig('/dev/null', format='png')\n"
              "other = logging.LogRecord('matplotlib.font_manager', logging.WARNING, '', 0, 'findfont: Font family %s not found.', ('x',), None)\n"
              "assert logging.getLogger('matplotlib.font_manager').filter(other)  # other font warnings are still said\n")
    run = subprocess.run([sys.executable, "-c", script], cwd=REPO / "assignments" / "attention", capture_output=True, text=True, timeout=120)
    assert run.returncode == 0 and "findfont" not in run.stderr, run.stderr[-2000:]
