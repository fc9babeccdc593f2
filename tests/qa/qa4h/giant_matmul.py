# snippet: causal_mask runs one long C call (a 9000x9000 matmul, ~1.5 TFLOP on one thread; ~1 GiB), which no Python-level signal interrupts. Expected: A 28/32, causal_mask "timed out".
def causal_mask(size_q, size_k=None, device=None):
    big = torch.ones(9000, 9000)
    big @ big
    return torch.ones(size_q, size_k or size_q, dtype=torch.bool).tril()
