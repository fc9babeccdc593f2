# snippet: causal_mask raises an exception whose __str__ never returns (bounded at 60 s): the worker hangs while describing it. Expected: A 28/32, causal_mask "timed out"; the rest keeps its points.
class _Stubborn(Exception):
    def __str__(self):
        import time
        end = time.monotonic() + 60
        while time.monotonic() < end:
            time.sleep(0.05)
        return "late"


def causal_mask(size_q, size_k=None, device=None):
    raise _Stubborn()
