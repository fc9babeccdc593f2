"""An infinite loop at import that swallows the grader's stop of a slow top-level statement, so
only the import's time limit ends it (bounded at 60 s so that a regression cannot hang the suite)."""
import time

_end = time.monotonic() + 60
while time.monotonic() < _end:
    try:
        while time.monotonic() < _end:
            pass
    except BaseException:  # the CellTimeLimit that stops a slow statement
        pass
