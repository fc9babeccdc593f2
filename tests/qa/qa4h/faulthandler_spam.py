# snippet: at import, faulthandler dumps every thread's traceback to stderr every 0.2 s (from a C thread, to the end) and an atexit handler would loop forever: output is capped, the worker still ends. Expected: A 32/32.
import atexit as _atexit
import faulthandler as _faulthandler


def _forever():
    while True:
        pass


_faulthandler.dump_traceback_later(0.2, repeat=True)
_atexit.register(_forever)
