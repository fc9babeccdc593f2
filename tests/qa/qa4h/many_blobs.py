# snippet: causal_mask returns 5,000 tiny tensors (the wire format takes 4096 blobs a frame). Expected: A 28/32, causal_mask refused with a reason.
def causal_mask(size_q, size_k=None, device=None):
    return [torch.zeros(1) for _ in range(5000)]
