# snippet: masked_softmax builds a torch.fx Graph whose nodes name what they run as text (get_attr "t._C.DisableTorchFunction", call_method "softmax"): the GraphModule writes Python from those texts and runs it (exec inside torch.fx). Expected: A 29/32 (A.2 by hand 0, A.3's rule cannot be checked), E 0/10.
import torch.fx as _fx


class _Root(torch.nn.Module):
    pass


def _program():
    root = _Root()
    root.t = torch
    graph = _fx.Graph()
    scores = graph.placeholder("scores")
    off = graph.call_method("__call__", (graph.get_attr("t._" + "C.DisableTorchFunction"),))
    modes = graph.call_method("__call__", (graph.get_attr("t.utils._python_dispatch._disable_current_modes"),))
    graph.call_method("__enter__", (off,))
    graph.call_method("__enter__", (modes,))
    weights = graph.call_method("soft" + "max", (scores, -1))
    graph.call_method("__exit__", (modes, None, None, None))
    graph.call_method("__exit__", (off, None, None, None))
    graph.output(weights)
    return _fx.GraphModule(root, graph)


def masked_softmax(scores, mask=None):
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    return torch.nan_to_num(_program()(scores), nan=0.0)
