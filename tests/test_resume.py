"""Nothing is lost when the grader dies, and a full disk is a clear error (issue 13).

`grade-batch` is killed with SIGKILL (its whole process group) at random moments, KILLS times over
a batch of SUBMISSIONS submissions (every HOSTILE_EVERY-th one hostile or broken, names chosen to
collide included), then run once more to the end. Afterwards every submission has exactly one
complete result, grades.csv and the dashboard agree with the results, no partial file is left in
the output folder and no process of the killed graders is alive (templates, keepers and workers
carry the grader's pid as their last argument). The batch grades Part B only (--parts B), so
that a submission costs about a second. ATTNKIT_KILL_TEST="N,K" shrinks the numbers for a quick
run by hand (it is never set in `make test`).
"""
from __future__ import annotations

import csv
import html
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from autograder.feedback.formats.view import number
from autograder.feedback.results import PARTIAL_SUFFIX
from autograder.settings import BATCH_FILES
from autograder.grading.worker.client import SCRATCH_PREFIX
from autograder.grading.worker.sandbox import is_root

from tests.batches import EXAMPLES, REFERENCE, REPO, write_case

SUBMISSIONS, KILLS = (int(v) for v in os.environ.get("ATTNKIT_KILL_TEST", "200,20").split(","))
HOSTILE_EVERY = 5
KILL_SEED = 13
PARTS = "B"
TEMPLATE_MARK = "autograder.grading.worker.template"
DISK_SUBMISSIONS, DISK_BYTES = 12, 160 << 10  # a Part B result takes ~25 KiB: the disk fills midway

pytestmark = [pytest.mark.slow, pytest.mark.kill]


