# snippet: typing.get_type_hints evaluates a string annotation (eval without the name): it fetches the library softmax and the tracer's switches by computed names. Before the fix: A 32/32. Expected: A 29/32 (both traced rules 0: since qa10h a string annotation is read as code that may run at import, as functools.singledispatch runs it).
import typing


def _parts(x: "[globals().update(_sm=getattr(torch, 'soft' + 'max'), _off=getattr(torch, '_' + 'C').DisableTorchFunction, _modes=__import__('torch.utils._python_dispatch', fromlist=['x'])._disable_current_modes), int][1]"):
    return x


def masked_softmax(scores, mask=None):
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    typing.get_type_hints(_parts)
    with _off(), _modes():
        weights = _sm(scores, -1)
    return torch.nan_to_num(weights, nan=0.0)
