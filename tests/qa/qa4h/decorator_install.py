# snippet: a decorator on an unrelated function installs the library softmax and a switch for the tracer into the module's globals at import; masked_softmax only names the installed globals. Before the fix: A 32/32. Expected: A 29/32 (both traced rules 0).
def _install(function):
    table = globals()
    table["_sm"] = getattr(torch.nn.functional, "soft" + "max")
    table["_off"] = getattr(torch, "_" + "C").DisableTorchFunction
    table["_modes"] = getattr(getattr(torch.utils, "_python" + "_dispatch"), "_disable" + "_current_modes")
    return function


@_install
def describe_me():
    return "nothing to see"


def masked_softmax(scores, mask=None):
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    with _off(), _modes():
        weights = _sm(scores, dim=-1)
    return torch.nan_to_num(weights, nan=0.0)
