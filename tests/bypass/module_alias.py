# snippet: the library softmax bound to a harmless-looking module-level name
import functools

_row_normalise = functools.partial(torch.nn.functional.softmax, dim=-1)


def masked_softmax(scores, mask=None):
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    return _row_normalise(scores).nan_to_num(0.0)
