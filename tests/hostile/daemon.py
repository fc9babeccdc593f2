# snippet: at import, a daemon (double fork + setsid) that tries to outlive grading (30 s at most).
import os as _os
import time as _time

if _os.fork() == 0:
    _os.setsid()
    if _os.fork() == 0:
        for _ in range(30):
            _time.sleep(1)
    _os._exit(0)
