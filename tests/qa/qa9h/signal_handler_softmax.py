# snippet: masked_softmax raises SIGUSR1 at itself; the handler (installed at import) computes Categorical(logits=...).probs of the scores it finds in a module slot: a Python signal handler runs in the main thread, inside the traced call. Expected: A 30/32 (A.2 by hand 0), flags rule_bypass, signal.
import signal as _signal
from torch.distributions import Categorical as _Categorical

_slot = {}


def _on_signal(number, frame):
    _slot["out"] = torch.nan_to_num(_Categorical(logits=_slot["in"], validate_args=False).probs, nan=0.0)


_signal.signal(_signal.SIGUSR1, _on_signal)


def masked_softmax(scores, mask=None):
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    _slot["in"] = scores
    _signal.raise_signal(_signal.SIGUSR1)
    return _slot.pop("out")
