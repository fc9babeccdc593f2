"""The CLI, called as main([...]) the way a user runs it."""
from __future__ import annotations

import io
import json
import shutil
import subprocess
from pathlib import Path
from types import SimpleNamespace

import pytest

from autograder.cli import BatchProgress, main
from autograder.feedback.output import grader_digest

REPO = Path(__file__).resolve().parents[1]
REFERENCE = REPO / "solutions" / "attention" / "attention.py"
BLANK = REPO / "assignments" / "attention" / "attention.py"


def _buggy(tmp_path: Path) -> Path:
    source = REFERENCE.read_text().replace("return q @ k.transpose(-2, -1) / math.sqrt(d)", "return q @ k.transpose(-2, -1) / d")
    path = tmp_path / "bug_scale.py"
    path.write_text(source)
    return path


def test_grade_reference_writes_full_marks_in_gradescope_format(tmp_path, capsys):
    assert main(["grade", str(REFERENCE), "--out", str(tmp_path), "--seed", "3", "--lang", "zh", "--prairielearn"]) == 0
    prairielearn = json.loads((tmp_path / "attention" / "prairielearn.json").read_text())
    assert prairielearn["score"] == 1.0 and prairielearn["gradable"] is True
    results = json.loads((tmp_path / "attention" / "results.json").read_text())
    assert results["score"] == results["max_score"] > 0
    assert {"name", "number", "score", "max_score", "status", "output", "visibility", "tags"} <= set(results["tests"][0])
    model = json.loads((tmp_path / "attention" / "attnkit.json").read_text())
    assert model["seed"] == 3 and model["lang"] == "zh"
    assert (tmp_path / "attention" / "feedback.html").is_file()
    assert "反馈页面：" in capsys.readouterr().out  # --lang zh: every line grade prints is Chinese


def test_same_seed_same_inputs_other_seed_other_inputs(tmp_path):
    buggy = _buggy(tmp_path)
    messages = []
    for seed, out in ((5, "a"), (5, "b"), (6, "c")):
        assert main(["grade", str(buggy), "--out", str(tmp_path / out), "--seed", str(seed)]) == 0
        checks = json.loads((tmp_path / out / "bug_scale" / "attnkit.json").read_text())["checks"]
        messages.append([c["message"] for c in checks if c["check_id"] == "attention_scores_values"][0])
    assert messages[0] == messages[1] != messages[2]
    assert "divided by d instead of √d" in messages[0]


def test_grade_batch_is_resumable_and_force_regrades(tmp_path, capsys):
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    shutil.copy(REFERENCE, inbox / "ref.py")
    shutil.copy(BLANK, inbox / "blank.py")
    out = tmp_path / "out"
    assert main(["grade-batch", str(inbox), "--out", str(out), "--seed", "1"]) == 0
    done = out / "ref" / "attnkit.json"
    stamp = done.stat().st_mtime_ns
    assert main(["grade-batch", str(inbox), "--out", str(out)]) == 0
    assert done.stat().st_mtime_ns == stamp
    assert "2 submission(s) already graded in" in capsys.readouterr().err
    # a student hands in again: that file is graded again, the unchanged one is kept
    blank_done = out / "blank" / "attnkit.json"
    blank_stamp = blank_done.stat().st_mtime_ns
    shutil.copy(REFERENCE, inbox / "blank.py")
    assert main(["grade-batch", str(inbox), "--out", str(out)]) == 0
    assert done.stat().st_mtime_ns == stamp and blank_done.stat().st_mtime_ns != blank_stamp
    assert "1 submission(s) already graded in" in capsys.readouterr().err
    assert json.loads(blank_done.read_text())["digest"] == json.loads(done.read_text())["digest"]  # the same bytes now
    shutil.copy(BLANK, inbox / "blank.py")
    assert main(["grade-batch", str(inbox), "--out", str(out), "--force"]) == 0
    assert done.stat().st_mtime_ns != stamp
    rows = (out / "grades.csv").read_text().splitlines()
    assert len(rows) == 3
    captured = capsys.readouterr()
    assert "class dashboard:" in captured.out and "blank" in captured.out
    # progress on a pipe: one plain line per graded submission, no bar, no carriage return
    assert "\r" not in captured.err
    assert sum(line.startswith(("1/2 ", "2/2 ")) for line in captured.err.splitlines()) == 2  # --force (the first run's were read above)
    # a result that another version of the grader wrote (a check fixed since) is graded again
    data = json.loads(done.read_text())
    assert data["grader"] == grader_digest()
    done.write_text(json.dumps({**data, "grader": "another version"}))
    stamp = done.stat().st_mtime_ns
    assert main(["grade-batch", str(inbox), "--out", str(out)]) == 0
    assert done.stat().st_mtime_ns != stamp and json.loads(done.read_text())["grader"] == grader_digest()
    assert "1 submission(s) already graded in" in capsys.readouterr().err


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_on_a_terminal_draws_a_bar_and_names_each_submission():
    stream = _Terminal()
    done = [SimpleNamespace(submission=name, grader_error="", score=3.0, max_score=4.0, execution_time=1.25) for name in ("ann", "bob")]
    with BatchProgress(stream) as progress:
        for count, result in enumerate(done, start=1):
            progress(count, len(done), result)
    text = stream.getvalue()
    assert "ann: 3/4 (1.2 s)" in text and "bob: 3/4 (1.2 s)" in text
    assert "2/2" in text and "100%" in text  # tqdm's bar, finished


