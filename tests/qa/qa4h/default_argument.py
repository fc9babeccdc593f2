# snippet: a default argument value of an unrelated function runs the setup at import (getattr with computed names into globals); masked_softmax names only what it installed. Before the fix: A 32/32. Expected: A 29/32.
def _setup():
    table = globals()
    table["_sm"] = getattr(torch, "soft" + "max")
    table["_off"] = getattr(torch, "_" + "C").DisableTorchFunction
    table["_modes"] = getattr(getattr(torch.utils, "_python" + "_dispatch"), "_disable" + "_current_modes")
    return 0


def unrelated(x=_setup()):
    return x


def masked_softmax(scores, mask=None):
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    with _off(), _modes():
        weights = _sm(scores, -1)
    return torch.nan_to_num(weights, nan=0.0)
