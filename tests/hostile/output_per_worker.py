# snippet: 64 KiB printed at import, and every masked_softmax call ends its worker, so each of
# Part A's checks starts a new worker that imports and prints again (qa19h: 100 workers, 6.7 MB
# of output kept, the cap being each worker's)
import os as _os
import sys as _sys

_sys.stdout.write("y" * (64 << 10))
_sys.stdout.flush()


def masked_softmax(scores, mask=None):
    _os._exit(3)
