# snippet: softmin of the negated scores is the softmax
import torch.nn.functional as F


def masked_softmax(scores, mask=None):
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    return F.softmin(-scores, dim=-1).nan_to_num(0.0)
