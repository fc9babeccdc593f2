"""The public checks, one test per task: `pytest -m task_a1` runs Task A.1's check only.

Each test hands your function or class from attention.py to its check in public_checks.py.
"""

import pytest

import public_checks as checks


@pytest.mark.task_a1
def test_a1_attention_scores(attention):
    checks.check_attention_scores(checks.student_attr(attention, "attention_scores"))


@pytest.mark.task_a2
def test_a2_masked_softmax(attention):
    checks.check_masked_softmax(checks.student_attr(attention, "masked_softmax"))


@pytest.mark.task_a3
def test_a3_scaled_dot_product_attention(attention):
    checks.check_scaled_dot_product_attention(checks.student_attr(attention, "scaled_dot_product_attention"))


@pytest.mark.task_a4
def test_a4_causal_mask(attention):
    checks.check_causal_mask(checks.student_attr(attention, "causal_mask"))


@pytest.mark.task_b1
def test_b1_self_attention(attention):
    checks.check_self_attention(checks.student_attr(attention, "SelfAttention"))


@pytest.mark.task_c1
def test_c1_split_heads(attention):
    checks.check_split_heads(checks.student_attr(attention, "split_heads"))


@pytest.mark.task_c2
def test_c2_merge_heads(attention):
    checks.check_merge_heads(checks.student_attr(attention, "merge_heads"))


@pytest.mark.task_c3
def test_c3_multi_head_attention(attention):
    checks.check_multi_head_attention(checks.student_attr(attention, "MultiHeadAttention"))


@pytest.mark.task_d1
def test_d1_attention_block(attention):
    checks.check_attention_block(checks.student_attr(attention, "AttentionBlock"))


@pytest.mark.task_e1
def test_e1_plot_attention(attention):
    checks.check_plot_attention(checks.student_attr(attention, "plot_attention"))
