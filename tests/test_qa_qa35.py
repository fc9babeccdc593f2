"""qa35s and qa35h: unseen styles and single bugs; the red team.

- qa35s (`tests/qa/qa35s`: unseen .py files; headers set from the grader after review). b13, b53:
  a softmax that subtracts the largest score of every key, blocked ones included, then zeroes the
  blocked keys' exp(): when a blocked key scores far above the allowed ones every allowed weight
  is 0 (or NaN), a row that does not sum to 1 in breach of A.2's contract. The hidden checks always
  let each row's largest score be an allowed key (A 32, 100); A.2's large-score check now has a
  row whose blocked key scores 200 above the rest, in float32 (A 31, the mistake named), and B.1's
  and C.3's mask checks keys of large norm that the mask blocks (b54, b90: their own softmax).
  b56: both axes labelled "position" (E 9). b41: a dropout by hand without the 1/(1-p) named as
  such. b06: C.3's own softmax with the blocked scores set to 0 named as that mistake.
- qa35h F2: the word "autograder" in a docstring, a printed or raised message, or a demo under
  `if __name__ == "__main__":` was a reference to the grader's modules (85: E 0 and every rule
  point); c92-c95 score 100. F1: a trusted stand-in computed an output of any size (the value's
  batch axes and width were not bounded): 1.8 GB and 5 GB in the grader for 40,000 input numbers.
"""
from __future__ import annotations

from pathlib import Path

import pytest
import torch

from autograder.assignments.attention.checks.carried import PROJECTION_PARAMS, trusted_answer
from autograder.feedback.formats.view import caption_text, translate_note
from autograder.feedback.formats.watchview import task_name
from autograder.feedback.hints import fold
from autograder.feedback.i18n import t
from autograder.feedback.results import Artifact, CheckResult, SubmissionResult
from autograder.grading.integrity.flags import GRADER_REFERENCE
from autograder.grading.integrity.names import MAIN_GUARD
from autograder.grading.integrity.static import analyze
from autograder.grading.worker.standins import StandInRefused
from tests.corpus import assert_each_bug_in_its_own_part, assert_graded_as_expected, graded_corpus

CORPUS = Path(__file__).resolve().parent / "qa" / "qa35s"
FILES = sorted(CORPUS.glob("*.py"))


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> dict[str, SubmissionResult]:
    return graded_corpus(CORPUS, tmp_path_factory.mktemp("qa35s_out"))


def test_the_corpus_is_whole():
    assert len(FILES) == 140


def test_each_bug_loses_points_in_its_own_part_only():
    assert_each_bug_in_its_own_part(FILES)


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_each_submission_scores_its_parts_and_names_only_its_mistakes(path, graded):
    assert_graded_as_expected(graded[path.stem], path)


def test_a_maximum_taken_over_blocked_keys_is_named_where_the_softmax_is(graded):
    for stem, task in (("b13_a2_max_includes_blocked", "A.2"), ("b54_c3_inline_softmax_max_before_mask", "C.3"),
                       ("b90_b1_inline_softmax_max_over_all_keys", "B.1")):
        failed = [c for c in graded[stem].checks if not c.passed]
        assert {c.task for c in failed} == {task}, stem
        assert any(c.mistake == "softmax_blocked_key_counts" for c in failed), stem


def _grader_references(source: str) -> list[str]:
    return [f.what for f in analyze([(1, source)]).findings if f.code == GRADER_REFERENCE]


def test_a_text_only_shown_names_nothing_but_a_text_that_can_be_used_still_counts():
    shown = '''"""Graded by the autograder."""
def f(x):
    """The autograder calls this."""
    print("autograder:", x, f"the autograder sent {x!r}")
    return x
'''
    assert _grader_references(shown) == []
    for used in ('import torch\nf = getattr(torch, "OpTracer", None)\n', 'NAME = "autograder.grading"\n',
                 'import importlib\nprint(importlib.import_module("autograder"))\n',
                 'import torch\nprint(getattr(torch, "plot_call"))\n',
                 'def f(x):\n    raise ValueError("autograder.grading.worker")\n',  # a message caught can be used: e.args[0]
                 'def f(x):\n    assert x, "autograder.grading.worker"\n',
                 'from logging import getLogger as print\nprint("autograder.grading.worker")\n',  # qa36h F1: print rebound
                 'import logging\ndef f():\n    """autograder.grading.worker"""\nlogging.getLogger(f.__doc__)\n'):  # a docstring read back
        assert _grader_references(used), used


