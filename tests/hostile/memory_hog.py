# snippet: causal_mask reserves up to 8 GiB in 256 MiB steps (the 2 GiB limit must stop it).
# The steps are not touched, so they take no time: only the memory limit can stop this call,
# never the call's time limit, however busy the machine (without the limit, it would succeed).
def causal_mask(size_q, size_k=None, device=None):
    hoard = []
    for _ in range(32):
        hoard.append(torch.empty(64 << 20, dtype=torch.float32))  # 256 MiB of address space
    return torch.ones(size_q, size_k or size_q, dtype=torch.bool).tril()