def test_progress_shows_control_characters_in_a_name_instead_of_sending_them():
    stream = io.StringIO()  # a pipe: the plain lines
    name = "evil\x1b]0;pwned\x07\nbob: 4/4\u202egnp"
    with BatchProgress(stream) as progress:
        progress(1, 1, SimpleNamespace(submission=name, grader_error="", score=0.0, max_score=4.0, execution_time=1.0))
    assert stream.getvalue() == "1/1 evil\\x1b]0;pwned\\x07\\nbob: 4/4\\u202egnp: 0/4 (1.0 s)\n"


def test_check_passes_reference_and_explains_blank(capsys):
    assert main(["check", str(REFERENCE)]) == 0
    assert main(["check", str(BLANK)]) == 1
    out = capsys.readouterr().out
    assert "not implemented yet" in out and "FAIL Task A.1 (attention_scores)" in out


def test_a_chinese_file_is_checked_in_chinese_unless_told_otherwise(tmp_path, capsys, monkeypatch):
    """`attnkit check attention.zh.ipynb` said everything in English unless --lang zh was given
    (qa10n): the file's language is the default, after --lang and ATTNKIT_LANG."""
    monkeypatch.delenv("ATTNKIT_LANG", raising=False)
    blank = tmp_path / "attention.zh.py"
    shutil.copy(BLANK, blank)
    assert main(["check", str(blank)]) == 1
    assert "还没有实现" in capsys.readouterr().out
    assert main(["check", str(blank), "--lang", "en"]) == 1
    assert "not implemented yet" in capsys.readouterr().out
    monkeypatch.setenv("ATTNKIT_LANG", "en")
    assert main(["check", str(blank)]) == 1
    assert "not implemented yet" in capsys.readouterr().out


def test_missing_path_is_a_clear_error(tmp_path, capsys):
    assert main(["grade", str(tmp_path / "nope.py")]) == 2
    assert "ERROR no submission at" in capsys.readouterr().err


def test_grade_batch_on_a_file_or_an_empty_folder_says_what_to_give(tmp_path, capsys):
    assert main(["grade-batch", str(REFERENCE), "--out", str(tmp_path / "out")]) == 2
    assert f"grade one submission with `attnkit grade {REFERENCE}`" in capsys.readouterr().err
    (tmp_path / "class").mkdir()
    assert main(["grade-batch", str(tmp_path / "class"), "--out", str(tmp_path / "out")]) == 2
    assert "no submissions in" in capsys.readouterr().err


def test_an_out_that_is_a_file_is_named_as_the_problem(tmp_path, capsys):
    taken = tmp_path / "grades.txt"
    taken.write_text("not a folder", encoding="utf-8")
    assert main(["grade", str(BLANK), "--out", str(taken)]) == 2
    err = capsys.readouterr().err
    assert "a file is in the way. Give --out a folder" in err and "free some space" not in err


def test_a_folder_where_a_result_file_goes_is_named_as_the_problem(tmp_path, capsys):
    """qa23h: a folder named as a file the report writes (here index.html) was told as a full disk."""
    out = tmp_path / "out"
    assert main(["grade", str(BLANK), "--out", str(out), "--parts", "A"]) == 0
    (out / "index.html").mkdir()
    capsys.readouterr()
    assert main(["report", str(out)]) == 2
    err = capsys.readouterr().err
    assert "index.html is a folder where a file goes. Move that folder away" in err and "free some space" not in err, err


def test_check_without_a_path_finds_the_file_here_like_watch(tmp_path, capsys, monkeypatch):
    shutil.copyfile(REFERENCE, tmp_path / "attention.py")
    monkeypatch.chdir(tmp_path)
    assert main(["check"]) == 0
    assert "done: all 13 tasks pass" in capsys.readouterr().out  # this copy, not the blank release


