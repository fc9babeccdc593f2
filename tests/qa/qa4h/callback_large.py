# snippet: attention_scores is wrong, so A.3 is graded again with the grader's trusted attention_scores standing in; scaled_dot_product_attention first asks that stand-in for the scores of q, k of shape (1, 1, 12000, 160) in float64 (3.8 M inputs, within the callback limit: 1.15 GB of scores computed in the grader) and prints why it got none. Before the fix: the grader computed it (the reply was then too large to send). Expected: A 27/32 (A.1 lost), the call refused before any work.
def attention_scores(q, k):
    return q @ k.transpose(-2, -1)  # not scaled: A.1 fails


def scaled_dot_product_attention(q, k, v, mask=None, dropout_p=0.0, training=False):
    if id(attention_scores) != _wrong_scores[0]:  # a trusted stand-in is in place (module-level aliases are swapped with it: an id in a list is not)
        big = torch.ones(1, 1, 12000, 160, dtype=torch.float64)
        try:
            attention_scores(big, big)
            print("large stand-in call: answered")
        except Exception as error:
            print("large stand-in call:", error)
    weights = masked_softmax(attention_scores(q, k), mask)
    return weights @ v, weights


_wrong_scores = [id(attention_scores)]
