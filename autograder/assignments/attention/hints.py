"""The attention assignment's hints, in tiers: the idea, then the operation, then the code (en + zh).

The manifest names this file (`hints`); autograder/feedback/hints.py serves them (the first tier
in feedback, the next one at each `attnkit hint A.2`). CHECK_IDEAS: the first tier of checks
whose idea is not their task's, and of failures whose message says more than the check (keyed
`key:<message key>`: a pair expected, one tensor returned).
"""
from __future__ import annotations

from typing import Iterable

from autograder.feedback.hints import Tiers


def _t(en: str, zh: str) -> dict[str, str]:
    return {"en": en, "zh": zh}


TASK_TIERS: dict[str, Tiers] = {
    "A.1": Tiers(
        _t("A score says how well one query matches one key: their dot product, made smaller by the square root of the vector size so that it does not grow with the size.",
           "分数衡量一个查询与一个键的匹配程度：两者的点积，再除以向量长度的平方根，使分数不随向量长度增大。"),
        _t("Multiply q by k with k's last two axes swapped, which gives (..., Lq, Lk); then divide by √d, where d is the size of q's last axis. Use negative axes so any number of leading axes works.",
           "把 q 与“最后两个维度互换后的 k”相乘，得到 (..., Lq, Lk)；再除以 √d，d 是 q 最后一维的大小。用负数下标表示维度，这样前面有多少维都可以。"),
        _t("return q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))",
           "return q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))  # (..., Lq, Lk)"),
    ),
    "A.2": Tiers(
        _t("Softmax turns each row of scores (one query, all its keys) into weights that are at least 0 and add up to 1. A blocked key must end with weight exactly 0, the exponential must never see a huge number, and a row with every key blocked is all zeros.",
           "softmax 把每一行分数（一个查询对所有键）变成非负且和为 1 的权重。被屏蔽的键权重必须恰好为 0；指数函数的输入不能很大；所有键都被屏蔽的一行应全为 0。"),
        _t("Along the last axis (keepdim=True): fill blocked scores with -inf, subtract the row maximum (0 instead where the whole row is -inf), take exp, and divide by the row sum (1 instead where that sum is 0). Work out of place.",
           "沿最后一维（keepdim=True）：把被屏蔽的分数填成 -inf，减去每行的最大值（整行都是 -inf 时改用 0），取 exp，再除以每行的和（和为 0 时改用 1）。不要原地修改输入。"),
        _t("if mask is not None:\n    scores = scores.masked_fill(~mask, float('-inf'))\nrow_max = scores.amax(dim=-1, keepdim=True)\nrow_max = torch.where(torch.isfinite(row_max), row_max, torch.zeros_like(row_max)).detach()\nexp = torch.exp(scores - row_max)\ntotal = exp.sum(dim=-1, keepdim=True)\nreturn exp / (total + (total == 0).to(total.dtype))",
           "if mask is not None:\n    scores = scores.masked_fill(~mask, float('-inf'))  # 屏蔽的位置填 -inf\nrow_max = scores.amax(dim=-1, keepdim=True)  # 每行最大值\nrow_max = torch.where(torch.isfinite(row_max), row_max, torch.zeros_like(row_max)).detach()\nexp = torch.exp(scores - row_max)\ntotal = exp.sum(dim=-1, keepdim=True)  # 每行的和\nreturn exp / (total + (total == 0).to(total.dtype))  # 全屏蔽的行除以 1"),
    ),
    "A.3": Tiers(
        _t("Attention is three steps you have already written two of: scores, then weights, then a weighted sum of the values.",
           "注意力就是三步，其中两步你已经写好了：分数 → 权重 → 对值加权求和。"),
        _t("Call your attention_scores on q and k, your masked_softmax on the scores and the mask, then multiply the weights (..., Lq, Lk) by v (..., Lk, dv). Return both the output and the weights.",
           "用你的 attention_scores 计算 q、k 的分数，再用你的 masked_softmax（带上掩码）得到权重，然后把权重 (..., Lq, Lk) 乘以 v (..., Lk, dv)。输出和权重都要返回。"),
        _t("weights = masked_softmax(attention_scores(q, k), mask)\nreturn weights @ v, weights",
           "weights = masked_softmax(attention_scores(q, k), mask)  # (..., Lq, Lk)\nreturn weights @ v, weights  # (..., Lq, dv), (..., Lq, Lk)"),
    ),
    "A.4": Tiers(
        _t("Query i may see keys 0..i. In a (size_q, size_k) table of True/False that is every cell on or below the diagonal, aligned at the top left.",
           "查询 i 只能看到键 0..i。在一张 (size_q, size_k) 的真/假表里，就是对角线及其下方的所有格子（从左上角对齐）。"),
        _t("Make a bool tensor of ones with shape (size_q, size_k) on the given device, then keep its lower triangle (diagonal included).",
           "在给定的 device 上创建形状为 (size_q, size_k)、全为 True 的布尔张量，再只保留它的下三角（含对角线）。"),
        _t("size_k = size_q if size_k is None else size_k\nreturn torch.ones(size_q, size_k, dtype=torch.bool, device=device).tril()",
           "size_k = size_q if size_k is None else size_k\nreturn torch.ones(size_q, size_k, dtype=torch.bool, device=device).tril()  # (Lq, Lk)"),
    ),
    "B.1": Tiers(
        _t("In self-attention the queries, keys and values are three different learned views of the same sequence x.",
           "自注意力中，查询、键、值是同一个序列 x 的三种不同的、可学习的投影。"),
        _t("In __init__ create three nn.Linear(dim, dim) named W_q, W_k and W_v. In forward apply each to x and pass the three results and the mask to your scaled_dot_product_attention.",
           "在 __init__ 里创建三个 nn.Linear(dim, dim)，分别命名为 W_q、W_k、W_v。在 forward 里把它们各自作用在 x 上，再把三个结果和掩码交给你的 scaled_dot_product_attention。"),
        _t("self.W_q = nn.Linear(dim, dim)  # and W_k, W_v the same way\n...\nreturn scaled_dot_product_attention(self.W_q(x), self.W_k(x), self.W_v(x), mask)",
           "self.W_q = nn.Linear(dim, dim)  # W_k、W_v 同理\n...\nreturn scaled_dot_product_attention(self.W_q(x), self.W_k(x), self.W_v(x), mask)"),
    ),
    "C.1": Tiers(
        _t("Each head sees its own contiguous slice of the features: head i gets features i·Dh up to (i+1)·Dh.",
           "每个头拿到特征中属于自己的一段连续切片：第 i 个头取特征 i·Dh 到 (i+1)·Dh。"),
        _t("Reshape the last axis E into two axes (H, Dh), then swap the positions axis and the heads axis so that heads come first. Take the sizes from x.shape.",
           "把最后一维 E 拆成两维 (H, Dh)，再交换位置维和头维，让头维在前。尺寸从 x.shape 中取。"),
        _t("B, S, E = x.shape\nreturn x.reshape(B, S, num_heads, E // num_heads).transpose(1, 2)",
           "B, S, E = x.shape\nreturn x.reshape(B, S, num_heads, E // num_heads).transpose(1, 2)  # (B, H, S, Dh)"),
    ),
    "C.2": Tiers(
        _t("Merging undoes splitting: the heads go back side by side along the features.",
           "合并是拆分的逆操作：各个头沿特征维重新并排放好。"),
        _t("Swap the heads axis and the positions axis back, then flatten the last two axes (H, Dh) into one of size H·Dh. reshape copies when it must (view does not).",
           "先把头维和位置维换回来，再把最后两维 (H, Dh) 展平成大小为 H·Dh 的一维。reshape 在需要时会复制数据（view 不会）。"),
        _t("B, H, S, Dh = x.shape\nreturn x.transpose(1, 2).reshape(B, S, H * Dh)",
           "B, H, S, Dh = x.shape\nreturn x.transpose(1, 2).reshape(B, S, H * Dh)  # (B, S, E)"),
    ),
    "C.3": Tiers(
        _t("Multi-head attention is H small attentions side by side: project, cut into heads, attend in every head at once, glue the heads back together, and mix them with an output projection.",
           "多头注意力就是并排的 H 个小注意力：投影、拆成多个头、所有头同时做注意力、把头拼回去、再用输出投影混合。"),
        _t("key defaults to query and value to key. Project with W_q, W_k, W_v; split_heads each; masked_softmax(attention_scores(...), mask) per head (the 1/√Dh scale comes from Dh being the last axis); self.dropout on the weights that multiply V; merge_heads; W_o. Return the weights from before dropout.",
           "key 默认等于 query，value 默认等于 key。用 W_q、W_k、W_v 投影，各自 split_heads；每个头上做 masked_softmax(attention_scores(...), mask)（缩放 1/√Dh 来自最后一维是 Dh）；self.dropout 作用在与 V 相乘的权重上；merge_heads；W_o。返回 dropout 之前的权重。"),
        _t("key = query if key is None else key\nvalue = key if value is None else value\nq = split_heads(self.W_q(query), self.num_heads)\nk = split_heads(self.W_k(key), self.num_heads)\nv = split_heads(self.W_v(value), self.num_heads)\nweights = masked_softmax(attention_scores(q, k), mask)\nheads = self.dropout(weights) @ v\nreturn self.W_o(merge_heads(heads)), weights",
           "key = query if key is None else key\nvalue = key if value is None else value\nq = split_heads(self.W_q(query), self.num_heads)  # (B, H, Lq, Dh)\nk = split_heads(self.W_k(key), self.num_heads)  # (B, H, Lk, Dh)\nv = split_heads(self.W_v(value), self.num_heads)  # (B, H, Lk, Dh)\nweights = masked_softmax(attention_scores(q, k), mask)  # (B, H, Lq, Lk)\nheads = self.dropout(weights) @ v  # 只对与 V 相乘的那份权重做 dropout\nreturn self.W_o(merge_heads(heads)), weights"),
    ),
    "D.1": Tiers(
        _t("A post-norm block: attention proposes a change to x, the block adds that change to x (the residual) and normalises the sum.",
           "post-norm 结构：注意力给出对 x 的修正量，模块把它加回 x（残差连接），再对和做归一化。"),
        _t("Run self.attn with x as query, key and value and the mask; apply the block's own self.dropout to its output; add x; apply self.norm. Return that and the attention weights. self.attn gets the same dropout p, which it applies to its weights.",
           "用 x 作为 query、key、value，连同掩码调用 self.attn；对它的输出使用本模块自己的 self.dropout；加上 x；再经过 self.norm。返回结果和注意力权重。self.attn 也拿到同一个 dropout 概率，它作用在自己的权重上。"),
        _t("self.attn = MultiHeadAttention(embed_dim, num_heads, dropout)\n...\nattended, weights = self.attn(x, mask=mask)\nreturn self.norm(x + self.dropout(attended)), weights",
           "self.attn = MultiHeadAttention(embed_dim, num_heads, dropout)\n...\nattended, weights = self.attn(x, mask=mask)  # (B, S, E), (B, H, S, S)\nreturn self.norm(x + self.dropout(attended)), weights"),
    ),
    "E.1": Tiers(
        _t("One column per query, one row per key: reading a column from top to bottom shows where that query looks, and darker means more weight.",
           "一列对应一个查询，一行对应一个键：从上往下读一列，就能看到这个查询在关注哪里；颜色越深，权重越高。"),
        _t("Make a figure only when ax is None. On ax, draw the weights transposed (keys as rows) with a light-to-dark colour map and the colour range 0 to 1; put the query tokens on the x ticks and the key tokens on the y ticks; add a colorbar and both axis labels; set the title when one is given; return ax.",
           "只有 ax 为 None 时才新建图。在 ax 上画转置后的权重（键作为行），用由浅到深的颜色映射，颜色范围 0 到 1；x 轴刻度标查询词元，y 轴刻度标键词元；加颜色条和两个坐标轴标签；给了 title 就设置标题；最后返回 ax。"),
        _t("if ax is None:\n    _, ax = plt.subplots()\nimage = ax.imshow(weights.detach().cpu().numpy().T, cmap='Blues', vmin=0, vmax=1)\nax.set_xticks(range(len(query_tokens)), labels=query_tokens)\nax.set_yticks(range(len(key_tokens)), labels=key_tokens)\nax.set_xlabel('query position'); ax.set_ylabel('key position')\nax.figure.colorbar(image, ax=ax)\nif title:\n    ax.set_title(title)\nreturn ax",
           "if ax is None:\n    _, ax = plt.subplots()\nimage = ax.imshow(weights.detach().cpu().numpy().T, cmap='Blues', vmin=0, vmax=1)  # 行 = 键，列 = 查询\nax.set_xticks(range(len(query_tokens)), labels=query_tokens)\nax.set_yticks(range(len(key_tokens)), labels=key_tokens)\nax.set_xlabel('Query 位置'); ax.set_ylabel('Key 位置')\nax.figure.colorbar(image, ax=ax)\nif title:\n    ax.set_title(title)\nreturn ax"),
    ),
    "F.1": Tiers(
        _t("With the same weights and the same input, a correct block gives exactly the reference model's maps: a difference here comes from Parts C and D.",
           "权重和输入都相同时，正确的模块会给出与参考模型完全相同的注意力图：这里的差异来自 C、D 两部分。"),
        _t("Make every check of Parts C and D pass first; the parameter names must be attn.W_q.weight, ..., attn.W_o.bias, norm.weight, norm.bias.",
           "先让 C、D 两部分的检查全部通过；参数名必须是 attn.W_q.weight、……、attn.W_o.bias、norm.weight、norm.bias。"),
        _t("y = self.norm(x + self.dropout(attended))  # post-norm, with the residual",
           "y = self.norm(x + self.dropout(attended))  # post-norm，带残差连接"),
    ),
    "F.2": Tiers(
        _t("Your plot_attention draws the trained model's maps: each cell must show its weight, and the picture must look like the reference model's map drawn by the same function.",
           "你的 plot_attention 画出训练好的模型的注意力图：每个格子要显示它的权重，整张图要和同一个函数画出的参考模型注意力图看起来一样。"),
        _t("Make Task E.1 pass first. Draw on the Axes you are given, one cell per (query, key) pair, with the fixed colour range, the same way for every map.",
           "先让任务 E.1 通过。画在给定的 Axes 上，每个 (查询, 键) 对一个格子，颜色范围固定，每张图都用同样的画法。"),
        _t("image = ax.imshow(weights.detach().cpu().numpy().T, cmap='Blues', vmin=0, vmax=1)  # on the ax you are given",
           "image = ax.imshow(weights.detach().cpu().numpy().T, cmap='Blues', vmin=0, vmax=1)  # 画在给定的 ax 上"),
    ),
    "F.3": Tiers(
        _t("In a trained head a pronoun looks at the noun it refers to, and a verb at its subject or object rather than at 'the' or 'a'.",
           "训练好的注意力头里，代词关注它所指的名词，动词关注它的主语或宾语，而不是 “the” 或 “a”。"),
        _t("This pattern follows from Parts C and D being right: with the reference weights a correct block shows it. Make the maps of F.1 match first.",
           "只要 C、D 两部分正确，这个模式就会出现：载入参考权重后，正确的模块会显示它。先让 F.1 的注意力图一致。"),
        _t("attended, weights = self.attn(x, mask=mask)\nreturn self.norm(x + self.dropout(attended)), weights",
           "attended, weights = self.attn(x, mask=mask)\nreturn self.norm(x + self.dropout(attended)), weights  # post-norm"),
    ),
}

