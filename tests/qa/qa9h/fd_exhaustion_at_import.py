# snippet: at import, opens /dev/null until the descriptor limit refuses (keeps them all): every later open in the worker fails (fonts for the figure, imports). Expected: A 32/32, E 0/10 (the figure cannot be drawn: no font opens), flag file_access, no grader error.
_kept = []
try:
    while len(_kept) < 1_000_000:
        _kept.append(open("/dev/null", "rb"))
except OSError:
    pass
