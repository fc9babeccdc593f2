# snippet: masked_softmax has asyncio run Categorical(...).probs (torch's softmax) in its default thread pool (asyncio.to_thread): the worker's trace is per thread and asyncio was only flagged as network. Expected: A 30/32 (A.2 by hand 0: cannot be checked, a thread ran during the call; A.3 is graded with the trusted masked_softmax), E 10/10, flags evasion, network.
import asyncio as _asyncio


def _probs(logits):
    return torch.distributions.Categorical(logits=logits, validate_args=False).probs


def masked_softmax(scores, mask=None):
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = _asyncio.run(_asyncio.to_thread(_probs, scores))
    return torch.nan_to_num(weights, nan=0.0)
