"""qa33p (items 1, 2, 6, 14, 22): the platforms' files as the student and the instructor read them.

- 1: a PrairieLearn test named its diagnosed mistake twice ("...: The mask is inverted: ...\\nThe
  mask is inverted: ...\\nHint: ..."): the English message already ends with the mistake. Each test
  now names it once, as Gradescope's results.json does.
- 2: Gradescope's top-level output (shown to students) listed every hidden check by name with
  ✅/❌ and its points, though the test itself is hidden; it now says how many there are and
  their worth, in one line.
- 6: the Chinese hint line read "提示: " (an ASCII colon among full-width ones): "提示：".
- 14: the PrairieLearn question kept only attention.py / .ipynb / .zh.ipynb, dropping the helper
  .py files the student README allows: it takes `*.py` too (pl-file-upload's optional-file-patterns).
- 22: run-prairielearn named only the first bad question parameter, and sent the instructor to a
  server.py the export does not write: every bad parameter is named, then where they come from.
"""
from __future__ import annotations

import fnmatch
import json
import re
from dataclasses import replace
from pathlib import Path

import pytest

from autograder.cli import main
from autograder.deployment.export import export_prairielearn
from autograder.feedback.formats.gradescope import to_gradescope
from autograder.feedback.formats.prairielearn import to_prairielearn
from autograder.feedback.formats.view import mistake_text
from autograder.feedback.results import SubmissionResult, load_submission_result
from autograder.settings import RESULT_FILE
from tests.sample_results import buggy_result

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO / "examples" / "submissions"
BUGS = ("bug_mask_inverted", "bug_pre_norm", "bug_dropout_in_eval", "bug_heatmap_transposed", "bug_no_scaling")


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> dict[str, Path]:
    """The example bugs graded once, with prairielearn.json: name -> its result folder."""
    inbox = tmp_path_factory.mktemp("qa33p_in")
    for name in BUGS:
        (inbox / f"{name}.py").write_bytes((EXAMPLES / f"{name}.py").read_bytes())
    out = tmp_path_factory.mktemp("qa33p_out")
    assert main(["grade-batch", str(inbox), "--out", str(out), "--jobs", "2", "--seed", "1", "--prairielearn"]) == 0
    return {name: out / name for name in BUGS}


def _result(folder: Path) -> SubmissionResult:
    return load_submission_result(folder / RESULT_FILE)


# --- 1: a diagnosed mistake is said once in each PrairieLearn test -------------------------------

@pytest.mark.parametrize("name", BUGS)
def test_each_prairielearn_test_names_its_mistake_once(graded, name):
    result = _result(graded[name])
    assert result.mistakes, f"{name}: no mistake diagnosed, nothing to prove"
    pl = json.loads((graded[name] / "prairielearn.json").read_text(encoding="utf-8"))
    messages = {test["name"]: test["message"] for test in pl["tests"]}
    named = 0
    for check in result.checks:
        if not check.mistake_message or check.visibility != "visible":
            continue
        message = messages[f"{check.task} {check.name}"]
        assert message.count(check.mistake_message) <= 1, message
        named += message.count(check.mistake_message)
    assert named, f"{name}: no test names the diagnosed mistake"


@pytest.mark.parametrize("name", BUGS[:2])
def test_each_prairielearn_test_names_its_mistake_once_in_chinese(graded, name):
    result = replace(_result(graded[name]), lang="zh")
    tests = to_prairielearn(result)["tests"]
    assert len(tests) == len(result.checks)  # one test per check, in check order
    named = 0
    for check, test in zip(result.checks, tests):
        if not check.mistake or check.visibility != "visible":
            continue
        said = mistake_text(check.mistake, check.mistake_message, "zh", result.assignment)
        assert test["message"].count(said) <= 1 and check.mistake_message not in test["message"], test["message"]
        named += test["message"].count(said)
    assert named, f"{name}: no test names the diagnosed mistake in Chinese"


def test_the_sample_result_whose_message_lacks_the_mistake_still_names_it():
    """A message that does not end with the mistake (older results, other assignments) gets it on a line of its own."""
    payload = to_prairielearn(buggy_result())
    text = "\n".join(test["message"] for test in payload["tests"])
    assert text.count("You divided the scores by d_model") == 1


# --- 2: Gradescope's student-visible output names no hidden check -------------------------------

def test_gradescope_top_level_output_lists_no_hidden_check_but_says_how_many():
    result = buggy_result()
    payload = to_gradescope(result)
    hidden = [check for check in result.checks if check.visibility == "hidden"]
    assert hidden
    for check in hidden:
        assert check.name not in payload["output"], payload["output"]
    assert "_hidden check_" not in payload["output"]
    assert f"{len(hidden)} hidden check(s), worth 1 point(s), count in the score above" in payload["output"]
    assert [t["visibility"] for t in payload["tests"]].count("hidden") == len(hidden)  # the tests stay, hidden


