import math


def scale_scores(s, d):
    return s / math.sqrt(d)


def to_heads(x, h):
    B, S, E = x.shape
    return x.reshape(B, S, h, E // h).transpose(1, 2)


def from_heads(x):
    B, H, S, Dh = x.shape
    return x.transpose(1, 2).reshape(B, S, H * Dh)
