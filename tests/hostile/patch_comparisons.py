"""Wrong answers, plus comparison functions patched to always say "equal" (in the worker only)."""
import numpy
import torch


def attention_scores(q, k):
    return torch.zeros(*q.shape[:-1], k.shape[-2], dtype=q.dtype)


def masked_softmax(scores, mask=None):
    return torch.zeros_like(scores)


def scaled_dot_product_attention(q, k, v, mask=None, dropout_p=0.0, training=False):
    weights = torch.zeros(*q.shape[:-1], k.shape[-2], dtype=q.dtype)
    return torch.zeros(*q.shape[:-1], v.shape[-1], dtype=q.dtype), weights


def causal_mask(size_q, size_k=None, device=None):
    return torch.zeros(size_q, size_k or size_q, dtype=torch.bool)


def _always(*args, **kwargs):
    return True


torch.allclose = _always
torch.equal = _always
torch.testing.assert_close = lambda *args, **kwargs: None
numpy.allclose = _always
numpy.array_equal = _always
torch.Tensor.__eq__ = lambda self, other: torch.ones_like(self, dtype=torch.bool)
torch.isclose = lambda a, b, *args, **kwargs: torch.ones_like(a, dtype=torch.bool)