def test_gradescope_hidden_note_in_chinese_and_absent_without_hidden_checks():
    chinese = to_gradescope(buggy_result(lang="zh"))["output"]
    assert "另有 1 项隐藏检查（共 1 分）计入上面的得分" in chinese and "sdpa: hidden probe" not in chinese
    result = buggy_result()
    visible_only = replace(result, checks=tuple(c for c in result.checks if c.visibility != "hidden"))
    assert "hidden check" not in to_gradescope(visible_only)["output"]


def test_a_graded_results_json_names_no_hidden_test_in_its_output(graded):
    payload = json.loads((graded["bug_mask_inverted"] / "results.json").read_text(encoding="utf-8"))
    hidden = [test["name"] for test in payload["tests"] if test["visibility"] == "hidden"]
    assert hidden
    for name in hidden:
        assert name.split(" ", 1)[1] not in payload["output"]
    assert f"{len(hidden)} hidden check(s)" in payload["output"]
    assert "## Checks" in payload["output"] and "✅ passed:" in payload["output"]  # the visible ones are all there


# --- 6: the Chinese hint has a full-width colon -------------------------------------------------

def test_the_chinese_hint_line_uses_a_full_width_colon():
    pl = "\n".join(test["message"] for test in to_prairielearn(buggy_result(lang="zh"))["tests"])
    gradescope = "\n".join(test["output"] for test in to_gradescope(buggy_result(lang="zh"))["tests"])
    for text in (pl, gradescope):
        assert "提示：" in text and "提示: " not in text, text
    assert "Hint: " in "\n".join(test["message"] for test in to_prairielearn(buggy_result())["tests"])


# --- 14: the PrairieLearn question keeps the helper files the student README allows -------------

def _pl_keeps(upload: dict[str, str], file_name: str) -> bool:
    """pl-file-upload's parse(): a listed name, or one matching a pattern (PrairieLearn's glob, case-insensitive)."""
    names = [n.strip() for key in ("file-names", "optional-file-names") for n in upload.get(key, "").split(",") if n.strip()]
    patterns = [p.strip() for key in ("file-patterns", "optional-file-patterns") for p in upload.get(key, "").split(",") if p.strip()]
    return file_name in names or any(re.match(fnmatch.translate(p), file_name, re.IGNORECASE) for p in patterns)


def test_the_prairielearn_question_keeps_helper_py_files_and_says_so(tmp_path):
    html = (export_prairielearn(tmp_path / "q", image="registry.example/attnkit-grader:1") / "question.html").read_text(encoding="utf-8")
    [attributes] = re.findall(r"<pl-file-upload([^>]*)>", html)
    upload = dict(re.findall(r'([\w-]+)="([^"]*)"', attributes))
    assert "*.py" in [p.strip() for p in upload.get("optional-file-patterns", "").split(",")], upload
    for kept in ("attention.py", "attention.ipynb", "attention.zh.ipynb", "helpers.py"):
        assert _pl_keeps(upload, kept), kept
    assert not _pl_keeps(upload, "notes.txt") and not _pl_keeps(upload, "data.csv")
    panel = re.sub(r"\s+", " ", html)
    assert "helper <code>.py</code> files" in panel and "Any other file is not kept" in panel


# --- 22: run-prairielearn names every bad parameter and where they come from ----------------------

def test_run_prairielearn_names_every_bad_parameter_and_the_file_the_export_writes(tmp_path):
    grade = tmp_path / "grade"
    (grade / "student").mkdir(parents=True)
    (grade / "student" / "attention.py").write_text("x = 1\n")
    (grade / "data").mkdir()
    (grade / "data" / "data.json").write_text(json.dumps({"params": {"attnkit_seed": "abc", "attnkit_lang": "fr", "attnkit_sed": 3}}))
    assert main(["run-prairielearn", str(grade)]) == 0
    results = json.loads((grade / "results" / "results.json").read_text())
    assert results["gradable"] is False
    *problems, fix = results["format_errors"]
    assert len(problems) == 3, problems
    assert "'attnkit_sed'" in problems[0] and "attnkit_seed='abc'" in problems[1] and "attnkit_lang='fr'" in problems[2]
    assert str(grade / "data" / "data.json") in fix
    assert "writes info.json, question.html and tests/, and no server.py" in fix and "generate(data)" in fix
    assert results["message"] == "\n".join(results["format_errors"])


def test_the_export_indeed_writes_no_server_py(tmp_path):
    """What the parameter message says of the export, checked against the export."""
    question = export_prairielearn(tmp_path / "q", image="registry.example/attnkit-grader:1")
    top = sorted(path.name for path in question.iterdir())
    assert top == ["info.json", "question.html", "tests"] and not (question / "server.py").exists()
