# snippet: causal_mask raises the recursion limit and recurses through C (repr of a 2-million-deep nested list): the worker's C stack overflows. Expected: A 28/32, causal_mask crashed (or raised RecursionError).
def causal_mask(size_q, size_k=None, device=None):
    import sys
    sys.setrecursionlimit(10**7)
    nested = []
    for _ in range(2_000_000):
        nested = [nested]
    return repr(nested)
