"""The wire format between the grader and a worker: plain data only, never pickle.

A frame is a fixed header, a JSON document and raw byte blobs:
    "!4sIQI"  magic, JSON length, total blob length, blob count
    blob count x "!Q" blob lengths, then the JSON, then the blobs.
Every size is checked against the limits before anything is read into memory.

Values: None, bool, int, float, str, lists, and tagged objects:
    {"__tuple__": [...]}                      a tuple
    {"__dict__": [[key, value], ...]}         a dict (keys: str)
    {"__tensor__": {"dtype", "shape", "blob"}}  a dense torch.Tensor, bytes in blob number `blob`
    {"__handle__": n}                         a module living in the worker
    {"__refused__": "why"}                    something the worker will not send (any other object)
"""
from __future__ import annotations

import json
import math
import socket
import struct
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import torch

from autograder.settings import WIRE_MAX_BLOBS, WIRE_MAX_DEPTH, WIRE_MAX_JSON_BYTES, WIRE_MAX_PAYLOAD_BYTES

MAGIC = b"ATK1"
HEADER = struct.Struct("!4sIQI")
BLOB_LEN = struct.Struct("!Q")
SMALL_FRAME_BYTES = 1 << 20  # tensor data up to this size is sent with the header in one write
DTYPES: dict[str, torch.dtype] = {
    "float16": torch.float16,
    "bfloat16": torch.bfloat16,
    "float32": torch.float32,
    "float64": torch.float64,
    "bool": torch.bool,
    "uint8": torch.uint8,
    "int8": torch.int8,
    "int16": torch.int16,
    "int32": torch.int32,
    "int64": torch.int64,
}
DTYPE_NAMES = {dtype: name for name, dtype in DTYPES.items()}
NEW_AXES = "__attnkit_new_axes__"  # a plot keyword value the worker replaces by a fresh Axes (plotdata.plot_call)
NOT_DRAWN_TEXT = "text"  # a plot description's `not_drawn` when a text of the figure cannot be encoded (plotdata)
NOT_DRAWN_FIGURE = "figure"  # ... when matplotlib itself cannot draw the figure (its `error` says why: a bad mathtext label...)
GOURAUD = "gouraud"  # a mesh description's `interpolation` when pcolormesh(shading="gouraud") blends its colours (plotdata)
UNTRACED_KEYS = ("elsewhere", "subclassed", "unprofiled")  # a trace's report: True where code ran that it could not see (OpTracer)
PROFILED = "profile"  # a request's `look` whose trace also notes other libraries' Python functions (dispatcher._LibraryCalls)


@dataclass(frozen=True)
class Limits:
    max_json: int = WIRE_MAX_JSON_BYTES
    max_payload: int = WIRE_MAX_PAYLOAD_BYTES
    max_blobs: int = WIRE_MAX_BLOBS
    max_depth: int = WIRE_MAX_DEPTH


DEFAULT_LIMITS = Limits()


MAX_INT_BITS = 4096  # an integer sent as a number (about 1,233 digits; Python's text limit is 4,300)


class ProtocolError(Exception):
    """The peer sent something that is not a valid frame or value."""


# Everything that decoding untrusted JSON and tensor headers can raise: bad UTF-8, bad JSON, an
# integer longer than sys.get_int_max_str_digits() (ValueError), nesting past the C stack
# (RecursionError), shapes too large to allocate (RuntimeError, OverflowError, MemoryError).
DECODING_ERRORS = (ValueError, TypeError, RecursionError, RuntimeError, OverflowError, MemoryError)


class Refused:
    """Stands for an object the worker would not send; `why` says what it was."""

    def __init__(self, why: str):
        self.why = why

    def __repr__(self) -> str:
        return f"Refused({self.why!r})"


@dataclass(frozen=True)
class Handle:
    """A module object that lives in the worker."""

    number: int


# ---------------------------------------------------------------------------------------------
# values <-> (json, blobs)
# ---------------------------------------------------------------------------------------------
def tensor_nbytes(tensor: torch.Tensor) -> int:
    return tensor.numel() * tensor.element_size()


def describe(value: Any) -> str:
    kind = type(value)
    return f"{kind.__module__}.{kind.__qualname__}" if kind.__module__ != "builtins" else kind.__name__


