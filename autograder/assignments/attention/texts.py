"""The attention assignment's words, in English and Chinese: check names and failure messages.

The manifest names this file (`texts`); the engine renders a result's keys and values with it
(autograder/feedback/messages.py, which also holds the engine's own messages and says how they
are rendered). Hints: hints.py; the mistakes: mistakes.py.

- CHECK_TEXTS: the Chinese name of each check (the English one is its `@check(...)` argument).
- MESSAGES[key][lang]: the str.format templates of this assignment's checks.
- WHERE_WORDS, WHERE_SUFFIXES, WHERE_PATTERNS, AXIS_WORDS, WHAT_WORDS: the Chinese of the words
  the checks write after the code part of a `where` and in a few arguments.
"""
from __future__ import annotations

import functools
import sys
from dataclasses import dataclass

from autograder.feedback.messages import Words, words_of
from autograder.settings import PLOT_MAX_CELLS, PLOT_MAX_DRAWINGS, PLOT_MAX_SIDE


@dataclass(frozen=True)
class CheckText:
    """The Chinese name of one check (its hints: hints.py)."""

    name_zh: str


def _text(name_zh: str) -> CheckText:
    return CheckText(name_zh)


CHECK_TEXTS: dict[str, CheckText] = {
    # A.1
    "attention_scores_shape": _text("attention_scores：批量、多头输入的输出形状"),
    "attention_scores_values": _text("attention_scores：数值等于 q·kᵀ/√d"),
    "attention_scores_any_leading_dims": _text("attention_scores：二维和五维输入、非连续的多头输入也能用"),
    "attention_scores_dtype": _text("attention_scores：保持 float64、float32、float16 和 bfloat16"),
    "attention_scores_gradients": _text("attention_scores：梯度能传到 q 和 k"),
    # A.2
    "masked_softmax_values": _text("masked_softmax：无掩码时的数值，每行之和为 1"),
    "masked_softmax_mask": _text("masked_softmax：被屏蔽的 key 权重恰好为 0，其余之和为 1"),
    "masked_softmax_broadcast_mask": _text("masked_softmax：(Lq, Lk) 和 (B, 1, 1, Lk) 形状的掩码广播到 (B, H, Lq, Lk)"),
    "masked_softmax_fully_blocked": _text("masked_softmax：全部被屏蔽的一行全为 0，绝不是 NaN（float16 和 bfloat16 也一样）"),
    "masked_softmax_fully_blocked_gradient": _text("masked_softmax：全部被屏蔽的一行梯度有限，被屏蔽的分数远高于其余分数时也一样"),
    "masked_softmax_large_logits": _text("masked_softmax：很大的分数（×300、远低于零的整行分数、远高于其余分数的被屏蔽分数）保持有限且正确"),
    "masked_softmax_dtypes": _text("masked_softmax：保持 float16、bfloat16、float32、float64 且不溢出"),
    "masked_softmax_no_inplace": _text("masked_softmax：不修改输入"),
    "masked_softmax_gradcheck": _text("masked_softmax：梯度通过 torch.autograd.gradcheck"),
    "masked_softmax_row_shift": _text("masked_softmax：给一行加上常数，结果不变"),
    "masked_softmax_by_hand": _text("masked_softmax：手写实现（不用 torch.softmax / F.softmax / log_softmax / nn.Softmax）"),
    # A.3
    "sdpa_shapes": _text("scaled_dot_product_attention：返回形状正确的 (output, weights)"),
    "sdpa_values": _text("scaled_dot_product_attention：有无掩码时的数值"),
    "sdpa_mask_edges": _text("scaled_dot_product_attention：屏蔽全部 key 的掩码、需要广播的掩码，以及 2 维和 5 维输入"),
    "sdpa_matches_torch": _text("scaled_dot_product_attention：与 torch 的 F.scaled_dot_product_attention 一致"),
    "sdpa_causal_future_independence": _text("scaled_dot_product_attention：使用因果掩码时，未来位置不影响结果"),
    "sdpa_invariances": _text("scaled_dot_product_attention：同时置换 key 与 value 不改变结果；批次之间相互独立"),
    "sdpa_no_library": _text("scaled_dot_product_attention：用你自己的函数实现，而不是库里的注意力"),
    "sdpa_gradients": _text("scaled_dot_product_attention：输出和权重的梯度能传到 q、k 和 v"),
    # A.4
    "causal_mask_values": _text("causal_mask：方阵和长方阵掩码，key ≤ query 处为 True"),
    "causal_mask_matches_torch": _text("causal_mask：与 F.scaled_dot_product_attention 的 is_causal=True 一致"),
    "causal_mask_device": _text("causal_mask：在给定的 device 上生成掩码"),
    # B.1
    "self_attention_parameters": _text("SelfAttention：三个投影 W_q、W_k、W_v，都是 nn.Linear(dim, dim)"),
    "self_attention_shapes": _text("SelfAttention：返回 (output (B, S, dim), weights (B, S, S))"),
    "self_attention_values": _text("SelfAttention：相同权重下，输出和注意力权重与参考实现相同"),
    "self_attention_training_mode": _text("SelfAttention：训练模式下（新建模块所处的模式）结果相同，没有自己的 dropout"),
    "self_attention_mask": _text("SelfAttention：使用了掩码（True = 可以关注）"),
    "self_attention_gradients": _text("SelfAttention：输出和权重的梯度能传到 W_q、W_k 和 W_v"),
    "self_attention_invariances": _text("SelfAttention：置换位置只会置换结果；批次元素相互独立"),
    "self_attention_no_library": _text("SelfAttention：用你自己的函数实现，而不是库里的注意力"),
    # C.1, C.2
    "split_heads_shape": _text("split_heads：(B, S, H·Dh) -> (B, H, S, Dh)"),
    "split_heads_values": _text("split_heads：第 i 个头取特征 [i·Dh, (i+1)·Dh)"),
    "split_heads_gradients": _text("split_heads：梯度能传到 x"),
    "split_heads_other_sizes": _text("split_heads：其他尺寸、一个头、很多头，并保持 x 的 dtype"),
    "split_heads_noncontiguous": _text("split_heads：对非连续的输入也能用"),
    "merge_heads_values": _text("merge_heads：(B, H, S, Dh) -> (B, S, H·Dh)，各头并排"),
    "merge_heads_noncontiguous": _text("merge_heads：对非连续的输入也能用，并保持 x 的 dtype"),
    "merge_heads_gradients": _text("merge_heads：梯度能传到 x"),
    "split_merge_inverse": _text("merge_heads 还原 split_heads，split_heads 还原 merge_heads"),
    # C.3
    "mha_parameters": _text("MultiHeadAttention：W_q、W_k、W_v、W_o 为 nn.Linear(E, E)，以及 self.dropout"),
    "mha_no_bias": _text("MultiHeadAttention：bias=False 时投影没有偏置，模块也能正常运行"),
    "mha_value_error": _text("MultiHeadAttention：embed_dim 不能被 num_heads 整除时抛出 ValueError"),
    "mha_shapes": _text("MultiHeadAttention：输出 (B, Lq, E)，每个头的权重 (B, H, Lq, Lk)"),
    "mha_values": _text("MultiHeadAttention：相同权重下，自注意力与参考实现相同"),
    "mha_cross_and_defaults": _text("MultiHeadAttention：交叉注意力（key/value 长度不同）；key 默认为 query，value 默认为 key"),
    "mha_mask": _text("MultiHeadAttention：(Lq, Lk)、(B, 1, Lq, Lk) 和 (B, 1, 1, Lk) 形状的掩码在各头上广播，(B, H, Lq, Lk) 的掩码给每个头各自的掩码；所有 key 都被屏蔽的 query 得到全 0；自注意力（不给 key 和 value）时方形掩码也一样"),
    "mha_matches_torch": _text("MultiHeadAttention：相同权重下与 torch 的 nn.MultiheadAttention 一致"),
    "mha_eval_dropout_off": _text("MultiHeadAttention：eval 模式下 dropout 关闭"),
    "mha_train_dropout": _text("MultiHeadAttention：训练模式下 dropout 作用于注意力权重，返回的是 dropout 之前的权重"),
    "mha_gradients": _text("MultiHeadAttention：输出和权重的梯度能传到 W_q、W_k、W_v 和 W_o"),
    "mha_gradcheck": _text("MultiHeadAttention：梯度通过 torch.autograd.gradcheck"),
    "mha_invariances": _text("MultiHeadAttention：置换 query 位置只会置换输出；批次元素相互独立"),
    "mha_no_library": _text("MultiHeadAttention：用你自己的函数实现，而不是库里的注意力"),
    # D.1
    "block_parameters": _text("AttentionBlock：self.attn（MultiHeadAttention）、self.norm（nn.LayerNorm(E)）和 self.dropout"),
    "block_shapes": _text("AttentionBlock：返回 (y (B, S, E), weights (B, H, S, S))"),
    "block_values": _text("AttentionBlock：y = norm(x + dropout(attn(x)))，相同权重下与参考实现相同"),
    "block_mask": _text("AttentionBlock：掩码传到了注意力"),
    "block_dropout": _text("AttentionBlock：eval 模式下 dropout 关闭，训练模式下开启；返回的是 dropout 之前的权重"),
    "block_gradients": _text("AttentionBlock：输出和权重的梯度能传到注意力和 LayerNorm"),
    "block_causal_future_independence": _text("AttentionBlock：使用因果掩码时，后面的位置不改变前面的输出"),
    # E.1
    "plot_attention_returns_axes": _text("plot_attention：返回画有热力图的 Axes，只有一个 query 时也一样"),
    "plot_attention_tick_labels": _text("plot_attention：横轴是 query（x 刻度标签），纵轴是 key（y 刻度标签）"),
    "plot_attention_cell_values": _text("plot_attention：格子显示权重矩阵，每个 (query, key) 对一个格子"),
    "plot_attention_flat_cells": _text("plot_attention：每个格子一种纯色，没有平滑到相邻格子"),
    "plot_attention_colorbar": _text("plot_attention：有颜色条"),
    "plot_attention_color_range": _text("plot_attention：颜色范围固定为 [0, 1]"),
    "plot_attention_light_to_dark": _text("plot_attention：颜色越深表示权重越高（由浅到深的颜色映射）"),
    "plot_attention_axis_labels": _text("plot_attention：两条坐标轴都有标签，横轴的标签说的是 query"),
    "plot_attention_uses_given_axes": _text("plot_attention：画在 ax= 给出的 Axes 上；不给 ax= 时画在新的图上"),
    "plot_attention_title": _text("plot_attention：显示传入的 title="),
    # F.1
    "trained_maps_match": _text("训练好的模型：你的模块给出的注意力图与参考模型相同"),
    # F.2
    "trained_heatmaps_match": _text("训练好的模型：你的 plot_attention 画出的热力图显示参考模型的权重"),
    "trained_heatmaps_look_alike": _text("训练好的模型：你的热力图与参考模型的热力图相似"),
    # F.3
    "pronoun_attends_to_antecedent": _text("训练好的模型：代词关注它的先行词"),
    "verb_attends_to_its_arguments": _text("训练好的模型：动词关注它的主语或宾语，而不是 the 或 a"),
    "pronoun_model_output": _text("训练好的模型：整个模型的输出一致"),
}

