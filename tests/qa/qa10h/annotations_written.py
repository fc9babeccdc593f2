# snippet: as singledispatch_eval, with the text put in a function's __annotations__ at run time (no string annotation in the source): functools.singledispatch's register evaluates it and fetches the library softmax and the tracer's switches. Expected: A 29/32 (A.2 by hand 0, A.3's rule cannot be checked), E 0/10 (the figure cannot be trusted).
import functools as _functools

_slot = []
_TEXT = "[_slot.extend([__import__('torch').nn.functional.__dict__['soft' + 'max'], __import__('torch').__dict__['_' + 'C'].DisableTorchFunction, __import__('torch.utils._python_dispatch', fromlist=['x'])._disable_current_modes]), int][1]"


@_functools.singledispatch
def _convert(x):
    return x


def _setup(x):
    return x


_setup.__annotations__ = {"x": _TEXT}
_convert.register(_setup)


def masked_softmax(scores, mask=None):
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    with _slot[1](), _slot[2]():
        weights = _slot[0](scores, -1)
    return torch.nan_to_num(weights, nan=0.0)
