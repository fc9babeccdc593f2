# qa6s b07_a2_no_fully_blocked_guard: BUG A.2: no guard for a fully blocked row (NaN from -inf - -inf).
# Per-part scores (A-D): A=30 B=10 C=28 D=12.
# Mistakes named: fully_masked_nan.
# ruff: noqa  (a student's file: written as a student writes it)
import functools
import math

import matplotlib.pyplot as plt
import torch
import torch.nn as nn


def attention_scores(q, k):
    d = q.size(-1)
    return q @ k.transpose(-2, -1) / math.sqrt(d)


def _softmax_along(scores, mask=None, dim=-1):
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    top = scores.amax(dim=dim, keepdim=True).detach()
    e = (scores - top).exp()
    s = e.sum(dim=dim, keepdim=True)
    return e / torch.where(s > 0, s, torch.ones_like(s))


masked_softmax = functools.partial(_softmax_along, dim=-1)


def _attend(q, k, v, mask=None, *, score, norm):
    w = norm(score(q, k), mask)
    return w @ v, w


scaled_dot_product_attention = functools.partial(_attend, score=attention_scores, norm=masked_softmax)


def _band(size_q, size_k=None, device=None, offset=0):
    size_k = size_q if size_k is None else size_k
    return torch.ones(size_q, size_k, dtype=torch.bool, device=device).tril(offset)


causal_mask = functools.partial(_band, offset=0)


class SelfAttention(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.W_q = nn.Linear(dim, dim)
        self.W_k = nn.Linear(dim, dim)
        self.W_v = nn.Linear(dim, dim)

    def forward(self, x, mask=None):
        q = self.W_q(x)
        k = self.W_k(x)
        v = self.W_v(x)
        return scaled_dot_product_attention(q, k, v, mask)


def split_heads(x, num_heads):
    B, S, E = x.shape
    if E % num_heads:
        raise ValueError("not divisible")
    return x.reshape(B, S, num_heads, E // num_heads).transpose(1, 2)


def merge_heads(x):
    B, H, S, Dh = x.shape
    return x.transpose(1, 2).reshape(B, S, H * Dh)


class MultiHeadAttention(nn.Module):
    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True):
        super().__init__()
        if embed_dim % num_heads:
            raise ValueError("embed_dim must be divisible by num_heads")
        self.embed_dim = embed_dim
        self.num_heads = num_heads
        self.W_q = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.W_k = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.W_v = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.W_o = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.dropout = nn.Dropout(dropout)

    def forward(self, query, key=None, value=None, mask=None):
        key = query if key is None else key
        value = key if value is None else value
        q = split_heads(self.W_q(query), self.num_heads)
        k = split_heads(self.W_k(key), self.num_heads)
        v = split_heads(self.W_v(value), self.num_heads)
        weights = masked_softmax(attention_scores(q, k), mask)
        heads = self.dropout(weights) @ v
        return self.W_o(merge_heads(heads)), weights


class AttentionBlock(nn.Module):
    def __init__(self, embed_dim, num_heads, dropout=0.0):
        super().__init__()
        self.attn = MultiHeadAttention(embed_dim, num_heads, dropout)
        self.norm = nn.LayerNorm(embed_dim)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x, mask=None):
        attended, weights = self.attn(x, mask=mask)
        return self.norm(x + self.dropout(attended)), weights


def plot_attention(weights, query_tokens, key_tokens, ax=None, title=None):
    matrix = torch.as_tensor(weights).detach().to("cpu", torch.float64)
    if ax is None:
        _, ax = plt.subplots()
    image = ax.imshow(matrix.T.numpy(), cmap="Blues", vmin=0.0, vmax=1.0, aspect="auto")
    ax.set_xticks(range(len(query_tokens)), labels=list(query_tokens))
    ax.set_yticks(range(len(key_tokens)), labels=list(key_tokens))
    ax.set_xlabel("query position")
    ax.set_ylabel("key position")
    ax.figure.colorbar(image, ax=ax)
    if title:
        ax.set_title(title)
    return ax
