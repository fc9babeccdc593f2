# qa9s b22_a2_rows_summed_over_queries_bound_method_in_b1: BUG A.2: the bound-method softmax sums over dim=-2; A.3 is a method of the same object calling self.softmax, and B.1 calls _ops.attend.
# Per-part scores (A-D): A=18 B=10 C=28 D=12.
# Mistakes named: none.
# ruff: noqa  (a student's file: written as a student writes it)
import math

import matplotlib.pyplot as plt
import torch
import torch.nn as nn


class _Ops:
    def scores(self, q, k):
        return q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))

    def softmax(self, scores, mask=None):
        if mask is not None:
            scores = scores.masked_fill(~mask, float("-inf"))
        m = scores.amax(-1, keepdim=True)
        m = torch.where(torch.isfinite(m), m, torch.zeros_like(m)).detach()
        e = (scores - m).exp()
        t = e.sum(-2, keepdim=True)
        return e / torch.where(t == 0, torch.ones_like(t), t)


    def attend(self, q, k, v, mask=None):
        w = self.softmax(self.scores(q, k), mask)
        return w @ v, w


_ops = _Ops()
attention_scores = _ops.scores
masked_softmax = _ops.softmax
scaled_dot_product_attention = _ops.attend


def causal_mask(size_q, size_k=None, device=None):
    size_k = size_q if size_k is None else size_k
    return torch.ones(size_q, size_k, dtype=torch.bool, device=device).tril()


class SelfAttention(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.W_q = nn.Linear(dim, dim)
        self.W_k = nn.Linear(dim, dim)
        self.W_v = nn.Linear(dim, dim)

    def forward(self, x, mask=None):
        return _ops.attend(self.W_q(x), self.W_k(x), self.W_v(x), mask)


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
        weights = _ops.softmax(_ops.scores(q, k), mask)
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
