# snippet: masked_softmax wraps its scores in a tensor subclass whose __torch_function__ (not __torch_dispatch__) answers .exp() with Categorical(logits=...).probs: the worker's function-level mode is off inside it, its operator-level mode is not. Expected: A 30/32 (A.2 by hand 0: the trace saw aten._softmax, which the source does not name), flag rule_bypass.
from torch.distributions import Categorical as _Categorical


class _Wrapped(torch.Tensor):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        if getattr(func, "__name__", "") == "exp":
            plain = args[0].as_subclass(torch.Tensor)
            return torch.nan_to_num(_Categorical(logits=plain, validate_args=False).probs, nan=0.0)
        return super().__torch_function__(func, types, args, kwargs or {})


def masked_softmax(scores, mask=None):
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    return scores.as_subclass(_Wrapped).exp().as_subclass(torch.Tensor)