def encode_value(value: Any, blobs: list[bytes], limits: Limits = DEFAULT_LIMITS, depth: int = 0) -> Any:
    """Turn a value into JSON-able data plus blobs. Unknown objects become {"__refused__": ...}."""
    if depth > limits.max_depth:
        return {"__refused__": "a value nested too deeply"}
    if type(value) is int and value.bit_length() > MAX_INT_BITS:  # past int_max_str_digits, json.dumps raises: the worker ended (qa37h b10)
        return {"__refused__": f"an integer of about {int(value.bit_length() * math.log10(2)) + 1} digits"}
    if value is None or type(value) in (bool, int, str):
        return value
    if type(value) is float:
        return value if math.isfinite(value) else {"__float__": repr(value)}
    if type(value) in (list, tuple):
        items = [encode_value(v, blobs, limits, depth + 1) for v in value]
        return items if type(value) is list else {"__tuple__": items}
    if type(value) is dict:
        if not all(type(k) is str for k in value):
            return {"__refused__": "a dict with non-string keys"}
        return {"__dict__": [[k, encode_value(v, blobs, limits, depth + 1)] for k, v in value.items()]}
    if type(value) is Handle:
        return {"__handle__": value.number}
    if type(value) is Refused:
        return {"__refused__": value.why}
    if type(value) in (torch.Tensor, torch.nn.Parameter):
        return _encode_tensor(value, blobs, limits)
    if isinstance(value, torch.Tensor):
        return {"__refused__": f"a Tensor subclass ({describe(value)}); return a plain torch.Tensor"}
    return {"__refused__": f"an object of type {describe(value)}"}


def _encode_tensor(tensor: torch.Tensor, blobs: list[bytes], limits: Limits) -> Any:
    if tensor.layout != torch.strided or tensor.is_quantized or tensor.device.type != "cpu":
        return {"__refused__": f"a tensor with layout {tensor.layout} on {tensor.device}; return a dense CPU tensor"}
    if tensor.dtype not in DTYPE_NAMES:
        return {"__refused__": f"a tensor of dtype {tensor.dtype}"}
    size = tensor_nbytes(tensor)
    if size > limits.max_payload:
        return {"__refused__": f"a tensor of {tensor.numel()} elements ({size} bytes), over the size limit"}
    flat = torch.Tensor.detach(tensor).reshape(-1).contiguous()  # the class's detach: not one stored on the tensor
    data = flat.view(torch.uint8).numpy().tobytes() if flat.numel() else b""
    blobs.append(data)
    return {"__tensor__": {"dtype": DTYPE_NAMES[tensor.dtype], "shape": list(tensor.shape), "blob": len(blobs) - 1}}


def decode_value(data: Any, blobs: Sequence[bytes | memoryview], depth: int = 0) -> Any:
    """Rebuild a value from untrusted JSON data; tensors are fresh plain CPU tensors."""
    if depth > DEFAULT_LIMITS.max_depth:
        raise ProtocolError("value nested too deeply")
    if type(data) is str:
        return _encodable(data)
    if data is None or type(data) in (bool, int, float):
        return data
    if type(data) is list:
        return [decode_value(v, blobs, depth + 1) for v in data]
    if type(data) is not dict or len(data) != 1:
        raise ProtocolError(f"unexpected value {str(data)[:80]!r}")
    (tag, body), = data.items()
    if tag == "__tuple__" and type(body) is list:
        return tuple(decode_value(v, blobs, depth + 1) for v in body)
    if tag == "__dict__" and type(body) is list:
        pairs = {}
        for pair in body:
            if type(pair) is not list or len(pair) != 2 or type(pair[0]) is not str:
                raise ProtocolError("malformed dict entry")
            pairs[_encodable(pair[0])] = decode_value(pair[1], blobs, depth + 1)
        return pairs
    if tag == "__float__" and body in ("nan", "inf", "-inf"):
        return float(body)
    if tag == "__handle__" and type(body) is int:
        return Handle(body)
    if tag == "__refused__" and type(body) is str:
        return Refused(_encodable(body[:300]))
    if tag == "__tensor__" and type(body) is dict:
        return _decode_tensor(body, blobs)
    raise ProtocolError(f"unknown tag {tag!r}")


