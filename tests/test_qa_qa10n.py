"""qa10n's regression corpus (tests/qa/qa10n/): the student's notebook as real tools save it and
real students fill it, graded in one batch.

Each notebook says in its first markdown cell what it is and its expected score per part
(`expected: A=32 ...`): Colab with every tag lost and a Drive mount, a stub cell deleted and
the task written in a new cell, the Chinese notebook in Chinese identifiers, a training loop at
the top level of an answer cell, an answer cell importing a file not handed in, the classic
Notebook's nbformat 4.0, VS Code with a venv kernel and a duplicated cell, a notebook copied
into a fresh one (tags lost) with a scratch redefinition after a check, a bug in a tagless one,
nbgrader's release with a solution cell replaced and with a demo loop in a solution cell, a
Gradescope hand-in of Colab's "Copy of attention.ipynb" beside the blank attention.ipynb, and a
notebook that `%run`s a helper file of the student's handed in beside it, one that writes its
helper module with `%%writefile`, a task cell turned into markdown.
The same notebooks went through `attnkit check`, the Gradescope harness (setup.sh then
run_autograder at 0.5 CPU / 768 MB) and a PrairieLearn job in the grader image, with the same
scores. Fixed here (each fails on main without its fix):
  - a task written in a cell without the answer tag was lost when no answer cell wrote it (its
    stub cell deleted: E 0/10), and a notebook without any tag ran every cell whole (a Colab
    Drive mount beside sys.path.append: 85/100 with evasion flags; a scratch redefinition after
    a check won: A 28/32). Now the first untagged cell that binds a task no answer cell writes
    is that task's answer cell (grading/submission.py, _untagged_answers);
  - a training loop at the top level of an answer cell timed out the whole load (0/100,
    'timed out after 20 s in importing your file'); each notebook cell now gets half the load's
    time left and only that cell stops (worker/dispatcher.py, CellTimeLimit), with a note that
    names its cell and line;
  - a task defined below an import that failed at load was 'not defined in your file'; it now
    says the code above it stopped, with the error and where (dispatcher.py, unrun);
  - a hand-in of "Copy of attention.ipynb" (the work) beside the blank attention.ipynb graded the
    blank one (0/100); a notebook under another name that defines every task is now a candidate
    for the student's file, after the usual names (submission.py, _find_entry), with a note;
  - `%run softmax_helpers.py` in an answer cell was blanked like any magic ('shifted_exp is not
    defined': A 18/32); it now imports the helper file's names, as %run gives them;
  - a `%%writefile softmax_utils.py` cell that writes the helper module an answer cell imports was
    blanked (A 18/32, 'No module named softmax_utils'); it is now that file of the submission.
    One that writes it into a folder below the notebook (`%%writefile utils/softmax_utils.py`,
    n14, n15) was not read (A 18/32); it is now that file too, and the static pass reads it.
A task cell turned into markdown (B.1 0 in Jupyter too) is named as such, not only 'not defined'.
A file graded alone whose missing module is a file beside it (`check` in the student's folder) says so.
Real nbgrader grades n10 as grade-batch does (marked slow and nbgrader: a kernel run, ~1 minute).
"""
from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from autograder.grading.batch import grade_batch
from autograder.grading.session import GradeOptions

CORPUS = Path(__file__).resolve().parent / "qa" / "qa10n"
EXPECTED = re.compile(r"expected: ((?:[A-F]=[0-9.]+ ?)+)")


def expected_scores(path: Path) -> dict[str, float]:
    """{part: score} from the `expected:` line at the top of a submission (a folder: of its notebook that has one)."""
    texts = [p.read_text(encoding="utf-8")[:6000] for p in sorted(path.iterdir())] if path.is_dir() else [path.read_text(encoding="utf-8")[:6000]]
    found = next((m for m in map(EXPECTED.search, texts) if m), None)
    assert found, f"{path.name}: no 'expected: A=.. B=..' line at its top"
    return {part: float(score) for part, score in (item.split("=") for item in found.group(1).split())}


@pytest.fixture(scope="module")
def batch(tmp_path_factory):
    out = tmp_path_factory.mktemp("qa10n")
    batch = grade_batch(CORPUS, out, jobs=2, options=GradeOptions(seed=1))
    assert not batch.failed_to_grade, [(s.submission, s.grader_error) for s in batch.failed_to_grade]
    return batch


@pytest.fixture(scope="module")
def results(batch):
    return {s.submission: s for s in batch.submissions}


@pytest.mark.parametrize("path", sorted(CORPUS.iterdir()), ids=lambda p: p.stem)
def test_each_notebook_scores_what_its_header_says(results, path):
    got = {p.part: p.score for p in results[path.stem].parts}
    assert got == expected_scores(path), path.name


def test_no_notebook_is_flagged(results):
    """Every notebook here but n15 is honest: a Colab Drive mount, a venv kernel or a training loop
    is no evasion; n15's helper, written into utils/ by a %%writefile cell, calls torch.softmax."""
    flagged = {name: [f.code for f in r.flags] for name, r in results.items() if r.flags}
    assert flagged == {"n15_writefile_folder_helper_library_softmax": ["library_call"]}


def test_cells_graded_as_answers_without_a_tag_are_named(results):
    events = " ".join(results["n02_e_stub_deleted_written_in_new_cell"].events)
    assert "no answer cell (tagged attnkit:answer) writes these tasks" in events and "37 (plot_attention)" in events


