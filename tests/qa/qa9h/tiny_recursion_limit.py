# snippet: at import, sets the recursion limit to 60: the worker's own code (encoding a reply, describing a figure) may now hit it, after the submission's code has returned. Expected: A at most 32/32, E at most 10/10, no grader error, the batch goes on.
import sys as _sys

_sys.setrecursionlimit(60)
