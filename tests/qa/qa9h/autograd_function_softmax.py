# snippet: masked_softmax is a custom torch.autograd.Function whose forward computes Categorical(logits=...).probs (torch's softmax) and whose backward is the softmax's own, written by hand: the forward runs in the traced thread. Expected: A 30/32 (A.2 by hand 0), flag rule_bypass.
from torch.distributions import Categorical as _Categorical


class _Soft(torch.autograd.Function):
    @staticmethod
    def forward(ctx, scores):
        weights = torch.nan_to_num(_Categorical(logits=scores, validate_args=False).probs, nan=0.0)
        ctx.save_for_backward(weights)
        return weights

    @staticmethod
    def backward(ctx, grad):
        (weights,) = ctx.saved_tensors
        return weights * (grad - (grad * weights).sum(-1, keepdim=True))


def masked_softmax(scores, mask=None):
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    return _Soft.apply(scores)
