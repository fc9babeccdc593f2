"""Checks that catch their bugs, and name only what they can tell apart (issue 11, item 4).

Each bug is planted into the reference (text replacements, as in autograder/assignments/attention/mutants.py) and graded on
its own part: the part must lose points in the check that proves the rule, and no check may name
a mistake the submission did not make.
"""
from __future__ import annotations

import pytest

from autograder.authoring.examples import Mutant, apply
from autograder.feedback.results import SubmissionResult

MHA_DROPOUT = "heads = self.dropout(weights) @ v  # (B, H, Lq, Dh)"
MHA_RETURN = "return self.W_o(merge_heads(heads)), weights  # (B, Lq, E), (B, H, Lq, Lk)"
BLOCK_RETURN = "return self.norm(x + self.dropout(attended)), weights  # (B, S, E), (B, H, S, S)"
IMSHOW = 'image = ax.imshow(matrix.T.numpy(), cmap="Blues"'
Y_TICKS = "ax.set_yticks(range(len(key_tokens)), labels=list(key_tokens))"
CAUSAL = "device=device).tril()"


def _grade(grade, reference_source: str, name: str, part: str, *replacements: tuple[str, str]) -> SubmissionResult:
    return grade(apply(reference_source, Mutant(name, part, replacements)), name=name, parts={part})


def _failed(result: SubmissionResult) -> dict[str, str]:
    return {c.check_id: c.message for c in result.checks if not c.passed}


def _part(result: SubmissionResult, part: str) -> tuple[float, float]:
    (found,) = [p for p in result.parts if p.part == part]
    return found.score, found.max_score


def test_mha_dropout_on_the_output_loses_points_in_c3(grade, reference_source):
    result = _grade(grade, reference_source, "mha_output_dropout", "C",
                    (MHA_DROPOUT, "heads = weights @ v"), (MHA_RETURN, "return self.dropout(self.W_o(merge_heads(heads))), weights"))
    failed = _failed(result)
    assert set(failed) == {"mha_train_dropout"}, failed
    assert "apply self.dropout to the weights" in failed["mha_train_dropout"]
    assert not result.mistakes


def test_mha_dropout_on_the_heads_loses_points_in_c3(grade, reference_source):
    result = _grade(grade, reference_source, "mha_heads_dropout", "C", (MHA_DROPOUT, "heads = self.dropout(weights @ v)"))
    assert set(_failed(result)) == {"mha_train_dropout"}, _failed(result)


def test_block_that_never_applies_its_own_dropout_loses_points_in_d1(grade, reference_source):
    result = _grade(grade, reference_source, "block_no_dropout", "D", (BLOCK_RETURN, "return self.norm(x + attended), weights"))
    failed = _failed(result)
    assert set(failed) == {"block_dropout"}, failed
    assert "self.dropout" in failed["block_dropout"]


def test_block_dropout_on_the_residual_loses_points_in_d1(grade, reference_source):
    result = _grade(grade, reference_source, "block_residual_dropout", "D", (BLOCK_RETURN, "return self.norm(self.dropout(x) + attended), weights"))
    assert set(_failed(result)) == {"block_dropout"}, _failed(result)


BLOCK_NORM = "self.norm = nn.LayerNorm(embed_dim)\n"
BLOCK_OWN_DROPOUT = f"{BLOCK_NORM}        self.dropout = nn.Dropout(dropout)"


@pytest.mark.parametrize(("name", "replacement", "said"), [
    ("block_dropout_hard_coded", "self.dropout = nn.Dropout(0.1)", "self.dropout with p=0.1"),
    ("block_dropout_zero", "self.dropout = nn.Dropout(0.0)", "self.dropout with p=0"),
    ("block_dropout_shared", "self.dropout = self.attn.dropout", "self.dropout is self.attn.dropout"),
])
def test_block_own_dropout_done_wrong_is_said_as_it_is(grade, reference_source, name, replacement, said):
    """D.1 with its own Dropout at a rate of its own, or the attention's Dropout reused: the
    dropout check names what the block's description shows, and only that check fails."""
    result = _grade(grade, reference_source, name, "D", (BLOCK_OWN_DROPOUT, f"{BLOCK_NORM}        {replacement}"))
    failed = _failed(result)
    assert set(failed) == {"block_dropout"}, failed
    assert said in failed["block_dropout"], failed


