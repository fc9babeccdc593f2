# snippet: functools.singledispatch's register evaluates a string annotation (typing.get_type_hints inside, never named): the text fetches the library softmax and the tracer's switches into a module-level slot. Expected: A 29/32 (A.2 by hand 0, A.3's rule cannot be checked).
import functools as _functools

_slot = []


@_functools.singledispatch
def _convert(x):
    return x


def _setup(x: "[_slot.extend([__import__('torch').nn.functional.__dict__['soft' + 'max'], __import__('torch').__dict__['_' + 'C'].DisableTorchFunction, __import__('torch.utils._python_dispatch', fromlist=['x'])._disable_current_modes]), int][1]"):
    return x


_convert.register(_setup)


def masked_softmax(scores, mask=None):
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    with _slot[1](), _slot[2]():
        weights = _slot[0](scores, -1)
    return torch.nan_to_num(weights, nan=0.0)