# The first tier of checks whose idea is not the task's idea (keyed by check id).
CHECK_IDEAS: dict[str, dict[str, str]] = {}


def _ideas(check_ids: Iterable[str], en: str, zh: str) -> None:
    for check_id in check_ids:
        CHECK_IDEAS[check_id] = _t(en, zh)


_ideas(("key:not_a_pair",),
       "Return both results as one tuple: the output first, then the attention weights.",
       "把两个结果作为一个元组一起返回：先是输出，再是注意力权重。")
_ideas(("attention_scores_dtype", "masked_softmax_dtypes"),
       "The result keeps the dtype of the inputs: float16 in, float16 out.",
       "结果保持输入的 dtype：输入 float16，输出也是 float16。")
_ideas(("attention_scores_shape", "attention_scores_any_leading_dims", "sdpa_shapes"),
       "Only the last two axes take part in the product; every axis in front of them is carried along.",
       "只有最后两维参与矩阵乘法，前面的各维原样保留。")
_ideas(("masked_softmax_no_inplace",),
       "A function must leave the tensors it is given as they were.",
       "函数不能修改传给它的张量。")
_ideas(("masked_softmax_by_hand",),
       "This task is to write softmax yourself from exp, sum and division.",
       "这道题要求你自己用 exp、求和与除法写出 softmax。")
