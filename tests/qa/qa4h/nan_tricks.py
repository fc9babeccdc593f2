# snippet: every Part A function returns tensors of the right shape and dtype full of NaN (and inf for the mask's False): NaN compares equal to nothing. Expected: A earns only its 2 shape checks at most (A 2/32 or less).
def attention_scores(q, k):
    return torch.full((*q.shape[:-1], k.shape[-2]), float("nan"), dtype=q.dtype)


def masked_softmax(scores, mask=None):
    return torch.full_like(scores, float("nan"))


def scaled_dot_product_attention(q, k, v, mask=None, dropout_p=0.0, training=False):
    weights = torch.full((*q.shape[:-1], k.shape[-2]), float("nan"), dtype=q.dtype)
    return torch.full((*q.shape[:-1], v.shape[-1]), float("nan"), dtype=q.dtype), weights


def causal_mask(size_q, size_k=None, device=None):
    return torch.zeros(size_q, size_k or size_q, dtype=torch.bool, device=device)
