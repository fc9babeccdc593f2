# snippet: masked_softmax returns the right values as a view into a far larger buffer (storage_offset 10**7, 40 MB). Expected: A 32/32, E 10/10.
_own_softmax = masked_softmax


def masked_softmax(scores, mask=None):
    w = _own_softmax(scores, mask)
    buffer = torch.zeros(10**7 + w.numel(), dtype=w.dtype)
    buffer[10**7:] = w.reshape(-1)
    return buffer[10**7:].view(w.shape)
