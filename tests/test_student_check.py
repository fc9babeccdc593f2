"""`attnkit check` one task at a time, hint tiers and `attnkit hint`, folded follow-on failures,
and the two messages that were wrong (a blank source line, a float causal mask)."""
from __future__ import annotations

import json
from dataclasses import replace
import re
from pathlib import Path

import pytest
from language import english_sentences

from autograder.cli import main
from autograder.assignments.attention.hints import CHECK_IDEAS, TASK_TIERS
from autograder.feedback.formats.view import first_hint
from autograder.feedback.hints import HINT_STATE_FILE, fold
from autograder.feedback.results import FAILED, CheckResult

REPO = Path(__file__).resolve().parents[1]
REFERENCE = REPO / "solutions" / "attention" / "attention.py"
BLANK = REPO / "assignments" / "attention" / "attention.py"
CODE = re.compile(r"\w\(|=|@|\btorch\b|\bnn\.|\bF\.|\bself\.|\.T\b|\[\w")  # what code looks like


def _variant(tmp_path: Path, name: str, old: str, new: str) -> Path:
    source = REFERENCE.read_text(encoding="utf-8")
    assert old in source, old
    path = tmp_path / name
    path.write_text(source.replace(old, new), encoding="utf-8")
    return path


def _softmax_over_queries(tmp_path: Path) -> Path:
    path = _variant(tmp_path, "axis.py", "row_max = scores.amax(dim=-1, keepdim=True)", "row_max = scores.amax(dim=-2, keepdim=True)")
    text = path.read_text(encoding="utf-8").replace("total = exp.sum(dim=-1, keepdim=True)", "total = exp.sum(dim=-2, keepdim=True)")
    path.write_text(text, encoding="utf-8")
    return path


def _check(capsys, *argv: str) -> tuple[int, list[str]]:
    code = main(["check", *argv, "--seed", "1"])
    return code, capsys.readouterr().out.splitlines()


def test_check_stops_at_the_first_unfinished_task_and_says_what_is_done(capsys):
    code, lines = _check(capsys, str(BLANK), "--lang", "en")
    assert code == 1
    assert re.fullmatch(r"done: none yet \(0 of \d+ tasks\); next: Task A\.1", lines[0]), lines[0]
    assert "Task A.1 (attention_scores): 0 of 5 checks pass" in lines
    assert not any("A.2" in line or "masked_softmax" in line for line in lines), lines
    assert any("is not implemented yet" in line for line in lines)
    assert any(re.fullmatch(r"\d+ later task\(s\) are not shown: finish Task A\.1 first \(attnkit check --all lists them\)", line) for line in lines)


def test_an_untouched_stub_gets_the_idea_not_the_code(capsys):
    _, lines = _check(capsys, str(BLANK), "--task", "A.4", "--lang", "en")
    hints = [line.split("hint: ", 1)[1] for line in lines if "hint: " in line]
    assert hints == [TASK_TIERS["A.4"].tier(1, "en")]
    assert not any("torch.ones" in line or "tril" in line for line in lines), lines


def test_check_task_shows_one_task_and_folds_the_failures_a_diagnosed_mistake_explains(tmp_path, capsys):
    code, lines = _check(capsys, str(_softmax_over_queries(tmp_path)), "--task", "A.2", "--lang", "en")
    assert code == 1
    assert lines[0].startswith("done: none yet (0 of 1 tasks); next: Task A.2")
    assert {line.split()[1] for line in lines if re.match(r"Task [A-F]\.\d", line)} == {"A.2"}
    text = "\n".join(lines)
    assert "The softmax normalises over the wrong axis" in text
    assert re.search(r"probably for the same reason, \d+ more check\(s\) of this task fail", text)
    hints = [line for line in lines if "hint: " in line]
    assert len(hints) == 1, hints  # one hint, for the diagnosed mistake; none for what it explains
    advice = "\n".join(line for line in lines if not line.strip().startswith(("- ", "PASS", "FAIL")))
    for misleading in ("overflow", "gradcheck", "torch.where", "row maximum", "NaN"):
        assert misleading not in advice, misleading  # the hints of the failures the mistake explains


def test_check_until_stops_after_that_task(tmp_path, capsys):
    code, lines = _check(capsys, str(REFERENCE), "--until", "A.4", "--lang", "en")
    assert code == 0
    assert lines[0] == "done: all 4 tasks pass their visible checks"
    assert not any("B.1" in line for line in lines)


