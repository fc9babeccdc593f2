"""Task A.2 helper."""
import torch


def masked_softmax(scores: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
    """Task A.2: a hand-written, numerically stable softmax over the last axis (softmax 归一化).

    scores: (..., Lq, Lk); mask: bool, broadcastable to scores, True = may attend.
    Returns weights of the same shape and dtype: each row sums to 1 over its allowed keys,
    blocked keys get exactly 0, and a row whose keys are all blocked is all zeros (never NaN).
    This holds for float16 and bfloat16 scores too (they are tried): a fill of -1e9 or a guard of
    +1e-9 does not fit in float16 (torch.finfo(scores.dtype) gives its limits).
    Do not call torch.softmax, F.softmax, log_softmax or nn.Softmax, and do not change `scores`
    or `mask` in place.
    """
    ### BEGIN SOLUTION
    if mask is not None:
        scores = scores.masked_fill(mask.logical_not(), float("-inf"))  # (..., Lq, Lk)
    row_max = scores.amax(dim=-1, keepdim=True)  # (..., Lq, 1)
    row_max = torch.where(torch.isfinite(row_max), row_max, torch.zeros_like(row_max)).detach()
    exp = torch.exp(scores - row_max)  # (..., Lq, Lk), every entry in [0, 1]
    total = exp.sum(dim=-1, keepdim=True)  # (..., Lq, 1)
    total = total + (total == 0).to(total.dtype)  # an all-blocked row divides 0 by 1
    return exp / total  # (..., Lq, Lk)
    ### END SOLUTION

