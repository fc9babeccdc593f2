"""The platforms' contracts, without an engine: PrairieLearn's and Gradescope's results files,
PrairieLearn's params and exit-code rule, the exported packages, rosters and LMS gradebooks.

The same contracts in real containers are in tests/test_docker.py.
"""
from __future__ import annotations

import csv
import io
import json
import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from autograder.cli import main
from autograder.deployment.docker import GRADESCOPE_TARGET, Target
from autograder.deployment.export import PL_SOURCE, export_prairielearn
from autograder.feedback.formats.gradescope import to_gradescope
from autograder.deployment.lms import canvas_csv, prairielearn_csv
from autograder.feedback.formats.prairielearn import to_prairielearn
from autograder.feedback.formats.view import first_hint
from autograder.feedback.i18n import t
from autograder.deployment.platforms import prairielearn
from autograder.deployment.platforms.prairielearn import ParamsError, read_params, run
from autograder.feedback.results import BatchResult
from autograder.deployment.roster import load_roster, recognise
from tests.sample_results import buggy_result, correct_result, errored_result, write_sample_out

REPO = Path(__file__).resolve().parents[1]


# --- PrairieLearn's results -------------------------------------------------------------------

def _repeated_mistake():
    """The buggy sample with a second visible check failing for the same mistake, with the same hint."""
    result = buggy_result()
    first = result.checks[1]
    again = replace(first, check_id="sdpa.values_masked", name="sdpa: masked values", message="values differ again")
    return replace(result, checks=(*result.checks[:2], again, *result.checks[2:]))


def test_prairielearn_says_each_mistake_and_hint_once():
    result = _repeated_mistake()
    tests = to_prairielearn(result)["tests"]
    text = "\n".join(t["message"] for t in tests)
    idea = first_hint(result.checks[1].check_id, result.checks[1].task)  # the first tier: the idea
    assert idea and idea == first_hint(result.checks[2].check_id, result.checks[2].task)
    assert text.count("You divided the scores by d_model") == 1
    assert text.count(f"Hint: {idea}") == 1
    assert "values differ again" in text  # the check's own message still shows


def test_prairielearn_holds_back_hidden_and_after_due_date_messages_but_says_how_many_wait():
    payload = to_prairielearn(buggy_result())
    text = json.dumps(payload)
    assert "AFTER-DUE-MESSAGE" not in text and "SECRET-MESSAGE" not in text and "SECRET-HINT" not in text
    assert "1 more check(s) will be shown after the due date" in payload["message"]


def test_prairielearn_records_the_seed_and_speaks_the_results_language():
    payload = to_prairielearn(buggy_result(lang="zh"))
    assert payload["seed"] == 987654 and payload["lang"] == "zh"
    assert "随机种子：987654" in payload["message"] and "得分" in payload["message"]
    assert "你把分数除以了 d_model" in json.dumps(payload, ensure_ascii=False)


def test_prairielearn_embeds_the_heatmaps_labelled_in_the_results_language(tmp_path):
    write_sample_out(tmp_path)
    payload = to_prairielearn(buggy_result(), result_dir=tmp_path / "bob")
    assert [i["label"] for i in payload["images"]] == ["Probe sentence 1, head 0"]
    assert payload["images"][0]["url"].startswith("data:image/png;base64,")
    chinese = to_prairielearn(buggy_result(lang="zh"), result_dir=tmp_path / "bob")
    assert [i["label"] for i in chinese["images"]] == ["你的模型 · probe-1"]


@pytest.mark.parametrize("params, says", [
    ({"attnkit_seed": "abc"}, "attnkit_seed='abc' must be a whole number"),
    ({"attnkit_seed": True}, "attnkit_seed=True must be a whole number"),
    ({"attnkit_seed": -1}, "attnkit_seed=-1 must be a whole number from 0"),
    ({"attnkit_lang": "fr"}, "attnkit_lang='fr' must be one of en, zh"),
    ({"attnkit_sed": 3}, "unknown question parameter 'attnkit_sed'"),
])
def test_prairielearn_bad_params_are_named(tmp_path, params, says):
    data = tmp_path / "data.json"
    data.write_text(json.dumps({"params": params}))
    with pytest.raises(ParamsError, match=says.replace("(", r"\(").replace("[", r"\[")):
        read_params(data)


def test_prairielearn_params_accept_a_numeric_string_and_default_to_a_fresh_seed(tmp_path):
    data = tmp_path / "data.json"
    data.write_text(json.dumps({"params": {"attnkit_seed": "12", "attnkit_lang": "zh", "other": 1}}))
    params = read_params(data)
    assert (params.seed, params.lang) == (12, "zh")
    data.write_text(json.dumps({"params": {}}))
    assert {read_params(data).seed for _ in range(5)} != {0}
    assert read_params(data).lang is None  # the handed-in file's language


