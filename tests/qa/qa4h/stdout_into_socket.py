# snippet: causal_mask points its stdout at the worker's socket (dup2) and prints: the grader reads text where it expects a frame. Expected: A 28/32, causal_mask "invalid reply" (or ended); the rest keeps its points.
def causal_mask(size_q, size_k=None, device=None):
    import os
    import stat
    import sys
    for fd in range(3, 64):
        try:
            if stat.S_ISSOCK(os.fstat(fd).st_mode):
                sys.stdout.flush()
                os.dup2(fd, 1)
                break
        except OSError:
            continue
    print("ATK1 this is not a frame " * 100, flush=True)
    return torch.ones(size_q, size_k or size_q, dtype=torch.bool).tril()
