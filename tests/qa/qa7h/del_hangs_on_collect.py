# snippet: causal_mask returns the right mask but leaves a reference cycle whose __del__ sleeps 60 s when the collector runs (later, inside the worker's own loop). Expected: A 28/32 at most (the call the collector hangs in times out; that function is not called again), E 10/10.
import time as _time


class _Sticky:
    def __init__(self):
        self.me = self

    def __del__(self):
        _time.sleep(60)


_honest_mask = causal_mask


def causal_mask(size_q, size_k=None, device=None):
    for _ in range(1000):
        _Sticky()
    return _honest_mask(size_q, size_k, device)