def _encodable(text: str) -> str:
    """The text with lone surrogates (valid in JSON, not in UTF-8) replaced by '?', so that every
    string from the worker can be written into results and feedback files."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-8", errors="replace").decode("utf-8")


def _decode_tensor(body: dict, blobs: Sequence[bytes | memoryview]) -> torch.Tensor:
    dtype = DTYPES.get(str(body.get("dtype")))
    shape = body.get("shape")
    index = body.get("blob")
    if dtype is None or type(shape) is not list or not all(type(s) is int and s >= 0 for s in shape):
        raise ProtocolError("malformed tensor header")
    if type(index) is not int or not 0 <= index < len(blobs):
        raise ProtocolError("tensor refers to a missing blob")
    numel = math.prod(shape)
    item = torch.empty((), dtype=dtype).element_size()
    if numel * item != len(blobs[index]):
        raise ProtocolError(f"tensor of shape {shape} does not match its {len(blobs[index])} bytes")
    if numel == 0:
        return torch.empty(shape, dtype=dtype)
    return torch.frombuffer(bytearray(blobs[index]), dtype=dtype).reshape(shape)


# ---------------------------------------------------------------------------------------------
# frames over a socket
# ---------------------------------------------------------------------------------------------
def send_message(sock: socket.socket, message: dict, limits: Limits = DEFAULT_LIMITS) -> None:
    """Encode `message` (values inside are encoded) and send it as one frame (one write when it is small)."""
    blobs: list[bytes] = []
    body = json.dumps(encode_value(message, blobs, limits), allow_nan=False).encode("utf-8")
    total = sum(len(b) for b in blobs)
    header = HEADER.pack(MAGIC, len(body), total, len(blobs))
    lengths = b"".join(BLOB_LEN.pack(len(b)) for b in blobs)
    if total <= SMALL_FRAME_BYTES:  # one system call: the peer wakes once per frame, not once per blob
        sock.sendall(b"".join([header, lengths, body, *blobs]))
        return
    sock.sendall(header + lengths + body)
    for blob in blobs:
        sock.sendall(blob)


def _recv_exact(sock: socket.socket, size: int, deadline: float | None = None) -> bytearray:
    """`size` bytes; with a `deadline` (time.monotonic()), TimeoutError once it has passed, however
    the bytes trickle in (a socket's own timeout restarts with every byte that arrives). Bytes that
    arrived by then are read even where the reader itself comes late (a busy machine)."""
    buffer = bytearray(size)
    view = memoryview(buffer)
    received = 0
    while received < size:
        if deadline is not None:
            sock.settimeout(max(0.0, deadline - time.monotonic()))  # 0: what has arrived, without waiting
        try:
            count = sock.recv_into(view[received:], size - received)
        except BlockingIOError:
            raise TimeoutError("the peer did not send a whole frame in time") from None
        if count == 0:
            raise EOFError("the peer closed the connection")
        received += count
    return buffer


def recv_message(sock: socket.socket, limits: Limits = DEFAULT_LIMITS, deadline: float | None = None) -> dict:
    """Read one frame, checking every size before reading it; returns the decoded dict.
    `deadline` (time.monotonic()): the whole frame must have arrived by then, or TimeoutError."""
    magic, json_len, total, count = HEADER.unpack(_recv_exact(sock, HEADER.size, deadline))
    if magic != MAGIC:
        raise ProtocolError("bad frame magic")
    if json_len > limits.max_json or total > limits.max_payload or count > limits.max_blobs:
        raise ProtocolError(f"frame too large ({json_len} bytes of JSON, {total} bytes of data)")
    table = _recv_exact(sock, BLOB_LEN.size * count, deadline)  # count is within max_blobs: a bounded read
    lengths = [length for (length,) in BLOB_LEN.iter_unpack(table)]
    if sum(lengths) != total:
        raise ProtocolError("blob lengths do not add up")
    rest = memoryview(_recv_exact(sock, json_len + total, deadline))  # the whole frame is read: the next one stays aligned
    body, blobs, start = rest[:json_len], [], json_len
    for length in lengths:
        blobs.append(rest[start:start + length])
        start += length
    try:
        data = json.loads(str(body, "utf-8"))
        message = decode_value(data, blobs)
    except ProtocolError:
        raise
    except DECODING_ERRORS as error:  # e.g. an integer past int_max_str_digits is a ValueError
        raise ProtocolError(f"undecodable frame ({type(error).__name__}: {str(error)[:200]})") from None
    if type(message) is not dict:
        raise ProtocolError("a frame must hold a dict")
    return message
