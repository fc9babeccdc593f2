"""Chinese all the way: the Chinese notebook, the public checks in Chinese, `check --lang zh`,
and plots that draw Chinese text with a real CJK font (no "Glyph missing")."""
from __future__ import annotations

import ast
import importlib.util
import re
import shutil
import sys
import warnings
from pathlib import Path

import nbformat
import pytest
from language import code_prose, english_sentences
from test_feedback_lang import english_runs, html_prose, markdown_prose

from autograder.cli import main
from autograder.authoring.nbgrader_course import public_helpers
from autograder.authoring.notebook import build_notebook
from autograder.paths import RELEASE_DIR, SOLUTION_DIR

CHINESE = "notebook.zh.md"


def _load(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up while the file runs
    spec.loader.exec_module(module)
    return module


def _docstring_free(tree: ast.AST) -> str:
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str):
            body[0] = ast.Pass()
    return ast.dump(tree)


def test_the_chinese_solution_text_has_the_same_code_as_the_solution():
    english = (SOLUTION_DIR / "attention.py").read_text(encoding="utf-8")
    chinese = (SOLUTION_DIR / "attention.zh.py").read_text(encoding="utf-8")
    assert _docstring_free(ast.parse(chinese)) == _docstring_free(ast.parse(english))
    docstrings = [ast.get_docstring(node) or "" for node in ast.walk(ast.parse(chinese)) if isinstance(node, (ast.Module, ast.FunctionDef, ast.ClassDef))]
    comments = [line.split("#", 1)[1] for line in chinese.splitlines() if "#" in line and "###" not in line]
    assert english_sentences("\n".join(docstrings + comments)) == []


def test_no_english_sentence_in_the_chinese_notebook():
    notebook = nbformat.read(RELEASE_DIR / "attention.zh.ipynb", as_version=4)
    found = {}
    for cell in notebook.cells:
        prose = cell.source if cell.cell_type == "markdown" else code_prose(cell.source)
        if english_sentences(prose):
            found[cell.id] = english_sentences(prose)
    assert found == {}


def test_the_checked_in_chinese_notebook_has_chinese_stubs_checks_and_answer_prompts():
    notebook = nbformat.read(RELEASE_DIR / "attention.zh.ipynb", as_version=4)
    cells = {cell.id: cell.source for cell in notebook.cells}
    assert "手写的、数值稳定的 softmax" in cells["task-masked_softmax"]
    assert 'NotImplementedError("任务 A.2：masked_softmax 还没有实现")' in cells["task-masked_softmax"]  # no "Task A.2:" (qa39p 7)
    assert 'lang="zh"' in cells["check-masked_softmax"] and "检查任务 A.2" in cells["check-masked_softmax"]
    assert cells["answer-Q1"] == "在这里写下你的回答"
    assert "被加权聚合的对象" in cells["part-a"] and "最终被加权聚合的结果" not in cells["part-a"]


def test_every_public_check_message_has_a_chinese_text():
    """Task.fail is given tr(en, zh) texts (or values built from them), never a bare English literal."""
    source = (SOLUTION_DIR / "public_checks.py").read_text(encoding="utf-8")
    bare = [
        node.lineno
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "fail"
        for argument in node.args
        if isinstance(argument, (ast.Constant, ast.JoinedStr))
    ]
    assert bare == []


def test_the_public_checks_speak_chinese_on_a_buggy_and_a_blank_file(capsys):
    checks = _load("attnkit_zh_public_checks", SOLUTION_DIR / "public_checks.py")
    for name, path in (("blank", RELEASE_DIR / "attention.py"), ("reference", SOLUTION_DIR / "attention.py")):
        checks.check_all(_load(f"attnkit_zh_{name}", path), lang="zh")
    printed = capsys.readouterr().out
    assert "还没有实现" in printed and "公开检查通过 10/10" in printed
    assert english_sentences(printed) == []


def test_check_and_grade_print_chinese_with_lang_zh(tmp_path, capsys):
    for argv in (
        ["check", str(RELEASE_DIR / "attention.py"), "--lang", "zh", "--until", "A.2"],
        ["check", str(SOLUTION_DIR / "attention.py"), "--lang", "zh", "--until", "A.4"],
        ["grade", str(SOLUTION_DIR / "attention.py"), "--lang", "zh", "--out", str(tmp_path)],
    ):
        main([*argv, "--seed", "2"])
        printed = capsys.readouterr().out
        assert re.search(r"[\u4e00-\u9fff]", printed), argv
        assert english_sentences(printed) == [], (argv, printed)


