"""An infinite loop at import (bounded at 60 s so that a regression cannot hang the suite)."""
import time

_end = time.monotonic() + 60
while time.monotonic() < _end:
    pass