def test_prairielearn_without_a_language_speaks_the_handed_in_notebooks(tmp_path):
    """An upload of attention.zh.ipynb got English feedback where no server.py set attnkit_lang,
    and Chinese on Gradescope and from `attnkit grade` (qa39p)."""
    grade = tmp_path / "grade"
    (grade / "student").mkdir(parents=True)
    shutil.copy(REPO / "assignments" / "attention" / "attention.zh.ipynb", grade / "student")
    run(grade)
    results = json.loads((grade / "results" / "results.json").read_text())
    assert results["gradable"] is True and results["lang"] == "zh", results.get("format_errors")


def test_prairielearn_says_it_could_not_grade_in_the_handed_in_notebooks_language(tmp_path, monkeypatch):
    """Where the grader gives no result (here: past its time), the not-gradable message follows
    the handed-in file's language too when no attnkit_lang is set (qa39p)."""
    grade = tmp_path / "grade"
    (grade / "student").mkdir(parents=True)
    shutil.copy(REPO / "assignments" / "attention" / "attention.zh.ipynb", grade / "student")
    monkeypatch.setattr(prairielearn, "GRADE_TIMEOUT", 0.01)
    run(grade)
    results = json.loads((grade / "results" / "results.json").read_text())
    assert results["gradable"] is False and results["format_errors"] == [t("platform.grader_failed", "zh")]


def test_prairielearn_bad_params_write_not_gradable_results_and_exit_0(tmp_path):
    grade = tmp_path / "grade"
    (grade / "student").mkdir(parents=True)
    (grade / "student" / "attention.py").write_text("x = 1\n")
    (grade / "data").mkdir()
    (grade / "data" / "data.json").write_text(json.dumps({"params": {"attnkit_seed": "abc"}}))
    assert main(["run-prairielearn", str(grade)]) == 0
    results = json.loads((grade / "results" / "results.json").read_text())
    assert results["gradable"] is False and "attnkit_seed='abc'" in results["format_errors"][0]


def test_prairielearn_file_level_syntax_error_is_not_gradable(tmp_path):
    grade = tmp_path / "grade"
    (grade / "student").mkdir(parents=True)
    (grade / "student" / "attention.py").write_text("def scaled_dot_product_attention(q, k, v:\n    return q\n")
    run(grade)
    results = json.loads((grade / "results" / "results.json").read_text())
    assert results["gradable"] is False
    assert "attention.py does not compile (line 1" in results["format_errors"][0]


def test_a_batch_prairielearn_file_says_not_gradable_as_run_prairielearn_does(tmp_path):
    """`grade-batch --prairielearn` wrote `gradable: true`, score 0 (an attempt counted) for a .py
    file that does not compile, where run-prairielearn says `gradable: false` (qa5x)."""
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "carol.py").write_text("def scaled_dot_product_attention(q, k, v:\n    return q\n")
    assert main(["grade-batch", str(folder), "--out", str(tmp_path / "out"), "--prairielearn", "--parts", "A", "--seed", "1"]) == 0
    results = json.loads((tmp_path / "out" / "carol" / "prairielearn.json").read_text())
    assert results["gradable"] is False and results["seed"] == 1
    assert "carol.py does not compile (line 1" in results["format_errors"][0]


def test_prairielearn_export_carries_the_grader_source_in_tests_and_a_fresh_uuid(tmp_path):
    first = export_prairielearn(tmp_path / "one")
    second = export_prairielearn(tmp_path / "two")
    uuids = {json.loads((q / "info.json").read_text())["uuid"] for q in (first, second)}
    assert len(uuids) == 2
    source = first / PL_SOURCE
    assert (source / "autograder" / "assignments" / "attention" / "checks" / "part_a.py").is_file()
    assert (source / "solutions" / "attention" / "attention.py").is_file()
    assert (source / "autograder" / "assignments" / "attention" / "reference" / "pronoun_model.pt").read_bytes() == \
        (REPO / "autograder" / "assignments" / "attention" / "reference" / "pronoun_model.pt").read_bytes()
    outside = [p for p in first.rglob("*") if p.is_file() and PL_SOURCE not in p.as_posix()]
    assert sorted(p.name for p in outside) == ["info.json", "question.html"]


