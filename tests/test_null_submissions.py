"""Nothing for nothing: code with the right names, shapes and layers but no real values scores
next to nothing. The null submissions are generated from the reference's function list
(tests/nulls.py); the scoring policy itself is enforced by the checks plugin."""
from __future__ import annotations

import importlib

import pytest
from nulls import STRATEGIES, null_submission, reference_names

from autograder.grading.checks.plugin import PROPERTY, SHAPE, CheckInfo, policy_problems
from autograder.paths import CHECKS_DIR

NULL_TOTAL_MAX = 10.0  # of 100


def all_checks() -> dict[str, CheckInfo]:
    """Every hidden check's CheckInfo, read from the check modules' pytest marks."""
    infos = {}
    for path in sorted(CHECKS_DIR.glob("part_*.py")):
        module = importlib.import_module(f"autograder.assignments.attention.checks.{path.stem}")
        for name, function in vars(module).items():
            for mark in getattr(function, "pytestmark", []) if name.startswith("test_") else []:
                if mark.name == "attnkit_check":
                    infos[name.removeprefix("test_")] = mark.args[0]
    return infos


def test_the_null_family_covers_every_function_of_the_reference(reference_source):
    functions, classes = reference_names(reference_source)
    assert {"attention_scores", "masked_softmax", "plot_attention"} <= set(functions)
    assert {"SelfAttention", "MultiHeadAttention", "AttentionBlock"} <= set(classes)
    source = null_submission("zeros", reference_source)
    for name in functions:
        assert f"\ndef {name}(" in source
    for name in classes:
        assert f"\nclass {name}(" in source


def test_the_hidden_checks_follow_the_scoring_policy():
    infos = all_checks()
    assert policy_problems(infos) == []
    parts = {info.part for info in infos.values()}
    for part in parts:
        whole = sum(i.points for i in infos.values() if i.part == part)
        shape = sum(i.points for i in infos.values() if i.part == part and i.kind == SHAPE)
        assert shape <= whole / 10, f"part {part}: {shape} shape points of {whole}"
    assert all(info.gates for info in infos.values() if info.kind == PROPERTY)


def test_policy_problems_names_an_oversized_shape_share_and_a_bad_gate():
    infos = {
        "values": CheckInfo("X.1", 6, "values"),
        "shape": CheckInfo("X.1", 2, "shape", kind=SHAPE),
        "prop": CheckInfo("X.1", 1, "prop", kind=PROPERTY, gates=("shape",)),
        "other": CheckInfo("X.2", 1, "other", kind=PROPERTY, gates=("values",)),
        "secret": CheckInfo("X.1", 1, "secret", visibility="hidden"),
        "told": CheckInfo("X.1", 1, "told", kind=PROPERTY, gates=("secret",)),
    }
    problems = policy_problems(infos)
    assert any("part X" in p and "shape checks" in p for p in problems)
    assert any(p.startswith("prop:") for p in problems)  # a shape check cannot gate
    assert any(p.startswith("other:") for p in problems)  # a gate from another task
    assert any(p.startswith("told:") for p in problems)  # a visible check would name a hidden one


@pytest.mark.parametrize("strategy", sorted(STRATEGIES))
def test_a_null_submission_scores_next_to_nothing(strategy, grade, reference_source):
    result = grade(null_submission(strategy, reference_source), name=f"null_{strategy}")
    infos = all_checks()
    paid = [f"{c.check_id} ({c.points:g})" for c in result.checks if c.points > 0 and infos[c.check_id].kind != SHAPE]
    assert not paid, f"{strategy}: points for checks that are not shape checks: {paid}"
    parts = {p.part: p.score for p in result.parts}
    assert parts["F"] == 0, f"{strategy}: part F gave {parts['F']} points"
    nothing_own = [c.check_id for c in result.checks if c.part == "F" and c.message_key != "scoring_nothing_own"]
    assert not nothing_own, f"{strategy}: F checks that do not say every component they lean on is charged elsewhere: {nothing_own}"
    assert result.score <= NULL_TOTAL_MAX, f"{strategy}: {result.score}/100 ({parts})"