def test_a_slow_answer_cell_is_stopped_alone_and_named(results):
    result = results["n04_training_loop_in_answer_cell"]
    note = next(e for e in result.events if "ran longer than" in e)
    assert re.search(r"\(cell 34, line 3[1-8] in <module>: ", note), note  # a line of the loop: which one, the clock decides
    assert "keep it in a cell of your own" in note


def test_a_task_below_a_failed_import_says_why_it_never_ran(results):
    failed = [c for c in results["n05_answer_cell_imports_a_file_not_handed_in"].checks if c.task == "A.2" and c.points < c.max_points]
    assert failed and all(
        "the code above it stopped with an error (cell 10, line 1: ModuleNotFoundError: No module named 'softmax_utils')" in c.message
        for c in failed if "not defined" in c.message)
    assert sum("not defined" in c.message for c in failed) >= 5


def test_the_copy_with_the_work_is_graded_and_the_blank_beside_it_named(results):
    events = " ".join(results["f01_gradescope_copy_of_notebook_beside_blank"].events)
    assert "graded Copy of attention.ipynb, the file with your work in it" in events and "attention.ipynb was handed in beside it" in events


NBGRADER = ("n10_nbgrader_e_solution_cell_deleted_new_cell",)


@pytest.fixture(scope="module")
def nbgrader_scores(tmp_path_factory) -> dict[str, dict[str, float]]:
    from nbgrader.api import Gradebook

    from autograder.authoring.nbgrader_course import init_course
    from autograder.authoring.notebook import notebook_name
    from autograder.paths import ASSIGNMENT
    from tests.test_nbgrader_e2e import BIN, _run

    course = tmp_path_factory.mktemp("qa10n-nbgrader") / "course"
    init_course(course)
    _run(str(BIN / "nbgrader"), "generate_assignment", ASSIGNMENT, cwd=course)
    for name in NBGRADER:
        target = course / "submitted" / name.split("_")[0] / ASSIGNMENT / notebook_name()
        target.parent.mkdir(parents=True)
        shutil.copyfile(CORPUS / f"{name}.ipynb", target)
    _run(str(BIN / "nbgrader"), "autograde", ASSIGNMENT, cwd=course)
    scores = {}
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        for name in NBGRADER:
            [notebook] = gradebook.find_submission(ASSIGNMENT, name.split("_")[0]).notebooks
            scores[name] = {grade.name.removeprefix("grade-"): float(grade.auto_score) for grade in notebook.grades}
    return scores


@pytest.mark.nbgrader
@pytest.mark.slow
@pytest.mark.parametrize("name", NBGRADER)
def test_nbgrader_scores_every_part_as_grade_batch_does(nbgrader_scores, name):
    """A solution cell replaced by a new cell: nbgrader's kernel runs it; attnkit now grades it too."""
    assert nbgrader_scores[name] == expected_scores(CORPUS / f"{name}.ipynb"), name


def test_a_helper_file_beside_a_notebook_graded_alone_is_named(grade, tmp_path):
    """`attnkit check attention.ipynb` in the student's folder: Jupyter imports softmax_utils.py from
    beside the notebook, the grader has only the notebook. It says so, and how to hand both in."""
    notebook = tmp_path / "attention.ipynb"
    shutil.copyfile(CORPUS / "n05_answer_cell_imports_a_file_not_handed_in.ipynb", notebook)
    (tmp_path / "softmax_utils.py").write_text("import torch\n\n\ndef stable_exp(x):\n    return torch.exp(x)\n", encoding="utf-8")
    result = grade(notebook, parts={"A"})
    assert any("softmax_utils.py is beside attention.ipynb, but only that file is graded" in e for e in result.events), result.events
    assert "hand in a folder or zip holding both" in " ".join(result.events)


def test_a_task_cell_turned_into_markdown_is_named(results):
    events = " ".join(results["n12_b1_cell_turned_into_markdown"].events)
    assert "cell 21 is a markdown cell, so it never runs, but it holds the code of SelfAttention" in events


def test_every_note_qa10n_added_reads_back_in_chinese():
    """`report --lang zh` finds each note again from its English text (view.translate_note)."""
    from autograder.feedback.formats.view import translate_note
    from autograder.feedback.i18n import t

    notes = [t("note.helper_not_handed_in", module="softmax_utils", file="attention.ipynb"),
             t("note.cell_time_limit", seconds="10", frame="cell 34, line 36 in <module>: optimizer.step()"),
             t("submission.graded_copy", file="Copy of attention.ipynb", others="attention.ipynb"),
             t("submission.task_in_text_cell", file="a.ipynb", number=21, kind="markdown", names="SelfAttention"),
             t("submission.untagged_answer", file="a.ipynb", cells="37 (plot_attention)"),
             "masked_softmax is not defined in your file: the code above it stopped with an error (cell 10, line 1: ModuleNotFoundError: x), so it never ran"]
    for note in notes:
        chinese = translate_note(note, "zh")
        assert chinese and chinese != note and not re.search(r"[A-Za-z]{4,} [a-z]{3,} [a-z]{3,}", chinese.replace("`", " ` ")), (note, chinese)


def test_a_note_template_may_name_one_argument_twice(monkeypatch):
    """A template that repeats a field ("{file} ... {file}") made every note's regex fail to compile
    (re.error: redefinition of group name), so no note could be translated at all."""
    from autograder.feedback.formats import view

    monkeypatch.setitem(view.STRINGS, "note.qa10n_twice", {"en": "{name} beside {name}", "zh": "{name} 挨着 {name}"})
    view._note_patterns.cache_clear()
    try:
        assert view.translate_note("ada beside ada", "zh") == "`ada` 挨着 `ada`"
    finally:
        monkeypatch.undo()
        view._note_patterns.cache_clear()
