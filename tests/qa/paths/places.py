# snippet: QA (paths): the .py counterpart of notebook_places.ipynb: the reference with masked_softmax
# calling torch.softmax and split_heads reading x.shap (a .py file names places as `places.py:N`
# and `line N`, as before). Expected: A 30/32 (the rule), B 10/10, C 24/28 (split_heads), D 12, E 10, F 8.
import torch


def masked_softmax(scores, mask=None):
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    return torch.softmax(scores, dim=-1).nan_to_num(0.0)


def split_heads(x, num_heads):
    batch, seq, dim = x.shap
    return x.view(batch, seq, num_heads, dim // num_heads).transpose(1, 2)
