"""The authoring, CLI and feedback side reads an assignment from its manifest (issue 14): notebook
and student file names, the nbgrader course, the example submissions, the training module and the
heatmap words are the assignment's; a second assignment gets its own or the engine's neutral ones."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from autograder import assignment
from autograder.assignment import ENV_VAR, ManifestError, current, load_manifest

ROOT = Path(__file__).resolve().parents[1]
DOT = ROOT / "tests" / "assignments" / "dot"
ATTENTION = ROOT / "autograder" / "assignments" / "attention"


@pytest.fixture
def dot_assignment(monkeypatch):
    monkeypatch.setenv(ENV_VAR, str(DOT))
    return current()


def test_the_default_assignment_is_the_one_folder_under_assignments():
    from autograder.paths import ASSIGNMENT, ASSIGNMENTS_DIR, MANIFEST_NAME

    assert [p.parent.name for p in ASSIGNMENTS_DIR.glob(f"*/{MANIFEST_NAME}")] == [ASSIGNMENT] == ["attention"]


def test_without_a_default_the_assignment_must_be_named(monkeypatch):
    monkeypatch.delenv(ENV_VAR, raising=False)
    monkeypatch.setattr(assignment, "DEFAULT_ASSIGNMENT", "")  # as with two folders under autograder/assignments/
    with pytest.raises(ManifestError, match=r"holds several assignments \(attention\): set ATTNKIT_ASSIGNMENT"):
        current()


def test_names_come_from_the_student_file(dot_assignment):
    from autograder.authoring.notebook import notebook_name, solution_texts, student_notebooks
    from autograder.authoring.nbgrader_course import public_helpers
    from autograder.grading.submission import entry_names

    assert student_notebooks() == {"notebook.md": "dot.ipynb", "notebook.zh.md": "dot.zh.ipynb"} and notebook_name("zh") == "dot.zh.ipynb"
    assert solution_texts() == {"en": "dot.py", "zh": "dot.zh.py"}
    assert entry_names() == ("dot.py", "dot.ipynb", "dot.zh.ipynb")
    assert dot_assignment.nbgrader_course_id == "attnkit-dot" and public_helpers() == ()


def test_the_attention_manifest_gives_its_authoring_names():
    attention = load_manifest(ATTENTION)
    assert attention.notebook_name() == "attention.ipynb" and attention.in_language("attention.py", "zh") == "attention.zh.py"
    assert attention.nbgrader_course_id == "attnkit-attention" and attention.notebook_helpers == ("public_checks.py", "pronoun_task.py")
    assert attention.solution_dir == ROOT / "solutions" / "attention"


def test_the_nbgrader_config_names_the_assignment(dot_assignment):
    from autograder.authoring.nbgrader_course import config_text

    config = config_text()
    assert 'course_id = "attnkit-dot"' in config and "nbgrader generate_assignment dot;" in config and "attnkit dot course" in config


def test_an_assignment_without_mutants_has_no_examples(dot_assignment, tmp_path):
    from autograder.authoring.examples import write_examples

    assert write_examples(dot_assignment, tmp_path / "examples") == [] and not (tmp_path / "examples").exists()


def _with_training(tmp_path: Path) -> Path:
    """The dot assignment, copied, with a tiny training module of its own."""
    folder = tmp_path / "dot"
    shutil.copytree(DOT, folder, ignore=shutil.ignore_patterns("__pycache__"))
    manifest = (folder / "manifest.toml").read_text(encoding="utf-8")
    (folder / "manifest.toml").write_text(manifest.replace("[tasks]", 'training = "training.py"\n\n[tasks]'), encoding="utf-8")
    (folder / "training.py").write_text(
        "def train_reference(out_dir, seed=None):\n"
        "    out_dir.mkdir(parents=True, exist_ok=True)\n"
        "    seed = 7 if seed is None else seed\n"
        "    (out_dir / 'weights.txt').write_text(str(seed))\n"
        "    return {'seed': seed}\n\n\n"
        "def summary(report, out_dir):\n"
        "    return f\"trained dot with seed {report['seed']} into {out_dir}\"\n",
        encoding="utf-8",
    )
    return folder


def test_train_reference_runs_the_assignments_training_module(tmp_path, monkeypatch, capsys):
    from autograder.cli import main

    folder = _with_training(tmp_path)
    monkeypatch.setenv(ENV_VAR, str(folder))
    assert main(["train-reference"]) == 0
    assert capsys.readouterr().out.strip() == f"trained dot with seed 7 into {folder / 'solution'}"  # the manifest's reference folder
    assert (folder / "solution" / "weights.txt").read_text() == "7"
    assert main(["train-reference", "--seed", "3", "--out", str(tmp_path / "out")]) == 0
    assert (tmp_path / "out" / "weights.txt").read_text() == "3"


def test_train_reference_without_a_training_module_says_so(dot_assignment, capsys):
    from autograder.cli import main

    assert main(["train-reference"]) == 2
    assert "the assignment 'dot' has no training module (`training` in its" in capsys.readouterr().err


def test_the_heatmap_words_are_the_assignments(dot_assignment):
    from autograder.feedback.formats.view import assignment_t, caption_text
    from autograder.feedback.results import Artifact

    assert assignment_t("feedback.heatmaps_heading", "en", "attention") == "Attention heatmaps"
    assert assignment_t("plot.query_axis", "zh", "attention") == "Query 位置"
    assert assignment_t("feedback.heatmaps_heading", "zh", "dot") == "热力图" and assignment_t("plot.weight", "en", "dot") == "value"
    drawn = Artifact(kind="heatmap", name="plot-attention", caption="plot_attention: your figure", student="a.png")
    assert caption_text(drawn, "zh", "attention").startswith("plot_attention：你的图")
    assert caption_text(drawn, "zh", "dot") == "热力图 plot-attention：你的结果、参考结果与两者之差"
    assert caption_text(drawn, "en", "dot") == "plot_attention: your figure"


def test_a_solution_without_markers_is_not_released(dot_assignment, tmp_path):
    from autograder.authoring.release import build_release
    from autograder.errors import AttnkitError

    (tmp_path / "release").mkdir()
    with pytest.raises(AttnkitError, match="has no ### BEGIN SOLUTION block: its release would hand out the reference"):
        build_release(dot_assignment.solution_dir, tmp_path / "release")
    assert (tmp_path / "release").is_dir()  # left as it was