def test_a_parts_letter_selects_every_task_of_the_part(capsys):
    """qa19p: the student README's table has one row "F"; `--task F` was "no such task"."""
    code, lines = _check(capsys, str(REFERENCE), "--task", "F", "--lang", "en")
    assert code == 0 and lines[0] == "done: all 3 tasks pass their visible checks", lines
    assert {line.split()[1] for line in lines if re.match(r"Task [A-F]\.\d", line)} == {"F.1", "F.2", "F.3"}
    code, lines = _check(capsys, str(REFERENCE), "--until", "B", "--lang", "en")
    assert code == 0 and lines[0] == "done: all 5 tasks pass their visible checks", lines


def test_an_unknown_task_is_a_usage_error(capsys):
    assert main(["check", str(REFERENCE), "--task", "Z.9"]) == 2
    assert "no such task" in capsys.readouterr().err


def test_a_crash_shows_the_line_of_the_students_file(tmp_path, capsys):
    path = _variant(tmp_path, "crash.py", "return q @ k.transpose(-2, -1) / math.sqrt(d)", "return q @ k / math.sqrt(d)")
    _, lines = _check(capsys, str(path), "--task", "A.1", "--lang", "en")
    crash = [line for line in lines if "raised RuntimeError" in line]
    assert crash and "crash.py:" in crash[0] and "in attention_scores: return q @ k / math.sqrt(d)" in crash[0], lines


def test_a_float_causal_mask_is_told_masks_are_bool(tmp_path, capsys):
    path = _variant(tmp_path, "floatmask.py", "dtype=torch.bool, device=device).tril()", "device=device).tril()")
    _, lines = _check(capsys, str(path), "--task", "A.4", "--lang", "en")
    text = "\n".join(lines)
    assert "expected torch.bool: a mask is a bool tensor (True = may attend, False = blocked)" in text, text
    assert "for torch.bool inputs" not in text and "keep the input dtype" not in text


def test_first_tier_hints_never_hand_over_code():
    for task, tiers in TASK_TIERS.items():
        for lang in ("en", "zh"):
            assert not CODE.search(tiers.tier(1, lang)), (task, lang, tiers.tier(1, lang))
            assert CODE.search(tiers.tier(3, "en")), (task, "the third tier is the code")
    for check_id, idea in CHECK_IDEAS.items():
        for lang, text in idea.items():
            assert not CODE.search(text), (check_id, lang, text)


WHOLE_BODY_TIERS = ("A.1", "A.2", "A.3", "A.4", "C.1", "C.2", "C.3", "E.1")  # third tiers that are a whole function body


def _pasted(tier_code: dict[str, str]) -> str:
    """The reference with each task's solution block replaced by its third-tier code."""
    source = REFERENCE.read_text(encoding="utf-8")
    for task, code in tier_code.items():
        start = source.index(f"Task {task}:")
        begin = source.index("### BEGIN SOLUTION\n", start)
        while "return" not in source[begin:source.index("### END SOLUTION", begin)]:  # C.3: forward, not __init__
            begin = source.index("### BEGIN SOLUTION\n", begin + 1)
        end = source.rindex("\n", 0, source.index("### END SOLUTION", begin)) + 1
        indent = source[source.rindex("\n", 0, begin) + 1:begin]
        head = begin + len("### BEGIN SOLUTION\n")
        source = source[:head] + "".join(indent + line + "\n" for line in code.splitlines()) + source[end:]
    return source


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_third_tier_code_pasted_in_passes_every_visible_check(tmp_path, capsys, lang):
    """QA: E.1's code hint had no .detach() and no title, and failed two visible checks when pasted."""
    path = tmp_path / "pasted.py"
    path.write_text(_pasted({task: TASK_TIERS[task].tier(3, lang) for task in WHOLE_BODY_TIERS}), encoding="utf-8")
    code, lines = _check(capsys, str(path), "--all", "--lang", "en")
    assert code == 0, "\n".join(lines)
    assert "set_title(title)" in TASK_TIERS["E.1"].tier(3, lang)


def test_a_syntax_error_note_quotes_its_line_in_backticks(tmp_path, capsys):
    """The note read "(syn.py:9: scores = attention_scores(q, k; ...": the quoted line's "(" looked unclosed."""
    path = tmp_path / "syn.py"
    path.write_text(REFERENCE.read_text(encoding="utf-8") + "\nscores = attention_scores(q, k\n", encoding="utf-8")
    _, lines = _check(capsys, str(path), "--task", "A.1", "--lang", "en")
    line = len(REFERENCE.read_text(encoding="utf-8").splitlines()) + 2
    assert any(f"(syn.py:{line}: `scores = attention_scores(q, k`); the top-level statement" in text for text in lines), lines


def test_every_check_has_a_first_tier_hint():
    from autograder.grading.session import run_checks
    from autograder.grading.inprocess import _Absent

    for check in run_checks(_Absent(), 0):
        assert first_hint(check.check_id, check.task, "en") and first_hint(check.check_id, check.task, "zh"), check.check_id


