# snippet: causal_mask raises an ExceptionGroup of 200,000 exceptions, each with its own traceback. Expected: A 28/32, E 10/10, no grader error.
def causal_mask(size_q, size_k=None, device=None):
    raise ExceptionGroup("many", [ValueError(str(i)) for i in range(200_000)])