MESSAGES: dict[str, dict[str, str]] = {
    # shared helpers (autograder/assignments/attention/checks/support.py, module_support.py)
    "not_a_tensor": {"en": "{where} returned {kind}, expected a torch.Tensor", "zh": "{where} 返回了 {kind}，应返回 torch.Tensor"},
    "wrong_shape": {"en": "{where} returned shape {got}, expected {expected}", "zh": "{where} 返回的形状是 {got}，应为 {expected}"},
    "wrong_shape_permuted": {
        "en": "{where} returned shape {got}, expected {expected} (the same sizes in another order: an axis is transposed or swapped)",
        "zh": "{where} 返回的形状是 {got}，应为 {expected}（尺寸相同但顺序不同：有一个维度被转置或交换了）",
    },
    "wrong_dtype": {"en": "{where} returned dtype {got} for {expected} inputs: keep the input dtype", "zh": "输入是 {expected}，{where} 却返回了 {got}：请保持输入的 dtype"},
    "causal_mask_device": {
        "en": "causal_mask(3, 4, device='meta') returned a mask on {got}: make the mask on the device it is given (device=device), so that it sits next to inputs on a GPU",
        "zh": "causal_mask(3, 4, device='meta') 返回的掩码在 {got} 上：掩码要建在给定的 device 上（device=device），这样才会和 GPU 上的输入在一起",
    },
    "color_range_not_unit": {
        "en": "the colour range is [{low}, {high}], not [0, 1]: fix it with vmin=0, vmax=1 so that maps can be compared",
        "zh": "颜色范围是 [{low}, {high}]，不是 [0, 1]：用 vmin=0, vmax=1 把它固定下来，这样不同的图才能比较",
    },
    "heatmap_cells_dark_to_light": {
        "en": "the cell of the highest weight is not darker than the cell of the lowest, as your heatmap colours them: more weight must be darker (a light-to-dark map such as 'Blues', through a plain vmin=0, vmax=1)",
        "zh": "按你的热力图的着色，权重最大的格子并不比权重最小的格子深：权重越大颜色应越深（用 'Blues' 这类由浅到深的颜色映射，直接用 vmin=0、vmax=1）",
    },
    "heatmap_dark_to_light": {
        "en": "the colour map '{cmap}' does not go from light (weight 0) to dark (weight 1), so the strongest cell is not the darkest one: use a light-to-dark map such as 'Blues'",
        "zh": "颜色映射 '{cmap}' 不是由浅（权重 0）到深（权重 1），所以权重最大的格子不是颜色最深的：请使用由浅到深的颜色映射，例如 'Blues'",
    },
    "heatmap_lightens_again": {
        "en": "the colour map '{cmap}' does not darken all the way from weight 0 to weight 1: somewhere a higher weight gets a lighter colour, so a stronger cell can look weaker: use a map that darkens steadily, such as 'Blues'",
        "zh": "颜色映射 '{cmap}' 并不是从权重 0 到权重 1 一路变深：某处权重更高颜色反而更浅，权重大的格子可能看起来更弱：请使用一路由浅到深的颜色映射，例如 'Blues'",
    },
    "mask_dtype": {
        "en": "{where} returned dtype {got}, expected {expected}: a mask is a bool tensor (True = may attend, False = blocked)",
        "zh": "{where} 返回的 dtype 是 {got}，应为 {expected}：掩码是布尔张量（True = 可以关注，False = 屏蔽）",
    },
    "not_a_pair": {"en": "{where} returned {kind}, expected a pair (output, weights)", "zh": "{where} 返回了 {kind}，应返回一对 (output, weights)"},
    "nan_values": {"en": "{where} returned NaN {what}", "zh": "{where} 返回了 NaN {what}"},
    "wrong_values": {"en": "{where} returned wrong {what} (largest error {error})", "zh": "{where}：{what}不对（最大误差 {error}）"},
    "uses_library": {"en": "{where} uses {used}: {advice}", "zh": "{where} 用到了 {used}：这里要用你自己写的函数实现，不要调用库函数"},
    "rule_unchecked": {
        "en": "{where} cannot be checked for this rule: your file uses {found}, which can hide library calls (see the rules in the README)",
        "zh": "无法检查 {where} 是否遵守这条规则：你的文件用到了 {found}，这类写法会隐藏库函数调用（见 README 中的规则）",
    },
    "rule_unread": {
        "en": "{where} cannot be checked for this rule: the grader could not read your file within {seconds} s of CPU, so it cannot tell what the code calls (see the limits in the README)",
        "zh": "无法检查 {where} 是否遵守这条规则：评分器没能在 {seconds} 秒 CPU 时间内读完你的文件，无法判断代码调用了什么（见 README 中的限制）",
    },
    "rule_elsewhere": {
        "en": "{where} cannot be checked for this rule: code ran in another thread or process during the call, where the grader cannot trace it (see the rules in the README)",
        "zh": "无法检查 {where} 是否遵守这条规则：调用期间有代码在另一个线程或进程中运行，评分器无法追踪（见 README 中的规则）",
    },
    "rule_subclassed": {
        "en": "{where} cannot be checked for this rule: an object's own __torch_function__ or __torch_dispatch__ (a tensor subclass's) ran during the call, where the grader cannot trace it (see the rules in the README)",
        "zh": "无法检查 {where} 是否遵守这条规则：调用期间运行了某个对象（张量子类）自己的 __torch_function__ 或 __torch_dispatch__，评分器无法追踪（见 README 中的规则）",
    },
    "rule_untraced": {"en": "the grader could not trace {where}: code in your file switched its tracing off", "zh": "评分器无法追踪 {where}：你文件中的代码关闭了它的追踪"},
    "figure_untrusted": {
        "en": "the figure cannot be graded: your file uses {found}, which can change what the grader reads from it",
        "zh": "无法评这张图：你的文件用到了 {found}，这类写法会改变评分器从图中读到的内容",
    },
    "figure_unread": {
        "en": "the figure cannot be graded: the grader could not read your file within {seconds} s of CPU, so it cannot tell whether the code changes what the grader reads from the figure",
        "zh": "无法评这张图：评分器没能在 {seconds} 秒 CPU 时间内读完你的文件，无法判断代码是否改变了评分器从图中读到的内容",
    },
    "figure_disagrees": {"en": "your figure could not be read reliably: {problem}", "zh": "无法可靠地读取你的图：图的描述与图像不一致（{problem}）"},
    "heatmap_smoothed_mesh": {
        "en": "the heatmap is smoothed (pcolormesh's shading={shading!r}), which blends the colours between the cells, so the grader cannot read the cells: draw one flat colour per cell (shading=\"flat\" or \"nearest\", or imshow)",
        "zh": "热力图被平滑了（pcolormesh 的 shading={shading!r}），格子之间的颜色互相混合，评分器无法逐格读取：每个格子画成一种纯色（shading=\"flat\" 或 \"nearest\"，或用 imshow）",
    },
    "heatmap_smoothed": {
        "en": "the heatmap is smoothed (imshow's interpolation={interpolation!r}), which blends each cell's colour into its neighbours', so the grader cannot read the cells: draw one flat colour per cell (leave interpolation out, or interpolation=\"nearest\")",
        "zh": "热力图被平滑了（imshow 的 interpolation={interpolation!r}），每个格子的颜色会混进相邻格子，评分器无法逐格读取：每个格子画成一种纯色（去掉 interpolation，或用 interpolation=\"nearest\"）",
    },
    "heatmap_blended": {
        "en": "the heatmap is smoothed (imshow's interpolation={interpolation!r}), which blends each cell's colour into its neighbours': draw one flat colour per cell (leave interpolation out, or interpolation=\"nearest\")",
        "zh": "热力图被平滑了（imshow 的 interpolation={interpolation!r}），每个格子的颜色会混进相邻格子：每个格子画成一种纯色（去掉 interpolation，或用 interpolation=\"nearest\"）",
    },
    "figure_label_missing": {"en": "a tick label of the description has no place in the image", "zh": "描述中的一个刻度标签在图像中没有位置"},
    "figure_label_outside": {"en": "a tick label of the description lies outside the image", "zh": "描述中的一个刻度标签位于图像之外"},
    "figure_cells_hidden": {"en": "most cells of the heatmap are hidden under the texts the description puts on them", "zh": "描述中放在热力图格子上的文字遮住了大部分格子"},
    "figure_label_aside": {"en": "a tick label of the description is not beside the row or column it names", "zh": "描述中的一个刻度标签不在它所标注的行或列旁边"},
    "figure_label_not_shown": {"en": "the image does not show a tick label where the description puts it", "zh": "图像中在描述所说的位置上没有显示那个刻度标签"},
    "no_parameter": {"en": "{where} has no parameter {names}: name the layers as the task says ({expected})", "zh": "{where} 没有参数 {names}：请按题目要求给各层命名（{expected}）"},
    "no_bias": {"en": "{where} has no parameter {names}: its layers need a bias (nn.Linear and nn.LayerNorm have one unless they are given bias=False)", "zh": "{where} 没有参数 {names}：这些层需要偏置（nn.Linear 和 nn.LayerNorm 默认有偏置，除非传入 bias=False）"},
    "layer_without_parameters": {
        "en": "{where} has no parameter {names}: its layers {layers} are named right but made without them (nn.LayerNorm(embed_dim) has a weight and a bias unless elementwise_affine=False)",
        "zh": "{where} 没有参数 {names}：层 {layers} 的名字对，但创建时没有这些参数（nn.LayerNorm(embed_dim) 默认有 weight 和 bias，除非传入 elementwise_affine=False）",
    },
    "no_parameter_but": {
        "en": "{where} has no parameter {names} (it has {own}): name the layers as the task says ({expected})",
        "zh": "{where} 没有参数 {names}（它有的是 {own}）：请按题目要求给各层命名（{expected}）",
    },
    "no_gradient": {"en": "{where}: no gradient reaches {name} (is it used, and not detached?)", "zh": "{where}：梯度没有传到 {name}（它被用到了吗？有没有被 detach？）"},
    "gradients_failed": {"en": "{where}: gradients could not be computed ({text})", "zh": "{where}：无法计算梯度（{text}）"},
    "gradcheck_failed": {
        "en": "{where}: the gradients autograd computes do not match finite differences (torch.autograd.gradcheck failed)",
        "zh": "{where}：autograd 算出的梯度与有限差分不一致（torch.autograd.gradcheck 未通过）",
    },
    "double_lost": {"en": "{where}.double() did not return the module", "zh": "{where}.double() 没有返回模块本身"},
    "float_lost": {"en": "{where}.float() did not return the module", "zh": "{where}.float() 没有返回模块本身"},
    "load_no_account": {"en": "{where}.load_state_dict() gave no account of the parameters it loaded", "zh": "{where}.load_state_dict() 没有报告它加载了哪些参数"},
    # A
    "blocked_nonzero": {"en": "masked_softmax: blocked keys (mask False) got a non-zero weight", "zh": "masked_softmax：被屏蔽的 key（掩码为 False）得到了非零权重"},
    "fully_blocked_not_zero": {"en": "masked_softmax: a fully blocked row is not all zeros", "zh": "masked_softmax：全部被屏蔽的一行不全为 0"},
    "fully_blocked_gradient_nan": {
        "en": "masked_softmax: the gradient is NaN or infinite through a row whose keys are all blocked, though its values are zeros:"
              " a `torch.where` passes back the gradient of the branch it did not choose, so a 0/0 there gives NaN; make that branch finite too (divide by 1 where the sum is 0)",
        "zh": "masked_softmax：所有键都被屏蔽的一行值虽为 0，但梯度是 NaN 或无穷：`torch.where` 也会反传没有选中的那个分支的梯度，"
              "那里的 0/0 会得到 NaN；让那个分支也是有限的（和为 0 时除以 1）",
    },
    "changed_scores": {
        "en": "masked_softmax changed the scores it was given: work on a copy (masked_fill, not masked_fill_)",
        "zh": "masked_softmax 修改了传入的分数：请在副本上操作（用 `masked_fill`，而不是 `masked_fill_`）",
    },
    "changed_mask": {"en": "masked_softmax changed the mask it was given", "zh": "masked_softmax 修改了传入的掩码"},
    "causal_wrong": {"en": "{where} is wrong: query i may attend to keys 0..i", "zh": "{where} 不对：query i 只能关注 key 0..i"},
    # B-D: the modules' parts
    "not_a_module": {"en": "{where} is a {kind}, expected a subclass of nn.Module", "zh": "{where} 是 {kind}，应为 nn.Module 的子类"},
    "no_linear": {"en": "{where} has no nn.Linear named {name}", "zh": "{where} 没有名为 {name} 的 nn.Linear"},
    "param_shape": {"en": "{where} should have shape {expected}, found {got}", "zh": "{where} 的形状应为 {expected}，实际是 {got}"},
    "mha_no_dropout": {
        "en": "MultiHeadAttention has no self.dropout = nn.Dropout(dropout) with the p it was given",
        "zh": "MultiHeadAttention 没有按传入的 p 创建 `self.dropout = nn.Dropout(dropout)`",
    },
    "still_has_bias": {"en": "{where} still has {names}", "zh": "{where} 仍然有 {names}"},
    "has_no": {"en": "{where} has no {names}", "zh": "{where} 没有 {names}"},
    "wrong_exception": {"en": "{where} raised {kind}, expected ValueError", "zh": "{where} 抛出了 {kind}，应抛出 `ValueError`"},
    "no_value_error": {
        "en": "MultiHeadAttention(10, 3) did not raise ValueError (10 is not divisible by 3)",
        "zh": "`MultiHeadAttention(10, 3)` 没有抛出 `ValueError`（10 不能被 3 整除）",
    },
    "block_attn_class": {"en": "AttentionBlock.attn should be your MultiHeadAttention, found {kind}", "zh": "`AttentionBlock.attn` 应为你的 MultiHeadAttention，实际是 {kind}"},
    "block_norm": {"en": "AttentionBlock.norm should be nn.LayerNorm(embed_dim)", "zh": "`AttentionBlock.norm` 应为 `nn.LayerNorm(embed_dim)`"},
    "block_no_projections": {"en": "AttentionBlock has no {names} of shape {expected}", "zh": "AttentionBlock 没有形状为 {expected} 的 {names}"},
    "block_dropout_not_passed_on": {
        "en": "AttentionBlock(E, H, dropout={rate}) built self.attn with dropout {got}: the block passes its dropout on, MultiHeadAttention(embed_dim, num_heads, dropout)",
        "zh": "AttentionBlock(E, H, dropout={rate}) 建出的 self.attn 的 dropout 是 {got}：模块要把自己的 dropout 传下去，MultiHeadAttention(embed_dim, num_heads, dropout)",
    },
    "block_no_dropout": {"en": "AttentionBlock has no self.dropout = nn.Dropout(dropout)", "zh": "AttentionBlock 没有 `self.dropout = nn.Dropout(dropout)`"},
    "not_module": {"en": "{where} is not a module", "zh": "{where} 不是模块"},
    # E
    "plot_returned": {"en": "plot_attention returned {kind}, expected the matplotlib Axes it drew on", "zh": "plot_attention 返回了 {kind}，应返回它所画的 matplotlib Axes"},
    "colorbar_of_other_colours": {
        "en": "the figure's colorbar shows other colours or another range than the heatmap, so it cannot be used to read it: make it from the heatmap (fig.colorbar(im, ax=ax), im = ax.imshow(...))",
        "zh": "图中的 colorbar 与热力图的颜色或范围不同，无法用来读热力图：请用热力图本身生成它（fig.colorbar(im, ax=ax)，其中 im = ax.imshow(...)）",
    },
    "self_attention_transposed": {
        "en": "right when Lq != Lk, but a self-attention map (Lq = Lk, the same tokens on both axes, as Part F draws) is drawn with the queries down the rows: orient the matrix by what its axes are ((Lq, Lk): transpose it), not by its shape",
        "zh": "Lq != Lk 时是对的，但自注意力的图（Lq = Lk，两个轴是同一组词，Part F 画的就是这种）把 query 画成了行：请按矩阵各维的含义决定方向（(Lq, Lk) 要转置），不要按形状判断",
    },
    "tall_map_transposed": {
        "en": "right when Lq < Lk, but a map with more queries than keys (6 x 3) is drawn with the queries down the rows: orient the matrix by what its axes are ((Lq, Lk): transpose it), not by its shape",
        "zh": "Lq < Lk 时是对的，但 query 比 key 多的图（6 x 3）把 query 画成了行：请按矩阵各维的含义决定方向（(Lq, Lk) 要转置），不要按形状判断",
    },
    "tall_map_wrong": {
        "en": "right when Lq < Lk, but a map with more queries than keys (6 x 3) is drawn as {rows} rows x {cols} columns whose cells are not the weights their tick labels name: one column per query, one row per key, each labelled with its token; orient the matrix by what its axes are ((Lq, Lk): transpose it), not by its shape",
        "zh": "Lq < Lk 时是对的，但 query 比 key 多的图（6 x 3）画成了 {rows} 行 x {cols} 列，格子不是它的刻度标签所指的权重：应每个 query 一列、每个 key 一行，并标上对应的词；请按矩阵各维的含义决定方向（(Lq, Lk) 要转置），不要按形状判断",
    },
    "self_attention_labels": {
        "en": "on a self-attention map whose tokens repeat a word (Part F's sentences have 'the' twice) the tick labels of the {which} are not the tokens {tokens} in order, one per row and column ({shown}): put tick i at position i (range(len(tokens))), not where a token is looked up",
        "zh": "在词有重复的自注意力图上（Part F 的句子里 'the' 出现两次），{which}的刻度标签不是按顺序、每行每列一个的词 {tokens}（{shown}）：第 i 个刻度放在位置 i（range(len(tokens))），不要按查找词得到的位置放",
    },
    "cells_out_of_view": {
        "en": "the Axes' limits (set_xlim / set_ylim) leave {columns} of the heatmap's {total_columns} columns and {rows} of its {total_rows} rows off the picture: show every cell (leave the limits to imshow, or set them to the edges of the cells)",
        "zh": "Axes 的坐标范围（set_xlim / set_ylim）把热力图 {total_columns} 列中的 {columns} 列、{total_rows} 行中的 {rows} 行留在了画面之外：请显示每一个格子（让 imshow 自己定范围，或把范围设到格子的边上）",
    },
    "plot_one_query": {
        "en": "plot_attention with the weights of one query ((1, Lk), one query token) does not draw a heatmap of one row of cells and return its Axes ({error}): keep both axes of the matrix (no .squeeze())",
        "zh": "plot_attention 画只有一个 query 的权重（(1, Lk)，一个 query 词）时，没有画出只有一行格子的热力图并返回它的 Axes（{error}）：保留矩阵的两个维度（不要 .squeeze()）",
    },
    "plot_returned_other_axes": {
        "en": "plot_attention returned an Axes that does not hold the heatmap (the colorbar's, or another Axes of the figure): return the Axes it drew the heatmap on",
        "zh": "plot_attention 返回的 Axes 上没有热力图（是 colorbar 的或图中另一个 Axes）：请返回画热力图的那个 Axes",
    },
    "plot_returned_given_axes": {
        "en": "given ax= and no title, plot_attention returned {kind}, expected the Axes it drew on (with a title it returns it): return the Axes whatever the arguments",
        "zh": "传入 ax= 且不给 title 时，plot_attention 返回了 {kind}，应返回它所画的 Axes（给了 title 时是对的）：无论参数如何都要返回 Axes",
    },
    "plot_picture_too_large": {
        "en": "your figure's picture is {width}x{height} pixels, more than the grader reads ({limit} pixels; a heatmap of a few dozen tokens needs far fewer): keep figsize moderate and draw nothing far from the Axes",
        "zh": "你的图有 {width}x{height} 像素，超过了评分程序读取的上限（{limit} 像素；几十个词的热力图远用不了这么多）：figsize 适中，不要在离 Axes 很远的地方画东西",
    },
    "plot_needs_detach": {
        "en": "given weights that require grad, as a model's weights do outside torch.no_grad(), plot_attention failed ({error}); without grad it draws them: .detach() the weights before .numpy()",
        "zh": "传入需要梯度的权重（模型在 torch.no_grad() 之外输出的权重就是这样）时，plot_attention 出错（{error}）；不需要梯度时它能画出来：调用 .numpy() 之前先 .detach()",
    },
    "heatmap_cell_count": {
        "en": "the heatmap has {rows} rows and {cols} columns for {lq} queries and {lk} keys: draw one cell per (query, key) pair",
        "zh": "热力图有 {rows} 行 {cols} 列，而 query 有 {lq} 个、key 有 {lk} 个：每个 (query, key) 对画一个格子",
    },
    "tick_labels_swapped": {
        "en": "the cells run queries across, one column per query, but the horizontal axis is labelled with the key tokens and the vertical one with the query tokens: label the x ticks with the query tokens and the y ticks with the key tokens",
        "zh": "格子是按 query 横向排列的（每个 query 一列），但横轴标的是 key 词元、纵轴标的是 query 词元：x 轴刻度应标 query 词元，y 轴刻度应标 key 词元",
    },
    "tick_labels_not_tokens": {
        "en": "every cell of the {which} has a tick label, but not every label is its token ({shown}): label each tick with the token as given (its position may be added, as in 'the (0)')",
        "zh": "{which}的每个格子都有刻度标签，但并非每个标签都是它的词元（{shown}）：每个刻度用原样的词元作标签（可以加上位置，例如 'the (0)'）",
    },
    "ticks_not_per_cell": {
        "en": "the ticks of the {which} do not sit one per cell with every token: set the ticks at the cell centres with one token each (imshow and matshow: ax.set_xticks(range(Lq), labels=...); pcolormesh, whose cells run from i to i + 1: ax.set_xticks(np.arange(Lq) + 0.5, labels=...))",
        "zh": "{which}的刻度没有做到每个格子一个、每个词元都有：把刻度放在格子中心，每个刻度一个词元（imshow 和 matshow：`ax.set_xticks(range(Lq), labels=...)`；pcolormesh 的格子从 i 到 i + 1：`ax.set_xticks(np.arange(Lq) + 0.5, labels=...)`）",
    },
    "gradient_nan_blocked_high": {
        "en": "masked_softmax gives the right weights where a blocked score lies far above the allowed ones, but a NaN gradient: exp() of that score overflows to inf before the mask zeroes it, and the gradient through the zero is 0 · inf = NaN, which training spreads to every weight; set blocked scores to -inf (masked_fill) before exp(), not after",
        "zh": "被屏蔽的分数远高于允许的分数时，masked_softmax 的权重是对的，但梯度是 NaN：该分数的 exp() 在被掩码置零之前就溢出成了 inf，经过置零的梯度是 0 · inf = NaN，训练时会传到每个权重；请在 exp() 之前（而不是之后）把被屏蔽的分数设为 -inf（masked_fill）",
    },
    "bfloat16_overflows": {
        "en": "masked_softmax gives NaN or inf for bfloat16 scores beyond float16's range (1e5; float16's largest is 65504): compute in the scores' own dtype, or in float32, not in a float16 copy",
        "zh": "bfloat16 的分数超出 float16 的范围（1e5；float16 最大只有 65504）时，masked_softmax 给出了 NaN 或 inf：请在分数自身的 dtype（或 float32）里计算，不要转成 float16",
    },
    "constant_overflows": {
        "en": "masked_softmax on {dtype} raised RuntimeError: a number in `{line}` does not fit in {dtype} (float16's largest is 65504); use one the dtype holds (torch.finfo(scores.dtype).min, or float('-inf') where -inf is meant)",
        "zh": "masked_softmax 在 {dtype} 上抛出了 RuntimeError：`{line}` 中的某个数超出了 {dtype} 的范围（float16 最大只有 65504）；请用该 dtype 能表示的数（torch.finfo(scores.dtype).min，或在表示 -inf 的地方用 float('-inf')）",
    },
    "tick_labels_on_automatic_ticks": {
        "en": "the tokens sit one per cell on your figure but not on the Axes given as ax= (another size): tick labels set without their positions go on matplotlib's automatic ticks, which move with the size; give the positions too: ax.set_xticks(range(Lq), labels=...)",
        "zh": "在你自己的图上每个格子一个词元，但在传入的 ax= 上（尺寸不同）却不是：只设置刻度标签而不设置刻度位置时，标签落在 matplotlib 自动生成的刻度上，而自动刻度会随尺寸变化；请同时给出位置：`ax.set_xticks(range(Lq), labels=...)`",
    },
    "cells_mislabelled": {
        "en": "{count} of {total} cells do not show the weight of the (query, key) pair their labels name",
        "zh": "{total} 个格子中有 {count} 个显示的不是其标签所指 (query, key) 对的权重",
    },
    "cells_wrong": {"en": "the cells do not show the weight matrix (rows = keys, columns = queries)", "zh": "格子显示的不是权重矩阵（行 = key，列 = query）"},
    "axis_label_unreadable": {"en": "the label of the {which} is too small (under 4 pt) or too faint against the page to be read: draw it at a readable size, in a colour that stands out", "zh": "{which}的标签太小（不到 4 pt）或颜色与背景太接近，看不清：请用能看清的字号和颜色"},
    "tick_labels_unreadable": {"en": "the tick labels of the {which} are too small (under 4 pt) or too faint against the page to be read: draw the tokens at a readable size, in a colour that stands out", "zh": "{which}的刻度标签太小（不到 4 pt）或颜色与背景太接近，看不清：请用能看清的字号和颜色写出词元"},
    "colorbar_unreadable": {"en": "the colorbar is too thin (under 2 pixels at 72 dpi) to show its colours: draw it at a readable width", "zh": "颜色条太窄（72 dpi 下不到 2 像素），看不出颜色：请把它画得足够宽"},
    "axis_unlabelled": {"en": "no label on the {which}: name what each axis shows (query / key positions)", "zh": "{which}没有标签：写明它表示什么（Query / Key 位置）"},
    "axis_labels_swapped": {
        "en": "the axis labels name the wrong axes (horizontal: {xlabel!r}, vertical: {ylabel!r}): queries run across and keys down, so the horizontal label names the queries and the vertical one the keys",
        "zh": "坐标轴标签写反了（横轴：{xlabel!r}，纵轴：{ylabel!r}）：横轴是 Query、纵轴是 Key，标签也应如此",
    },
    "axis_labels_same": {
        "en": "both axes have the label {label!r}: it cannot say which one holds the queries; name the queries on the horizontal axis and the keys on the vertical one",
        "zh": "两条坐标轴的标签都是 {label!r}：看不出哪条是 Query；请在横轴写 Query、纵轴写 Key",
    },
    "given_axes_ignored": {
        "en": "with ax= given, plot_attention drew on another figure or returned another Axes: draw on ax and return it",
        "zh": "给出 `ax=` 时，plot_attention 画在了别的图上或返回了别的 Axes：请画在 ax 上并返回它",
    },
    "given_axes_empty": {"en": "with ax= given, the heatmap is not on that Axes", "zh": "给出 `ax=` 时，热力图不在那个 Axes 上"},
    "open_axes_drawn_over": {
        "en": "without ax=, plot_attention drew over the Axes of a figure that was already open (plt.gca()): make a new figure then (fig, ax = plt.subplots())",
        "zh": "不给 `ax=` 时，plot_attention 画在了已经打开的图的 Axes 上（plt.gca()）：这时请新建一张图（fig, ax = plt.subplots()）",
    },
    "given_axes_text_elsewhere": {
        "en": "with ax= given, the heatmap is on ax but its {names} went to another Axes or figure: plt.title, plt.xlabel, plt.ylabel, plt.xticks, plt.colorbar and plt.gcf() act on the current Axes and figure, not on ax's; use ax.set_title, ax.set_xlabel, ax.set_ylabel, ax.set_xticks(ticks, labels=...) and ax.figure.colorbar",
        "zh": "给出 `ax=` 时，热力图画在了 ax 上，但它的 {names} 跑到了别的 Axes 或图上：plt.title、plt.xlabel、plt.ylabel、plt.xticks、plt.colorbar 和 plt.gcf() 作用于当前的 Axes 和图，而不是 ax 所在的；请用 ax.set_title、ax.set_xlabel、ax.set_ylabel、ax.set_xticks(ticks, labels=...) 和 ax.figure.colorbar",
    },
    "given_axes_text_missing": {
        "en": "with ax= given, the heatmap on ax has no {names}, which the figure you make without ax= has: set them in both cases (ax.set_title, ax.set_xlabel, ax.set_ylabel, ax.set_xticks(ticks, labels=...), ax.figure.colorbar)",
        "zh": "给出 `ax=` 时，ax 上的热力图没有 {names}，而不给 ax 时你画的图有：两种情况都要设置（ax.set_title、ax.set_xlabel、ax.set_ylabel、ax.set_xticks(ticks, labels=...)、ax.figure.colorbar）",
    },
    "title_wrong": {"en": "the Axes title is not the text given as title=", "zh": "Axes 的标题不是 `title=` 传入的文字"},
    # why a figure cannot be read (autograder.grading.heatmap.UnreadablePlot; matched by their English text)
    "plot_empty": {"en": "the heatmap is empty", "zh": "热力图是空的"},
    "plot_rgb": {
        "en": "the heatmap is drawn as an RGB(A) picture, so its values cannot be read: pass the weight matrix itself to imshow (with cmap=...), not colours",
        "zh": "热力图是以 RGB(A) 图片画出的，读不出数值：请把权重矩阵本身传给 imshow（配合 `cmap=...`），而不是颜色",
    },
    "plot_mesh_colours": {"en": "the heatmap mesh holds colours, not values: pass the weight matrix itself", "zh": "热力图的网格里存的是颜色而不是数值：请传入权重矩阵本身"},
    "plot_nothing": {"en": "nothing was drawn: your function must draw on a matplotlib Axes and return it", "zh": "什么也没有画出来：你的函数必须画在一个 matplotlib Axes 上并返回它"},
    "plot_no_heatmap": {
        "en": "the Axes your function returned holds no heatmap: draw with ax.imshow(...) or seaborn.heatmap(..., ax=ax) on that Axes",
        "zh": "你的函数返回的 Axes 上没有热力图：请在这个 Axes 上用 `ax.imshow(...)` 或 `seaborn.heatmap(..., ax=ax)` 画图",
    },
    "plot_grid_mismatch": {"en": "the heatmap's cells and its grid do not agree", "zh": "热力图的格子与它的网格不一致"},
    "plot_malformed": {"en": "the description of your figure is malformed", "zh": "你的图的描述格式不正确"},
    "plot_picture_not_png": {"en": "the description of your figure is malformed (its picture is not a PNG image)", "zh": "你的图的描述格式不正确（其中的图片不是 PNG）"},
    "plot_text_not_drawn": {
        "en": "your figure cannot be drawn: one of its texts holds a character that cannot be encoded (a lone surrogate such as \\ud800), which no font can draw",
        "zh": "无法画出你的图：其中一段文字含有无法编码的字符（例如孤立的代理字符 \\ud800），任何字体都画不出来",
    },
    "plot_not_drawable": {
        "en": "matplotlib cannot draw your figure ({error}); plt.show() and savefig fail the same way: fix what that error names",
        "zh": "matplotlib 画不出你的图（{error}）；plt.show() 和 savefig 也会同样出错：请改正这个错误所指的地方",
    },
    "plot_too_large": {
        "en": f"the heatmap is too large to read: at most {PLOT_MAX_SIDE} rows or columns and {PLOT_MAX_CELLS} cells",
        "zh": f"热力图太大，无法读取：最多 {PLOT_MAX_SIDE} 行或列、{PLOT_MAX_CELLS} 个格子",
    },
    "plot_too_many_drawings": {
        "en": f"the Axes holds more than {PLOT_MAX_DRAWINGS} images and meshes: draw the heatmap once",
        "zh": f"这个 Axes 上的图像和网格超过 {PLOT_MAX_DRAWINGS} 个：热力图只画一次",
    },
    "plot_bad_edges": {
        "en": f"the heatmap's cell edges are malformed or more than {PLOT_MAX_SIDE + 1}",
        "zh": f"热力图的格子边界格式不正确或超过 {PLOT_MAX_SIDE + 1} 个",
    },
    # C.3 / D.1 dropout
    "mha_output_without_dropout": {
        "en": "{where} with dropout=0.5 gives the output without dropout: apply self.dropout to the weights that multiply V",
        "zh": "{where} 在 dropout=0.5 时给出的是没有 dropout 的输出：请对乘以 V 的权重使用 self.dropout",
    },
    "mha_dropout_not_on_weights": {
        "en": "{where}: the output is not what dropping some attention weights gives: apply self.dropout to the weights that multiply V, not to the output or the heads",
        "zh": "{where}：输出不是丢弃部分注意力权重后应得的结果：请对乘以 V 的权重使用 self.dropout，而不是对输出或各头的结果",
    },
    "mha_dropout_not_rescaled": {
        "en": "{where}: the weights that multiply V are dropped but the kept ones are not scaled up by 1/(1 - p), as nn.Dropout does in training mode: apply self.dropout to them",
        "zh": "{where}：乘以 V 的权重做了丢弃，但保留下来的权重没有乘以 1/(1 - p)（nn.Dropout 在训练模式下会这样做）：请对它们使用 self.dropout",
    },
    "mha_dropout_rate_unused": {
        "en": "{where}: the output is not that of the weights dropped at rate {rate} and the kept ones scaled by 1/(1 - {rate}): dropout must use the rate it is given, self.dropout = nn.Dropout(dropout)",
        "zh": "{where}：输出不是以 {rate} 的比例丢弃权重、并把保留的权重乘以 1/(1 - {rate}) 的结果：dropout 要用传入的比例，self.dropout = nn.Dropout(dropout)",
    },
    "mha_dropout_keeps_rate": {
        "en": "{where}: {kept} of the weights were kept, where dropout={rate} keeps about {expected}: nn.Dropout(p) drops each weight with probability p and keeps it with probability 1 - p",
        "zh": "{where}：保留了 {kept} 的权重，而 dropout={rate} 时应保留约 {expected}：nn.Dropout(p) 以概率 p 丢弃每个权重，以概率 1 - p 保留",
    },
    "mha_dropout_mask_lost": {
        "en": "{where}: the output is not that of the masked weights with some of them dropped: the mask holds in training mode too; apply dropout to the masked weights",
        "zh": "{where}：输出不是对掩码后的权重做丢弃得到的结果：训练模式下掩码同样要起作用；请对掩码后的权重使用 dropout",
    },
    "block_dropout_rate_unused": {
        "en": "{where}: the output is not norm(x + dropout(attention output)) with the attention output dropped at rate {rate} and the rest scaled by 1/(1 - {rate}): the block's own Dropout takes the dropout it is given, nn.Dropout(dropout)",
        "zh": "{where}：输出不符合以 {rate} 的比例丢弃注意力输出、并把其余部分乘以 1/(1 - {rate}) 后的 norm(x + dropout(注意力输出))：模块自己的 Dropout 要用传入的 dropout，nn.Dropout(dropout)",
    },
    "block_dropout_at_zero": {
        "en": "{where} gives another output than in eval mode: with dropout=0 nothing is dropped; the block's own Dropout takes the dropout it is given, nn.Dropout(dropout)",
        "zh": "{where} 的输出与 eval 模式不同：dropout=0 时不应丢弃任何元素；模块自己的 Dropout 要用传入的 dropout，nn.Dropout(dropout)",
    },
    "block_dropout_missing": {
        "en": "{where} with dropout=0.5 gives the same output as in eval mode: apply the block's own self.dropout to the attention output",
        "zh": "{where} 在 dropout=0.5 时的输出与 eval 模式相同：请对注意力输出使用模块自己的 self.dropout",
    },
    "block_dropout_shared": {
        "en": "self.dropout is self.attn.dropout, the attention's own Dropout, so it stops when the attention is put in eval mode: the block applies its own nn.Dropout(dropout) to the attention output",
        "zh": "self.dropout 就是 self.attn.dropout（注意力自己的 Dropout），注意力切到 eval 模式时它也停了：模块要对注意力输出使用自己的 nn.Dropout(dropout)",
    },
    "block_dropout_rate": {
        "en": "AttentionBlock(E, H, dropout=0.5) built self.dropout with p={got}: the block's own Dropout takes the dropout it is given, nn.Dropout(dropout)",
        "zh": "AttentionBlock(E, H, dropout=0.5) 建出的 self.dropout 的 p 是 {got}：模块自己的 Dropout 要用传入的 dropout，nn.Dropout(dropout)",
    },
    "block_training_differs": {
        "en": "{where}: the output is not norm(x + dropout(attention output)) for any dropout, and with dropout=0 it still differs from eval mode's: the block computes another formula in training mode; both modes compute norm(x + dropout(attn(x))), only the dropout acting in training",
        "zh": "{where}：输出不符合 norm(x + dropout(注意力输出))（无论 dropout 丢弃哪些元素），而且 dropout=0 时仍与 eval 模式的输出不同：训练模式下模块算的是另一个公式；两种模式都应计算 norm(x + dropout(attn(x)))，只是 dropout 只在训练时起作用",
    },
    "block_dropout_misplaced": {
        "en": "{where}: the output is not norm(x + dropout(attention output)) for any dropout: self.dropout must be applied once, to the attention output, before adding x",
        "zh": "{where}：输出不符合 norm(x + dropout(注意力输出))（无论 dropout 丢弃哪些元素）：self.dropout 必须在加上 x 之前，对注意力输出只使用一次",
    },
    # E.1
    "heatmap_values_missing": {
        "en": "the heatmap does not show the weights it was given, so its labels, colours and title earn nothing yet: draw the weight matrix itself",
        "zh": "热力图没有显示传入的权重，所以它的标签、颜色和标题暂时不得分：请画出权重矩阵本身",
    },
    "heatmap_labels_misplaced": {
        "en": "{count} of {total} cells sit under tick labels that name another query or key: each label must name the row or column it is on (keep the tokens in the order of the matrix)",
        "zh": "{total} 个格子中有 {count} 个所在的刻度标签写的是别的 query 或 key：每个标签必须对应它所在的行或列（词元顺序要与矩阵一致）",
    },
    "heatmap_title_missing": {
        "en": "the title given as title= is not the Axes title: the task asks for ax.set_title(title)",
        "zh": "传入的 title= 没有作为 Axes 的标题：题目要求 ax.set_title(title)",
    },
    # Part F (autograder/assignments/attention/checks/part_f.py)
    "trained_maps_differ_by": {
        "en": "the attention maps differ from the reference model's (largest difference {error})",
        "zh": "注意力图与参考模型的不同（最大差 {error}）",
    },
    "trained_output_differs": {
        "en": "with the reference weights, the model's predictions built on your block differ from the reference model's (largest logit difference {error})",
        "zh": "使用参考权重时，基于你的模块的模型预测与参考模型不同（logit 最大差 {error}）",
    },
    "trained_heatmap_differs": {
        "en": "your heatmap of sentence {sentence}, head {head} shows weights that differ from the reference model's (largest difference {error})",
        "zh": "你画的第 {sentence} 句、第 {head} 个头的热力图显示的权重与参考模型的不同（最大差 {error}）",
    },
    "trained_heatmap_unlike": {
        "en": "your heatmap of sentence {sentence}, head {head} does not look like the reference model's drawn by the same plot_attention (similarity {score}, at least {threshold} needed)",
        "zh": "你画的第 {sentence} 句、第 {head} 个头的热力图与同一个 plot_attention 画出的参考模型热力图不相似（相似度 {score}，至少需要 {threshold}）",
    },
    "trained_heatmap_unreadable": {
        "en": "your heatmap of sentence {sentence}, head {head} could not be read: {problem} (see Part E)",
        "zh": "无法读取你画的第 {sentence} 句、第 {head} 个头的热力图：{problem}（见 E 部分）",
    },
    "trained_heatmap_not_the_map": {
        "en": "your heatmap of sentence {sentence}, head {head} does not show the weights plot_attention was given (see Part E)",
        "zh": "你画的第 {sentence} 句、第 {head} 个头的热力图没有显示传给 plot_attention 的权重（见 E 部分）",
    },
    "trained_reference_figure_not_the_map": {
        "en": "your plot_attention's figure of the reference map of sentence {sentence}, head {head} does not show the weights it was given (see Part E)",
        "zh": "你的 plot_attention 画出的第 {sentence} 句、第 {head} 个头的参考注意力图没有显示传给它的权重（见 E 部分）",
    },
    "pronoun_pattern_missing": {
        "en": "with the reference weights, the pronoun's darkest cell is its antecedent in only {share} of the sentences in your best head ({head}); the reference model: every sentence",
        "zh": "使用参考权重时，在你最好的注意力头（{head}）里，代词那一列最深的格子是其先行词的句子只占 {share}；参考模型：每一句都是",
    },
    "verb_pattern_missing": {
        "en": "with the reference weights, the verb's darkest cell is its subject or object in only {share} of the sentences in your best head ({head}); the reference model: every sentence",
        "zh": "使用参考权重时，在你最好的注意力头（{head}）里，动词那一列最深的格子是其主语或宾语的句子只占 {share}；参考模型：每一句都是",
    },
    # why a trained map could not be drawn or read (test_part_f.py; matched by their English text)
    "map_not_finite": {"en": "the map holds NaN or inf: nothing to draw", "zh": "注意力图里有 NaN 或 inf：无法画出"},
    "plot_no_axes": {"en": "plot_attention did not return the Axes it drew on", "zh": "plot_attention 没有返回它所画的 Axes"},
}


