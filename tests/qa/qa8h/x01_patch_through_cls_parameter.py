# snippet: attack. A helper whose parameter is named cls replaces json.dumps (`def _install(cls, replacement): cls.dumps = replacement`, called with json); masked_softmax uses Categorical(...).probs and the patched dumps scrubs softmax from the trace each reply carries. self/cls were trusted by name. Expected: A 29/32 (A.2 by hand 0, A.3 1: cannot be checked), flag library_patch (graded on Part A) (before qa8h: A 32/32, no flag).
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


def _install(cls, replacement):
    cls.dumps = replacement


_install(_json, _dumps)


def masked_softmax(scores, mask=None):
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = torch.distributions.Categorical(logits=scores, validate_args=False).probs
    return torch.nan_to_num(weights, nan=0.0)
