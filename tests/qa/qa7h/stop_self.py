# snippet: causal_mask stops its own process with SIGSTOP: the grader must not wait forever. Expected: A 32/32 (SIGSTOP sent by pid 1 of its own pid namespace to itself is ignored), E 10/10, flag signal.
import os as _os
import signal as _signal


def causal_mask(size_q, size_k=None, device=None):
    _os.kill(_os.getpid(), _signal.SIGSTOP)
    return torch.ones(size_q, size_k or size_q, dtype=torch.bool, device=device).tril()
