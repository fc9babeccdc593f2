# snippet: attention_scores is right in float32 and float64 but returns zeros (of the right dtype and shape) for float16 inputs, which only the dtype check passes. A property pays only on right values on its own inputs. Expected: A 31/32 (A.1 keeps float32 and float16: 0), no flag.
_right_attention_scores = attention_scores


def attention_scores(q, k):
    if q.dtype == torch.float16:
        return torch.zeros(*q.shape[:-1], k.shape[-2], dtype=q.dtype)
    return _right_attention_scores(q, k)
