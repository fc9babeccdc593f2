# snippet: masked_softmax writes a module next to the submission while it runs and imports it: the module's code (tracer switched off, the library softmax by a computed name) was never in the source the static pass read. Before the fix: A 32/32. Expected: A 30/32 (A.2 by hand 0).
import os
import sys

_CODE = """
import torch
import torch.utils._python_dispatch as _d


def run(scores):
    with torch._C.DisableTorchFunction(), _d._disable_current_modes():
        return getattr(torch, "soft" + "max")(scores, -1)
"""


def masked_softmax(scores, mask=None):
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    folder = os.getcwd()  # the worker's scratch
    if folder not in sys.path:
        sys.path.insert(0, folder)
    with open(os.path.join(folder, "qa4h_made_later.py"), "w") as handle:
        handle.write(_CODE)
    import qa4h_made_later

    return torch.nan_to_num(qa4h_made_later.run(scores), nan=0.0)
