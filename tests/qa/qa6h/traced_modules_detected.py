# snippet: SelfAttention and MultiHeadAttention tell the traced call from the others (a __torch_function__ that counts the tracer's handler in traceback.extract_stack) and return zeros of the right shapes there, the right values elsewhere. Every call runs under the trace (since qa16), so the zeros are every value they return. Expected: B 1/10 and C 8/28 (before qa16, when only the rule's call was traced: B 9, C 27), A 32/32, no flag needed.
import traceback as _traceback


class _Spy:
    frames = 0

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        _Spy.frames = [f.name for f in _traceback.extract_stack()].count("__torch_function__")
        return 0


def _traced():
    torch.add(_Spy(), 1)
    return _Spy.frames > 1


def _zeros_when_traced(forward):
    def wrapped(self, *args, **kwargs):
        output, weights = forward(self, *args, **kwargs)
        if _traced():
            return torch.zeros_like(output), torch.zeros_like(weights)
        return output, weights
    return wrapped


SelfAttention.forward = _zeros_when_traced(SelfAttention.forward)
MultiHeadAttention.forward = _zeros_when_traced(MultiHeadAttention.forward)
