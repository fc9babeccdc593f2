"""`grade-batch --shard K/N`: N separate processes into one folder give the report of one run."""
from __future__ import annotations

import csv
import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.cli import main
from autograder.errors import AttnkitError
from autograder.grading.shard import Shard

REPO = Path(__file__).resolve().parents[1]
REFERENCE = REPO / "solutions" / "attention" / "attention.py"
BLANK = REPO / "assignments" / "attention" / "attention.py"
SHARDS = 4


def _inbox(root: Path) -> Path:
    inbox = root / "inbox"
    inbox.mkdir()
    reference = REFERENCE.read_text(encoding="utf-8")
    shutil.copy(REFERENCE, inbox / "ada.py")
    shutil.copy(BLANK, inbox / "bo.py")
    (inbox / "cy.py").write_text(reference.replace("return q @ k.transpose(-2, -1) / math.sqrt(d)", "return q @ k.transpose(-2, -1) / d"), encoding="utf-8")
    (inbox / "di.py").write_text(reference.replace(".tril()", ".triu()"), encoding="utf-8")
    (inbox / "ed.py").write_text("this is not python(\n", encoding="utf-8")
    return inbox


def _grades(out: Path) -> list[dict[str, str]]:
    rows = list(csv.DictReader(io.StringIO((out / "grades.csv").read_text(encoding="utf-8"))))
    for row in rows:
        row.pop("execution_time")
    return rows


def _checks(out: Path) -> dict[str, list[tuple]]:
    found = {}
    for path in sorted(out.glob("*/attnkit.json")):
        data = json.loads(path.read_text())
        found[path.parent.name] = [(c["check_id"], c["status"], c["points"], c["message"]) for c in data["checks"]]
    return found


def test_every_submission_is_in_exactly_one_stable_shard():
    names = [f"student-{i:03d}" for i in range(200)]
    owners = {name: [k for k in range(SHARDS) if Shard(k, SHARDS).holds(name)] for name in names}
    assert all(len(found) == 1 for found in owners.values())
    sizes = [sum(found == [k] for found in owners.values()) for k in range(SHARDS)]
    assert min(sizes) > 20  # spread, not all in one
    assert owners == {name: [k for k in range(SHARDS) if Shard(k, SHARDS).holds(name)] for name in names}


@pytest.mark.parametrize("text", ["4/4", "1/0", "a/b", "2"])
def test_bad_shard_is_a_clear_error(text):
    with pytest.raises(AttnkitError, match="--shard"):
        Shard.parse(text)


def test_shard_needs_a_seed(tmp_path, capsys):
    assert main(["grade-batch", str(tmp_path), "--out", str(tmp_path / "out"), "--shard", "0/2"]) == 2
    assert "--shard needs --seed" in capsys.readouterr().err


def test_four_shards_in_separate_processes_report_what_one_run_reports(tmp_path):
    inbox = _inbox(tmp_path)
    single, shared = tmp_path / "single", tmp_path / "shared"
    assert main(["grade-batch", str(inbox), "--out", str(single), "--seed", "7"]) == 0
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    shards = [subprocess.Popen([sys.executable, "-m", "autograder.cli", "grade-batch", str(inbox), "--out", str(shared),
                                "--seed", "7", "--shard", f"{k}/{SHARDS}"], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
              for k in range(SHARDS)]
    outputs = [shard.communicate(timeout=600)[0].decode() for shard in shards]
    assert [shard.returncode for shard in shards] == [0] * SHARDS, outputs
    assert not (shared / "grades.csv").exists()  # no shard writes the class report
    assert main(["report", str(shared)]) == 0
    assert _grades(shared) == _grades(single)
    assert _checks(shared) == _checks(single)
    assert (shared / "index.html").is_file() and all((shared / name / "feedback.html").is_file() for name in ("ada", "bo", "cy", "di", "ed"))
