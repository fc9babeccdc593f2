# snippet: attention_scores is wrong, so A.3 is graded again with the grader's trusted attention_scores standing in; then scaled_dot_product_attention calls it 8 times, 1.5 s apart (12 s in all: each wait is under the call limit, the whole call is not). Before the fix: A 27/32 (A.3 paid after 24 s on a 10 s limit). Expected: A 20/32, scaled_dot_product_attention "timed out".
_own_scores = attention_scores


def attention_scores(q, k):
    return q @ k.transpose(-2, -1)  # not scaled: A.1 fails


def scaled_dot_product_attention(q, k, v, mask=None, dropout_p=0.0, training=False):
    import time

    if id(attention_scores) != _wrong_scores[0]:  # a trusted stand-in is in place (module-level aliases are swapped with it: an id in a list is not)
        for _ in range(8):
            attention_scores(q, k)
            time.sleep(1.5)
    weights = masked_softmax(attention_scores(q, k), mask)
    return weights @ v, weights


_wrong_scores = [id(attention_scores)]
