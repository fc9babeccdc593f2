"""`attnkit watch`: one warm grader that checks a student's file again every time it is saved.

The grader (worker template, checks, reference) starts once. Each save of the file gets one fresh
worker and two passes of the visible checks: first the task being worked on (the first task not
yet right), then every other task; the view is redrawn after each pass, so the task at hand
answers first. A save that changes nothing (an editor's or Jupyter's autosave) is not checked.
"""
from __future__ import annotations

import contextlib
import hashlib
import queue
import signal
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path

from typing import TYPE_CHECKING

from autograder.errors import AttnkitError, SubmissionError
from autograder.feedback.i18n import t
from autograder.feedback.formats.watchview import Pass, Progress
from autograder.grading.worker.launch import STOP_SIGNALS, signals_deferred

if TYPE_CHECKING:  # torch comes with these: imported when checking, after the template started
    from autograder.grading.session import GradeOptions
    from autograder.grading.worker.client import WorkerFactory

RESTART = "nothing you save is checked any more: start `attnkit watch` again"


class WatchError(AttnkitError):
    """The file watcher stopped: saves can no longer be seen (the text says why)."""


@dataclass(frozen=True)
class _Stopped:
    """Put into the saves queue by the watcher thread when it ends before it was told to."""

    reason: str
STEP_MS = 50  # a save is checked once the file has been quiet this long (editors write in steps)


SAME_SAVE_NS = 2_000_000_000  # files saved this close together came together (a copy, a clone): none was saved last


def student_files(cwd: Path, command: str = "watch") -> list[Path]:
    """The student's files in `cwd`, else in the release folder (assignments/<name>/): the
    student file and the notebooks there, the one saved last first. Files written within
    SAME_SAVE_NS of each other (a fresh copy of the folder) keep the manifest's order: the .py
    file, the English notebook, the Chinese one. `command` names the verb in the error."""
    from autograder.assignment import current
    from autograder.grading.submission import entry_names
    from autograder.paths import REPO_ROOT

    names = entry_names()
    release = REPO_ROOT / "assignments" / current().name
    for folder in (cwd, release):
        found = [folder / name for name in names if (folder / name).is_file()]
        if found:
            newest = max(p.stat().st_mtime_ns for p in found)
            return sorted(found, key=lambda p: newest - p.stat().st_mtime_ns > SAME_SAVE_NS)  # stable: the manifest's order within each group
    raise AttnkitError(t("cli.no_default_file", names=" or ".join(names), release=release, command=command))


def default_path(cwd: Path, command: str = "watch") -> Path:
    """The student's file saved last (student_files)."""
    return student_files(cwd, command)[0]


@dataclass
class Watcher:
    """The warm grader for one file."""

    path: Path
    factory: WorkerFactory
    options: GradeOptions
    progress: Progress = field(default_factory=Progress)
    _digest: str = ""

    def changed(self) -> bool:
        """Whether the file's content differs from what was checked last."""
        try:
            digest = hashlib.sha256(self.path.read_bytes()).hexdigest()
        except OSError:
            return False  # gone for a moment (an editor's save by rename): wait for it
        if digest == self._digest:
            return False
        self._digest = digest
        return True

    def saved_at(self) -> int:
        """The file's modification time (ns), 0 when it cannot be read."""
        try:
            return self.path.stat().st_mtime_ns
        except OSError:
            return 0

    def check(self) -> Iterator[Pass]:
        """Check the file: the task being worked on first, then the others (one pass when the
        task is unknown or every task is right)."""
        from autograder.grading.session import ArtifactSink, hidden_paths, load_notes, new_student, place_notes, run_checks
        from autograder.grading.submission import load_submission

        started = time.perf_counter()
        self.progress = replace(self.progress, count=self.progress.count + 1)
        try:
            submission = load_submission(self.path)
        except SubmissionError as error:
            self.progress = replace(self.progress, notes=(str(error),))
            yield Pass(self.progress, "", time.perf_counter() - started, False)
            return
        config = replace(self.options.config, hidden=hidden_paths())
        student = new_student(submission, self.factory, config, self.options.budget)
        focus = self.progress.focus
        others = frozenset(self.progress.tasks) - {focus} if focus else frozenset()
        passes: list[frozenset[str] | None] = [frozenset({focus}), others] if focus and others else [None]
        try:
            for number, tasks in enumerate(passes):
                checks = run_checks(student, self.options.seed or 0, None, ArtifactSink(render=False), tasks=tasks, visible_only=True)
                notes = (*load_notes(student, self.path), *student.events, *submission.notes)
                merged = self.progress.merged(checks)
                notes += tuple(place_notes(submission, [*notes, *(c.message for c in merged.checks)]))
                self.progress = replace(merged, notes=notes)
                yield Pass(self.progress, focus if tasks and len(passes) > 1 and number == 0 else "", time.perf_counter() - started, number + 1 < len(passes))
        finally:
            with signals_deferred():
                student.close()


