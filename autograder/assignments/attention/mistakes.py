"""The catalogue of known mistakes, and how to recognise them from a wrong output.

Each entry has a plain-words message (en/zh). A check that finds a wrong number computes the
outputs that the catalogue's buggy variants would give on the same inputs (grader-side, trusted
code) and names the mistake whose output matches the student's. Messages never reveal inputs or
expected values.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import torch


@dataclass(frozen=True)
class Mistake:
    key: str
    task: str
    en: str
    zh: str

    def message(self, lang: str = "en") -> str:
        return self.zh if lang == "zh" else self.en


_ENTRIES = [
    # Part A
    Mistake("scores_no_scaling", "A.1", "The scores are not scaled: divide q·kᵀ by √d.", "注意力分数没有缩放：q·kᵀ 需要除以 √d。"),
    Mistake("scores_scaled_by_d", "A.1", "The scores are divided by d instead of √d.", "注意力分数除以了 d，而不是 √d。"),
    Mistake("scores_scaled_by_key_count", "A.1", "The scores are divided by √Lk (the number of keys) instead of √d (the size of a query or key vector, the last axis).", "注意力分数除以了 √Lk（key 的个数），而不是 √d（query/key 向量的长度，即最后一维）。"),
    Mistake("scores_wrong_transpose", "A.1", "k is transposed on the wrong axes: swap only its last two axes (k.transpose(-2, -1)).", "k 的转置轴不对：只交换最后两个维度（k.transpose(-2, -1)）。"),
    Mistake("softmax_wrong_axis", "A.2", "The softmax normalises over the wrong axis: each query's row (the last axis, over keys) must sum to 1.", "softmax 的归一化维度不对：每个 query 的那一行（最后一维，即 key 维）之和应为 1。"),
    Mistake("softmax_mask_ignored", "A.2", "The mask is not used: the weights are those of the softmax over every key. Fill the blocked scores (mask False) with -inf before the softmax.", "没有使用掩码：权重是对所有 key 做 softmax 的结果。请在 softmax 之前把被屏蔽的分数（mask 为 False）填成 -inf。"),
    Mistake("mask_inverted", "A.2", "The mask is inverted: True means the query MAY attend to that key.", "掩码含义反了：True 表示该 query 可以关注这个 key。"),
    Mistake("mask_filled_with_zero", "A.2", "Blocked scores are set to 0 instead of -inf, so blocked keys still get weight.", "被屏蔽的分数被设成了 0 而不是 -inf，所以被屏蔽的 key 仍然得到了权重。"),
    Mistake("mask_after_softmax", "A.2", "The mask is applied after the softmax: the remaining weights no longer sum to 1. Mask the scores first.", "掩码是在 softmax 之后才加的：剩下的权重之和不再为 1。应先对分数加掩码。"),
    Mistake("softmax_no_max_subtraction", "A.2", "Large scores overflow: subtract each row's maximum before exp().", "分数较大时 exp() 溢出：在 exp() 之前先减去每一行的最大值。"),
    Mistake("softmax_blocked_key_counts", "A.2", "A blocked key with a large score wipes out the allowed weights (they come out 0 or NaN): a blocked score must count nowhere. Fill the blocked scores with -inf before you take each row's maximum and exp(); a maximum taken over every key, or the exp() of a blocked score zeroed only afterwards, lets it count.", "分数很大的被屏蔽 key 会把允许的权重全部变成 0（或 NaN）：被屏蔽的分数不能参与任何计算。请在取每一行的最大值和 exp() 之前，先把被屏蔽的分数填成 -inf；在所有 key 上取最大值，或者先对被屏蔽的分数做 exp() 再置零，都会让它参与进来。"),
    Mistake("fully_masked_nan", "A.2", "A row whose keys are all blocked gives NaN: make such a row all zeros (avoid 0/0 and -inf - -inf).", "所有 key 都被屏蔽的一行得到了 NaN：这样的行应全为 0（避免 0/0 和 -inf - -inf）。"),
    Mistake("softmax_in_place", "A.2", "masked_softmax changes the scores it is given in place (masked_fill_, -=, an indexed assignment): the caller's scores change, and autograd refuses it on scores that require grad. Work on a new tensor: masked_fill, scores - row_max.", "masked_softmax 原地修改了传入的分数（masked_fill_、-=、按下标赋值）：调用者的分数被改掉了，而且分数需要梯度时 autograd 会拒绝。请在新的张量上操作：masked_fill、scores - row_max。"),
    Mistake("mask_fill_overflows", "A.2", "The blocked scores are filled with a number float16 cannot hold (such as -1e9; its largest is 65504): fill with float('-inf'), which every dtype holds, and keep a fully blocked row at zeros.", "被屏蔽的分数填入了 float16 装不下的数（例如 -1e9；float16 最大只有 65504）：请填 float('-inf')（每种 dtype 都能表示），并让全部被屏蔽的一行保持全 0。"),
    Mistake("fully_masked_uniform", "A.2", "A row whose keys are all blocked gives uniform weights: it must be all zeros.", "所有 key 都被屏蔽的一行得到了均匀权重：它应全为 0。"),
    Mistake("sdpa_mask_ignored", "A.3", "The mask is ignored: pass it on to your masked_softmax.", "掩码被忽略了：要把它传给你的 masked_softmax。"),
    Mistake("returned_weights_unmasked", "A.3", "The weights you return are not the ones your output was computed with: the output uses the mask, the returned weights ignore it. Return the masked weights that your output used.", "你返回的权重不是计算输出时用的那一份：输出用了掩码，返回的权重却忽略了掩码。请返回计算输出时用的、加了掩码的权重。"),
    Mistake("causal_mask_inverted", "A.4", "The causal mask is the wrong triangle: query i may see keys 0..i (the lower triangle, diagonal included), not the keys after it.", "因果掩码用错了三角：query i 只能看到 key 0..i（下三角，含对角线），而不是它之后的 key。"),
    Mistake("causal_mask_strict", "A.4", "The causal mask leaves out the diagonal: a query may attend to its own position.", "因果掩码漏掉了对角线：query 可以关注自己所在的位置。"),
    # Part B
    Mistake("selfattn_shared_projection", "B.1", "One projection is used for two or more of Q, K and V: each needs its own nn.Linear (W_q, W_k, W_v).", "Q、K、V 中有两个或三个用了同一个投影：它们各自需要自己的 nn.Linear（W_q、W_k、W_v）。"),
    Mistake("selfattn_mask_ignored", "B.1", "The mask is ignored: pass it on to the attention (your scaled_dot_product_attention or masked_softmax).", "掩码被忽略了：要把它传给注意力计算（你的 scaled_dot_product_attention 或 masked_softmax）。"),
    # Part C
    Mistake("split_no_transpose", "C.1", "The heads are split with a reshape alone: reshape to (B, S, H, Dh), then transpose to (B, H, S, Dh).", "分头时只做了 reshape：应先 reshape 成 (B, S, H, Dh)，再转置成 (B, H, S, Dh)。"),
    Mistake("split_interleaved", "C.1", "The heads are interleaved: head i must take the contiguous features [i·Dh, (i+1)·Dh), so reshape to (B, S, H, Dh), not (B, S, Dh, H).", "分头方式是交错的：第 i 个头应取连续的特征 [i·Dh, (i+1)·Dh)，所以 reshape 成 (B, S, H, Dh)，而不是 (B, S, Dh, H)。"),
    Mistake("split_size_for_count", "C.1", "The head count and the head size are swapped: you made Dh heads of num_heads features each (torch.split(x, n) cuts pieces of size n; torch.chunk(x, n) cuts n pieces). Head i must take the contiguous features [i·Dh, (i+1)·Dh): reshape to (B, S, H, Dh), then transpose to (B, H, S, Dh).", "头数和每个头的大小弄反了：你得到的是 Dh 个头、每个头 num_heads 个特征（torch.split(x, n) 切出的是大小为 n 的块；torch.chunk(x, n) 才是切成 n 块）。第 i 个头应取连续的特征 [i·Dh, (i+1)·Dh)：先 reshape 成 (B, S, H, Dh)，再转置成 (B, H, S, Dh)。"),
    Mistake("merge_no_transpose", "C.2", "The heads are merged with a reshape alone: transpose (B, H, S, Dh) back to (B, S, H, Dh) before flattening.", "合并头时只做了 reshape：展平之前要先把 (B, H, S, Dh) 转置回 (B, S, H, Dh)。"),
    Mistake("merge_interleaved", "C.2", "The heads are merged interleaved: head i's features must come back as the contiguous block [i·Dh, (i+1)·Dh), so transpose (B, H, S, Dh) to (B, S, H, Dh) before flattening, not to (B, S, Dh, H).", "合并头时各头是交错排列的：第 i 个头的特征应回到连续的 [i·Dh, (i+1)·Dh)，所以展平之前把 (B, H, S, Dh) 转置成 (B, S, H, Dh)，而不是 (B, S, Dh, H)。"),
    Mistake("mha_scaled_by_embed_dim", "C.3", "The scores are scaled by √E (the whole embedding) instead of √Dh (one head's size).", "分数按 √E（整个嵌入维度）缩放了，应该按 √Dh（单个头的维度）缩放。"),
    Mistake("mha_no_output_projection", "C.3", "The output projection W_o is missing: apply it to the merged heads.", "缺少输出投影 W_o：合并各头之后要再经过 W_o。"),
    Mistake("mha_key_projection_for_values", "C.3", "The values are projected with W_k: use W_v for the values.", "值（value）用了 W_k 投影：应使用 W_v。"),
    Mistake("mha_weights_after_dropout", "C.3", "The returned weights are the ones after dropout: return the weights from before dropout.", "返回的是 dropout 之后的权重：应返回 dropout 之前的权重。"),
    Mistake("dropout_in_eval", "C.3", "Dropout is still active in eval mode: use nn.Dropout (self.dropout), which is off after model.eval().", "eval 模式下 dropout 仍然生效：请使用 nn.Dropout（self.dropout），它在 model.eval() 之后会自动关闭。"),
    Mistake("mha_weights_without_heads", "C.3", "The weights have no head axis: return every head's weights, (B, H, Lq, Lk), not one map for all heads (torch's nn.MultiheadAttention averages them by default; this task does not).", "返回的权重没有头这一维：应返回每个头的权重 (B, H, Lq, Lk)，而不是所有头合成的一张图（torch 的 nn.MultiheadAttention 默认会对各头取平均；本题不这样做）。"),
    Mistake("mha_mask_ignored", "C.3", "The mask is ignored: pass it to your masked_softmax.", "掩码被忽略了：要把它传给你的 masked_softmax。"),
    # Part D
    Mistake("block_pre_norm", "D.1", "The block normalises before attention (pre-norm): this task asks for post-norm, y = norm(x + dropout(attn(x))).", "该模块在注意力之前做了归一化（pre-norm）：本题要求 post-norm，即 y = norm(x + dropout(attn(x)))。"),
    Mistake("block_no_residual", "D.1", "The residual connection is missing: add x to the attention output before the LayerNorm.", "缺少残差连接：在 LayerNorm 之前要把 x 加到注意力输出上。"),
    Mistake("block_residual_after_norm", "D.1", "The residual is added after the LayerNorm (x + norm(attn(x))): add x first, then normalise, y = norm(x + dropout(attn(x))).", "残差是在 LayerNorm 之后才加的（x + norm(attn(x))）：应先加上 x 再归一化，即 y = norm(x + dropout(attn(x)))。"),
    Mistake("block_norm_eps_too_large", "D.1", "The LayerNorm's eps is larger than 1e-3, which changes the normalised values: keep nn.LayerNorm's default eps (1e-5) or choose one up to 1e-3.", "LayerNorm 的 eps 大于 1e-3，这会改变归一化后的数值：请保留 nn.LayerNorm 默认的 eps（1e-5），或选一个不超过 1e-3 的值。"),
    Mistake("block_no_norm", "D.1", "The LayerNorm is missing: y = norm(x + dropout(attn(x))).", "缺少 LayerNorm：y = norm(x + dropout(attn(x)))。"),
    Mistake("block_mask_ignored", "D.1", "The mask is ignored: pass it on to self.attn (self.attn(x, mask=mask)).", "掩码被忽略了：要把它传给 self.attn（self.attn(x, mask=mask)）。"),
    # Part E
    Mistake("heatmap_transposed", "E.1", "The heatmap is transposed: queries go on the horizontal axis and keys on the vertical axis.", "热力图转置了：横轴应为 query，纵轴应为 key。"),
    Mistake("heatmap_unlabelled", "E.1", "The heatmap's axes are not labelled with the tokens: set the x ticks to the query tokens and the y ticks to the key tokens.", "热力图的坐标轴没有标注词元：x 轴刻度应为 query 词元，y 轴刻度应为 key 词元。"),
    Mistake("heatmap_auto_color_range", "E.1", "The colour range follows the data: fix it to [0, 1] (vmin=0, vmax=1) so that maps can be compared.", "颜色范围随数据变化：应固定为 [0, 1]（vmin=0, vmax=1），这样不同的图才能比较。"),
    Mistake("heatmap_no_colorbar", "E.1", "The heatmap has no colorbar: add one (fig.colorbar or seaborn's cbar=True).", "热力图没有颜色条：请添加（fig.colorbar 或 seaborn 的 cbar=True）。"),
    # Part F
    Mistake("trained_maps_differ", "F.1", "With the reference weights loaded, your block's attention maps differ from the reference model's: check Parts C and D.", "加载参考权重后，你的模块给出的注意力图与参考模型不同：请检查 C、D 两部分。"),
]
MISTAKES: dict[str, Mistake] = {m.key: m for m in _ENTRIES}


def diagnose(actual: torch.Tensor, candidates: Mapping[str, torch.Tensor | tuple[torch.Tensor, ...] | None], rtol: float = 1e-4, atol: float = 1e-6) -> str:
    """The key of the first candidate whose output matches `actual` (same shape, close), or ''.
    A mistake with several forms (a softmax over any wrong axis) gives a tuple of outputs."""
    for key, outputs in candidates.items():
        if key not in MISTAKES:
            raise KeyError(f"unknown mistake {key!r}")
        for expected in outputs if isinstance(outputs, tuple) else (outputs,):
            if expected is None or actual.shape != expected.shape:
                continue
            a, e = actual.to(torch.float64), expected.to(torch.float64)
            if torch.equal(torch.isnan(a), torch.isnan(e)) and torch.allclose(torch.nan_to_num(a), torch.nan_to_num(e), rtol=rtol, atol=atol):
                return key
    return ""
