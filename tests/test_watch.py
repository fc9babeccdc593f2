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
        watching.watch(work, None, None, lambda step: None)
    assert checked == [1]