def test_prairielearn_export_with_the_local_image_name_says_to_push_it(tmp_path, capsys):
    """qa21p: without --image, info.json named attnkit-grader:latest, which PrairieLearn cannot pull, and nothing said so."""
    assert main(["export", "prairielearn", "--out", str(tmp_path / "local")]) == 0
    assert "PrairieLearn cannot pull" in capsys.readouterr().err
    assert main(["export", "prairielearn", "--out", str(tmp_path / "pushed"), "--image", "ghcr.io/course/attnkit-grader:1"]) == 0
    assert "cannot pull" not in capsys.readouterr().err


# --- Gradescope's results -----------------------------------------------------------------------

def test_gradescope_output_is_markdown_feedback_with_the_heatmaps(tmp_path):
    write_sample_out(tmp_path)
    payload = to_gradescope(buggy_result(), result_dir=tmp_path / "bob")
    assert payload["output_format"] == "md"
    assert "## Diagnosed mistakes" in payload["output"] and "Probe sentence 1, head 0" in payload["output"]
    assert "](data:image/png;base64," in payload["output"]
    assert "AFTER-DUE-MESSAGE" not in payload["output"] and "SECRET-MESSAGE" not in payload["output"]
    assert payload["extra_data"]["seed"] == 987654
    assert len(json.dumps(payload).encode()) < 1_000_000


def test_a_hidden_gradescope_test_says_why_it_failed_for_the_course_staff_only():
    """Gradescope never shows a hidden test to students; its course staff see it, and saw an empty
    output (qa6p). Its output now holds the check's message (no hint), and the student's feedback
    (the top-level output) still holds none of it."""
    payload = to_gradescope(buggy_result())
    hidden = [test for test in payload["tests"] if test["visibility"] == "hidden"]
    assert hidden and all(test["output"] for test in hidden if test["status"] == "failed"), hidden
    assert any("SECRET-MESSAGE" in test["output"] for test in hidden) and not any("SECRET-HINT" in test["output"] for test in hidden)
    assert not any("SECRET-MESSAGE" in test["output"] for test in payload["tests"] if test["visibility"] != "hidden")


def test_gradescope_output_speaks_the_results_language():
    payload = to_gradescope(buggy_result(lang="zh"))
    assert "得分" in payload["output"] and "随机种子" in payload["output"]
    outputs = "\n".join(t["output"] for t in payload["tests"])
    assert "你把分数除以了 d_model" in outputs and "\n提示：" in outputs  # the diagnosed mistake, in the page's language
    assert "values differ" not in outputs  # English text stored without a key stays off a Chinese page
    assert "调用 `split_heads` 时超时（10 秒）" in outputs  # the grader's note, in Chinese


def test_gradescope_wheels_are_for_cpython_311_manylinux_x86_64_whatever_the_host():
    options = GRADESCOPE_TARGET.pip_options()
    assert options[:7] == ["--only-binary=:all:", "--python-version", "3.11", "--implementation", "cp", "--abi", "cp311"]
    platforms = [options[i + 1] for i, o in enumerate(options) if o == "--platform"]
    assert "manylinux_2_28_x86_64" in platforms and "manylinux2014_x86_64" in platforms
    assert all(p.endswith("_x86_64") for p in platforms)
    assert Target("aarch64").name == "cp311-aarch64"


# --- rosters and LMS gradebooks ----------------------------------------------------------------

@pytest.mark.parametrize("name, expected", [
    ("smithjohn_12345_678901_attention", ("canvas", "12345")),
    ("smithjohn_LATE_12345_678901_attention", ("canvas", "12345")),
    ("submission_987654321", ("gradescope", "987654321")),
    ("alice@example.com_1_attention_2002_3003_attention", ("prairielearn", "alice@example.com")),
    ("alice", None),
])
def test_platform_download_names_are_recognised(name, expected):
    assert recognise(name) == expected


CANVAS_ROSTER = """\ufeffStudent,ID,SIS User ID,SIS Login ID,Section,Attention (4567)
"Smith, John",12345,S001,jsmith,Sec 1,
"Doe, Jane",12346,S002,jdoe,Sec 1,
"""


def _batch(*names_scores):
    results = []
    for name, good in names_scores:
        result = correct_result(name)
        results.append(result if good else buggy_result(name))
    return BatchResult(tuple(results))


