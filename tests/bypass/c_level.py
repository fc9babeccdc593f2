# snippet: the C-level function behind torch.softmax
def masked_softmax(scores, mask=None):
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    return torch._softmax(scores, -1, False).nan_to_num(0.0)
