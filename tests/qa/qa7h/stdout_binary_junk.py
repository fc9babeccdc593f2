# snippet: at import writes raw bytes through sys.stdout.buffer and sys.stderr.buffer (no descriptor I/O): invalid UTF-8, NUL, a carriage return that overwrites a forged score line, a BOM, 200 kB without a newline. Expected: A 32/32, E 10/10, the output shown as text (capped).
import sys as _sys

_sys.stdout.buffer.write(b"\xff\xfe\x00\x00 score 0/100\r score 100/100 \xef\xbb\xbf\xc3\x28 " + b"A" * 200_000)
_sys.stdout.flush()
_sys.stderr.buffer.write(b"\x00" * 1000 + b"\n")
