# snippet: at import, 150 MiB to stdout and 150 MiB to stderr in 1 MiB writes (errors ignored).
import sys as _sys

_chunk = "x" * (1 << 20)
for _stream in (_sys.stdout, _sys.stderr):
    for _ in range(150):
        try:
            _stream.write(_chunk)
            _stream.flush()
        except OSError:
            pass
