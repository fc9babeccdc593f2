# snippet: ignores SIGTERM, SIGINT and SIGHUP, then causal_mask sleeps (bounded at 60 s).
import signal as _signal

for _sig in (_signal.SIGTERM, _signal.SIGINT, _signal.SIGHUP):
    _signal.signal(_sig, _signal.SIG_IGN)


def causal_mask(size_q, size_k=None, device=None):
    import time

    time.sleep(60)
