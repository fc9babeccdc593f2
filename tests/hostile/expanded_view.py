# snippet: causal_mask returns a 10**12-element expanded view of one element.
def causal_mask(size_q, size_k=None, device=None):
    return torch.ones(1, 1, dtype=torch.bool).expand(10**6, 10**6)
