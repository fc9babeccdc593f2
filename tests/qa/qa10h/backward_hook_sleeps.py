# snippet: attention_scores is right but registers a hook on its result that sleeps 30 s when a gradient flows back through it (bounded): the gradient checks of A.1 and of the tasks built on it stall inside autograd's backward. Expected: A at most 31/32 (A.1's gradient check times out; A.3's passes with a trusted A.1), E 10/10, no grader error, the batch goes on.
import time as _time

_plain_scores = attention_scores


def attention_scores(q, k):
    scores = _plain_scores(q, k)
    if scores.requires_grad:
        scores.register_hook(lambda grad: (_time.sleep(30), grad)[1])
    return scores
