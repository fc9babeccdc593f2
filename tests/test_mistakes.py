"""Every catalogue mistake of Parts A-D, planted alone into the reference, loses points in its part
and is named by a failing check; correct submissions in other styles lose nothing.

The mutants live in autograder/assignments/attention/mutants.py (`attnkit release` writes a few as the example
submissions examples/submissions/bug_*.py). Each is graded on its own part (fast), plus the parts
it cannot affect, which must keep full marks.
"""
from __future__ import annotations

import py_compile
from pathlib import Path

import pytest

from autograder.assignment import load_manifest
from autograder.assignments.attention.mutants import EXAMPLES, FIGURE_MUTANTS, MUTANTS, SHARED_WAYS, mutant
from autograder.authoring.examples import Mutant, apply, write_examples
from autograder.assignments.attention.mistakes import MISTAKES
from autograder.feedback.results import SubmissionResult

REPO = Path(__file__).resolve().parents[1]
EXAMPLES_DIR = REPO / "examples" / "submissions"
GRADED = ("A", "B", "C", "D")
# For a few mutants, parts whose checks never run the mutated code are graded too: they must keep
# full marks (Part A is used by every later part; C by D; B by none).
UNAFFECTED = {"selfattn_shared_projection": ("A", "C", "D"), "mha_no_output_projection": ("B",), "dropout_in_eval": ("A", "B"), "block_no_norm": ("C",)}
NOT_YET_NAMED: dict[str, str] = {}  # key -> why a planted bug is not named yet (expected to fail)
CORRECT_EXAMPLES = ("einsum_style.py", "permute_view_style.py", "notebook_style.ipynb")
BUGGY_EXAMPLES = {  # what examples/README.md says of each: name -> (part that loses points, mistake named)
    "bug_no_scaling.py": ("A", "scores_no_scaling"),
    "bug_softmax_axis.py": ("A", "softmax_wrong_axis"),
    "bug_mask_inverted.py": ("A", "mask_inverted"),
    "bug_split_no_transpose.py": ("C", "split_no_transpose"),
    "bug_dropout_in_eval.py": ("C", "dropout_in_eval"),
    "bug_pre_norm.py": ("D", "block_pre_norm"),
    "bug_heatmap_transposed.py": ("E", "heatmap_transposed"),
}


def _part_scores(result: SubmissionResult) -> dict[str, tuple[float, float]]:
    return {p.part: (p.score, p.max_score) for p in result.parts}


def _failures(result: SubmissionResult, parts) -> list[str]:
    return [f"{c.check_id}: {c.message}" for c in result.checks if c.part in parts and not c.passed]


def _expect_named(result: SubmissionResult, part: str, key: str) -> None:
    score, max_score = _part_scores(result)[part]
    assert score < max_score, f"{key}: part {part} kept all its points"
    named = [c.check_id for c in result.checks if c.part == part and not c.passed and c.mistake == key]
    seen = sorted({c.mistake for c in result.checks if c.mistake})
    assert named, f"{key}: no failing check of part {part} names it; named instead: {seen}; failures: {_failures(result, part)}"


def test_every_mistake_of_parts_a_to_d_has_a_mutant():
    catalogue = {key for key, m in MISTAKES.items() if m.task.split(".")[0] in GRADED}
    assert catalogue == set(MUTANTS), f"without a mutant: {sorted(catalogue - set(MUTANTS))}; mutant of no entry: {sorted(set(MUTANTS) - catalogue)}"
    wrong_part = [k for k, m in {**MUTANTS, **FIGURE_MUTANTS}.items() if MISTAKES[k].task.split(".")[0] != m.part]
    assert not wrong_part, f"mutants whose part differs from their catalogue entry's task: {wrong_part}"


def test_checked_in_buggy_examples_equal_a_fresh_generation(tmp_path):
    assert {name: (mutant(e.key).part, e.key) for name, e in EXAMPLES.items()} == BUGGY_EXAMPLES
    written = write_examples(load_manifest(REPO / "autograder" / "assignments" / "attention"), tmp_path)
    assert sorted(p.name for p in written) == sorted(p.name for p in EXAMPLES_DIR.glob("bug_*")), "run `attnkit release`"
    stale = [p.name for p in written if p.read_bytes() != (EXAMPLES_DIR / p.name).read_bytes()]
    assert not stale, f"out of date: {stale}; run `attnkit release`"


@pytest.mark.parametrize("key", sorted({**MUTANTS, **FIGURE_MUTANTS}))
def test_mutant_is_valid_python_and_differs(key, reference_source, tmp_path):
    mutated = apply(reference_source, mutant(key))
    assert mutated != reference_source
    path = tmp_path / "attention.py"
    path.write_text(mutated, encoding="utf-8")
    py_compile.compile(str(path), doraise=True)


@pytest.mark.parametrize("key", sorted(SHARED_WAYS))
def test_each_shared_way_plants_the_mistake_in_a_later_task_too(key, reference_source):
    """A shared way adds to its earlier mutant a change of the later tasks' code (qa39s F1)."""
    alone = apply(reference_source, MUTANTS[key])
    for way in SHARED_WAYS[key]:
        planted = apply(reference_source, Mutant(key, MUTANTS[key].part, MUTANTS[key].replacements + way))
        assert planted != alone
        compile(planted, key, "exec")


def _mutant_params() -> list:
    marks = {key: [pytest.mark.xfail(reason=why, strict=True)] for key, why in NOT_YET_NAMED.items()}
    return [pytest.param(MUTANTS[key], id=key, marks=marks.get(key, [])) for key in sorted(MUTANTS)]


@pytest.mark.parametrize("mutant", _mutant_params())
def test_planted_mistake_is_named_and_costs_points_only_in_its_part(mutant: Mutant, grade, reference_source):
    untouched = UNAFFECTED.get(mutant.key, ())
    result = grade(apply(reference_source, mutant), name=mutant.key, parts={mutant.part, *untouched})
    _expect_named(result, mutant.part, mutant.key)
    for part in untouched:
        score, max_score = _part_scores(result)[part]
        assert score == max_score, f"{mutant.key} (a part {mutant.part} bug) cost points in part {part}: {_failures(result, part)}"


@pytest.mark.parametrize("name", ["reference", *CORRECT_EXAMPLES])
def test_correct_submission_in_another_style_gets_full_marks(name, grade):
    path = REPO / "solutions" / "attention" / "attention.py" if name == "reference" else EXAMPLES_DIR / name
    result = grade(path, parts=set(GRADED))
    assert {p.part for p in result.parts} == set(GRADED)
    assert not _failures(result, GRADED), f"{name} lost points: {_failures(result, GRADED)}"
    assert result.score == result.max_score > 0


@pytest.mark.parametrize("name", sorted(BUGGY_EXAMPLES))
def test_buggy_example_gets_its_mistake_named(name, grade):
    part, key = BUGGY_EXAMPLES[name]
    _expect_named(grade(EXAMPLES_DIR / name, parts={part}), part, key)
