# snippet: a TorchScript function (runs in the C++ interpreter, not through Python)
@torch.jit.script
def _scripted(scores: torch.Tensor) -> torch.Tensor:
    return torch.softmax(scores, -1)


def masked_softmax(scores, mask=None):
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    return _scripted(scores).nan_to_num(0.0)