def test_chinese_plot_text_finds_a_cjk_font_without_missing_glyphs():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    checks = _load("attnkit_font_public_checks", SOLUTION_DIR / "public_checks.py")
    reference = _load("attnkit_font_reference", SOLUTION_DIR / "attention.py")
    with matplotlib.rc_context():
        font = checks.use_cjk_font()
        assert font, "no CJK font is installed for matplotlib: bash scripts/ci-prereqs.sh installs fonts-wqy-zenhei"
        import torch

        with warnings.catch_warnings():
            warnings.simplefilter("error")  # "Glyph ... missing from font(s)" is a UserWarning
            ax = reference.plot_attention(torch.eye(3), ["猫", "坐", "下"], ["猫", "坐", "下"], title="'坐' 这一列")
            ax.figure.canvas.draw()
        plt.close("all")


@pytest.mark.slow  # runs the Chinese notebook in a Jupyter kernel
def test_the_chinese_reference_notebook_prints_chinese_and_draws_every_glyph(tmp_path):
    from nbclient import NotebookClient

    notebook = build_notebook(SOLUTION_DIR, nbgrader=False, keep_solution=True, source=CHINESE)
    for name in public_helpers():
        shutil.copyfile(SOLUTION_DIR / name, tmp_path / name)
    NotebookClient(notebook, timeout=120, kernel_name="python3", allow_errors=True, resources={"metadata": {"path": str(tmp_path)}}).execute()
    printed, warned = [], []
    for cell in notebook.cells:
        for output in cell.get("outputs", []):
            if output.output_type == "error":
                pytest.fail(f"cell {cell.id}: {output.ename}: {output.evalue}")
            if output.output_type == "stream":
                (warned if output.name == "stderr" else printed).append(output.text)
    assert not any("Glyph" in text for text in warned), warned
    stdout = "".join(printed)
    assert "任务 E.1（plot_attention）通过" in stdout
    assert english_sentences(stdout) == [], english_sentences(stdout)


# ---------------------------------------------------------------------------------------------
# the grader's own notes (timeouts, crashes, limits, output dropped, unreadable files) in Chinese
# ---------------------------------------------------------------------------------------------
def _sample_args(key: str) -> dict[str, str]:
    """Arguments for a note template: child notes where the argument is a note, words elsewhere."""
    from autograder.feedback.i18n import NOTE_PARTS, STRINGS, t

    samples = {"ended": t("ended.killed"), "consequence": t("load.error_file"), "why": t("refused.keys"),
               "failure": t("note.timed_out", seconds=10, where="causal_mask"), "reason": t("note.timed_out", seconds=10, where="causal_mask"),
               "where": "masked_softmax", "kind": "ValueError"}
    fields = re.findall(r"\{(\w+)", STRINGS[key]["en"])
    return {name: samples.get(name, "the thing it printed" if name in ("message", "text", "error") else "12") for name in fields if name in samples or name not in NOTE_PARTS}


def test_every_grader_note_is_found_from_its_english_and_said_in_chinese():
    from autograder.feedback.formats.view import NOTE_PREFIXES, translate_note
    from autograder.feedback.i18n import STRINGS, t

    notes = [key for key in STRINGS if key.startswith(NOTE_PREFIXES)]
    assert len(notes) > 40
    for key in notes:
        english = t(key, "en", **_sample_args(key))
        chinese = translate_note(english, "zh")
        assert chinese, (key, english)
        assert re.search(r"[\u4e00-\u9fff]", chinese) and english_sentences(chinese) == [], (key, chinese)


def test_a_crash_text_with_a_colon_is_no_import_error_note():
    """A run-time error's text ("The size of tensor a ... (file:33 in f: line)") matched the bare
    import-error note "{kind}: {message}", so a Chinese page called every crash an import error
    (message_text shows the crash text as it is when it is no note)."""
    from autograder.feedback.formats.view import translate_note

    crash = "The size of tensor a (3) must match the size of tensor b (5) at non-singleton dimension 1 (s.py:33 in attention_scores: return q @ k.T / math.sqrt(d))"
    assert translate_note(crash, "zh") is None
    assert "导入时出错" in translate_note("ValueError: bad value (s.py:3 in <module>: x = f())", "zh")  # an import error's note still is one