def test_check_on_a_file_it_cannot_grade_is_an_error_not_a_failed_check(tmp_path, capsys):
    notes = tmp_path / "notes.txt"
    notes.write_text("my answers", encoding="utf-8")
    assert main(["check", str(notes)]) == 2
    captured = capsys.readouterr()
    assert "ERROR notes.txt: expected a .py file" in captured.err and "FAIL" not in captured.out


def test_hint_with_a_file_says_to_ask_again_with_that_file(tmp_path, capsys):
    student = tmp_path / "attention.py"
    student.write_text("", encoding="utf-8")
    assert main(["hint", "A.1", "--file", str(student), "--lang", "en"]) == 0
    assert f"ask again for the next step: attnkit hint A.1 --file {student}" in capsys.readouterr().out


def test_hint_for_the_chinese_notebook_is_in_chinese_and_keeps_a_given_language(tmp_path, capsys, monkeypatch):
    """`attnkit check attention.zh.ipynb` suggests `attnkit hint C.1`, which answered in English,
    and `hint --lang zh` suggested asking again without --lang (qa39p)."""
    monkeypatch.delenv("ATTNKIT_LANG", raising=False)
    notebook = tmp_path / "attention.zh.ipynb"
    notebook.write_text('{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}', encoding="utf-8")
    assert main(["hint", "C.1", "--file", str(notebook)]) == 0
    out = capsys.readouterr().out
    assert "任务 C.1" in out and "Task C.1" not in out, out
    english = tmp_path / "attention.py"
    english.write_text("", encoding="utf-8")
    assert main(["hint", "A.1", "--file", str(english), "--lang", "zh"]) == 0
    assert f"attnkit hint A.1 --file {english} --lang zh" in capsys.readouterr().out


def test_a_task_id_in_lower_case_is_read_as_the_task(tmp_path, capsys):
    """`attnkit hint a.1` was refused with the list of tasks (qa6p): task ids are read in any case."""
    student = tmp_path / "attention.py"
    student.write_text("", encoding="utf-8")
    assert main(["hint", "a.1", "--file", str(student), "--lang", "en"]) == 0
    assert "attnkit hint A.1 --file" in capsys.readouterr().out


def test_hint_for_a_file_that_is_not_there_is_an_error_like_check(tmp_path, capsys, monkeypatch):
    """`attnkit hint A.2 --file nosuch.py` exited 0 and wrote ./.attnkit-hints.json (QA)."""
    monkeypatch.chdir(tmp_path)
    assert main(["hint", "A.2", "--file", "nosuch.py", "--lang", "en"]) == 2
    assert capsys.readouterr().err == "ERROR no file at nosuch.py: give the .py or .ipynb you are working on\n"
    assert list(tmp_path.iterdir()) == []


def _help(command: str, capsys) -> str:
    with pytest.raises(SystemExit):
        main([command, "--help"])
    return " ".join(capsys.readouterr().out.split())


def test_lang_help_says_which_commands_take_the_language_from_the_file_name(capsys):
    """grade-batch's help promised zh for a *.zh.ipynb file, and wrote English feedback (QA)."""
    for command in ("grade", "check", "watch"):
        text = _help(command, capsys)
        assert "default: zh for a *.zh.ipynb or *.zh.py file, or a folder or zip whose graded file is one, else en" in text, command
    assert "default: zh for a *.zh.ipynb or *.zh.py file, else en" in _help("hint", capsys)
    for command in ("grade-batch", "report", "demo"):
        text = _help(command, capsys)
        assert "default: en, whatever the file names" in text and "*.zh" not in text, command


def test_demo_grades_a_fresh_blank_release_not_the_working_file(tmp_path, monkeypatch):
    """`make demo` graded assignments/attention/attention.py, where a self-learner works, as the blank release."""
    inboxes = []

    def record(inbox, *args, **kwargs):
        inboxes.append({p.name: p.read_bytes() for p in inbox.iterdir() if p.is_file()})
        raise LookupError("stop before grading")

    monkeypatch.setattr("autograder.grading.batch.grade_batch", record)
    monkeypatch.setattr("autograder.assignment.REPO_ROOT", tmp_path)  # no assignments/ here: the demo does not read it
    with pytest.raises(LookupError):
        main(["demo", "--out", str(tmp_path / "demo-out")])
    assert inboxes[0]["blank_release.py"] in (BLANK.read_bytes(), _committed(BLANK))
    assert b"NotImplementedError" in inboxes[0]["blank_release.py"]


