"""Helpers of my attention.py."""
import torch


def stable_softmax(scores, mask=None):
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    m = scores.amax(-1, keepdim=True)
    m = torch.where(torch.isfinite(m), m, torch.zeros_like(m)).detach()
    e = torch.exp(scores - m)
    s = e.sum(-1, keepdim=True)
    return e / torch.where(s == 0, torch.ones_like(s), s)


def to_heads(x, h):
    b, s, e = x.shape
    return x.reshape(b, s, h, e // h).transpose(1, 2)


def from_heads(x):
    b, h, s, dh = x.shape
    return x.transpose(1, 2).reshape(b, s, h * dh)
