"""The attention assignment's mutants: its catalogue's mistakes planted into the reference solution
(autograder.authoring.examples: Mutant, apply, and the generator of the example submissions).

MUTANTS holds one mutant per catalogue mistake of Parts A-D (tests grade each alone and in pairs);
FIGURE_MUTANTS the Part E ones. `attnkit release` writes EXAMPLES, a few of them, as the buggy
example submissions examples/submissions/bug_*.py that `make demo` grades; tests/test_mistakes.py
proves the checked-in files equal a fresh generation.
"""
from __future__ import annotations

from autograder.authoring.examples import Example, Mutant, MutantError

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
        Mutant("scores_scaled_by_key_count", "A", ((SCORES_LINE, "return q @ k.transpose(-2, -1) / math.sqrt(k.size(-2))"),)),
        Mutant("softmax_wrong_axis", "A", (
            ("row_max = scores.amax(dim=-1, keepdim=True)  # (..., Lq, 1)", "row_max = scores.amax(dim=-2, keepdim=True)  # (..., 1, Lk)"),
            ("total = exp.sum(dim=-1, keepdim=True)  # (..., Lq, 1)", "total = exp.sum(dim=-2, keepdim=True)  # (..., 1, Lk)"),
        )),
        Mutant("softmax_mask_ignored", "A", ((MASK_FILL, "pass  # the mask not used"),)),
        Mutant("mask_inverted", "A", ((MASK_FILL, 'scores = scores.masked_fill(mask, float("-inf"))'),)),
        Mutant("mask_filled_with_zero", "A", ((MASK_FILL, "scores = scores.masked_fill(mask.logical_not(), 0.0)"),)),
        Mutant("mask_after_softmax", "A", (
            (MASK_FILL, "pass"),
            ("return exp / total  # (..., Lq, Lk)", "weights = exp / total\n    return weights if mask is None else weights.masked_fill(mask.logical_not(), 0.0)"),
        )),
        Mutant("softmax_no_max_subtraction", "A", (("exp = torch.exp(scores - row_max)", "exp = torch.exp(scores)"),)),
        Mutant("softmax_blocked_key_counts", "A", ((MASK_FILL, "pass"), ("exp = torch.exp(scores - row_max)", "exp = torch.exp(scores - row_max) * (1 if mask is None else mask)"))),
        Mutant("fully_masked_nan", "A", ((SAFE_MAX, ""), (SAFE_TOTAL, ""))),
        Mutant("fully_masked_uniform", "A", ((MASK_FILL, "scores = scores.masked_fill(mask.logical_not(), -1e9)"),)),
        Mutant("softmax_in_place", "A", ((MASK_FILL, 'scores = scores.masked_fill_(mask.logical_not(), float("-inf"))'),)),
        Mutant("mask_fill_overflows", "A", ((MASK_FILL, "scores = scores.masked_fill(mask.logical_not(), -1e5)"),)),
        Mutant("sdpa_mask_ignored", "A", (("weights = masked_softmax(scores, mask)  # (..., Lq, Lk)", "weights = masked_softmax(scores)  # the mask not passed on"),)),
        Mutant("returned_weights_unmasked", "A", (("return output, weights", "return output, masked_softmax(scores)  # the output's weights are masked, these are not"),)),
        Mutant("causal_mask_inverted", "A", (("device=device).tril()", "device=device).triu()"),)),
        Mutant("causal_mask_strict", "A", (("device=device).tril()", "device=device).tril(-1)"),)),
        # Part B
        Mutant("selfattn_shared_projection", "B", (
            ("k = self.W_k(x)  # (B, S, D)", "k = self.W_q(x)  # (B, S, D)"),
            ("v = self.W_v(x)  # (B, S, D)", "v = self.W_q(x)  # (B, S, D)"),
        )),
        Mutant("selfattn_mask_ignored", "B", (("return scaled_dot_product_attention(q, k, v, mask)  # (B, S, D), (B, S, S)", "return scaled_dot_product_attention(q, k, v)  # (B, S, D), (B, S, S)"),)),
        # Part C
        Mutant("split_no_transpose", "C", ((SPLIT_LINE, "return x.reshape(B, num_heads, S, E // num_heads)"),)),
        Mutant("split_interleaved", "C", ((SPLIT_LINE, "return x.reshape(B, S, E // num_heads, num_heads).permute(0, 3, 1, 2)"),)),
        Mutant("split_size_for_count", "C", ((SPLIT_LINE, "return torch.stack(torch.split(x, num_heads, dim=-1), dim=1)"),)),
        Mutant("merge_no_transpose", "C", ((MERGE_LINE, "return x.reshape(B, S, H * Dh)"),)),
        Mutant("merge_interleaved", "C", ((MERGE_LINE, "return x.permute(0, 2, 3, 1).reshape(B, S, H * Dh)"),)),
        Mutant("mha_scaled_by_embed_dim", "C", ((MHA_WEIGHTS, "weights = masked_softmax(q @ k.transpose(-2, -1) / math.sqrt(self.embed_dim), mask)"),)),
        Mutant("mha_no_output_projection", "C", (("return self.W_o(merge_heads(heads)), weights", "return merge_heads(heads), weights"),)),
        Mutant("mha_key_projection_for_values", "C", (("v = split_heads(self.W_v(value)", "v = split_heads(self.W_k(value)"),)),
        Mutant("mha_weights_after_dropout", "C", ((MHA_DROPOUT, "weights = self.dropout(weights)\n        heads = weights @ v"),)),
        Mutant("dropout_in_eval", "C", ((MHA_DROPOUT, "heads = torch.nn.functional.dropout(weights, p=self.dropout.p) @ v  # (B, H, Lq, Dh)"),)),
        Mutant("mha_weights_without_heads", "C", (("return self.W_o(merge_heads(heads)), weights", "return self.W_o(merge_heads(heads)), weights.mean(dim=1)"),)),
        Mutant("mha_mask_ignored", "C", ((MHA_WEIGHTS, "weights = masked_softmax(attention_scores(q, k))"),)),
        # Part D
        Mutant("block_pre_norm", "D", (
            (BLOCK_ATTN, "attended, weights = self.attn(self.norm(x), mask=mask)"),
            (BLOCK_RETURN, "return x + self.dropout(attended), weights"),
        )),
        Mutant("block_no_residual", "D", ((BLOCK_RETURN, "return self.norm(self.dropout(attended)), weights"),)),
        Mutant("block_no_norm", "D", ((BLOCK_RETURN, "return x + self.dropout(attended), weights"),)),
        Mutant("block_residual_after_norm", "D", ((BLOCK_RETURN, "return x + self.norm(self.dropout(attended)), weights"),)),
        Mutant("block_mask_ignored", "D", ((BLOCK_ATTN, "attended, weights = self.attn(x)"),)),
        Mutant("block_norm_eps_too_large", "D", (("        self.norm = nn.LayerNorm(embed_dim)\n", "        self.norm = nn.LayerNorm(embed_dim, eps=1e-2)\n"),)),
    )
}


