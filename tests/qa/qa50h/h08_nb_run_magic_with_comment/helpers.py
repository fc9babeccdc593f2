import math
import torch


def attention_scores(q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
    """Task A.1: scaled dot-product scores (注意力分数).

    q: (..., Lq, d) queries, k: (..., Lk, d) keys  ->  (..., Lq, Lk) with q·kᵀ / √d, in q's dtype
    (float16 inputs give float16 scores; float64, float32 and bfloat16 likewise). q and k may be
    non-contiguous views: C.3 gives it the heads of split_heads.
    """
    d = q.size(-1)
    return q @ k.transpose(-2, -1) / math.sqrt(d)


def causal_mask(size_q: int, size_k: int | None = None, device=None) -> torch.Tensor:
    """Task A.4: the causal mask (因果掩码): query i may attend to keys 0..i only.

    Returns a bool tensor (size_q, size_k) on `device` (None: the default device), True where
    key position <= query position (aligned top-left, like is_causal=True). size_k defaults
    to size_q.
    """
    size_k = size_q if size_k is None else size_k
    return torch.ones(size_q, size_k, dtype=torch.bool, device=device).tril()