def test_hint_gives_the_next_tier_each_time_and_remembers_it_next_to_the_file(tmp_path, capsys):
    student = tmp_path / "attention.py"
    student.write_text("", encoding="utf-8")
    shown = []
    for _ in range(4):
        assert main(["hint", "A.2", "--file", str(student), "--lang", "en"]) == 0
        shown.append(capsys.readouterr().out)
    assert [re.search(r"hint (\d) of 3", out).group(1) for out in shown] == ["1", "2", "3", "3"]
    assert TASK_TIERS["A.2"].tier(1, "en") in shown[0] and TASK_TIERS["A.2"].tier(3, "en") in shown[2]
    assert "that was the last hint for Task A.2" in shown[3]
    assert json.loads((tmp_path / HINT_STATE_FILE).read_text()) == {"A.2": 3}
    assert main(["hint", "A.3", "--file", str(student), "--lang", "zh"]) == 0
    out = capsys.readouterr().out
    assert "任务 A.3，提示 1/3（思路）" in out and TASK_TIERS["A.3"].tier(1, "zh") in out
    assert main(["hint", "A.2", "--file", str(student), "--reset"]) == 0
    assert "hint 1 of 3" in capsys.readouterr().out
    assert json.loads((tmp_path / HINT_STATE_FILE).read_text()) == {"A.2": 1, "A.3": 1}


def _failed(check_id: str, task: str, message: str = "wrong", mistake: str = "") -> CheckResult:
    return CheckResult(check_id=check_id, name=check_id, part=task[0], task=task, points=0.0, max_points=1.0, status=FAILED, message=message, mistake=mistake)


def test_fold_keeps_an_independent_diagnosis_and_other_tasks_apart():
    axis = _failed("values", "A.2", mistake="softmax_wrong_axis")
    follow = _failed("overflow", "A.2")
    other = _failed("mask", "A.2", mistake="mask_inverted")
    later = _failed("sdpa", "A.3")
    entries = fold([follow, axis, other, later])
    assert [(e.check.check_id, [f.check_id for f in e.folded]) for e in entries] == [
        ("values", ["overflow"]), ("mask", []), ("sdpa", []),
    ]


def test_fold_never_hides_a_broken_rule_under_another_failure():
    """qa21p: torch.softmax with NaN on a blocked row showed "written by hand" folded under the
    NaN failure ("probably for the same reason"); fixing the NaN only then revealed it."""
    nan = _failed("fully_blocked", "A.2", mistake="fully_masked_nan")
    rule = replace(_failed("masked_softmax_by_hand", "A.2", message="masked_softmax uses softmax"), message_key="uses_library")
    entries = fold([nan, rule])
    assert [(e.check.check_id, [f.check_id for f in e.folded]) for e in entries] == [("fully_blocked", []), ("masked_softmax_by_hand", [])]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_check_prints_every_line_in_the_chosen_language(tmp_path, capsys, lang):
    _, lines = _check(capsys, str(_softmax_over_queries(tmp_path)), "--until", "A.2", "--lang", lang)
    if lang == "zh":
        assert english_sentences("\n".join(lines)) == [], lines
    assert any("A.2" in line for line in lines)


def test_feedback_pages_show_the_first_tier_not_the_code(tmp_path):
    """An untouched stub's feedback (Markdown, Gradescope) gives the idea of each task, never code."""
    assert main(["grade", str(BLANK), "--out", str(tmp_path), "--seed", "1", "--lang", "en"]) == 0
    feedback = (tmp_path / "attention" / "feedback.md").read_text(encoding="utf-8")
    gradescope = (tmp_path / "attention" / "results.json").read_text(encoding="utf-8")
    for text in (feedback, gradescope):
        assert "torch.ones(..., dtype=torch.bool).tril()" not in text
        assert "weights = masked_softmax(attention_scores(q, k), mask); output = weights @ v" not in text
    assert TASK_TIERS["A.4"].tier(1, "en") in feedback