def _mha_projections(q: str, k: str, v: str) -> tuple[tuple[str, str], ...]:
    """The reference MultiHeadAttention projecting its query, key and value with these layers."""
    planted = []
    for argument, layer, wanted in (("query", "W_q", q), ("key", "W_k", k), ("value", "W_v", v)):
        if wanted != layer:
            line = f"{argument[0]} = split_heads(self.{layer}({argument})"
            planted.append((line, line.replace(layer, wanted)))
    return tuple(planted)


# A mistake of an earlier task that a later one makes through code both use (a helper or a mixin:
# no stand-in replaces it, qa39s F1): the later tasks' reference is given the same mistake too, in
# each way it may show there (each projection SelfAttention's check names as shared). The earlier
# mutant alone is the first way of every key (autograder.assignments.attention.checks.carried.ways).
MASK_IGNORED_LATER = MUTANTS["mha_mask_ignored"].replacements + MUTANTS["block_mask_ignored"].replacements
SHARED_WAYS: dict[str, tuple[tuple[tuple[str, str], ...], ...]] = {
    "sdpa_mask_ignored": (MASK_IGNORED_LATER,),
    "selfattn_mask_ignored": (MASK_IGNORED_LATER,),
    "selfattn_shared_projection": tuple(_mha_projections(*layers) for layers in (
        ("W_q", "W_q", "W_v"), ("W_q", "W_q", "W_q"), ("W_k", "W_k", "W_k"), ("W_v", "W_v", "W_v"),
    )),
}

HEATMAP_LINES = (
    '    image = ax.imshow(matrix.T.numpy(), cmap="Blues", vmin=0.0, vmax=1.0, aspect="auto")  # (Lk, Lq)\n'
    '    ax.set_xticks(range(len(query_tokens)), labels=list(query_tokens), rotation=45, ha="right")\n'
    "    ax.set_yticks(range(len(key_tokens)), labels=list(key_tokens))\n"
    '    ax.set_xlabel("query position")\n'
    '    ax.set_ylabel("key position")\n'
)
FIGURE_MUTANTS: dict[str, Mutant] = {
    m.key: m
    for m in (
        Mutant("heatmap_transposed", "E", ((HEATMAP_LINES, (
            '    image = ax.imshow(matrix.numpy(), cmap="Blues", vmin=0.0, vmax=1.0, aspect="auto")  # one row per query\n'
            '    ax.set_xticks(range(len(key_tokens)), labels=list(key_tokens), rotation=45, ha="right")\n'
            "    ax.set_yticks(range(len(query_tokens)), labels=list(query_tokens))\n"
            '    ax.set_xlabel("key position")\n'
            '    ax.set_ylabel("query position")\n'
        )),)),
    )
}

# examples/submissions/<name>: what `make demo` grades and examples/README.md describes.
EXAMPLES: dict[str, Example] = {
    "bug_no_scaling.py": Example("scores_no_scaling", "the scores are never divided by sqrt(d)"),
    "bug_softmax_axis.py": Example("softmax_wrong_axis", "the softmax normalises over the query axis (dim=-2)"),
    "bug_mask_inverted.py": Example("mask_inverted", "blocked positions are where the mask is True"),
    "bug_split_no_transpose.py": Example("split_no_transpose", "split_heads reshapes straight to (B, H, S, Dh)"),
    "bug_dropout_in_eval.py": Example("dropout_in_eval", "F.dropout is called without training=self.training"),
    "bug_pre_norm.py": Example("block_pre_norm", "the block normalises before the attention (pre-norm, as in GPT-2)"),
    "bug_heatmap_transposed.py": Example("heatmap_transposed", "the heatmap puts the queries on the vertical axis"),
}


def mutant(key: str) -> Mutant:
    found = MUTANTS.get(key) or FIGURE_MUTANTS.get(key)
    if found is None:
        raise MutantError(f"no mutant for mistake {key!r}")
    return found
