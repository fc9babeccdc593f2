# snippet: causal_mask returns a bool tensor subclass whose __eq__, __hash__, __bool__ and __repr__ recurse forever. Only plain tensors cross. Expected: A 28/32 (A.4: a Tensor subclass is refused), E 10/10.
class _Loop(torch.Tensor):
    def __eq__(self, other):
        return self == other

    def __hash__(self):
        return hash(self)

    def __repr__(self):
        return repr(self)

    def __bool__(self):
        return bool(self)


_honest_mask = causal_mask


def causal_mask(size_q, size_k=None, device=None):
    return _honest_mask(size_q, size_k, device).as_subclass(_Loop)
