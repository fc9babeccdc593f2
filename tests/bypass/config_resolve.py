# snippet: logging.config's BaseConfigurator.resolve imports and walks a dotted text (like pydoc.locate) to the library softmax and the tracer's switches. Before the fix: A 32/32. Expected: A 29/32 (both traced rules 0: logging.config is imported at module level).
import logging.config


def masked_softmax(scores, mask=None):
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    find = logging.config.BaseConfigurator({}).resolve
    off = find("torch._" + "C.DisableTorchFunction")
    modes = find("torch.utils._python" + "_dispatch._disable" + "_current_modes")
    with off(), modes():
        weights = find("torch.soft" + "max")(scores, -1)
    return torch.nan_to_num(weights, nan=0.0)