def watch(paths: list[Path], factory: WorkerFactory, options: GradeOptions, show: Callable[[Path, Pass], None]) -> None:
    """Check the first of `paths` now, and after every save the one saved (a save that changes
    another of them turns to it) until interrupted (KeyboardInterrupt). `show` gets each view with
    the file it is of.

    The file watcher runs in a thread started before the first check, so a save made while
    the first check runs is not missed."""
    watchers = [Watcher(path.resolve(), factory, options) for path in paths]
    for other in watchers[1:]:
        other.changed()  # their content now: an autosave that changes nothing does not turn to them
    saves: queue.Queue[object] = queue.Queue()
    stop = threading.Event()
    thread = threading.Thread(target=_notice_saves, args=([w.path for w in watchers], saves, stop), name="attnkit-watch", daemon=True)
    thread.start()
    watcher, due = watchers[0], watchers[0].changed()
    try:
        while True:
            if due:
                with contextlib.closing(watcher.check()) as steps:  # closed (its worker too) even when interrupted
                    for step in steps:
                        show(watcher.path, step)
            saved = _wait_for_save(saves)
            moved = [w for w in watchers if w is not watcher and w.path in saved and w.changed()]
            if moved:
                watcher, due = max(moved, key=lambda w: w.saved_at()), True
            else:
                due = watcher.changed()
    finally:
        stop.set()
        thread.join(timeout=2.0)


def _wait_for_save(saves: queue.Queue[object]) -> set[Path]:
    """Block until the next save (signals interrupt the wait), then take every save queued
    behind it: the files saved; raise WatchError when the watcher thread has stopped."""
    items = [saves.get()]
    while not saves.empty():
        items.append(saves.get())
    stopped = next((item for item in items if isinstance(item, _Stopped)), None)
    if stopped is not None:
        raise WatchError(f"attnkit watch: the file watcher stopped ({stopped.reason}); {RESTART}")
    return {path for item in items if isinstance(item, set) for path in item}


def _notice_saves(targets: list[Path], saves: queue.Queue[object], stop: threading.Event) -> None:
    """Put the set of `targets` saved into `saves` for each batch of changes to them (watchfiles:
    inotify, FSEvents or ReadDirectoryChangesW; polling only where WATCHFILES_FORCE_POLLING says
    so). Whatever ends it before `stop` is set (an error, a folder removed) is put there too."""
    reason = "it ended without a reason"
    folders = sorted({target.parent for target in targets})
    try:
        import watchfiles

        signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)  # Ctrl-C is the main thread's to handle
        for changes in watchfiles.watch(*folders, watch_filter=lambda _, name: Path(name) in targets, step=STEP_MS, stop_event=stop, raise_interrupt=False):
            gone = [folder for folder in folders if not folder.is_dir()]
            if gone:  # watchfiles goes on watching nothing
                reason = f"the folder {gone[0]} was removed"
                break
            saves.put({Path(name) for _, name in changes})
    except Exception as error:  # noqa: BLE001 - any failure ends watching; the main thread says so
        reason = f"{type(error).__name__}: {error}"
    finally:
        if not stop.is_set():
            saves.put(_Stopped(reason))
