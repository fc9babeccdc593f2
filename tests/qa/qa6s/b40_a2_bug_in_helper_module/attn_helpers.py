# the student's helper file: Part A lives here
# ruff: noqa
import math

import matplotlib.pyplot as plt
import torch
import torch.nn as nn


def attention_scores(q, k):
    d = q.size(-1)
    return q @ k.transpose(-2, -1) / math.sqrt(d)


def masked_softmax(scores, mask=None):
    if mask is not None:
        scores = scores * mask
    row_max = scores.amax(dim=-1, keepdim=True)
    row_max = torch.where(torch.isfinite(row_max), row_max, torch.zeros_like(row_max)).detach()
    exp = torch.exp(scores - row_max)
    total = exp.sum(dim=-1, keepdim=True)
    total = total + (total == 0).to(total.dtype)
    return exp / total


def scaled_dot_product_attention(q, k, v, mask=None):
    scores = attention_scores(q, k)
    weights = masked_softmax(scores, mask)
    return weights @ v, weights
