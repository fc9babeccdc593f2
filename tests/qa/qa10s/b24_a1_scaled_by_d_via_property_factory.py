# qa10s b24_a1_scaled_by_d_via_property_factory: BUG A.1: divides by d; B.1 and C.3 hold the kernels as class attributes made by a property factory, kernel(fn) = property(lambda self: fn), so a closure inside a property.
# Per-part scores (A-D): A=27 B=10 C=28 D=12.
# Mistakes named: scores_scaled_by_d.
# ruff: noqa  (a student's file: written as a student writes it)
import math

import matplotlib.pyplot as plt
import torch
import torch.nn as nn
import torch.nn.functional as F


def kernel(fn):
    return property(lambda self: fn)


def attention_scores(q, k):
    return q @ k.transpose(-2, -1) / q.size(-1)


def masked_softmax(scores, mask=None):
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    top = scores.amax(dim=-1, keepdim=True)
    top = torch.where(torch.isfinite(top), top, torch.zeros_like(top)).detach()
    e = torch.exp(scores - top)
    total = e.sum(dim=-1, keepdim=True)
    return e / torch.where(total == 0, torch.ones_like(total), total)


def scaled_dot_product_attention(q, k, v, mask=None):
    weights = masked_softmax(attention_scores(q, k), mask)
    return weights @ v, weights


def causal_mask(size_q, size_k=None, device=None):
    if size_k is None:
        size_k = size_q
    return torch.ones(size_q, size_k, dtype=torch.bool, device=device).tril()


class SelfAttention(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.W_q = nn.Linear(dim, dim)
        self.W_k = nn.Linear(dim, dim)
        self.W_v = nn.Linear(dim, dim)

    kernel = kernel(scaled_dot_product_attention)

    def forward(self, x, mask=None):
        return self.kernel(self.W_q(x), self.W_k(x), self.W_v(x), mask=mask)


def split_heads(x, num_heads):
    b, s, e = x.shape
    return x.reshape(b, s, num_heads, e // num_heads).transpose(1, 2)


def merge_heads(x):
    b, h, s, dh = x.shape
    return x.transpose(1, 2).reshape(b, s, h * dh)


class MultiHeadAttention(nn.Module):
    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True):
        super().__init__()
        if embed_dim % num_heads != 0:
            raise ValueError("embed_dim must be divisible by num_heads")
        self.num_heads = num_heads
        for name in ("W_q", "W_k", "W_v", "W_o"):
            setattr(self, name, nn.Linear(embed_dim, embed_dim, bias=bias))
        self.dropout = nn.Dropout(dropout)

    ops = kernel((attention_scores, masked_softmax, split_heads, merge_heads))

    def forward(self, query, key=None, value=None, mask=None):
        scores_fn, softmax_fn, split, merge = self.ops
        key = query if key is None else key
        value = key if value is None else value
        q = split(self.W_q(query), self.num_heads)
        k = split(self.W_k(key), self.num_heads)
        v = split(self.W_v(value), self.num_heads)
        weights = softmax_fn(scores_fn(q, k), mask)
        return self.W_o(merge(self.dropout(weights) @ v)), weights


class AttentionBlock(nn.Module):
    def __init__(self, embed_dim, num_heads, dropout=0.0):
        super().__init__()
        self.attn = MultiHeadAttention(embed_dim, num_heads, dropout)
        self.dropout = nn.Dropout(dropout)
        self.norm = nn.LayerNorm(embed_dim)

    def forward(self, x, mask=None):
        a, weights = self.attn(x, x, x, mask=mask)
        return self.norm(x + self.dropout(a)), weights


def plot_attention(weights, query_tokens, key_tokens, ax=None, title=None):
    matrix = torch.as_tensor(weights).detach().to("cpu", torch.float64)
    if ax is None:
        _, ax = plt.subplots(figsize=(1 + 0.6 * matrix.shape[0], 1 + 0.5 * matrix.shape[1]))
    image = ax.imshow(matrix.T.numpy(), cmap="Blues", vmin=0.0, vmax=1.0, aspect="auto")
    ax.set_xticks(range(len(query_tokens)), labels=list(query_tokens), rotation=45, ha="right")
    ax.set_yticks(range(len(key_tokens)), labels=list(key_tokens))
    ax.set_xlabel("query position")
    ax.set_ylabel("key position")
    ax.figure.colorbar(image, ax=ax, label="attention weight")
    if title:
        ax.set_title(title)
    return ax
