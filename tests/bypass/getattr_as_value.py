# snippet: getattr bound to another name at module level; masked_softmax calls it with computed names (the library softmax, the tracer's switches): only getattr(...) calls were checked. Before the fix: A 32/32. Expected: A 29/32.
_look = getattr


def masked_softmax(scores, mask=None):
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    off = _look(_look(torch, "_" + "C"), "DisableTorchFunction")
    modes = _look(_look(torch.utils, "_python" + "_dispatch"), "_disable" + "_current_modes")
    with off(), modes():
        weights = _look(torch, "soft" + "max")(scores, -1)
    return torch.nan_to_num(weights, nan=0.0)
