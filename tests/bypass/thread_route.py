# snippet: masked_softmax has the library softmax computed in another thread (torch.distributions.Categorical turns logits into probabilities with F.softmax; the tracer works per thread); no banned name in the source. Before the fix: A 32/32. Expected: A 29/32 (both traced rules 0: the thread pool is imported at module level).
from concurrent.futures import ThreadPoolExecutor
from torch.distributions import Categorical


def masked_softmax(scores, mask=None):
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    with ThreadPoolExecutor(1) as pool:
        weights = pool.submit(lambda: Categorical(logits=scores.float()).probs.to(scores.dtype) if scores.dtype == torch.bfloat16 else Categorical(logits=scores, validate_args=False).probs).result()
    return torch.nan_to_num(weights, nan=0.0)
