# snippet: causal_mask raises an exception whose __str__ builds 1.5 GB of text (the worker cuts what it shows only after the text exists). Expected: A 28/32, E 10/10, no grader error.
class _Huge(Exception):
    def __str__(self):
        return "x" * (1_500 << 20)


def causal_mask(size_q, size_k=None, device=None):
    raise _Huge()