_ideas(("sdpa_no_library", "self_attention_no_library", "mha_no_library"),
       "Build this from the functions you wrote, not from the library's ready-made attention.",
       "用你自己写的函数来搭建，不要调用库里现成的注意力。")
_ideas(("masked_softmax_fully_blocked", "masked_softmax_fully_blocked_gradient"),
       "A query that may see no key at all gets no weight at all: a row of zeros, and no NaN anywhere, not even in the gradient.",
       "一个查询如果一个键都不能看，就一点权重也不分：整行为 0，任何地方都不能出现 NaN，梯度里也不能。")
_ideas(("masked_softmax_large_logits", "masked_softmax_row_shift"),
       "Adding the same number to every score of a row does not change softmax; use that to keep the exponential small.",
       "给一行的所有分数加上同一个数，softmax 不变；利用这一点让指数函数的输入不会太大。")
_ideas(("masked_softmax_gradcheck", "mha_gradcheck", "attention_scores_gradients", "sdpa_gradients", "split_heads_gradients", "merge_heads_gradients"),
       "Training needs gradients: build the result from differentiable tensor operations only.",
       "训练需要梯度：结果只能由可微的张量运算构成。")
_ideas(("self_attention_gradients", "mha_gradients", "block_gradients"),
       "The input and every learned parameter must reach the output through differentiable operations (nothing detached), so that gradients flow back to them.",
       "输入和每个可学习的参数都必须通过可微的运算参与输出（不能 detach），梯度才能传回到它们。")
