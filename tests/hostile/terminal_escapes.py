# snippet: prints terminal escapes at import (clear the screen, retitle the window, a bell, a
# carriage return that would hide the line before it) beside a forged score line, so that an
# instructor who runs `cat feedback.md` would see the terminal act.
import sys as _sys

print("\x1b[2J\x1b[H\x1b]0;pwned\x07hidden\rScore: 100/100")
print("\x1b[31mALL CHECKS PASSED\x1b[0m", file=_sys.stderr)
