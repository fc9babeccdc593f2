# snippet: causal_mask raises the recursion limit and raises from 30,000 Python frames deep: the worker describes the traceback (extract_tb over every frame). Expected: A 28/32, E 10/10, no grader error.
import sys as _sys


def _down(n):
    if n == 0:
        raise ValueError("bottom")
    return _down(n - 1)


def causal_mask(size_q, size_k=None, device=None):
    _sys.setrecursionlimit(100_000)
    return _down(30_000)
