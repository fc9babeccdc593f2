"""QA of helper qa6p: the platform paths a course runs, graded as one class in one batch.

A class of correct, buggy, blank and broken hand-ins (not UTF-8, NUL bytes, empty, invalid notebook
JSON, a wrong file kind, a zip, a folder whose file is misnamed) is graded once with
`--prairielearn`; every results.json must follow Gradescope's documented format and every
prairielearn.json PrairieLearn's, broken hand-ins included. The schemas below are transcribed
from the platforms' own documentation:
  - Gradescope: https://gradescope-autograders.readthedocs.io/en/latest/specs/ ("Output format",
    "Controlling Test Case Visibility", "Test case status", "Output String Formatting");
  - PrairieLearn: https://prairielearn.readthedocs.io/en/latest/externalGrading/ ("Grading results").
Fixed here (each test named after it fails on main without its fix):
  - PrairieLearn files of a .py the loader refuses (not UTF-8, NUL bytes) said "does not compile
    (line None: source code string cannot contain null bytes)" or a codec error at a wrong line,
    where the batch said what to do ("save it as UTF-8"); they keep the loader's reason now;
  - a folder holding a misnamed file ("attention.txt") was refused with "files: none";
  - a result the grader itself failed to reach (its worker template died: a SIGINT to the batch's
    process group while the template imported torch) was kept for good: a re-run skipped the
    whole class as "could not grade";
  - Ctrl-C ended every command with a traceback from wherever it landed;
  - grade-batch's table printed "0/100" for a hand-in that could not be graded;
  - the PrairieLearn question took only attention.py, where the student README tells students to
    hand in the file they wrote in (attention.ipynb, attention.zh.ipynb) under its own name;
  - `report --lms canvas` with a roster without Canvas's ID columns wrote rows Canvas cannot match;
  - `grade-batch SUBS --out SUBS` graded its own results as submissions on the next run;
  - `attnkit check` never said which file it had checked.
"""
from __future__ import annotations

import json
import math
import re
import shutil
import zipfile
from dataclasses import replace
from pathlib import Path

import jsonschema
import pytest

from autograder import cli
from autograder.errors import AttnkitError
from autograder.feedback.checkview import render_check
from autograder.feedback.i18n import t
from autograder.feedback.output import ResultStore
from autograder.feedback.results import load_submission_result
from autograder.grading.batch import grade_batch
from autograder.grading.session import GradeOptions
from autograder.grading.submission import entry_names
from autograder.deployment.export import export_prairielearn
from autograder.settings import GRADESCOPE_FILE, PRAIRIELEARN_FILE

REPO = Path(__file__).resolve().parents[1]
REFERENCE = REPO / "solutions" / "attention" / "attention.py"
RELEASE = REPO / "assignments" / "attention" / "attention.py"
EXAMPLES = REPO / "examples" / "submissions"

FULL = {"A": 32, "B": 10, "C": 28, "D": 12, "E": 10, "F": 8}
NOTHING = dict.fromkeys(FULL, 0)
EXPECTED = {  # per-part scores, seed 1; None: could not be graded (its reason is checked below)
    "alice": FULL,  # the reference
    "zipped": FULL,  # the reference in a zip
    "notebook_style": FULL,
    "bug_no_scaling": {**FULL, "A": 27},
    "blank": NOTHING,  # the release's stubs
    "empty": NOTHING,
    "latin1": None,  # Latin-1 text without a coding declaration
    "nul_bytes": None,
    "bad_json": None,  # a notebook cut short
    "misnamed.txt": None,  # the reference saved as .txt
    "frank": None,  # a folder whose only file is attention.txt
    "a_name_longer_than_the_table_column": NOTHING,  # the release's stubs
}

