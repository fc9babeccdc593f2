# snippet: causal_mask returns a tensor on the meta device (no data; shape and dtype right). Expected: A 28/32 (A.4 earns nothing), E 10/10.
def causal_mask(size_q, size_k=None, device=None):
    return torch.ones(size_q, size_k or size_q, dtype=torch.bool, device='meta')
