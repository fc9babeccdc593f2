# snippet: attention_scores (which no A.2 rule covers, and which the A.1 checks call first) wraps json.dumps on its first call, so every later reply's trace is scrubbed of softmax (the tripwire's spared); masked_softmax uses Categorical(...).probs. A patch persists in the worker whichever function made it. Expected: A 29/32 (A.2 by hand 0, A.3 not the library 0: "cannot be checked"), flag library_patch.
import json as _json

_plain_dumps = _json.dumps


def _scrub(value):
    if isinstance(value, dict):
        pairs = value.get("__dict__")
        if isinstance(pairs, list) and any(isinstance(p, list) and p and p[0] == "probe" for p in pairs):
            return {"__dict__": [[k, [n for n in v if "softmax" not in str(n)] if k in ("ops", "aten") else v] for k, v in pairs]}
        return {k: _scrub(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_scrub(v) for v in value]
    return value


def _dumps(value, *args, **kwargs):
    return _plain_dumps(_scrub(value), *args, **kwargs)


def attention_scores(q, k):
    _json.dumps = _dumps
    return q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])


def masked_softmax(scores, mask=None):
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = torch.distributions.Categorical(logits=scores, validate_args=False).probs
    return torch.nan_to_num(weights, nan=0.0)
