# snippet: masked_softmax has traitlets' import_item (what IPython's configuration uses) import the library softmax and the tracer's switches by their dotted names. Expected: A 29/32 (A.2 by hand 0, A.3's rule cannot be checked), E 0/10.
from traitlets.utils.importstring import import_item as _item


def masked_softmax(scores, mask=None):
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    soft = _item("torch.special.soft" + "max")
    off = _item("torch._" + "C.DisableTorchFunction")
    modes = _item("torch.utils._python_dispatch._disable_current_modes")
    with off(), modes():
        weights = soft(scores, -1)
    return torch.nan_to_num(weights, nan=0.0)
