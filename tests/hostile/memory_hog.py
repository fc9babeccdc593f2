# snippet: causal_mask allocates up to 8 GiB in 256 MiB steps (the 2 GiB limit must stop it).
def causal_mask(size_q, size_k=None, device=None):
    hoard = []
    for _ in range(32):
        hoard.append(torch.ones(64 << 20, dtype=torch.float32))  # 256 MiB, touched
    return torch.ones(size_q, size_k or size_q, dtype=torch.bool).tril()
