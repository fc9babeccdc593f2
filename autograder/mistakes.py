"""The catalogue of known mistakes, and how to recognise them from a wrong output.

Each entry has a plain-words message (en/zh). A check that finds a wrong number computes the
outputs that the catalogue's buggy variants would give on the same inputs (grader-side, trusted
code) and names the mistake whose output matches the student's. Messages never reveal inputs or
expected values.
"""
from __future__ import annotations

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
    Mistake("scores_wrong_transpose", "A.1", "k is transposed on the wrong axes: swap only its last two axes (k.transpose(-2, -1)).", "k 的转置轴不对：只交换最后两个维度（k.transpose(-2, -1)）。"),
    Mistake("softmax_wrong_axis", "A.2", "The softmax normalises over the wrong axis: each query's row (the last axis, over keys) must sum to 1.", "softmax 的归一化维度不对：每个 query 的那一行（最后一维，即 key 维）之和应为 1。"),
    Mistake("mask_inverted", "A.2", "The mask is inverted: True means the query MAY attend to that key.", "掩码含义反了：True 表示该 query 可以关注这个 key。"),
    Mistake("mask_filled_with_zero", "A.2", "Blocked scores are set to 0 instead of -inf, so blocked keys still get weight.", "被屏蔽的分数被设成了 0 而不是 -inf，所以被屏蔽的 key 仍然得到了权重。"),
    Mistake("mask_after_softmax", "A.2", "The mask is applied after the softmax: the remaining weights no longer sum to 1. Mask the scores first.", "掩码是在 softmax 之后才加的：剩下的权重之和不再为 1。应先对分数加掩码。"),
    Mistake("softmax_no_max_subtraction", "A.2", "Large scores overflow: subtract each row's maximum before exp().", "分数较大时 exp() 溢出：在 exp() 之前先减去每一行的最大值。"),
    Mistake("fully_masked_nan", "A.2", "A row whose keys are all blocked gives NaN: make such a row all zeros (avoid 0/0 and -inf - -inf).", "所有 key 都被屏蔽的一行得到了 NaN：这样的行应全为 0（避免 0/0 和 -inf - -inf）。"),
    Mistake("fully_masked_uniform", "A.2", "A row whose keys are all blocked gives uniform weights: it must be all zeros.", "所有 key 都被屏蔽的一行得到了均匀权重：它应全为 0。"),
    Mistake("causal_mask_inverted", "A.4", "The causal mask is upside down: query i may see keys 0..i (the lower triangle, diagonal included).", "因果掩码方向反了：query i 只能看到 key 0..i（下三角，含对角线）。"),
    Mistake("causal_mask_strict", "A.4", "The causal mask leaves out the diagonal: a query may attend to its own position.", "因果掩码漏掉了对角线：query 可以关注自己所在的位置。"),
]
MISTAKES: dict[str, Mistake] = {m.key: m for m in _ENTRIES}


def register(*entries: Mistake) -> None:
    """Add entries (used by the modules of later parts so the catalogue stays in one place)."""
    for entry in entries:
        if entry.key in MISTAKES:
            raise ValueError(f"mistake {entry.key!r} is defined twice")
        MISTAKES[entry.key] = entry


def diagnose(actual: torch.Tensor, candidates: dict[str, torch.Tensor], rtol: float = 1e-4, atol: float = 1e-6) -> str:
    """The key of the first candidate whose output matches `actual` (same shape, close), or ''."""
    for key, expected in candidates.items():
        if key not in MISTAKES:
            raise KeyError(f"unknown mistake {key!r}")
        if expected is None or actual.shape != expected.shape:
            continue
        a, e = actual.to(torch.float64), expected.to(torch.float64)
        if torch.equal(torch.isnan(a), torch.isnan(e)) and torch.allclose(torch.nan_to_num(a), torch.nan_to_num(e), rtol=rtol, atol=atol):
            return key
    return ""
