"""`attnkit watch` and `attnkit check` as a student runs them: real processes, real saves.

The commands run under tests/subreaper.py, which becomes the parent of anything they leave
behind: an empty `left` list proves that no process of theirs outlived them.
"""
from __future__ import annotations

import json
import os
import re
import selectors
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
REFERENCE = REPO / "solutions" / "attention" / "attention.py"
BLANK = REPO / "assignments" / "attention" / "attention.py"
SUBREAPER = REPO / "tests" / "subreaper.py"
VIEW_TIMEOUT = int(os.environ.get("ATTNKIT_TEST_VIEW_TIMEOUT", "180"))  # seconds: a cold grader on a busy 2-core machine
SCALE_BUG = ("return q @ k.transpose(-2, -1) / math.sqrt(d)", "return q @ k.transpose(-2, -1) / d")


def _command(report: Path, *args: str) -> list[str]:
    return [sys.executable, str(SUBREAPER), str(report), sys.executable, "-m", "autograder.cli", *args]


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(REPO), "ATTNKIT_LANG": "en"}


class View:
    """Reads the views that `attnkit watch` prints (each ends with a "checked ..." line)."""

    def __init__(self, process: subprocess.Popen):
        self.process = process
        self.selector = selectors.DefaultSelector()
        self.selector.register(process.stdout, selectors.EVENT_READ)
        self.buffer = b""

    def next(self, final: bool = True) -> str:
        """The next view (the next final one, skipping first passes, when `final`)."""
        deadline = time.monotonic() + VIEW_TIMEOUT
        lines: list[str] = []
        while time.monotonic() < deadline:
            while b"\n" in self.buffer:
                line, self.buffer = self.buffer.split(b"\n", 1)
                lines.append(line.decode())
                if lines[-1].startswith("checked "):
                    view = "\n".join(lines)
                    if not final or "watching" in lines[-1]:
                        return view
                    lines = []
            if self.selector.select(timeout=1.0):
                chunk = os.read(self.process.stdout.fileno(), 65536)
                if not chunk:
                    break
                self.buffer += chunk
        raise AssertionError(f"no view within {VIEW_TIMEOUT} s; got so far:\n" + "\n".join(lines))

    def until(self, text: str) -> str:
        """Everything printed up to the next line that holds `text`."""
        deadline = time.monotonic() + VIEW_TIMEOUT
        while text.encode() not in self.buffer and time.monotonic() < deadline:
            if self.selector.select(timeout=1.0):
                chunk = os.read(self.process.stdout.fileno(), 65536)
                if not chunk:
                    break
                self.buffer += chunk
        said, found, rest = self.buffer.partition(text.encode())
        assert found, f"no {text!r} within {VIEW_TIMEOUT} s; got so far:\n{said.decode(errors='replace')}"
        line_end = rest.find(b"\n") + 1
        self.buffer = rest[line_end:] if line_end else b""
        return (said + found + rest[:line_end]).decode()


