# snippet: masked_softmax uses torch.distributions' SoftmaxTransform, reached as transform_to(constraints.simplex) (no softmax named; the transform computes exp/sum in Python: elementary operators). Expected: A 30/32 (A.2 by hand 0).
from torch.distributions import constraints as _constraints, transform_to as _transform_to

_to_simplex = _transform_to(_constraints.simplex)


def masked_softmax(scores, mask=None):
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    return _to_simplex(scores).nan_to_num(0.0)
