# snippet: masked_softmax has timeit run a text of code (timeit compiles and runs its statement: exec without the name) that switches the tracer off and calls the library softmax. Before the fix: A 32/32. Expected: A 29/32 (both traced rules 0: timeit is imported at module level).
import timeit


def masked_softmax(scores, mask=None):
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    box = {"s": scores, "t": torch}
    code = "import torch.utils._python_dispatch as d\nwith t._C.DisableTorchFunction(), d._disable_current_modes(): out = t.soft" + "max(s, -1)\nbox['out'] = out"
    box["box"] = box
    timeit.Timer(code, globals=box).timeit(1)
    return torch.nan_to_num(box["out"], nan=0.0)
