# snippet: causal_mask crashes the interpreter (reads address 0).
def causal_mask(size_q, size_k=None, device=None):
    import ctypes

    return ctypes.string_at(0)
