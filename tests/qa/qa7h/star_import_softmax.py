# snippet: `from torch.nn.functional import *` then a bare `softmax(...)` in masked_softmax (the name comes from a star import). Expected: A 22/32 (the star import also replaces the file's scaled_dot_product_attention with torch's: A.2 by hand 0, A.3 fails), E 10/10, flag rule_bypass.
from torch.nn.functional import *  # noqa


def masked_softmax(scores, mask=None):
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    return softmax(scores, dim=-1).nan_to_num(0.0)
