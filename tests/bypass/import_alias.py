# snippet: the library softmax under another name, imported
from torch.nn.functional import softmax as normalise


def masked_softmax(scores, mask=None):
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    return normalise(scores, dim=-1).nan_to_num(0.0)
