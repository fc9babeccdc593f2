# snippet: masked_softmax pushes its own TorchDispatchMode (torch.utils._python_dispatch) whose handler answers aten.exp with Categorical(logits=...).probs: the student's mode sits above the worker's, whose operator-level mode still sees what the handler runs. Expected: A 27/32 (A.2 by hand 0, its 2 gradient checks 0, A.3's rule cannot be checked), E 0/10, flags rule_bypass, evasion (a private torch module), tamper.
from torch.distributions import Categorical as _Categorical
from torch.utils._python_dispatch import TorchDispatchMode as _Mode


class _Answer(_Mode):
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        if "exp" in str(func):
            return torch.nan_to_num(_Categorical(logits=args[0], validate_args=False).probs, nan=0.0)
        return func(*args, **(kwargs or {}))


def masked_softmax(scores, mask=None):
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    with _Answer():
        return scores.exp()