def test_block_dropout_right_but_hard_coded_rate_unused_is_not_blamed(grade, reference_source):
    """A module attribute at another rate that forward never uses says nothing about a misplaced
    dropout: the message is the misplaced one, not the rate."""
    result = _grade(grade, reference_source, "block_dropout_unused_module", "D",
                    (BLOCK_OWN_DROPOUT, f"{BLOCK_NORM}        self.dropout = nn.Dropout(0.1)\n        self.p = dropout"),
                    (BLOCK_RETURN, "return self.norm(torch.nn.functional.dropout(x, self.p, self.training) + attended), weights"))
    failed = _failed(result)
    assert set(failed) == {"block_dropout"}, failed
    assert "p=0.1" not in failed["block_dropout"], failed


def test_heatmap_of_zeros_earns_nothing_in_e1(grade, reference_source):
    result = _grade(grade, reference_source, "heatmap_zeros", "E", (IMSHOW, 'image = ax.imshow(0 * matrix.T.numpy(), cmap="Blues"'))
    assert _part(result, "E") == (0, 10), _failed(result)


def test_reversed_y_tick_labels_lose_the_label_points_only(grade, reference_source):
    result = _grade(grade, reference_source, "heatmap_reversed_y", "E", (Y_TICKS, "ax.set_yticks(range(len(key_tokens)), labels=list(key_tokens)[::-1])"))
    failed = _failed(result)
    assert set(failed) == {"plot_attention_tick_labels"}, failed
    assert "name another query or key" in failed["plot_attention_tick_labels"]


def test_a_self_attention_map_drawn_with_the_queries_down_loses_the_label_points_only(grade, reference_source):
    """qa10e b01: the matrix oriented by its shape (transposed unless already (Lk, Lq)) is right on
    the probe (Lq != Lk) and transposed on every self-attention map, Part F's included: it was not
    charged anywhere (E 10/10; Part F accepts any orientation)."""
    square_left = 'image = ax.imshow((matrix.T if matrix.shape[0] != matrix.shape[1] else matrix).numpy(), cmap="Blues"'
    result = _grade(grade, reference_source, "heatmap_square_transposed", "E", (IMSHOW, square_left))
    failed = _failed(result)
    assert set(failed) == {"plot_attention_tick_labels"}, failed
    assert "self-attention map" in failed["plot_attention_tick_labels"] and "heatmap_transposed" in result.mistakes


def test_ticks_placed_by_looking_up_a_repeated_word_lose_the_label_points_only(grade, reference_source):
    """qa10e b08: tick positions from a {token: position} dict give a repeated word (Part F's 'the')
    the last position twice; the probe's words are all different, so it was not charged (E 10/10)."""
    looked_up = "ax.set_yticks([{t: j for j, t in enumerate(key_tokens)}[t] for t in key_tokens], labels=list(key_tokens))"
    result = _grade(grade, reference_source, "heatmap_ticks_looked_up", "E", (Y_TICKS, looked_up))
    failed = _failed(result)
    assert set(failed) == {"plot_attention_tick_labels"}, failed
    assert "tokens repeat a word" in failed["plot_attention_tick_labels"] and "vertical axis" in failed["plot_attention_tick_labels"]


def test_diagonal_only_causal_mask_is_not_called_upside_down(grade, reference_source):
    result = _grade(grade, reference_source, "causal_diagonal", "A", (CAUSAL, "device=device).tril().triu()"))
    assert "causal_mask_values" in _failed(result)
    assert "causal_mask_inverted" not in result.mistakes, result.mistakes


def test_upside_down_causal_mask_is_still_named(grade, reference_source):
    result = _grade(grade, reference_source, "causal_upper", "A", (CAUSAL, "device=device).triu()"))
    assert "causal_mask_inverted" in result.mistakes


def test_all_zero_mha_weights_are_not_called_weights_after_dropout(grade, reference_source):
    result = _grade(grade, reference_source, "mha_zero_weights", "C", (MHA_RETURN, "return self.W_o(merge_heads(heads)), torch.zeros_like(weights)"))
    assert _part(result, "C")[0] < _part(result, "C")[1]
    assert "mha_weights_after_dropout" not in result.mistakes, result.mistakes


@pytest.mark.parametrize("part", ["C", "D", "E"])
def test_the_reference_keeps_full_marks_under_the_new_checks(part, grade, reference_source):
    result = grade(reference_source, name="reference", parts={part})
    assert not _failed(result), _failed(result)


MHA_VALUE_DEFAULT = "value = key if value is None else value"
SELF_ATTENTION_CALL = "return scaled_dot_product_attention(q, k, v, mask)  # (B, S, D), (B, S, S)"
BLOCK_ATTN = "attended, weights = self.attn(x, mask=mask)  # (B, S, E), (B, H, S, S)"