def test_check_without_images_scores_every_check_as_a_full_grade_does(factory, tmp_path):
    from dataclasses import replace

    from autograder.grading.session import GradeOptions, grade_submission

    wrong_map = REPO / "examples" / "submissions" / "bug_heatmap_transposed.py"  # Part E and F images differ from the reference
    options = GradeOptions(seed=3, visible_only=True)
    full, images = grade_submission(wrong_map, factory, options)
    quick, none = grade_submission(wrong_map, factory, replace(options, images=False))
    assert images and full.artifacts and not none and not quick.artifacts
    assert [(c.check_id, c.status, c.points, c.message, c.mistake) for c in quick.checks] == [(c.check_id, c.status, c.points, c.message, c.mistake) for c in full.checks]
    assert not all(c.passed for c in full.checks)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_feedback_format_folds_follow_on_failures_under_the_diagnosed_mistake(tmp_path, lang):
    """One function decides what is folded (autograder.feedback.formats.view.check_views, from hints.fold);
    Markdown, HTML, Gradescope and PrairieLearn all show it: the follow-on failure names the failure
    that probably explains it and adds no hint of its own; the diagnosed one keeps its hint."""
    from autograder.feedback.formats.gradescope import to_gradescope
    from autograder.feedback.formats.html import render_html
    from autograder.feedback.formats.markdown import render_markdown
    from autograder.feedback.formats.prairielearn import to_prairielearn
    from autograder.feedback.formats.view import check_views
    from autograder.feedback.i18n import t
    from autograder.feedback.results import SubmissionResult

    axis = _failed("masked_softmax_values", "A.2", message="masked_softmax returned wrong values", mistake="softmax_wrong_axis")
    follow = _failed("masked_softmax_large_logits", "A.2", message="masked_softmax returned NaN values")
    result = SubmissionResult(submission="ana", source="ana.py", seed=1, checks=(axis, follow), lang=lang)
    views = check_views(result.checks, lang, lambda check: True)
    leader_hint = first_hint(axis.check_id, axis.task, lang)
    follow_hint = first_hint(follow.check_id, follow.task, lang)
    assert leader_hint and follow_hint and leader_hint != follow_hint
    assert views[0].hint == leader_hint and not views[0].folded
    assert views[1].hint == "" and views[1].folded == t("feedback.folded_under", lang, name=views[0].name)

    folded = views[1].folded
    markdown = render_markdown(result, lang)
    page = render_html(result, tmp_path, lang)
    gradescope = json.dumps(to_gradescope(result), ensure_ascii=False)
    prairielearn = json.dumps(to_prairielearn(result), ensure_ascii=False)
    for name, text in (("markdown", markdown), ("html", page), ("gradescope", gradescope), ("prairielearn", prairielearn)):
        plain = text.replace("&quot;", '"').replace("&#x27;", "'")
        assert leader_hint in plain, name
        assert follow_hint not in plain, name  # the follow-on failure adds no hint of its own
        assert folded.split("“")[0] in plain, name  # "probably for the same reason as ..."


def test_hints_have_one_home():
    """autograder.feedback.hints holds every hint: the checks declare none, the check texts hold none, and
    a result's hint is the first tier from autograder.feedback.hints."""
    import inspect

    from autograder.assignments.attention import texts
    from autograder.grading.checks import plugin

    assert "hint" not in inspect.signature(plugin.check).parameters
    assert {f.name for f in __import__("dataclasses").fields(texts.CheckText)} == {"name_zh"}
    assert not hasattr(texts, "hint_tiers")
    checks = sorted((REPO / "autograder" / "assignments" / "attention" / "checks").glob("*.py"))
    assert len([p for p in checks if p.name.startswith("part_")]) == 6
    for path in checks:
        assert "hint=" not in path.read_text(encoding="utf-8").replace("hint=first_tier(", ""), path.name


@pytest.mark.parametrize("example", ["bug_no_scaling.py", "bug_heatmap_transposed.py"])
def test_check_results_are_the_same_without_the_per_submission_caches(example, grade, monkeypatch):
    """Part E's figure evidence is computed once per drawing, and Part F's block run and drawings
    once per set of stand-ins (a check graded with stand-ins, then one without, does not run them
    again): computing everything every time gives the same results. A bug in A.1 is carried
    forward into Part F (stand-ins for attention_scores); a transposed heatmap into F.2."""
    from autograder.assignments.attention.checks import part_e, part_f

    path = Path(__file__).resolve().parents[1] / "examples" / "submissions" / example

    def summary(result) -> list[tuple]:
        return [(c.task, c.check_id, c.status, c.points, c.message, c.message_key) for c in result.checks]

    cached = summary(grade(path, seed=1, visible_only=True, images=False))

    class Forgetful(dict):
        def __setitem__(self, key, value):
            if key != "problem":  # the figure evidence is computed again by every check
                super().__setitem__(key, value)

    monkeypatch.setattr(part_e, "_drawn", Forgetful())
    monkeypatch.setattr(part_f, "once", lambda cache, student, compute, in_worker_only=False: compute())
    assert summary(grade(path, seed=1, visible_only=True, images=False)) == cached
    assert any(c[2] != "passed" for c in cached) and any(c[0].startswith("F.") for c in cached)