def test_canvas_roster_fills_student_ids_and_writes_canvas_import(tmp_path):
    roster_file = tmp_path / "roster.csv"
    roster_file.write_text(CANVAS_ROSTER, encoding="utf-8")
    roster = load_roster(roster_file)
    batch = _batch(("smithjohn_12345_678901_attention", True), ("doejane_LATE_12346_678902_attention", False),
                   ("stranger_99999_1_attention", True))
    book = canvas_csv(batch, roster, "Attention (4567)")
    rows = list(csv.DictReader(io.StringIO(book.text)))
    assert list(rows[0]) == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "Attention (4567)"]
    assert [(r["ID"], r["SIS User ID"], r["Attention (4567)"]) for r in rows] == [("12346", "S002", "4"), ("12345", "S001", "13")]
    assert book.unmatched == ("stranger_99999_1_attention",)


def test_prairielearn_layout_gives_score_percent_by_uid(tmp_path):
    roster_file = tmp_path / "students.csv"
    roster_file.write_text("UID,UIN,Name\nalice@example.com,1001,Alice\n", encoding="utf-8")
    book = prairielearn_csv(_batch(("alice@example.com_1_attention_2002_3003_attention", False)), load_roster(roster_file))
    assert book.text.splitlines() == ["uid,instance,score_perc", "alice@example.com,1,28.57"]


def test_gradescope_export_and_plain_rosters_match(tmp_path):
    gradescope = tmp_path / "gs.csv"
    gradescope.write_text("Name,SID,Email,Submission ID\nAl,A1,al@x.org,555\n", encoding="utf-8")
    assert load_roster(gradescope).lookup("submission_555").student_id == "A1"
    plain = tmp_path / "plain.csv"
    plain.write_text("submission,student_id\nalice,u-17\n", encoding="utf-8")
    assert load_roster(plain).lookup("alice").student_id == "u-17"
    assert load_roster(plain).lookup("bob") is None


def test_a_plain_roster_names_a_submission_as_it_was_handed_in(tmp_path):
    """The grader's id of '=cmd|x\x1b' is '_cmd|x_' (feedback.shown.clean_name); a roster that
    copies the handed-in name still finds its student, and the id itself is found too."""
    plain = tmp_path / "plain.csv"
    plain.write_text('submission,student_id\n"=cmd|x\x1b",u-9\ncarol,u-3\n', encoding="utf-8")
    roster = load_roster(plain)
    assert roster.lookup("_cmd|x_").student_id == "u-9"
    assert roster.lookup("carol").student_id == "u-3"
    assert roster.lookup("=cmd|x") is None


def test_a_roster_without_key_columns_is_refused_with_what_it_needs(tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("who,score\nalice,3\n", encoding="utf-8")
    assert main(["report", str(tmp_path), "--roster", str(bad)]) == 2


def test_report_with_a_roster_writes_ids_and_the_lms_file(tmp_path, capsys):
    out = tmp_path / "out"
    write_sample_out(out)
    roster = tmp_path / "roster.csv"
    roster.write_text("submission,student_id,UID\nalice,s-1,alice@example.com\nbob,s-2,bob@example.com\n", encoding="utf-8")
    assert main(["report", str(out), "--roster", str(roster), "--lms", "prairielearn"]) == 0
    ids = {r["submission"]: r["student_id"] for r in csv.DictReader((out / "grades.csv").open())}
    assert ids == {"alice": "s-1", "bob": "s-2", "carol": ""}
    assert (out / "grades-prairielearn.csv").read_text().splitlines()[1:] == ["alice@example.com,1,100", "bob@example.com,1,28.57"]
    assert "carol: not in the roster" in capsys.readouterr().err
    assert errored_result().grader_error  # carol could not be graded: never imported as a 0


def test_report_with_a_roster_alone_names_the_submissions_it_leaves_without_an_id(tmp_path, capsys):
    out = tmp_path / "out"
    write_sample_out(out)
    roster = tmp_path / "roster.csv"
    roster.write_text("submission,student_id\nalice,s-1\nbob,s-2\n", encoding="utf-8")
    assert main(["report", str(out), "--roster", str(roster)]) == 0
    err = capsys.readouterr().err
    assert "carol: not in the roster" in err and "no student_id in grades.csv" in err
    assert "alice" not in err and "bob" not in err


def test_the_online_gradescope_zip_is_small_and_installs_from_the_indexes(tmp_path):
    from zipfile import ZipFile

    path = tmp_path / "autograder.zip"
    assert main(["export", "gradescope", "--online", "--out", str(path)]) == 0
    with ZipFile(path) as archive:
        names = archive.namelist()
        setup = archive.read("setup.sh").decode()
        constraints = archive.read("attnkit/docker/constraints.txt").decode()
    assert not any(n.startswith("wheelhouse/") for n in names)
    assert path.stat().st_size < 2_000_000
    assert "apt-get update" in setup and 'wheelhouse=-' in setup
    assert "torch==" in constraints  # the host's versions pin the install