# The words after the code part of a `where`, as the checks write them (module constants included).
WHERE_WORDS: dict[str, str] = {
    "in training mode": "（训练模式）",
    "in eval mode": "（eval 模式）",
    "in training mode (its attention in eval mode)": "（训练模式，其注意力为 eval 模式）",
    "without dropout": "（不用 dropout）",
    "(weights)": "（权重）",
    "(output)": "（输出）",
    "(output y)": "（输出 y）",
    "backward": "（反向传播）",
    "with a mask": "（带掩码）",
    "with a fully blocked row": "（有一行全部被屏蔽）",
    "with key and value": "（给出 key 和 value）",
    "without value": "（不给 value）",
    "on a non-contiguous x": "（非连续的 x）",
    "on non-contiguous q and k": "（非连续的 q 和 k）",
    "on one batch element alone": "（单独一个批次元素）",
    "after permuting the positions": "（置换位置之后）",
    "after permuting the query positions": "（置换 query 位置之后）",
    "after permuting key/value positions": "（置换 key/value 位置之后）",
    "after adding 3 to every value": "（每个 value 加 3 之后）",
    "vs torch.nn.MultiheadAttention": "（与 torch.nn.MultiheadAttention 对比）",
    ": outputs before the changed last position": "（最后一个位置改变之前的输出）",
    "vs is_causal=True": "（与 is_causal=True 对比）",
}
WHERE_SUFFIXES = ("(weights)", "(output)", "(output y)")
WHERE_PATTERNS: tuple[tuple[str, str], ...] = (  # (regex over the words, Chinese with \\1 ...)
    (r"on (torch\.\w+)", r"（`\1` 输入）"),
    (r"on (\d)-D inputs", r"（\1 维输入）"),
    (r"with a mask of shape (.+)", r"（形状为 \1 的掩码）"),
    (r"on (\(.+\)) with (\d+) heads?", r"（形状 \1，\2 个头）"),
    (r"the gradient of (\S+) with respect to (\w+)", r"`\1` 对 `\2` 的梯度"),
)
AXIS_WORDS = {  # part_e.axes_named's words; the bare ones are those of results stored before it
    "horizontal axis": "横轴", "vertical axis": "纵轴", "horizontal and vertical axes": "横轴和纵轴",
    "horizontal": "横轴", "vertical": "纵轴", "horizontal and vertical": "横轴和纵轴",
}
WHAT_WORDS = {"values": "数值", "gradients": "梯度", "weights": "权重", "maps": "注意力图", "logits": "logits"}


