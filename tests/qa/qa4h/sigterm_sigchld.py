# snippet: at import, every catchable signal is ignored or set to a handler that loops 1 s, and the process group id is changed: the worker is still killed with SIGKILL when a call hangs (causal_mask sleeps 60 s). Expected: A 28/32, causal_mask "timed out".
import os as _os
import signal as _signal
import time as _time

for _number in range(1, 32):
    if _number in (_signal.SIGKILL, _signal.SIGSTOP):
        continue
    try:
        _signal.signal(_number, lambda *_: _time.sleep(1))
    except (OSError, ValueError, RuntimeError):
        pass
try:
    _os.setpgid(0, 0)
except OSError:
    pass


def causal_mask(size_q, size_k=None, device=None):
    _time.sleep(60)
