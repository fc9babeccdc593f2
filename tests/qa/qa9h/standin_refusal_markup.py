# snippet: masked_softmax ignores the mask (A.2's bug) and takes a third parameter, layout=None; scaled_dot_product_attention passes it an object whose class name holds markup (a closing </pre>, a script, a Markdown image and link). Graded again with the trusted masked_softmax, which refuses a layout other than the default and names its class in the feedback. Expected: A 14/32 (A.3 loses its checks too: its own masked_softmax and the stand-in refuse the layout), E 10/10, no link or image in feedback.md, no grader error.
_Layout = type("</pre><script>alert(1)</script>![x](http://example.invalid/t.png)[y](javascript:alert(1))", (), {})
_honest_softmax = masked_softmax


def masked_softmax(scores, mask=None, layout=None):
    if layout is not None:  # a layout its own code does not answer as without one: the trusted one refuses it (round 36 takes one that changes nothing)
        raise ValueError("this layout is not supported")
    return _honest_softmax(scores)


def scaled_dot_product_attention(q, k, v, mask=None):
    weights = masked_softmax(attention_scores(q, k), mask, _Layout())  # (..., Lq, Lk)
    return weights @ v, weights
