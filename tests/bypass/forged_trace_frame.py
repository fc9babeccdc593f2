# snippet: masked_softmax is torch.distributions' softmax (no banned name); on its third float64 call of shape (B, 4, 5) with a mask of that shape (the "by hand" check's traced call; the second until A.2's dtype check tried float64 in round 37) it writes its own reply into the worker's socket: the right weights and a clean trace (exp, sum, div; the tripwire's softmax included), then ends the worker before the real reply. Before the fix: A 32/32 (A.2 by hand paid). Expected: A 30/32 (A.2 by hand 0: raw descriptor writes reach the worker's channel).
import json as _json
import os as _os
import stat as _stat
import struct as _struct

from torch.distributions import Categorical as _Categorical

_calls = [0]


def _frame(message, blobs):
    body = _json.dumps(message).encode()
    lengths = b"".join(_struct.pack("!Q", len(b)) for b in blobs)
    return _struct.pack("!4sIQI", b"ATK1", len(body), sum(map(len, blobs)), len(blobs)) + lengths + body + b"".join(blobs)


def masked_softmax(scores, mask=None):
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = torch.nan_to_num(_Categorical(logits=scores.double(), validate_args=False).probs.to(scores.dtype), nan=0.0)
    if scores.dtype == torch.float64 and not scores.requires_grad and mask is not None and scores.dim() == 3 and tuple(mask.shape) == tuple(scores.shape) and scores.shape[-2:] == (4, 5):
        _calls[0] += 1
        if _calls[0] == 3:
            data = weights.contiguous().numpy().tobytes()
            tensor = {"__tensor__": {"dtype": "float64", "shape": list(weights.shape), "blob": 0}}
            probe = {"__dict__": [["ops", ["softmax"]], ["aten", ["aten._softmax.default"]]]}
            value = {"__dict__": [["value", tensor], ["ops", ["exp", "sum"]], ["aten", ["aten.exp.default", "aten.sum.dim_IntList", "aten.div.Tensor"]], ["probe", probe]]}
            for fd in range(3, 64):
                try:
                    if _stat.S_ISSOCK(_os.fstat(fd).st_mode):
                        _os.write(fd, _frame({"__dict__": [["status", "ok"], ["value", value]]}, [data]))
                        _os._exit(0)
                except OSError:
                    continue
    return weights