def test_what_the_worker_says_about_a_refused_value_or_a_missing_name_is_a_known_note():
    """The worker writes these (autograder/grading/worker/protocol.py, dispatcher.py); the grader's note
    templates must match them word for word."""
    from autograder.feedback.formats.view import translate_note
    from autograder.grading.worker.protocol import encode_value

    refused = [encode_value(value, [])["__refused__"] for value in (object(), {1: 2})]
    for why in refused:
        assert translate_note(f"attention_scores returned {why}", "zh"), why
    dispatcher = (Path(__file__).resolve().parents[1] / "autograder" / "grading" / "worker" / "dispatcher.py").read_text(encoding="utf-8")
    for english in ("is not defined in your file", "is not defined as a class", "is not a function"):
        assert english in dispatcher
        assert translate_note(f"masked_softmax {english}", "zh")
    unprintable = "(the message cannot be shown: turning it into text raised "
    assert unprintable + "{type(error).__name__})" in dispatcher
    assert translate_note(unprintable + "RuntimeError)", "zh")


@pytest.mark.parametrize("name", ["exit_at_import", "segfault", "output_flood", "garbage"])
def test_grading_a_broken_file_in_chinese_writes_every_note_in_chinese(name, grade, tmp_path, capsys):
    """What the grader writes about a file that cannot be imported, a crash, dropped output or a
    file that is not text is Chinese on every page a student sees, and in `check --lang zh`."""
    from autograder.feedback.formats.html import render_html
    from autograder.feedback.formats.markdown import render_markdown
    from autograder.feedback.formats.prairielearn import to_prairielearn
    from autograder.feedback.i18n import t

    hostile = Path(__file__).resolve().parent / "hostile"
    if name == "garbage":
        source: str | Path = tmp_path / "garbage.py"
        source.write_bytes(b"abc\x00def")
    elif (hostile / f"{name}.py").read_text(encoding="utf-8").startswith("# snippet"):
        source = (SOLUTION_DIR / "attention.py").read_text(encoding="utf-8") + "\n" + (hostile / f"{name}.py").read_text(encoding="utf-8")
    else:
        source = hostile / f"{name}.py"
    result = grade(source, name=name, parts={"A"}, lang="zh")
    assert result.events or result.grader_error, "the grader must have something to say about this file"
    markdown = render_markdown(result, "zh")
    page = render_html(result, tmp_path, "zh")
    assert t("feedback.log_note", "zh") not in markdown and t("feedback.log_note", "zh") not in page  # every event is a known note
    assert not english_runs(markdown_prose(markdown)), english_runs(markdown_prose(markdown))
    assert not english_runs(html_prose(page)), english_runs(html_prose(page))
    platform = to_prairielearn(result)
    said = [platform.get("message", ""), *platform.get("format_errors", []), *(test["message"] for test in platform.get("tests", []))]
    assert english_sentences("\n".join(said)) == [], said
    for note in (*result.events, result.grader_error):
        assert not note or note not in markdown  # the English note is not shown, not even as code
    path = source if isinstance(source, Path) else tmp_path / f"{name}.py"
    main(["check", str(path), "--lang", "zh", "--until", "A.4", "--seed", "2"])
    printed = capsys.readouterr().out
    assert english_sentences(printed) == [], printed
    for note in result.events:
        assert note not in printed


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_step_of_the_students_path_is_in_the_readme_and_the_notebook(lang):
    """Install, where to write, how to check, hints, watch and how to hand in: in the student
    README of each language and in the first cells of each notebook; the Chinese ones in Chinese."""
    readme = (RELEASE_DIR / ("README.zh.md" if lang == "zh" else "README.md")).read_text(encoding="utf-8")
    notebook = nbformat.read(RELEASE_DIR / ("attention.zh.ipynb" if lang == "zh" else "attention.ipynb"), as_version=4)
    how_to = next(cell.source for cell in notebook.cells if cell.id == "how-to")
    steps = {  # step: what its sentence holds
        "install": "pip install torch",
        "where to write": "attention.py",
        "check": "pytest -m task_",
        "hints": "attnkit hint A.2",
        "watch": "attnkit watch",
        "hand in": "提交" if lang == "zh" else "Hand",
    }
    for step, words in steps.items():
        assert words in readme, (step, "README")
        assert words in how_to, (step, "notebook")
    if lang == "zh":
        prose = "\n".join(line for line in readme.splitlines() if not line.startswith("    "))  # indented lines are code
        assert english_sentences(prose) == [], english_sentences(prose)
        assert english_sentences(how_to) == []
