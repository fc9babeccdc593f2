# snippet: causal_mask never returns (bounded at 60 s); the other functions work.
def causal_mask(size_q, size_k=None, device=None):
    import time

    end = time.monotonic() + 60
    while time.monotonic() < end:
        pass