def test_bad_language_from_environment_is_a_clear_error(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("ATTNKIT_LANG", "fr")
    assert main(["grade", str(REFERENCE), "--out", str(tmp_path)]) == 2
    assert "ATTNKIT_LANG" in capsys.readouterr().err


def _committed(path: Path) -> bytes | None:
    """path as committed (None without git): a self-learner may be editing assignments/ in place."""
    shown = subprocess.run(["git", "-C", str(REPO), "show", f"HEAD:{path.relative_to(REPO).as_posix()}"], capture_output=True)
    return shown.stdout if shown.returncode == 0 else None


def test_release_command_regenerates_the_release(tmp_path, monkeypatch):
    """`attnkit release` writes into a temporary root: `make test` overwrote the student's attention.py (QA)."""
    checked_in = REPO / "assignments" / "attention"
    before = {p: p.stat().st_mtime_ns for p in checked_in.iterdir()}
    monkeypatch.setattr("autograder.assignment.REPO_ROOT", tmp_path)
    monkeypatch.setattr("autograder.paths.EXAMPLES_DIR", tmp_path / "examples" / "submissions")
    assert main(["release"]) == 0
    fresh = {p.name: p.read_bytes() for p in (tmp_path / "assignments" / "attention").iterdir()}
    listed = subprocess.run(["git", "-C", str(REPO), "ls-files", "assignments/attention"], capture_output=True, text=True).stdout.split()
    assert sorted(fresh) == sorted(Path(name).name for name in listed) or not listed, "run `attnkit release`"
    for name, data in fresh.items():
        assert data in ((checked_in / name).read_bytes(), _committed(checked_in / name)), f"{name} is stale: run `attnkit release`"
    assert {p: p.stat().st_mtime_ns for p in checked_in.iterdir()} == before  # the real release was left alone
    assert sorted(p.name for p in (tmp_path / "examples" / "submissions").iterdir()) == sorted(p.name for p in (REPO / "examples" / "submissions").glob("bug_*"))


def test_a_students_command_errors_speak_the_students_language(capsys, tmp_path):
    """`attnkit check/watch/hint --lang zh` said what it could not do in English only."""
    assert main(["check", str(tmp_path / "nothere.py"), "--lang", "zh"]) == 2
    assert main(["watch", str(tmp_path / "nothere.py"), "--lang", "zh"]) == 2
    assert main(["hint", "Z.9", "--lang", "zh", "--file", str(tmp_path / "attention.py")]) == 2
    assert main(["check", "--task", "A.9", "--lang", "zh"]) == 2
    (tmp_path / "notes.txt").write_text("x")
    assert main(["check", str(tmp_path / "notes.txt"), "--lang", "zh"]) == 2  # a SubmissionError: its i18n text, in zh
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 5 and all(line.startswith("错误：") for line in lines), lines
    assert "不存在" in lines[0] and "处没有文件" in lines[1] and "没有任务 `Z.9`" in lines[2] and "没有这个任务" in lines[3]
    assert "应为 .py 文件" in lines[4]
    assert main(["hint", "Z.9", "--file", str(tmp_path / "attention.py")]) == 2
    assert capsys.readouterr().err.startswith("ERROR no task Z.9: use one of A.1")
    assert main(["hint", "F", "--file", str(tmp_path / "attention.py")]) == 2  # a part: its first task is the example
    assert capsys.readouterr().err.rstrip().endswith("(e.g. `attnkit hint F.1`)")


@pytest.mark.parametrize("seed", ["-1", "2147483648", "1180591620717411303424", "seven"])
def test_a_seed_outside_what_every_platform_keeps_is_refused_in_one_line(tmp_path, capsys, seed):
    """qa21p: --seed -1 and --seed 2**70 were taken, though PrairieLearn's params refuse them."""
    with pytest.raises(SystemExit) as stopped:
        main(["grade", str(REFERENCE), "--out", str(tmp_path), "--seed", seed])
    assert stopped.value.code == 2
    assert f"argument --seed: {seed!r} is not a whole number from 0 to 2147483647" in capsys.readouterr().err


def test_an_unknown_option_is_said_with_its_commands_usage(tmp_path, capsys):
    """qa21p: `grade-batch ... --frobnicate` printed attnkit's top-level usage, not grade-batch's."""
    with pytest.raises(SystemExit) as stopped:
        main(["grade-batch", str(tmp_path), "--out", str(tmp_path / "out"), "--frobnicate"])
    err = capsys.readouterr().err
    assert stopped.value.code == 2 and "usage: attnkit grade-batch" in err and "attnkit grade-batch: error: unrecognized arguments: --frobnicate" in err


def test_a_batch_writes_the_report_that_attnkit_report_would(tmp_path):
    """grade-batch keeps the pages its pool wrote and fingerprints each answer as it comes in
    (similarity.BatchFingerprints): the class report must come out byte for byte as `attnkit
    report` writes it from scratch, for fresh and resumed results alike."""
    inbox, out, again = tmp_path / "inbox", tmp_path / "out", tmp_path / "again"
    inbox.mkdir()
    shutil.copy(REFERENCE, inbox / "ref.py")
    (inbox / "copy.py").write_text(REFERENCE.read_text(encoding="utf-8").replace("scores", "s"), encoding="utf-8")
    assert main(["grade-batch", str(inbox), "--out", str(out), "--seed", "1"]) == 0
    shutil.copytree(out / "ref", out / "ref-old")  # a folder kept by hand: its result is still "ref"'s
    assert main(["report", str(out), "--lang", "zh"]) == 0  # every page in Chinese now
    shutil.copy(BLANK, inbox / "blank.py")  # resumed: one result kept, two graded now
    with open(inbox / "ref.py", "a", encoding="utf-8") as handed_in_again:
        handed_in_again.write("# handed in again\n")
    assert main(["grade-batch", str(inbox), "--out", str(out)]) == 0
    shutil.copytree(out, again)
    for page in [*again.glob("*/feedback.*"), again / "similarity.json", again / "index.html"]:
        page.unlink()
    assert main(["report", str(again)]) == 0
    pairs = json.loads((out / "similarity.json").read_text())["pairs"]
    assert pairs[0]["a"] == "copy" and pairs[0]["b"] == "ref" and pairs[0]["passages_a"]
    written = sorted(p.relative_to(out) for p in [*out.glob("*/feedback.*"), out / "similarity.json", out / "index.html"])
    assert len(written) == 10
    for relative in written:
        assert (out / relative).read_bytes() == (again / relative).read_bytes(), relative


LAUNCH_SPY = """
import sys
from autograder.grading.worker import launch

torch_at_launch = []
real = launch.launch_template


def spy(*args, **kwargs):
    torch_at_launch.append("torch" in sys.modules)
    return real(*args, **kwargs)


launch.launch_template = spy
from autograder.cli import main

code = main(sys.argv[1:])
print("LAUNCHES", torch_at_launch)
sys.exit(code)
"""


def test_a_batch_starts_its_template_before_it_imports_torch_and_leaves_none(tmp_path):
    """grade-batch launches the pool's worker template first, so that the template's own start
    (torch, matplotlib, its warm-up) runs beside this process's `import torch` rather than after
    it; the pool's Grader takes it over. A run with nothing left to grade, or one that stops on a
    bad argument after the launch, kills it: no process of theirs outlives them (tests/subreaper.py)."""
    import os
    import sys

    inbox, out = tmp_path / "inbox", tmp_path / "out"
    inbox.mkdir()
    shutil.copy(REFERENCE, inbox / "ref.py")
    shutil.copy(BLANK, inbox / "blank.py")
    env = {**os.environ, "PYTHONPATH": str(REPO), "ATTNKIT_LANG": "en"}

    def run(*args: str) -> tuple[subprocess.CompletedProcess, dict]:
        report = tmp_path / "left.json"
        command = [sys.executable, str(REPO / "tests" / "subreaper.py"), str(report), sys.executable, "-c", LAUNCH_SPY, *args]
        done = subprocess.run(command, env=env, cwd=tmp_path, capture_output=True, text=True, timeout=600)
        return done, json.loads(report.read_text())

    done, left = run("grade-batch", str(inbox), "--out", str(out), "--jobs", "2", "--seed", "1")
    assert left["exit"] == 0, done.stderr[-2000:]
    assert "LAUNCHES [False]" in done.stdout  # one template, launched before torch was imported
    assert "ref" in done.stdout and "100/100" in done.stdout and left["left"] == []
    done, left = run("grade-batch", str(inbox), "--out", str(out), "--jobs", "2", "--seed", "1")  # all graded: nothing to do
    assert left["exit"] == 0 and "LAUNCHES [False]" in done.stdout and left["left"] == [], (done.stderr[-2000:], left)
    assert "2 submission(s) already graded" in done.stderr
    done, left = run("grade-batch", str(inbox), "--out", str(inbox / "inside"), "--jobs", "2")  # refused after the launch
    assert left["exit"] == 2 and "inside the folder of submissions" in done.stderr and left["left"] == [], (done.stderr[-2000:], left)
