# snippet: causal_mask returns a list nested 100,000 deep (the wire format stops at 32). Expected: A 28/32, causal_mask raised RecursionError (the worker gives up turning it into plain data).
def causal_mask(size_q, size_k=None, device=None):
    nested = [torch.ones(size_q, size_k or size_q, dtype=torch.bool).tril()]
    for _ in range(100_000):
        nested = [nested]
    return nested
