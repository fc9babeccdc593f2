# snippet: switch torch function modes and dispatch modes off around the library call
from torch.utils import _python_dispatch


def masked_softmax(scores, mask=None):
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    with torch._C.DisableTorchFunction(), _python_dispatch._disable_current_modes():
        return torch.softmax(scores, -1).nan_to_num(0.0)
