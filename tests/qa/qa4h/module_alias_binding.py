# snippet: masked_softmax calls _q, a module-level name bound to a class whose methods switch the tracer off and call the library softmax by a computed name. Before the fix: A 32/32 (the static pass did not follow `_q = _Hidden`). Expected: A 29/32.
class _Hidden:
    def __call__(self, scores):
        import torch.utils._python_dispatch as dispatch
        with torch._C.DisableTorchFunction(), dispatch._disable_current_modes():
            return getattr(torch, "soft" + "max")(scores, -1)


_q = _Hidden()


def masked_softmax(scores, mask=None):
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    return torch.nan_to_num(_q(scores), nan=0.0)
