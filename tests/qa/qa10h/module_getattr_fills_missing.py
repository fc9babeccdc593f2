# snippet: causal_mask is deleted and a module-level __getattr__ (PEP 562) answers any missing name with a function that returns the right mask made by torch itself; the worker must look for the task in the file's own names. Expected: A 28/32 (A.4: causal_mask is missing), E 10/10.
del causal_mask


def __getattr__(name):
    return lambda size_q, size_k=None, device=None: torch.ones(size_q, size_k or size_q, dtype=torch.bool, device=device).tril(diagonal=(size_k or size_q) - size_q)
