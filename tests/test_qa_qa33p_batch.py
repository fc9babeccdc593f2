"""qa33p items 3, 4, 7, 8: one seed per class, a shard re-run's count, a file that does not compile
is not imported as 0, and a roster of another LMS is refused for PrairieLearn's import."""
from __future__ import annotations

import csv
import io
import json
import shutil
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from autograder.cli import main
from autograder.deployment.roster import load_roster
from autograder.feedback.output import ResultStore
from autograder.feedback.results import SubmissionResult
from autograder.grading.batch import SeedMismatchError, grade_batch
from autograder.grading.session import BatchJob
from autograder.grading.shard import Shard
from autograder.grading.submission import submission_digest

REPO = Path(__file__).resolve().parents[1]
BLANK = REPO / "assignments" / "attention" / "attention.py"
BROKEN = "def attention_scores(q, k):\n    return (q @ k.transpose(-2, -1)\n"  # '(' was never closed


@dataclass
class RecordingRunner:
    """A runner that grades nothing: it writes an empty result with the batch's seed, and records the job."""

    lock_tag: str = ""
    jobs: list[BatchJob] = field(default_factory=list)

    def run(self, job: BatchJob) -> Iterator[tuple[Path, SubmissionResult]]:
        self.jobs.append(job)
        for path, name in job.todo:
            assert job.options.seed is not None
            result = SubmissionResult(submission=name, source=str(path), seed=job.options.seed, digest=submission_digest(path))
            ResultStore(job.out_dir).write(result, {})
            yield path, result


def _inbox(root: Path, *names: str) -> Path:
    inbox = root / "inbox"
    inbox.mkdir(exist_ok=True)
    for name in names:
        (inbox / f"{name}.py").write_text(f"# {name}\n", encoding="utf-8")
    return inbox


def _seeds(out: Path) -> dict[str, int]:
    return {p.parent.name: json.loads(p.read_text())["seed"] for p in sorted(out.glob("*/attnkit.json"))}


def test_a_resumed_batch_with_another_seed_is_refused_before_grading(tmp_path):
    inbox, out = _inbox(tmp_path, "ada", "bo"), tmp_path / "out"
    grade_batch(inbox, out, options=_options(5), runner=RecordingRunner())
    _inbox(tmp_path, "cy")
    runner = RecordingRunner()
    with pytest.raises(SeedMismatchError) as caught:
        grade_batch(inbox, out, options=_options(6), runner=runner)
    message = str(caught.value)
    assert "--seed 6" in message and "seed 5" in message and "\n" not in message
    assert "leave --seed out" in message and "--force" in message and "another --out" in message
    assert runner.jobs == [] and _seeds(out) == {"ada": 5, "bo": 5}  # nothing graded


def test_the_ways_out_of_a_seed_mismatch_work(tmp_path):
    inbox, out = _inbox(tmp_path, "ada", "bo"), tmp_path / "out"
    grade_batch(inbox, out, options=_options(5), runner=RecordingRunner())
    _inbox(tmp_path, "cy")
    grade_batch(inbox, out, runner=RecordingRunner())  # no --seed: the folder's
    assert _seeds(out) == {"ada": 5, "bo": 5, "cy": 5}
    grade_batch(inbox, out, options=_options(5), runner=RecordingRunner())  # the same seed, said again
    grade_batch(inbox, out, options=_options(6), force=True, runner=RecordingRunner())  # all again with the new one
    assert _seeds(out) == {"ada": 6, "bo": 6, "cy": 6}


def test_a_shard_with_another_seed_into_a_shared_folder_is_refused(tmp_path):
    names = [f"s{i}" for i in range(8)]
    inbox, out = _inbox(tmp_path, *names), tmp_path / "out"
    grade_batch(inbox, out, options=_options(5), shard=Shard(0, 2), runner=RecordingRunner())
    runner = RecordingRunner()
    with pytest.raises(SeedMismatchError, match=r"--seed 6 .*seed 5\).*Give this shard --seed 5"):
        grade_batch(inbox, out, options=_options(6), shard=Shard(1, 2), runner=runner)
    with pytest.raises(SeedMismatchError):  # --force regrades this shard only: the other keeps its seed
        grade_batch(inbox, out, options=_options(6), shard=Shard(1, 2), force=True, runner=runner)
    assert runner.jobs == []
    grade_batch(inbox, out, options=_options(5), shard=Shard(1, 2), runner=RecordingRunner())
    assert set(_seeds(out)) == set(names) and set(_seeds(out).values()) == {5}