_ideas(("sdpa_invariances", "self_attention_invariances", "mha_invariances"),
       "Attention compares positions with each other, never across the batch: reordering the inputs reorders the result, and one sentence alone gives the same answer as in a batch.",
       "注意力只在位置之间比较，从不跨批次：输入换了顺序，结果也跟着换；单独一句话与放在批次里的结果相同。")
_ideas(("sdpa_causal_future_independence", "block_causal_future_independence"),
       "With a causal mask a position never sees the future, so changing the last position changes nothing before it.",
       "有因果掩码时，一个位置永远看不到未来，所以改动最后一个位置不会影响它前面的输出。")
_ideas(("causal_mask_device",),
       "New tensors are made on the device you are given (or the device of the inputs), so the code also runs on a GPU.",
       "新张量要建在给定的 device（或输入所在的 device）上，这样代码在 GPU 上也能运行。")
_ideas(("mha_eval_dropout_off", "mha_train_dropout", "block_dropout"),
       "Dropout acts only while training; in evaluation mode the same input always gives the same output, and the weights you return are the ones from before dropout.",
       "dropout 只在训练时生效；评估模式下，同样的输入总是得到同样的输出；返回的权重是 dropout 之前的。")
_ideas(("mha_value_error",),
       "The features must split evenly into heads; refuse sizes that do not.",
       "特征必须能平均分给各个头；不能整除时要拒绝。")
_ideas(("plot_attention_uses_given_axes",),
       "A function that is given an Axes draws on that Axes, whatever figure happens to be the current one.",
       "给了 Axes 的函数就画在这个 Axes 上，不管当前的图是哪一个。")
_ideas(("plot_attention_color_range",),
       "Heatmaps can only be compared when the same colour means the same weight in all of them.",
       "只有同一种颜色在所有热力图里代表同一个权重，热力图之间才能比较。")
