# snippet: masked_softmax calls the library softmax with the tracer's modes off; the constructs that do it (getattr with a computed name, torch._C) sit in a helper that only module-level code calls. Before the fix: A 32/32. Expected: A 29/32 (A.2 by hand 0, A.3 not the library 0: import-time code can hide anything).
def masked_softmax(scores, mask=None):
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    with _quiet():
        weights = _sm(scores, -1)
    return torch.nan_to_num(weights, nan=0.0)


def _setup():
    table = globals()
    table["_sm"] = getattr(torch, "soft" + "max")
    table["_quiet"] = _Both


class _Both:
    def __enter__(self):
        import torch.utils._python_dispatch as dispatch
        self.functions, self.modes = torch._C.DisableTorchFunction(), dispatch._disable_current_modes()
        self.functions.__enter__()
        self.modes.__enter__()

    def __exit__(self, *exc):
        self.modes.__exit__(*exc)
        self.functions.__exit__(*exc)


_setup()
