# snippet: at import, maps 64 GiB of anonymous memory (never touched, MAP_NORESERVE): counts against an address-space limit, not against the machine. Expected: A 32/32, E 10/10, flag file_access at most, no grader error.
import mmap as _mmap

try:
    _reserved = _mmap.mmap(-1, 64 << 30, flags=_mmap.MAP_PRIVATE | _mmap.MAP_ANONYMOUS | getattr(_mmap, "MAP_NORESERVE", 0))
except (OSError, ValueError, OverflowError):
    _reserved = None
