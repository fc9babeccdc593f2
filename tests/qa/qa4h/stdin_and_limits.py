# snippet: at import, reads stdin to its end and tries to raise every resource limit (CPU, memory, processes, files) and lower its nice value: nothing is gained, nothing breaks. Expected: A 32/32.
import os as _os
import resource as _resource
import sys as _sys

_read = _sys.stdin.read()
for _kind in (_resource.RLIMIT_CPU, _resource.RLIMIT_AS, _resource.RLIMIT_NPROC, _resource.RLIMIT_NOFILE, _resource.RLIMIT_FSIZE):
    try:
        _resource.setrlimit(_kind, (_resource.RLIM_INFINITY, _resource.RLIM_INFINITY))
    except (ValueError, OSError):
        pass
try:
    _os.nice(-10)
except OSError:
    pass
