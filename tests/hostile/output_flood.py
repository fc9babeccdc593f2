# snippet: at import, 150 MiB to stdout and 150 MiB to stderr in 1 MiB writes (no error is caught:
# a write that failed would stop the import, and the note would say so).
import sys as _sys

_chunk = "x" * (1 << 20)
for _stream in (_sys.stdout, _sys.stderr):
    for _ in range(150):
        _stream.write(_chunk)
        _stream.flush()
