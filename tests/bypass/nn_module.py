# snippet: nn.Softmax, built once at import
_layer = torch.nn.Softmax(dim=-1)


def masked_softmax(scores, mask=None):
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    return _layer(scores).nan_to_num(0.0)
