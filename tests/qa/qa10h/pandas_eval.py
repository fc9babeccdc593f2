# snippet: masked_softmax has pandas.eval (python engine) read a text: attribute access by text (an `eval` attribute, which nn.Module also has: model.eval()) fetches the library softmax and the tracer's switches. Expected: A 29/32 (A.2 by hand 0, A.3's rule cannot be checked).
import pandas as _pd


def masked_softmax(scores, mask=None):
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    found = {"t": torch}
    soft = _pd.eval("t.special.soft" "max", engine="python", local_dict=found)
    off = _pd.eval("t._" "C.DisableTorchFunction", engine="python", local_dict=found)
    modes = _pd.eval("t.utils._python_dispatch._disable_current_modes", engine="python", local_dict=found)
    with off(), modes():
        weights = soft(scores, -1)
    return torch.nan_to_num(weights, nan=0.0)
