# snippet: causal_mask writes its own reply (the right mask) into the worker's socket a few bytes at a time, 16 s in all, then ends the worker. Before the fix the grader waited past the call limit and paid it (A 29/32, one causal_mask check 15 s long; an endless trickle stalled the batch). Expected: A 28/32, causal_mask "timed out".
def causal_mask(size_q, size_k=None, device=None):
    import json
    import os
    import struct
    import time
    size_k = size_q if size_k is None else size_k
    data = torch.ones(size_q, size_k, dtype=torch.bool).tril().numpy().tobytes()
    body = json.dumps({"__dict__": [["status", "ok"], ["value", {"__tensor__": {"dtype": "bool", "shape": [size_q, size_k], "blob": 0}}]]}).encode()
    frame = struct.pack("!4sIQI", b"ATK1", len(body), len(data), 1) + struct.pack("!Q", len(data)) + body + data
    fd = next(fd for fd in range(3, 64) if _is_socket(fd))
    step = -(-len(frame) // 16)
    for start in range(0, len(frame), step):
        os.write(fd, frame[start:start + step])
        time.sleep(1.0)
    os._exit(0)


def _is_socket(fd):
    import os
    import stat
    try:
        return stat.S_ISSOCK(os.fstat(fd).st_mode)
    except OSError:
        return False
