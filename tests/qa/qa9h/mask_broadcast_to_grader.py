# snippet: masked_softmax ignores the mask (A.2 wrong, so A.3 is graded again with the trusted masked_softmax), and scaled_dot_product_attention first calls that stand-in 8 times with small scores (256, 1) and a mask (512, 1, 256) that broadcasts them to 33.5 million numbers, computed in the GRADER's process (the inputs' bound, 4M elements, said nothing of the broadcast); then it computes the right answer. Expected: A 22/32 (A.2's mask checks 0; A.3 keeps its points through the stand-in, each huge call refused), no flag, no grader error.
_honest_softmax = masked_softmax


def masked_softmax(scores, mask=None):
    return _honest_softmax(scores)


def scaled_dot_product_attention(q, k, v, mask=None):
    for _ in range(8):
        try:
            masked_softmax(torch.zeros(256, 1), torch.ones(512, 1, 256, dtype=torch.bool))
        except Exception:  # the grader refuses: go on
            pass
    weights = masked_softmax(attention_scores(q, k), mask)  # (..., Lq, Lk)
    return weights @ v, weights
