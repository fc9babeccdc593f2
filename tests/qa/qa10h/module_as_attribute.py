# snippet: masked_softmax unpickles through torch.serialization.pickle (the pickle module reached as another module's attribute, never imported by name): the bytes' GLOBAL opcodes look up the library softmax and the tracer's switches by text. Expected: A 29/32 (A.2 by hand 0, A.3's rule cannot be checked).
import torch.serialization as _serialization


def _payload(module, name):
    return b"c" + module.encode() + b"\n" + name.encode() + b"\n."


def masked_softmax(scores, mask=None):
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    soft = _serialization.pickle.loads(_payload("torch.nn.functional", "soft" + "max"))
    off = _serialization.pickle.loads(_payload("torch._" + "C", "DisableTorchFunction"))
    modes = _serialization.pickle.loads(_payload("torch.utils._python_dispatch", "_disable_current_modes"))
    with off(), modes():
        weights = soft(scores, -1)
    return torch.nan_to_num(weights, nan=0.0)
