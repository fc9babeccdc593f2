"""One planted bug per catalogue mistake of Parts A-D: text replacements in the reference solution.

Each mutant is the reference solution with the replacements applied (every `old` text must occur
exactly once). tests/test_mistakes.py grades each one and expects the check that fails to name
the mutant's key.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Mutant:
    key: str  # the autograder.assignments.attention.mistakes key this bug must be diagnosed as
    part: str  # "A".."D": the part that must lose points
    replacements: tuple[tuple[str, str], ...]


class MutantError(ValueError):
    pass


def apply(source: str, mutant: Mutant) -> str:
    """The source with the mutant's replacements; each old text must be there exactly once."""
    for old, new in mutant.replacements:
        count = source.count(old)
        if count != 1:
            raise MutantError(f"mutant {mutant.key}: {old!r} occurs {count} times in the reference (expected once)")
        source = source.replace(old, new)
    return source


SCORES_LINE = "return q @ k.transpose(-2, -1) / math.sqrt(d)  # (..., Lq, Lk)"
MASK_FILL = 'scores = scores.masked_fill(mask.logical_not(), float("-inf"))  # (..., Lq, Lk)'
SAFE_MAX = "    row_max = torch.where(torch.isfinite(row_max), row_max, torch.zeros_like(row_max)).detach()\n"
SAFE_TOTAL = "    total = total + (total == 0).to(total.dtype)  # an all-blocked row divides 0 by 1\n"
SPLIT_LINE = "return x.reshape(B, S, num_heads, E // num_heads).transpose(1, 2)  # (B, H, S, Dh)"
MERGE_LINE = "return x.transpose(1, 2).reshape(B, S, H * Dh)  # (B, S, E)"
MHA_WEIGHTS = "weights = masked_softmax(attention_scores(q, k), mask)  # (B, H, Lq, Lk)"
MHA_DROPOUT = "heads = self.dropout(weights) @ v  # (B, H, Lq, Dh)"
BLOCK_ATTN = "attended, weights = self.attn(x, mask=mask)  # (B, S, E), (B, H, S, S)"
BLOCK_RETURN = "return self.norm(x + self.dropout(attended)), weights  # (B, S, E), (B, H, S, S)"

MUTANTS: dict[str, Mutant] = {
    m.key: m
    for m in (
        # Part A
        Mutant("scores_no_scaling", "A", ((SCORES_LINE, "return q @ k.transpose(-2, -1)  # no scaling"),)),
        Mutant("scores_scaled_by_d", "A", ((SCORES_LINE, "return q @ k.transpose(-2, -1) / d"),)),
        Mutant("scores_wrong_transpose", "A", ((SCORES_LINE, "return q @ k.transpose(1, 2) / math.sqrt(d)"),)),
        Mutant("softmax_wrong_axis", "A", (
            ("row_max = scores.amax(dim=-1, keepdim=True)", "row_max = scores.amax(dim=-2, keepdim=True)"),
            ("total = exp.sum(dim=-1, keepdim=True)", "total = exp.sum(dim=-2, keepdim=True)"),
        )),
        Mutant("mask_inverted", "A", ((MASK_FILL, 'scores = scores.masked_fill(mask, float("-inf"))'),)),
        Mutant("mask_filled_with_zero", "A", ((MASK_FILL, "scores = scores.masked_fill(mask.logical_not(), 0.0)"),)),
        Mutant("mask_after_softmax", "A", (
            (MASK_FILL, "pass"),
            ("return exp / total  # (..., Lq, Lk)", "weights = exp / total\n    return weights if mask is None else weights.masked_fill(mask.logical_not(), 0.0)"),
        )),
        Mutant("softmax_no_max_subtraction", "A", (("exp = torch.exp(scores - row_max)", "exp = torch.exp(scores)"),)),
        Mutant("fully_masked_nan", "A", ((SAFE_MAX, ""), (SAFE_TOTAL, ""))),
        Mutant("fully_masked_uniform", "A", ((MASK_FILL, "scores = scores.masked_fill(mask.logical_not(), -1e9)"),)),
        Mutant("causal_mask_inverted", "A", (("device=device).tril()", "device=device).triu()"),)),
        Mutant("causal_mask_strict", "A", (("device=device).tril()", "device=device).tril(-1)"),)),
        # Part B
        Mutant("selfattn_shared_projection", "B", (
            ("k = self.W_k(x)  # (B, S, D)", "k = self.W_q(x)  # (B, S, D)"),
            ("v = self.W_v(x)  # (B, S, D)", "v = self.W_q(x)  # (B, S, D)"),
        )),
        # Part C
        Mutant("split_no_transpose", "C", ((SPLIT_LINE, "return x.reshape(B, num_heads, S, E // num_heads)"),)),
        Mutant("split_interleaved", "C", ((SPLIT_LINE, "return x.reshape(B, S, E // num_heads, num_heads).permute(0, 3, 1, 2)"),)),
        Mutant("merge_no_transpose", "C", ((MERGE_LINE, "return x.reshape(B, S, H * Dh)"),)),
        Mutant("mha_scaled_by_embed_dim", "C", ((MHA_WEIGHTS, "weights = masked_softmax(q @ k.transpose(-2, -1) / math.sqrt(self.embed_dim), mask)"),)),
        Mutant("mha_no_output_projection", "C", (("return self.W_o(merge_heads(heads)), weights", "return merge_heads(heads), weights"),)),
        Mutant("mha_key_projection_for_values", "C", (("v = split_heads(self.W_v(value)", "v = split_heads(self.W_k(value)"),)),
        Mutant("mha_weights_after_dropout", "C", ((MHA_DROPOUT, "weights = self.dropout(weights)\n        heads = weights @ v"),)),
        Mutant("dropout_in_eval", "C", ((MHA_DROPOUT, "heads = torch.nn.functional.dropout(weights, self.dropout.p, training=True) @ v"),)),
        Mutant("mha_mask_ignored", "C", ((MHA_WEIGHTS, "weights = masked_softmax(attention_scores(q, k))"),)),
        # Part D
        Mutant("block_pre_norm", "D", (
            (BLOCK_ATTN, "attended, weights = self.attn(self.norm(x), mask=mask)"),
            (BLOCK_RETURN, "return x + self.dropout(attended), weights"),
        )),
        Mutant("block_no_residual", "D", ((BLOCK_RETURN, "return self.norm(self.dropout(attended)), weights"),)),
        Mutant("block_no_norm", "D", ((BLOCK_RETURN, "return x + self.dropout(attended), weights"),)),
    )
}