_FORMATS = ["text", "simple_format", "html", "md", "ansi"]
_VISIBILITY = ["hidden", "after_due_date", "after_published", "visible"]
GRADESCOPE_SCHEMA = {
    "type": "object",
    "properties": {
        "score": {"type": "number"},
        "max_score": {"type": "number"},  # not in the documented format (attnkit's own); the rest is
        "execution_time": {"type": "number"},
        "output": {"type": "string"},
        "output_format": {"enum": _FORMATS},
        "test_output_format": {"enum": _FORMATS},
        "test_name_format": {"enum": _FORMATS},
        "visibility": {"enum": _VISIBILITY},
        "stdout_visibility": {"enum": _VISIBILITY},
        "extra_data": {"type": "object"},
        "tests": {"type": "array", "items": {
            "type": "object",
            "properties": {
                "score": {"type": "number"},
                "max_score": {"type": "number"},
                "status": {"enum": ["passed", "failed"]},
                "name": {"type": "string"},
                "name_format": {"enum": _FORMATS},
                "number": {"type": "string"},
                "output": {"type": "string"},
                "output_format": {"enum": _FORMATS},
                "tags": {"type": "array", "items": {"type": "string"}},
                "visibility": {"enum": _VISIBILITY},
                "extra_data": {"type": "object"},
            },
            "additionalProperties": False,
        }},
        "leaderboard": {"type": "array", "items": {
            "type": "object", "required": ["name", "value"],
            "properties": {"name": {"type": "string"}, "value": {"type": ["number", "string"]}, "order": {"enum": ["asc", "desc"]}},
        }},
    },
    "additionalProperties": False,
    # "score: optional, but required if not on each test case below"
    "anyOf": [{"required": ["score"]}, {"required": ["tests"], "properties": {"tests": {"items": {"required": ["score"]}}}}],
}
_IMAGES = {"type": "array", "items": {"anyOf": [
    {"type": "string"},  # "for compatibility with older versions of external graders"
    {"type": "object", "required": ["url"], "properties": {"url": {"type": "string", "pattern": "^data:image/"}, "label": {"type": "string"}}},
]}}
PRAIRIELEARN_SCHEMA = {  # "you may add any additional data to that object that you want"
    "type": "object",
    "properties": {
        "gradable": {"type": "boolean"},
        "score": {"type": "number", "minimum": 0, "maximum": 1},
        "format_errors": {"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]},
        "message": {"type": "string"},
        "output": {"type": "string"},
        "images": _IMAGES,
        "tests": {"type": "array", "items": {
            "type": "object",
            "required": ["name", "points", "max_points"],
            "properties": {
                "name": {"type": "string"}, "description": {"type": "string"},
                "points": {"type": "number"}, "max_points": {"type": "number"},
                "message": {"type": "string"}, "output": {"type": "string"}, "images": _IMAGES,
            },
        }},
    },
    # "If the submission is gradable, the result only has one mandatory field: score"
    "if": {"not": {"properties": {"gradable": {"const": False}}, "required": ["gradable"]}},
    "then": {"required": ["score"]},
}
PRAIRIELEARN_MAX_BYTES = 1_000_000  # "this file should be limited to 1 MB"


def _inbox(folder: Path) -> Path:
    folder.mkdir()
    reference = REFERENCE.read_bytes()
    (folder / "alice.py").write_bytes(reference)
    with zipfile.ZipFile(folder / "zipped.zip", "w") as archive:
        archive.writestr("attention.py", reference)
    for name in ("notebook_style.ipynb", "bug_no_scaling.py"):
        shutil.copyfile(EXAMPLES / name, folder / name)
    shutil.copyfile(RELEASE, folder / "blank.py")
    shutil.copyfile(RELEASE, folder / "a_name_longer_than_the_table_column.py")
    (folder / "empty.py").write_bytes(b"")
    (folder / "latin1.py").write_bytes('def greet():\n    return "café"\n'.encode("latin-1"))
    (folder / "nul_bytes.py").write_bytes(b"import torch\n\x00\x00\x00\n")
    (folder / "bad_json.ipynb").write_text('{"cells": [{"cell_type": "code", ', encoding="utf-8")
    (folder / "misnamed.txt").write_bytes(reference)
    (folder / "frank").mkdir()
    (folder / "frank" / "attention.txt").write_bytes(reference)
    return folder


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> Path:
    """The class graded once (two grader processes, seed 1, PrairieLearn files too)."""
    root = tmp_path_factory.mktemp("qa6p")
    out = root / "out"
    grade_batch(_inbox(root / "inbox"), out, jobs=2, options=GradeOptions(seed=1, prairielearn=True))
    return out


def test_the_batch_table_says_could_not_grade_where_grades_csv_has_no_score(graded, capsys):
    """It printed '0/100' for a hand-in that could not be graded (grades.csv leaves its score empty,
    so that no 0 is imported), and a name over 28 characters pushed its row out of line."""
    assert cli.main(["grade-batch", str(graded.parent / "inbox"), "--out", str(graded), "--seed", "1", "--prairielearn"]) == 0  # all kept: the table only
    header, *rows = capsys.readouterr().out.splitlines()[:len(EXPECTED) + 1]
    column = header.index("score") + len("score")  # scores are right-aligned under their heading
    for row in rows:
        name, score = row.split()[0], row[:column].split()[-1]
        assert (score == "error") is (EXPECTED[name] is None), row


def _strict_json(path: Path) -> dict:
    """JSON as the platforms parse it: NaN and Infinity are not JSON."""
    def refuse(constant: str) -> float:
        raise ValueError(f"{path}: {constant} is not JSON")
    return json.loads(path.read_text(encoding="utf-8"), parse_constant=refuse)


def test_each_submission_gets_its_expected_scores(graded):
    results = {name: load_submission_result(graded / name / "attnkit.json") for name in EXPECTED}
    scores = {name: None if r.grader_error else {p.part: p.score for p in r.parts} for name, r in results.items()}
    assert scores == EXPECTED


def test_every_results_json_follows_gradescopes_documented_format(graded):
    for name in EXPECTED:
        results = _strict_json(graded / name / GRADESCOPE_FILE)
        jsonschema.validate(results, GRADESCOPE_SCHEMA)
        assert math.isclose(results["score"], sum(test["score"] for test in results["tests"]))
        assert all(0 <= test["score"] <= test["max_score"] for test in results["tests"])
        assert {test["visibility"] for test in results["tests"]} == {"visible", "hidden", "after_due_date"}, name  # broken ones too: the same tests
        assert [test["number"] for test in results["tests"]] == [str(n) for n in range(1, len(results["tests"]) + 1)]


def test_every_prairielearn_json_follows_prairielearns_documented_format(graded):
    for name, expected in EXPECTED.items():
        path = graded / name / PRAIRIELEARN_FILE
        assert path.stat().st_size < PRAIRIELEARN_MAX_BYTES
        results = _strict_json(path)
        jsonschema.validate(results, PRAIRIELEARN_SCHEMA)
        assert results["gradable"] is (expected is not None), name  # a hand-in that cannot be graded costs no attempt
        if expected is None:
            assert results["format_errors"] and "tests" not in results, name
        else:
            assert math.isclose(results["score"], sum(expected.values()) / 100)
            assert all(0 <= test["points"] <= test["max_points"] for test in results["tests"])


def test_a_file_the_loader_refuses_keeps_its_reason_on_prairielearn(graded):
    said = {name: _strict_json(graded / name / PRAIRIELEARN_FILE)["format_errors"] for name in ("latin1", "nul_bytes")}
    assert "save it as UTF-8" in said["latin1"][0] and "NUL bytes" in said["nul_bytes"][0], said
    assert not any("line None" in reason or "does not compile" in reason for reasons in said.values() for reason in reasons), said


def test_a_folder_with_a_misnamed_file_names_it(graded):
    reason = load_submission_result(graded / "frank" / "attnkit.json").grader_error
    assert "attention.txt" in reason and "files: none" not in reason, reason


def test_a_result_the_grader_failed_to_reach_is_graded_again(graded, tmp_path):
    """A worker template that died (a SIGINT to the batch's process group landed in its `import
    torch`) left every submission still to grade 'internal grader error'; a re-run kept them."""
    out = tmp_path / "out"
    shutil.copytree(graded / "alice", out / "alice")
    store = ResultStore(out)
    source = Path(load_submission_result(store.result_file("alice")).source)
    assert store.is_done(source, "alice")  # a verdict: kept
    result = store.load("alice")
    died = t("note.internal_error", kind="TemplateError", text="the worker template is not answering ([Errno 32] Broken pipe)")
    store.write(replace(result, checks=(), grader_error=died), {})
    assert not store.is_done(source, "alice")  # no verdict: graded again
    check = replace(result.checks[0], points=0.0, status="error", message_key="internal_error", message_args={"kind": "TemplateError"})
    store.write(replace(result, checks=(check, *result.checks[1:])), {})
    assert not store.is_done(source, "alice")  # one check the grader could not run: graded again


def test_ctrl_c_ends_a_command_with_a_sentence_and_code_130(monkeypatch, tmp_path, capsys):
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt
    monkeypatch.setattr("autograder.grading.batch.grade_batch", interrupted)
    (tmp_path / "in").mkdir()
    for lang in ("en", "zh"):
        try:
            code = cli.main(["grade-batch", str(tmp_path / "in"), "--out", str(tmp_path / "out"), "--lang", lang])
        except KeyboardInterrupt:
            pytest.fail("Ctrl-C came out of attnkit as a traceback")
        assert code == 130
        assert capsys.readouterr().err.strip() == t("cli.interrupted_batch", lang)


def test_the_prairielearn_question_takes_every_file_the_student_readme_allows(tmp_path):
    """The student README (en, zh) says: hand in the one file you wrote in, attention.py,
    attention.ipynb or attention.zh.ipynb, under its own name; the question took attention.py only."""
    html = (export_prairielearn(tmp_path / "q", image="registry.example/attnkit-grader:1") / "question.html").read_text(encoding="utf-8")
    [upload] = re.findall(r"<pl-file-upload([^>]*)>", html)
    attributes = dict(re.findall(r'([\w-]+)="([^"]*)"', upload))
    required = [name.strip() for name in attributes.get("file-names", "").split(",") if name.strip()]
    optional = [name.strip() for name in attributes.get("optional-file-names", "").split(",") if name.strip()]
    assert set(entry_names()) <= set(required + optional) and len(required) <= 1, attributes
    for readme in ("README.md", "README.zh.md"):
        text = (REPO / "assignments" / "attention" / readme).read_text(encoding="utf-8")
        assert all(name in text for name in entry_names()) and "PrairieLearn" in text


def test_a_canvas_import_from_a_roster_without_canvas_ids_is_refused(graded, tmp_path, capsys):
    """A plain `submission,student_id` roster gave grades-canvas.csv rows with every identity
    column (ID, SIS User ID, SIS Login ID) empty: a file Canvas cannot match one row of."""
    roster = tmp_path / "roster.csv"
    roster.write_text("submission,student_id\nalice,1001\nbug_no_scaling,1002\n", encoding="utf-8")
    assert cli.main(["report", str(graded), "--roster", str(roster), "--lms", "canvas"]) == 2
    assert "SIS User ID" in capsys.readouterr().err and not (graded / "grades-canvas.csv").exists()
    assert cli.main(["report", str(graded), "--roster", str(roster), "--lms", "prairielearn"]) == 0  # uid: the student_id, as documented


@pytest.mark.parametrize("inside", [".", "graded"])
def test_results_inside_the_folder_of_submissions_are_refused(tmp_path, inside):
    """`grade-batch subs --out subs` graded, then graded its own result folders as submissions on
    the next run and stopped: 'cannot write the results into subs/alice.py: Not a directory'."""
    (tmp_path / "subs").mkdir()
    (tmp_path / "subs" / "alice.py").write_text("", encoding="utf-8")
    with pytest.raises(AttnkitError, match="inside the folder of submissions"):
        grade_batch(tmp_path / "subs", tmp_path / "subs" / inside)
    assert sorted(p.name for p in (tmp_path / "subs").iterdir()) == ["alice.py"]


def test_check_names_the_file_it_checked(graded, monkeypatch):
    """`attnkit check` without a path takes the file saved last (attention.py or a notebook, here
    or in the release folder) and never said which one it had checked: by its name in the current
    folder, by its path elsewhere (qa21p: the kit's own attention.py, checked from another folder)."""
    for name, file in (("notebook_style", "notebook_style.ipynb"), ("alice", "alice.py")):
        result = load_submission_result(graded / name / "attnkit.json")
        for lang in ("en", "zh"):
            colon = ":" if lang == "en" else "："
            lines, _ = render_check(result, lang)
            assert lines[-1].startswith(f"{result.source}{colon}") and result.source.endswith(f"/{file}"), lines[-1]
            monkeypatch.chdir(Path(result.source).parent)
            lines, _ = render_check(result, lang)
            assert lines[-1].startswith(f"{file}{colon}"), lines[-1]
            monkeypatch.undo()


def test_a_resumed_batch_without_a_seed_grades_with_the_seed_of_its_results(tmp_path):
    """qa21p: after one file changed, grade-batch again without --seed graded it with a new random
    seed: one class, two seeds. A run that resumes keeps the seed its results were graded with."""
    inbox = tmp_path / "subs"
    inbox.mkdir()
    for name in ("ann", "ben"):
        shutil.copyfile(REFERENCE, inbox / f"{name}.py")
    options = GradeOptions(parts=frozenset({"B"}))
    first = {r.submission: r.seed for r in grade_batch(inbox, tmp_path / "out", options=options).submissions}
    (inbox / "ben.py").write_text(REFERENCE.read_text(encoding="utf-8") + "\n# handed in again\n", encoding="utf-8")
    again = {r.submission: r.seed for r in grade_batch(inbox, tmp_path / "out", options=options).submissions}
    assert len(set(first.values())) == 1 and again == first, (first, again)