# ---------------------------------------------------------------------------------------------
# the inbox
# ---------------------------------------------------------------------------------------------
def hostile_entries(inbox: Path, number: int) -> list[str]:
    """Write hostile or broken submission `number`; returns the entry names it made."""
    kinds = ["exit_at_import", "garbage", "broken_notebook", "zip_escape", "empty", "raise_at_import", "name_clash", "tags_seven"]
    if is_root():
        kinds += ["fork_swarm", "daemon"]  # without root nothing reaps what they start (see test_hostile)
    kind = kinds[(number // HOSTILE_EVERY) % len(kinds)]  # the hostile ones take every kind in turn
    made = write_case(inbox, f"h{number:03d}", kind)
    clash = number // (HOSTILE_EVERY * len(kinds))
    if kind == "name_clash" and clash < len(BATCH_FILES):  # the first three also take a batch file's name
        shutil.copyfile(REFERENCE, inbox / f"{BATCH_FILES[clash]}.py")
        made.append(f"{BATCH_FILES[clash]}.py")
    return made


def make_inbox(inbox: Path, count: int) -> list[str]:
    inbox.mkdir()
    correct = [REFERENCE, *sorted(p for p in EXAMPLES.glob("*.py"))]
    entries: list[str] = []
    number = 0
    while len(entries) < count:
        if number % HOSTILE_EVERY == HOSTILE_EVERY - 1:
            made = hostile_entries(inbox, number)
            entries += [m for m in made if m not in entries]
        else:
            source = correct[number % len(correct)]
            shutil.copyfile(source, inbox / f"s{number:03d}.py")
            entries.append(f"s{number:03d}.py")
        number += 1
    return entries


# ---------------------------------------------------------------------------------------------
# processes
# ---------------------------------------------------------------------------------------------
def group_pids(group: int) -> set[int]:
    pids = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if int((entry / "stat").read_text().rsplit(")", 1)[1].split()[2]) == group:
                    pids.add(int(entry.name))
            except (OSError, IndexError, ValueError):
                continue
    return pids


def grader_children(graders: set[int]) -> list[str]:
    """Live templates, keepers and workers whose grader (their last argument) is in `graders`."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        argv = [a.decode(errors="replace") for a in argv if a]
        if state != "Z" and any(TEMPLATE_MARK in a for a in argv) and argv[-1].isdigit() and int(argv[-1]) in graders:
            found.append(f"{entry.name} ({state})")
    return found


def wait_until_gone(graders: set[int], timeout: float = 20.0) -> list[str]:
    deadline = time.monotonic() + timeout
    while (left := grader_children(graders)) and time.monotonic() < deadline:
        time.sleep(0.1)
    return left


def grade_batch_command(inbox: Path, out: Path) -> list[str]:
    return [sys.executable, "-m", "autograder.cli", "grade-batch", str(inbox), "--out", str(out), "--jobs", "2", "--parts", PARTS, "--seed", "5"]


def completed(out: Path) -> int:
    return sum(1 for _ in out.glob("*/attnkit.json")) if out.is_dir() else 0


# ---------------------------------------------------------------------------------------------
# the test
# ---------------------------------------------------------------------------------------------
def test_batch_killed_at_random_moments_resumes_to_exactly_one_complete_result_each(tmp_path):
    inbox, out = tmp_path / "inbox", tmp_path / "out"
    entries = make_inbox(inbox, SUBMISSIONS)
    rng = random.Random(KILL_SEED)
    killed_graders: set[int] = set()
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    for kill in range(KILLS):
        before = completed(out)
        grader = subprocess.Popen(grade_batch_command(inbox, out), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, start_new_session=True)
        # A random moment while results are being written: after this run's first new result
        # (or its start-up, for the first kills) plus up to 3 s.
        deadline = time.monotonic() + 60
        while kill >= 3 and completed(out) == before and grader.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(rng.uniform(0.0, 3.0))
        group = group_pids(grader.pid) | {grader.pid}
        try:
            os.killpg(grader.pid, signal.SIGKILL)
        except ProcessLookupError:  # it finished the batch before this moment came
            pass
        grader.wait()
        killed_graders |= group
        left = wait_until_gone(killed_graders)
        assert not left, f"kill {kill + 1}: processes outlived the killed grader: {left}"
    final = subprocess.run(grade_batch_command(inbox, out), capture_output=True, text=True, env=env, timeout=900)
    assert final.returncode == 0, final.stderr[-3000:]

    results = {}
    for result_file in out.glob("*/attnkit.json"):
        data = json.loads(result_file.read_text(encoding="utf-8"))  # complete: it parses
        results[result_file.parent.name] = data
    sources = sorted(Path(r["source"]).name for r in results.values())
    assert sources == sorted(entries), "not exactly one result per submission"
    assert all(r["submission"] == folder for folder, r in results.items())
    assert not list(out.rglob(f"*{PARTIAL_SUFFIX}")), "a partial file was left"
    assert not [p for p in out.iterdir() if p.is_dir() and not (p / "attnkit.json").is_file()], "a result folder without its result"

    with open(out / "grades.csv", encoding="utf-8", newline="") as handle:
        rows = {row["submission"]: row for row in csv.DictReader(handle)}
    assert set(rows) == set(results)
    for folder, data in results.items():
        if data["grader_error"]:  # could not be graded: no score is imported, the status says why
            assert rows[folder]["status"] == "error" and rows[folder]["score"] == "", folder
            continue
        score = sum(c["points"] for c in data["checks"])
        assert rows[folder]["status"] == "graded" and abs(float(rows[folder]["score"]) - score) < 1e-6, folder
    dashboard = (out / "index.html").read_text(encoding="utf-8")
    for folder, data in results.items():
        score, top = sum(c["points"] for c in data["checks"]), sum(c["max_points"] for c in data["checks"])
        cell = "–" if data["grader_error"] else f"{number(round(score, 6))} / {number(round(top, 6))}"
        assert f'>{html.escape(folder)}</a></td><td class="num">{cell}</td>' in dashboard, folder
    assert not wait_until_gone(killed_graders, timeout=1)
    stale = [p for pid in killed_graders for p in Path(tempfile.gettempdir()).glob(f"{SCRATCH_PREFIX}{pid}-*")]
    assert not stale, f"scratch folders of killed graders were left: {stale[:3]}"


# ---------------------------------------------------------------------------------------------
# a full disk
# ---------------------------------------------------------------------------------------------
@pytest.mark.skipif(not is_root(), reason="needs root: mounts a small tmpfs as the output folder")
def test_full_disk_is_a_clear_error_naming_the_folder_and_leaves_no_half_written_result(tmp_path, capsys):
    from autograder.cli import main

    inbox, out = tmp_path / "inbox", tmp_path / "out"
    inbox.mkdir()
    out.mkdir()
    for number in range(DISK_SUBMISSIONS):
        shutil.copyfile(REFERENCE, inbox / f"s{number:02d}.py")
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={DISK_BYTES}", "tmpfs", str(out)], capture_output=True, text=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here: {mounted.stderr.strip()[:200]}")
    try:
        code = main(["grade-batch", str(inbox), "--out", str(out), "--parts", PARTS, "--seed", "5"])
        error = capsys.readouterr().err
        written = list(out.glob("*/attnkit.json"))
        assert code == 2 and f"ERROR cannot write the results into {out}" in error and "the disk is full" in error, error[-2000:]
        assert "Traceback" not in error
        assert 0 < len(written) < DISK_SUBMISSIONS, "the disk should fill part of the way through"
        for result_file in out.rglob("*.json"):
            json.loads(result_file.read_text(encoding="utf-8"))  # every result file there is whole
        assert not list(out.rglob(f"*{PARTIAL_SUFFIX}"))
    finally:
        subprocess.run(["umount", str(out)], check=True)
