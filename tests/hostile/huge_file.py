# snippet: at import, writes up to 1 GiB into a file in 1 MiB steps, stops at the first error.
_written = 0
try:
    with open("huge.bin", "wb") as _handle:
        for _ in range(1024):
            _handle.write(b"\0" * (1 << 20))
            _handle.flush()
            _written += 1 << 20
except OSError as _error:
    print(f"huge file stopped after {_written} bytes: {_error}")
