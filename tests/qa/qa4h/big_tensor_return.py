# snippet: causal_mask returns a 200 MiB tensor (under the 256 MiB wire limit: the grader receives and rejects it). Expected: A 28/32 (wrong shape).
def causal_mask(size_q, size_k=None, device=None):
    return torch.ones(200 << 20, dtype=torch.bool)