def test_value_defaulting_to_the_query_is_charged_in_the_defaults_check_only(grade, reference_source):
    """The dropout, gradient and invariance checks grade those rules, not the defaults."""
    result = _grade(grade, reference_source, "mha_value_defaults_to_query", "C", (MHA_VALUE_DEFAULT, "value = query if value is None else value"))
    assert set(_failed(result)) == {"mha_cross_and_defaults"}, _failed(result)


def test_ignoring_key_and_value_is_not_charged_in_the_dropout_and_gradient_checks(grade, reference_source):
    """Those checks run self-attention: a cross-attention bug loses the checks that give a key."""
    result = _grade(grade, reference_source, "mha_key_value_ignored", "C", (MHA_VALUE_DEFAULT, "value = key = query"))
    failed = set(_failed(result))
    assert "mha_cross_and_defaults" in failed, failed
    assert not failed & {"mha_eval_dropout_off", "mha_train_dropout", "mha_gradients"}, failed


@pytest.mark.parametrize(("part", "replacement", "key", "advice"), [
    ("B", (SELF_ATTENTION_CALL, "return scaled_dot_product_attention(q, k, v)"), "selfattn_mask_ignored", "scaled_dot_product_attention"),
    ("D", (BLOCK_ATTN, "attended, weights = self.attn(x)"), "block_mask_ignored", "self.attn"),
])
def test_a_mask_dropped_outside_c3_is_named_with_its_own_advice(part, replacement, key, advice, grade, reference_source):
    """A SelfAttention or a block that drops the mask is not told to pass it to masked_softmax (C.3's advice)."""
    result = _grade(grade, reference_source, key, part, replacement)
    assert key in result.mistakes and "mha_mask_ignored" not in result.mistakes, result.mistakes
    assert any(advice in message for message in _failed(result).values()), _failed(result)


def test_layers_without_bias_are_told_so_not_to_rename_them(grade, reference_source):
    linears = "        self.W_q = nn.Linear(dim, dim)\n        self.W_k = nn.Linear(dim, dim)\n        self.W_v = nn.Linear(dim, dim)\n"
    result = _grade(grade, reference_source, "selfattn_no_bias", "B", (linears, linears.replace("(dim, dim)", "(dim, dim, bias=False)")))
    messages = list(_failed(result).values())
    assert messages and any("bias=False" in m for m in messages), messages
    assert not any("name the layers" in m for m in messages), messages


def test_a_norm_made_without_weight_and_bias_is_told_so_not_to_rename_it(grade, reference_source):
    """qa3s d1_norm_no_affine: nn.LayerNorm(E, elementwise_affine=False) was told to "name the layers
    as the task says (attn, norm, dropout)" in every D.1 check, where its layer is named right."""
    norm = "        self.norm = nn.LayerNorm(embed_dim)\n"
    result = _grade(grade, reference_source, "block_norm_no_affine", "D", (norm, norm.replace("(embed_dim)", "(embed_dim, elementwise_affine=False)")))
    messages = list(_failed(result).values())
    assert messages and any("norm (LayerNorm)" in m and "elementwise_affine=False" in m for m in messages), messages
    assert not any("name the layers" in m for m in messages), messages


def test_a_result_of_the_wrong_shape_is_told_as_such_by_the_gradient_checks(grade, reference_source):
    """qa20s D3: values from the keys ((..., Lq, d) for (..., Lq, dv)) made the gradient check say
    "backward raised RuntimeError: Mismatch in shape", an error the student's code never raised:
    the worker refused the grader's gradient of the expected shape. It now says the shape."""
    result = _grade(grade, reference_source, "sdpa_values_from_keys", "A", ("output = weights @ v  # (..., Lq, dv)", "output = weights @ k"))
    failed = _failed(result)
    assert "sdpa_gradients" in failed, failed
    assert "returned shape" in failed["sdpa_gradients"] and "raised" not in failed["sdpa_gradients"], failed["sdpa_gradients"]