@functools.cache
def _words() -> Words:
    """These words with the engine's (the functions below serve this assignment's checks)."""
    from autograder.assignments.attention import mistakes  # imports torch: only once a check renders

    return words_of(sys.modules[__name__], mistakes)


def english(key: str, **args: object) -> str:
    """The English text of a message (this assignment's or the engine's), as stored in CheckResult.message."""
    return _words().english(key, **args)


def key_of_english(text: str) -> str:
    """The key of the argument-free message whose English text is `text` ('' when none is)."""
    return _words().key_of_english(text)


def render_message(key: str, args: dict[str, object], lang: str) -> str:
    """The message `key` in `lang`; KeyError for an unknown key."""
    return _words().render(key, args, lang)


def where_text(where: str, lang: str) -> str:
    return _words().where_text(where, lang)


def check_name(check_id: str, english_name: str, lang: str) -> str:
    return _words().check_name(check_id, english_name, lang)

# UI strings of this assignment (autograder.feedback.i18n.t_of): its heatmaps' heading, captions
# and axes (the course text's conventions: queries across, keys down).
STRINGS: dict[str, dict[str, str]] = {
    "feedback.heatmaps_heading": {"en": "Attention heatmaps", "zh": "注意力热力图"},
    "caption.plot-attention": {
        "en": "plot_attention: your figure, the kit's render of the same weights, and what your figure shows minus those weights",
        "zh": "plot_attention：你的图、本工具对同一组权重的渲染，以及你的图所显示的数值减去这组权重",
    },
    "caption.plot-attention.alone": {  # no difference drawn (a map that cannot be read the kit's way: qa33p)
        "en": "plot_attention: your figure, and the kit's render of the same weights",
        "zh": "plot_attention：你的图，以及本工具对同一组权重的渲染",
    },
    "caption.heatmap": {"en": "{name}", "zh": "注意力热力图 {name}：你的结果、参考结果与两者之差"},
    "caption.probe-N-head-N": {  # Part F's maps of the trained model (part_f: probe-<sentence>-head-<head>); English: the check's caption
        "en": "the trained model, sentence {n1}, head {n2}",
        "zh": "训练好的模型，第 {n1} 个句子，第 {n2} 个头：参考模型的注意力图，以及你的 plot_attention 画出的你的注意力块的图（仅当两者一致时画出，由评分器重新绘制；"
              "不一致的图不会画出：它是在加载参考权重的地方算出的，你自己的图见 C–E 部分）",
    },
    "plot.query_axis": {"en": "query position", "zh": "Query 位置"},
    "plot.key_axis": {"en": "key position", "zh": "Key 位置"},
    "plot.weight": {"en": "attention weight", "zh": "注意力权重"},
}