def _stop(process: subprocess.Popen) -> None:
    """After a failure: SIGTERM (forwarded to the command by the subreaper), then SIGKILL."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _save(path: Path, text: str) -> None:
    path.write_text(text, encoding="utf-8")


def test_watch_follows_saves_from_stub_to_bug_to_fixed_and_leaves_no_process(tmp_path):
    work = tmp_path / "attention.py"
    _save(work, BLANK.read_text(encoding="utf-8"))
    report = tmp_path / "report.json"
    process = subprocess.Popen(_command(report, "watch", str(work), "--seed", "1"), stdout=subprocess.PIPE, env=_env(), cwd=tmp_path)
    try:
        views = View(process)
        stub = views.next()
        tasks = len(re.findall(r"^  [·✗✓] [A-Z]\.\d", stub, re.M))
        assert "check 1" in stub and f"tasks done: 0/{tasks}" in stub and tasks >= 11
        assert "next: A.1 attention_scores" in stub and "not implemented yet" in stub
        assert "· A.1  attention_scores" in stub and "· F.1" in stub

        reference = REFERENCE.read_text(encoding="utf-8")
        _save(work, reference.replace(*SCALE_BUG))
        buggy = views.next()
        assert "check 2" in buggy and "next: A.1 attention_scores" in buggy
        assert "mistake: The scores are divided by d instead of √d." in buggy
        assert "hint: " in buggy and "✗ A.1  attention_scores" in buggy and "✓ A.2  masked_softmax" in buggy

        _save(work, reference)
        first_pass = views.next(final=False)
        assert "check 3" in first_pass and "checked A.1 in" in first_pass and "checking the other tasks" in first_pass
        assert "✓ A.1  attention_scores" in first_pass
        assert "… A.2  masked_softmax" in first_pass and "tasks done" not in first_pass and "next:" not in first_pass  # not checked yet: no stale line
        fixed = views.next()
        assert "check 3" in fixed and f"tasks done: {tasks}/{tasks}" in fixed and "every task is right" in fixed

        _save(work, reference)  # the same content again (an autosave): not checked again
        process.send_signal(signal.SIGINT)
        rest, _ = process.communicate(timeout=60)
    finally:
        _stop(process)
    assert "check 4" not in rest.decode() and "attnkit watch stopped" in rest.decode()
    outcome = json.loads(report.read_text())
    assert outcome == {"exit": 0, "left": []}


def test_check_leaves_no_process_behind(tmp_path):
    report = tmp_path / "report.json"
    buggy = tmp_path / "attention.py"
    _save(buggy, REFERENCE.read_text(encoding="utf-8").replace(*SCALE_BUG))
    done = subprocess.run(_command(report, "check", str(buggy), "--seed", "2"), capture_output=True, text=True, env=_env(), timeout=300)
    assert "divided by d instead of √d" in done.stdout
    assert json.loads(report.read_text()) == {"exit": 1, "left": []}


def test_check_into_a_closed_pipe_ends_without_a_traceback(tmp_path):
    """`attnkit check | head`: the reader is gone before the view is printed."""
    read, write = os.pipe()
    os.close(read)
    try:
        done = subprocess.run([sys.executable, "-m", "autograder.cli", "check", str(BLANK), "--seed", "1"], stdout=write, stderr=subprocess.PIPE, text=True, env=_env(), timeout=300)
    finally:
        os.close(write)
    assert done.returncode == 141 and "Traceback" not in done.stderr, done.stderr[-2000:]


def test_watch_without_a_student_file_is_a_clear_error(tmp_path, monkeypatch, capsys):
    from autograder import paths
    from autograder.cli import main

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(paths, "REPO_ROOT", tmp_path / "nowhere")  # no release folder either
    assert main(["watch"]) == 2
    assert "give the file (attnkit watch PATH)" in capsys.readouterr().err


def test_watch_picks_the_file_saved_last(tmp_path):
    from autograder.grading.watch import default_path

    (tmp_path / "attention.py").write_text("# a\n")
    notebook = tmp_path / "attention.ipynb"
    notebook.write_text("{}")
    os.utime(tmp_path / "attention.py", (1, 1))
    assert default_path(tmp_path) == notebook


def test_watch_picks_the_py_file_in_a_fresh_copy(tmp_path):
    """A copy or a clone writes the files together (the Chinese notebook last, in sorted order):
    none was saved last, so the .py file is the one checked first."""
    from autograder.grading.watch import default_path, student_files

    for name in ("attention.py", "attention.ipynb", "attention.zh.ipynb"):
        (tmp_path / name).write_text("{}" if name.endswith("ipynb") else "# a\n")
    os.utime(tmp_path / "attention.zh.ipynb", (time.time() + 1, time.time() + 1))
    assert default_path(tmp_path) == tmp_path / "attention.py"
    assert student_files(tmp_path) == [tmp_path / n for n in ("attention.py", "attention.ipynb", "attention.zh.ipynb")]


def test_watch_turns_to_the_file_saved_and_speaks_its_language(tmp_path):
    """`attnkit watch` without a file: the student saves the Chinese notebook instead of the .py
    file; the next view is of the notebook, in Chinese (no --lang, no ATTNKIT_LANG)."""
    shutil.copy(BLANK, tmp_path / "attention.py")
    notebook = tmp_path / "attention.zh.ipynb"
    shutil.copy(REPO / "assignments" / "attention" / "attention.zh.ipynb", notebook)
    os.utime(notebook, (1, 1))  # saved long ago: the .py file comes first
    report = tmp_path / "report.json"
    env = {k: v for k, v in _env().items() if k != "ATTNKIT_LANG"}
    process = subprocess.Popen(_command(report, "watch", "--seed", "1"), stdout=subprocess.PIPE, env=env, cwd=tmp_path)
    try:
        views = View(process)
        first = views.next()
        assert first.startswith("attnkit watch: ") and "attention.py" in first.splitlines()[0]
        _save(notebook, notebook.read_text(encoding="utf-8").replace("Task A.1", "Task A.1 "))
        view = views.until("正在监视 attention.zh.ipynb")  # the notebook's view, whole, in Chinese
        assert "attnkit watch：" in view and "第 1 次检查" in view and "下一个：A.1" in view, view
        process.send_signal(signal.SIGINT)
        process.communicate(timeout=60)
    finally:
        _stop(process)
    assert json.loads(report.read_text()) == {"exit": 0, "left": []}


@pytest.mark.parametrize("interrupted_at", ["start", "view"])
def test_watch_stops_on_sigterm_without_leftovers(tmp_path, interrupted_at):
    work = tmp_path / "attention.py"
    _save(work, REFERENCE.read_text(encoding="utf-8"))
    report = tmp_path / "report.json"
    process = subprocess.Popen(_command(report, "watch", str(work), "--seed", "1"), stdout=subprocess.PIPE, env=_env(), cwd=tmp_path)
    try:
        if interrupted_at == "view":
            View(process).next()
        else:
            time.sleep(1.0)  # the grader is still starting
        process.send_signal(signal.SIGTERM)
        process.communicate(timeout=120)
    finally:
        _stop(process)
    outcome = json.loads(report.read_text())
    assert outcome["left"] == []


def test_watch_fails_loudly_when_its_folder_is_removed(tmp_path):
    folder = tmp_path / "work"
    folder.mkdir()
    work = folder / "attention.py"
    _save(work, REFERENCE.read_text(encoding="utf-8"))
    report = tmp_path / "report.json"
    process = subprocess.Popen(_command(report, "watch", str(work), "--seed", "1"), stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_env(), cwd=tmp_path)
    try:
        View(process).next()
        shutil.rmtree(folder)
        _, errors = process.communicate(timeout=120)
    finally:
        _stop(process)
    assert f"the file watcher stopped (the folder {folder} was removed)" in errors.decode()
    assert json.loads(report.read_text()) == {"exit": 2, "left": []}


def test_watch_raises_when_the_watcher_thread_dies(tmp_path, monkeypatch):
    import watchfiles

    from autograder.grading import watch as watching

    def broken(*_args, **_kwargs):
        raise OSError(28, "inotify watch limit reached")
        yield  # a generator, like watchfiles.watch

    work = tmp_path / "attention.py"
    _save(work, "# a\n")
    checked: list[int] = []

    def check(_self):
        checked.append(1)
        yield from ()

    monkeypatch.setattr(watchfiles, "watch", broken)
    monkeypatch.setattr(watching.Watcher, "check", check)
    with pytest.raises(watching.WatchError, match=r"file watcher stopped \(OSError: \[Errno 28\] inotify watch limit reached\)"):
        watching.watch([work], None, None, lambda path, step: None)
    assert checked == [1]


def test_the_view_headlines_a_recognised_mistake_not_a_property_left_uncounted():
    """qa21p: for a pre-norm block the view led with "not counted: this property earns points only
    when the values are right" and never showed the mistake that `check` names."""
    from autograder.feedback.formats.watchview import Pass, Progress, render_view
    from autograder.feedback.results import FAILED, CheckResult

    def failed(check_id: str, **fields) -> CheckResult:
        return CheckResult(check_id=check_id, name=f"AttentionBlock: {check_id}", part="D", task="D.1", points=0.0, max_points=1.0, status=FAILED, **fields)

    gated = failed("block_parameters", message="not counted: this property earns points only when the values are right", message_key="scoring_gated")
    wrong = failed("block_values", message="the output differs: The block normalises before attention (pre-norm)", mistake="block_pre_norm",
                   mistake_message="The block normalises before attention (pre-norm)")
    view = render_view(Pass(Progress((gated, wrong)), "", 0.1, False), Path("attention.py"), 1, "en")
    assert "✗ AttentionBlock: block_values" in view and "pre-norm" in view and "✗ AttentionBlock: block_parameters" not in view, view


