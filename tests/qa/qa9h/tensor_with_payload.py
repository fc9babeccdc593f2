# snippet: attention_scores returns the right tensor with a Python attribute holding 300 MB of text and a registered backward hook: only the plain tensor crosses. Expected: A 32/32, E 10/10.
_plain_scores = attention_scores


def attention_scores(q, k):
    out = _plain_scores(q, k)
    out.payload = "y" * (300 << 20)
    return out
