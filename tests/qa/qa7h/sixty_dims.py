# snippet: attention_scores returns the right values with 58 leading dimensions of size 1 (64 dims: torch's most). Expected: A 26/32 (A.1: wrong shape), E 10/10.
_plain_scores = attention_scores


def attention_scores(q, k):
    s = _plain_scores(q, k)
    return s.reshape((1,) * (64 - s.dim()) + tuple(s.shape))
