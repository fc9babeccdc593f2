# snippet: attention_scores returns a complex tensor whose real part is right. Expected: A 26/32 (A.1 loses its checks; A.3 keeps its points with the stand-in), E 10/10.
_real_scores = attention_scores


def attention_scores(q, k):
    return torch.complex(_real_scores(q, k), torch.ones(()).to(q.dtype).expand(q.shape[:-1] + (k.shape[-2],)))
