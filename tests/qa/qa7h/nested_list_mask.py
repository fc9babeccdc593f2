# snippet: causal_mask returns the right mask as a nested Python list of bools (tolist()), not a tensor. Expected: A 28/32 (A.4: not a tensor), E 10/10.
_tensor_mask = causal_mask


def causal_mask(size_q, size_k=None, device=None):
    return _tensor_mask(size_q, size_k, device).tolist()