def test_naming_the_grader_in_a_demo_stays_on_the_record_but_leaves_the_evidence_trusted():
    facts = analyze([(1, 'def f(x):\n    return x\n\nif __name__ == "__main__":\n    import autograder\n')])
    assert facts.findings and {(f.code, f.scope) for f in facts.findings} == {(GRADER_REFERENCE, MAIN_GUARD)}
    assert facts.untrusted({"f"}) == []


def _call(name: str, tensors: list, options: dict | None = None):
    return trusted_answer({"kind": "forward", "name": name, "tensors": tensors, "options": options or {}})


def test_a_stand_in_refuses_an_output_larger_than_it_computes_before_computing_it():
    with pytest.raises(StandInRefused, match="its output would hold 400000000 numbers"):
        _call("scaled_dot_product_attention", [torch.randn(1, 20000, 1), torch.randn(1, 1, 1), torch.randn(1, 1, 20000), None])
    width, n = 8, 5000
    params = [torch.randn(width, width) if name.endswith("weight") else torch.randn(width) for name in PROJECTION_PARAMS]
    options = {"num_heads": 2, "dropout": 0.0, "training": False, "seed": 1}
    with pytest.raises(StandInRefused, match="would hold"):  # the value's batch broadcasts with the query's
        _call("MultiHeadAttention", [torch.randn(1, n, width), torch.randn(1, 1, width), torch.randn(n, 1, width), None, *params], options)
    with pytest.raises(StandInRefused, match="its inputs, broadcast to one batch, would hold"):  # qa36h F3: matmul copies them out
        _call("attention_scores", [torch.randn(256, 1, 1, 2048), torch.randn(1, 256, 1, 2048)])
    output, weights = _call("scaled_dot_product_attention", [torch.randn(2, 4, 3), torch.randn(2, 5, 3), torch.randn(2, 5, 6), None])
    assert output.shape == (2, 4, 6) and weights.shape == (2, 4, 5)


def _check(check_id: str, name: str, task: str, message: str = "", key: str = "") -> CheckResult:
    return CheckResult(check_id=check_id, name=name, part=task[0], task=task, points=0, max_points=1, status="failed", message=message, message_key=key)


def test_a_property_not_counted_follows_the_failure_that_explains_it():
    """qa35n F7: C.3's __init__ written, forward a stub: the stub's failure leads, not the property left uncounted."""
    gated = _check("mha_layers", "MultiHeadAttention: W_q ...", "C.3", "not counted: this property earns points only when ...", "scoring_gated")
    stub = _check("mha_shapes", "MultiHeadAttention: output ...", "C.3", "Task C.3 (MultiHeadAttention) is not implemented yet")
    entries = fold([gated, stub])
    assert [(entry.check.check_id, [c.check_id for c in entry.folded]) for entry in entries] == [("mha_shapes", ["mha_layers"])]


def test_watch_names_a_task_in_the_language_of_its_view():
    trained = _check("trained_maps_match", "trained model: your block's attention maps equal the reference model's", "F.1")
    assert (task_name((trained,), "en"), task_name((trained,), "zh")) == ("trained model", "训练好的模型")


def test_part_f_maps_have_a_chinese_caption_that_keeps_the_warning():
    artifact = Artifact(kind="heatmap", name="probe-2-head-1", caption="the trained model, ...", reference="heatmaps/probe-2-head-1-reference.png")
    caption = caption_text(artifact, "zh", "attention")
    assert "第 2 个句子，第 1 个头" in caption and "评分器重新绘制" in caption and "probe-" not in caption


def test_merge_heads_on_a_non_contiguous_input_is_charged_in_c2(graded):
    failed = [c for c in graded["b96_c2_merge_asserts_contiguous"].checks if not c.passed]
    assert [(c.task, c.check_id) for c in failed] == [("C.2", "merge_heads_noncontiguous")]


def test_a_module_the_grader_lacks_is_explained_in_both_languages():
    """qa35n F10: check and watch say what the public checks' pytest says of an import the grader does not promise."""
    note = t("note.module_not_promised", module="einops")
    assert "standard library, torch, numpy, matplotlib and seaborn" in note
    chinese = translate_note(note, "zh")
    assert "einops" in chinese and "评分环境只保证有" in chinese