def test_the_cli_refuses_a_seed_mismatch_in_one_line(tmp_path, capsys, monkeypatch):
    import autograder.grading.batch as batch
    import autograder.grading.worker.launch as launch

    runner = RecordingRunner()
    monkeypatch.setattr(batch, "PoolRunner", lambda *args, **kwargs: runner)
    monkeypatch.setattr(launch, "launch_template", lambda **kwargs: None)
    inbox, out = _inbox(tmp_path, "ada"), tmp_path / "out"
    grade_batch(inbox, out, options=_options(5), runner=RecordingRunner())
    _inbox(tmp_path, "bo")
    assert main(["grade-batch", str(inbox), "--out", str(out), "--seed", "6"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "--seed 6" in err and "seed 5" in err
    assert runner.jobs == [] and not (out / "bo").exists()


def test_report_warns_when_the_folder_holds_several_seeds(tmp_path, capsys):
    inbox, out = _inbox(tmp_path, "ada", "bo"), tmp_path / "out"
    grade_batch(inbox, out, options=_options(5), runner=RecordingRunner())
    assert main(["report", str(out)]) == 0
    assert "seeds" not in capsys.readouterr().err and "seeds" not in (out / "summary.md").read_text()
    data = json.loads((out / "bo" / "attnkit.json").read_text())
    (out / "bo" / "attnkit.json").write_text(json.dumps({**data, "seed": 6}), encoding="utf-8")  # a run of the old attnkit
    assert main(["report", str(out)]) == 0
    err = capsys.readouterr().err
    assert "warning:" in err and "2 seeds (5, 6)" in err
    summary = (out / "summary.md").read_text()
    assert "2 seeds (5, 6)" in summary.split("\n## ")[0]  # at the top, before the tables
    assert main(["report", str(out), "--lang", "zh"]) == 0
    assert "2 个不同的随机种子（5, 6）" in (out / "summary.md").read_text()
    with pytest.raises(SeedMismatchError, match="several seeds"):  # resuming it without --seed: no one seed to keep
        _inbox(tmp_path, "cy")
        grade_batch(inbox, out, runner=RecordingRunner())


def _options(seed: int):
    from autograder.grading.session import GradeOptions

    return GradeOptions(seed=seed)


def test_a_shard_rerun_counts_only_what_it_graded(tmp_path, capsys):
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    (inbox / "ed.py").write_text(BROKEN, encoding="utf-8")  # graded in about a second
    out = tmp_path / "out"
    assert main(["grade-batch", str(inbox), "--out", str(out), "--seed", "3", "--shard", "0/1"]) == 0
    assert "shard 0/1: 1 submission(s) graded into" in capsys.readouterr().out
    assert main(["grade-batch", str(inbox), "--out", str(out), "--seed", "3", "--shard", "0/1"]) == 0
    captured = capsys.readouterr()
    assert "1 submission(s) already graded" in captured.err
    assert "shard 0/1: 0 submission(s) graded into" in captured.out and "(1 already there)" in captured.out


PL_BROKEN = "bo@example.com_1_attention_1001_2001_attention"
PL_BLANK = "jo@example.com_1_attention_1002_2002_attention"


@pytest.fixture(scope="module")
def pl_graded(tmp_path_factory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("pl")
    inbox = root / "inbox"
    inbox.mkdir()
    (inbox / f"{PL_BROKEN}.py").write_text(BROKEN, encoding="utf-8")
    shutil.copy(BLANK, inbox / f"{PL_BLANK}.py")  # compiles, scores 0: a real 0
    out = root / "out"
    assert main(["grade-batch", str(inbox), "--out", str(out), "--jobs", "2", "--seed", "1", "--prairielearn"]) == 0
    return inbox, out


def _rows(path: Path) -> dict[str, dict[str, str]]:
    rows = list(csv.DictReader(io.StringIO(path.read_text(encoding="utf-8"))))
    key = "submission" if "submission" in rows[0] else next(iter(rows[0]))
    return {row[key]: row for row in rows}


def test_a_file_that_does_not_compile_is_not_graded_anywhere(pl_graded, tmp_path, capsys):
    inbox, out = pl_graded
    assert json.loads((out / PL_BROKEN / "prairielearn.json").read_text())["gradable"] is False
    grades = _rows(out / "grades.csv")
    assert grades[PL_BROKEN]["status"] == "error" and grades[PL_BROKEN]["score"] == ""
    assert "does not compile" in grades[PL_BROKEN]["grader_error"]
    assert grades[PL_BLANK]["status"] == "graded" and grades[PL_BLANK]["score"] == "0"
    assert "1 graded, 1 failed to grade" in (out / "summary.md").read_text()
    pl_roster = tmp_path / "pl.csv"
    pl_roster.write_text("UID,UIN,Name\nbo@example.com,1,Bo\njo@example.com,,Jo\n", encoding="utf-8")
    assert main(["report", str(out), "--roster", str(pl_roster), "--lms", "prairielearn"]) == 0
    assert (out / "grades-prairielearn.csv").read_text().splitlines() == ["uid,instance,score_perc", "jo@example.com,1,0"]
    ids = {name: row["student_id"] for name, row in _rows(out / "grades.csv").items()}
    assert ids == {PL_BROKEN: "bo@example.com", PL_BLANK: "jo@example.com"}  # the UID PrairieLearn's import takes
    plain = tmp_path / "plain.csv"  # Canvas's columns, matched by submission name
    plain.write_text(f"submission,student_id,ID,SIS User ID\n{PL_BROKEN},S1,1,S1\n{PL_BLANK},S2,2,S2\n", encoding="utf-8")
    assert main(["report", str(out), "--roster", str(plain), "--lms", "canvas"]) == 0
    assert [row["SIS User ID"] for row in _rows(out / "grades-canvas.csv").values()] == ["S2"]


def test_a_file_that_does_not_compile_stays_ungraded_when_its_source_is_gone(pl_graded, tmp_path):
    inbox, out = pl_graded
    moved = tmp_path / "elsewhere"
    shutil.move(str(inbox), moved)
    try:
        assert main(["report", str(out)]) == 0
        assert _rows(out / "grades.csv")[PL_BROKEN]["status"] == "error"
    finally:
        shutil.move(str(moved), inbox)


@pytest.mark.parametrize(("header", "row", "named"), [
    ("Student,ID,SIS User ID,SIS Login ID,Section", '"B, Bo",5,S005,bb,S1', "Canvas"),
    ("Name,SID,Email,Submission ID", "Bo,S005,bo@x.org,555", "Gradescope"),
])
def test_prairielearn_import_refuses_another_lms_roster(pl_graded, tmp_path, capsys, header, row, named):
    _, out = pl_graded
    roster = tmp_path / "roster.csv"
    roster.write_text(f"{header}\n{row}\n", encoding="utf-8")
    (out / "grades-prairielearn.csv").unlink(missing_ok=True)
    assert main(["report", str(out), "--roster", str(roster), "--lms", "prairielearn"]) == 2
    err = capsys.readouterr().err
    assert f"is {named}'s" in err and "PrairieLearn's student list" in err
    assert not (out / "grades-prairielearn.csv").exists()


def test_a_prairielearn_roster_gives_the_uid_as_student_id(tmp_path):
    roster = tmp_path / "pl.csv"
    roster.write_text("UID,UIN,Name\nalice@example.com,1001,Alice\n", encoding="utf-8")
    loaded = load_roster(roster)
    assert loaded.kind == "prairielearn"
    assert loaded.lookup("alice@example.com_1_attention_2002_3003_attention").student_id == "alice@example.com"
