# snippet: at import, forks a child that leaves the worker's process group (setsid) and burns CPU for 60 s, hoping to outlive its worker and slow the neighbours graded after it. Expected: A 29/32 and E 0/10 (a fork at import: A.2 by hand, A.3's rule and the figure cannot be checked), flags evasion, process, tamper; the child dies with its worker's pid namespace; the neighbour "correct" keeps full marks.
import os as _os
import time as _time

if _os.fork() == 0:
    try:
        _os.setsid()
    except OSError:
        pass
    _end = _time.monotonic() + 60
    while _time.monotonic() < _end:
        pass
    _os._exit(0)
