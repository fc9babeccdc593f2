# snippet: masked_softmax's helpers are traitlets Type traits given as text ("torch._C.DisableTorchFunction", "torch._C._DisableTorchDispatch", "torch.nn.Softmax"): traitlets imports each class by its dotted name when the trait is first read (no import_item named, no getattr). Expected: A 29/32 (A.2 by hand 0, A.3's rule cannot be checked), E 0/10.
import traitlets as _traitlets


class _Tools(_traitlets.HasTraits):
    off = _traitlets.Type("torch._" + "C.DisableTorchFunction")
    dispatch_off = _traitlets.Type("torch._" + "C._DisableTorch" + "Dispatch")
    layer = _traitlets.Type("torch.nn.Soft" + "max")


def masked_softmax(scores, mask=None):
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    tools = _Tools()
    with tools.off(), tools.dispatch_off():
        weights = tools.layer(dim=-1)(scores)
    return torch.nan_to_num(weights, nan=0.0)
