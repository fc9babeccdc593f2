# snippet: at import, looks for what qa4h_leave_traces left (files, the abstract socket, the environment); causal_mask returns a wrong mask if it finds any. Expected: A 32/32 (it finds nothing).
import os as _os
import socket as _socket

_found = [p for p in ("/tmp/qa4h_trace", "/dev/shm/qa4h_trace", _os.path.expanduser("~/qa4h_trace"), _os.path.expanduser("~/.cache/torch/qa4h_trace")) if _os.path.exists(p)]
if _os.environ.get("QA4H_TRACE"):
    _found.append("environment")
try:
    _probe = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    _probe.connect("\0qa4h_trace")
    _found.append("socket")
except OSError:
    pass
print("found:", _found)
_honest_causal_mask = causal_mask


def causal_mask(size_q, size_k=None, device=None):
    mask = _honest_causal_mask(size_q, size_k, device)
    return ~mask if _found else mask
