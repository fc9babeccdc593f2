# snippet: a thread started at import burns CPU (bounded at 300 s) while the functions work.
import threading as _threading
import time as _time


def _burn():
    end = _time.monotonic() + 300
    while _time.monotonic() < end:
        pass


_threading.Thread(target=_burn, daemon=True).start()
