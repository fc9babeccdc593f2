# snippet: causal_mask calls sys.exit.
def causal_mask(size_q, size_k=None, device=None):
    import sys

    sys.exit(4)
