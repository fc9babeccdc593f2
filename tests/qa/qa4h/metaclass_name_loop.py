# snippet: causal_mask returns an object whose metaclass makes reading the class's __module__ or __qualname__ loop (bounded at 60 s), so describing what was returned hangs in the worker. Expected: A 25/32, causal_mask "timed out"; the metaclass (code that runs at import) overrides __getattribute__, so both traced rules cannot be checked.
import time as _time


class _Meta(type):
    def __getattribute__(cls, name):
        if name in ("__module__", "__qualname__", "__name__"):
            end = _time.monotonic() + 60
            while _time.monotonic() < end:
                _time.sleep(0.05)
        return super().__getattribute__(name)


class _Mask(metaclass=_Meta):
    pass


def causal_mask(size_q, size_k=None, device=None):
    return _Mask()