def test_heads_of_num_heads_features_are_named_in_every_split_check(grade, reference_source):
    """qa20s D4: torch.split(x, num_heads) stacked gives Dh heads of H features, (B, Dh, S, H);
    "an axis is transposed or swapped" sent the student toward the interleaved bug. Each check
    of C.1 names the swap of count and size; a transposed result of the right heads is not named."""
    split = "return x.reshape(B, S, num_heads, E // num_heads).transpose(1, 2)  # (B, H, S, Dh)"
    result = _grade(grade, reference_source, "split_size_for_count", "C", (split, "return torch.stack(torch.split(x, num_heads, dim=-1), dim=1)"))
    failed = {check: message for check, message in _failed(result).items() if check.startswith("split_heads")}
    assert set(failed) == {"split_heads_shape", "split_heads_values", "split_heads_gradients", "split_heads_other_sizes", "split_heads_noncontiguous"}, failed
    assert all("head count and the head size are swapped" in message and "transposed or swapped" not in message for message in failed.values()), failed
    transposed = _grade(grade, reference_source, "split_transposed", "C", (split, "return x.reshape(B, S, num_heads, E // num_heads).permute(0, 3, 1, 2)"))
    assert not any("head count" in message for message in _failed(transposed).values()), _failed(transposed)


MHA_SOFTMAX = "weights = masked_softmax(attention_scores(q, k), mask)  # (B, H, Lq, Lk)"


@pytest.mark.parametrize(("name", "cut"), [
    ("mha_per_head_mask_cut_to_head_0", "mask[:, :1] if mask is not None and mask.dim() == 4 else mask"),
    ("mha_per_head_masks_merged_with_any", "mask.any(1, keepdim=True) if mask is not None and mask.dim() == 4 else mask"),
])
def test_a_per_head_mask_not_kept_per_head_loses_points_in_the_c3_mask_check_only(grade, reference_source, name, cut):
    """qa21s b15, b40: the contract's mask is broadcastable to (B, H, Lq, Lk), but C.3 tried only
    masks with one head axis of size 1, so head 0's mask for every head, or the union of the heads'
    masks, scored 100. The mask check now also gives one mask per head (the heads differ); D.1 and
    F (trusted stand-ins for C.3) keep their points."""
    result = grade(apply(reference_source, Mutant(name, "C", ((MHA_SOFTMAX, f"weights = masked_softmax(attention_scores(q, k), {cut})"),))),
                   name=name, parts={"C", "D", "F"})
    failed = _failed(result)
    assert set(failed) == {"mha_mask"}, failed
    assert "(2, 3, 4, 5) (one per head)" in failed["mha_mask"], failed
    assert not result.mistakes, result.mistakes
    assert _part(result, "D")[0] == _part(result, "D")[1] and _part(result, "F")[0] == _part(result, "F")[1]


def test_a_per_head_mask_is_taken_by_the_trusted_stand_ins():
    """A C.3 or D.1 stand-in given a (B, H, S, S) mask answers as the reference does."""
    import torch

    from autograder.assignments.attention.checks.carried import PROJECTION_PARAMS, trusted_answer
    from autograder.assignments.attention.checks.support import reference

    torch.manual_seed(0)
    embed, heads, batch, size = 8, 2, 2, 3
    module = reference().AttentionBlock(embed, heads).double().eval()
    x = torch.randn(batch, size, embed, dtype=torch.float64)
    mask = torch.rand(batch, heads, size, size) < 0.6
    mask[..., 0] = True
    mask[0, 0, 0] = torch.tensor([True, False, False])
    mask[0, 1, 0] = torch.tensor([False, True, False])
    params = [module.attn.get_parameter(name).detach() for name in PROJECTION_PARAMS]
    options = {"num_heads": heads, "dropout": 0.0, "training": False, "seed": 0}
    with torch.no_grad():
        expected_attn, expected_block = module.attn(x, x, x, mask), module(x, mask)
    got_attn = trusted_answer({"kind": "forward", "name": "MultiHeadAttention", "tensors": [x, x, x, mask, *params], "options": options})
    got_block = trusted_answer({"kind": "forward", "name": "AttentionBlock", "options": options,
                                "tensors": [x, mask, *params, module.norm.weight.detach(), module.norm.bias.detach()]})
    for got, expected in ((got_attn, expected_attn), (got_block, expected_block)):
        assert all(torch.allclose(g, e) for g, e in zip(got, expected, strict=True))
    assert not torch.allclose(got_attn[1][:, 0], got_attn[1][:, 1])  # the heads' masks differ


def test_dropout_applied_twice_is_not_told_to_apply_it(grade, reference_source):
    """qa21s b18: self.dropout(self.dropout(a)) was told to "apply self.dropout to the attention
    output, before adding x", which it does; the message now says it is applied once."""
    result = _grade(grade, reference_source, "block_dropout_twice", "D", (BLOCK_RETURN, "return self.norm(x + self.dropout(self.dropout(attended))), weights"))
    failed = _failed(result)
    assert set(failed) == {"block_dropout"}, failed
    assert "self.dropout must be applied once, to the attention output, before adding x" in failed["block_dropout"], failed
