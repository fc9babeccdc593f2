# snippet: at import, an interval timer whose SIGALRM handler raises: it fires inside the worker's own loop between calls (bounded: 40 shots). Expected: A at most 32/32, every failure explained; the grader and the batch go on.
import signal as _signal

_shots = [0]


def _raise(signum, frame):
    _shots[0] += 1
    if _shots[0] >= 40:
        _signal.setitimer(_signal.ITIMER_REAL, 0)
    raise RuntimeError("alarm")


_signal.signal(_signal.SIGALRM, _raise)
_signal.setitimer(_signal.ITIMER_REAL, 0.3, 0.3)