def test_the_view_of_an_unwritten_task_gives_the_tasks_idea_as_check_does():
    """qa21p: for a stub, watch gave the first check's hint ("Only the last two axes take part in
    the product...") where `check` gives the task's idea."""
    from autograder.feedback.formats.view import first_hint
    from autograder.feedback.formats.watchview import Pass, Progress, render_view
    from autograder.feedback.results import FAILED, CheckResult

    stub = CheckResult(check_id="sdpa_shapes", name="scaled_dot_product_attention: shapes", part="A", task="A.3", points=0.0, max_points=1.0,
                       status=FAILED, message="Task A.3 (scaled_dot_product_attention) is not implemented yet: it still raises NotImplementedError")
    view = render_view(Pass(Progress((stub,)), "", 0.1, False), Path("attention.py"), 1, "en")
    assert first_hint("", "A.3", "en") in view and first_hint("sdpa_shapes", "A.3", "en") not in view, view


def test_the_view_counts_what_else_fails_in_words_and_keeps_its_columns_in_chinese():
    """qa39p 6: "(1 more failing checks)", and Chinese task names pushed the Chinese view's
    scores out of their column (a Chinese character takes two columns of a terminal)."""
    from wcwidth import wcswidth

    from autograder.feedback.formats.watchview import Pass, Progress, render_view
    from autograder.feedback.results import FAILED, PASSED, CheckResult

    def check(check_id: str, task: str, status: str = FAILED) -> CheckResult:
        return CheckResult(check_id=check_id, name=f"plot_attention: {check_id}", part=task[0], task=task, points=0.0, max_points=1.0, status=status, message="wrong")

    two = (check("heatmap_a", "E.1"), check("heatmap_b", "E.1"))
    assert "(1 more failing check in E.1)" in render_view(Pass(Progress(two), "", 0.1, False), Path("attention.py"), 1, "en")
    three = (*two, check("heatmap_c", "E.1"))
    assert "(2 more failing checks in E.1)" in render_view(Pass(Progress(three), "", 0.1, False), Path("attention.py"), 1, "en")
    rows = (check("heatmap_a", "E.1", PASSED), check("trained_maps_match", "F.1", PASSED))
    view = render_view(Pass(Progress(rows), "", 0.1, False), Path("attention.py"), 1, "zh")
    lines = [line for line in view.splitlines() if line.lstrip().startswith("✓")]
    assert len(lines) == 2 and "训练好的模型" in lines[1], view
    assert len({wcswidth(line[: line.rindex(" ")]) for line in lines}) == 1, view  # the scores start in one column


def test_watch_and_hint_help_name_the_kits_own_assignment_folder(capsys, monkeypatch):
    """qa39p 5: run at another clone's root, watch and hint act on this kit's assignments/ folder;
    their help said "assignments/<assignment>/", which reads as the current folder's."""
    from autograder.cli import main
    from autograder.paths import REPO_ROOT

    monkeypatch.setenv("COLUMNS", "2000")  # one line per option: a path is never wrapped
    for command in ("watch", "hint"):
        with pytest.raises(SystemExit):
            main([command, "--help"])
        assert f"{REPO_ROOT / 'assignments'}/<assignment>/" in capsys.readouterr().out, command
