# qa23s b04_a2_softmax_object_shared_with_c3: BUG A.2: masked_softmax only returns _softmax(scores, mask), an nn.Module object of its own class whose max runs over all rows; MultiHeadAttention calls that object directly. Before: C.3 charged again (C 8/28).
# Per-part scores: A=18 B=10 C=28 D=12 E=10 F=8.
# Mistakes named: none.
"""QA23: every task delegates to small nn.Module kernels held at module level."""
import math
from typing import Optional

import matplotlib.pyplot as plt
import torch
import torch.nn as nn
from torch import Tensor


class ScaledScores(nn.Module):
    def forward(self, q: Tensor, k: Tensor) -> Tensor:
        return q.matmul(k.transpose(-1, -2)).mul(1.0 / math.sqrt(q.shape[-1]))


class HandSoftmax(nn.Module):
    def forward(self, s: Tensor, mask: Optional[Tensor]) -> Tensor:
        if mask is not None:
            s = s.masked_fill(~mask, float("-inf"))
        m = torch.max(s)
        m = m.masked_fill(torch.isneginf(m), 0.0)
        e = torch.exp(s - m.detach())
        total = e.sum(dim=-1, keepdim=True)
        return e / total.clamp(min=1.0)


class WeightedSum(nn.Module):
    def forward(self, w: Tensor, v: Tensor) -> Tensor:
        return w @ v


_scores = ScaledScores()
_softmax = HandSoftmax()
_mix = WeightedSum()


def attention_scores(q, k):
    return _scores(q, k)


def masked_softmax(scores, mask=None):
    return _softmax(scores, mask)


def scaled_dot_product_attention(q, k, v, mask=None):
    weights = masked_softmax(attention_scores(q, k), mask)
    return _mix(weights, v), weights


def causal_mask(size_q, size_k=None, device=None):
    size_k = size_q if size_k is None else size_k
    q_idx = torch.arange(size_q, device=device).view(-1, 1)
    k_idx = torch.arange(size_k, device=device).view(1, -1)
    return (q_idx - k_idx) >= 0


class SelfAttention(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.W_q = nn.Linear(dim, dim)
        self.W_k = nn.Linear(dim, dim)
        self.W_v = nn.Linear(dim, dim)
        self.register_buffer("inv_scale", torch.tensor(1.0 / math.sqrt(dim)), persistent=False)

    def forward(self, x, mask=None):
        s = self.W_q(x) @ self.W_k(x).transpose(1, 2) * self.inv_scale
        w = masked_softmax(s, mask)
        return w @ self.W_v(x), w


class HeadSplitter(nn.Module):
    def __init__(self, heads):
        super().__init__()
        self.heads = heads

    def forward(self, x):
        b, s, e = x.shape
        return x.reshape(b, s, self.heads, e // self.heads).permute(0, 2, 1, 3)


def split_heads(x, num_heads):
    return HeadSplitter(num_heads)(x)


def merge_heads(x):
    b, h, s, d = x.shape
    return x.permute(0, 2, 1, 3).reshape(b, s, h * d)


class MultiHeadAttention(nn.Module):
    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True):
        super().__init__()
        if embed_dim % num_heads:
            raise ValueError("embed_dim % num_heads != 0")
        self.splitter = HeadSplitter(num_heads)
        self.W_q = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.W_k = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.W_v = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.W_o = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.dropout = nn.Dropout(dropout)
        self.kernel = ScaledScores()

    def forward(self, query, key=None, value=None, mask=None):
        key = query if key is None else key
        value = key if value is None else value
        q = self.splitter(self.W_q(query))
        k = self.splitter(self.W_k(key))
        v = self.splitter(self.W_v(value))
        w = _softmax(self.kernel(q, k), mask)
        return self.W_o(merge_heads(_mix(self.dropout(w), v))), w


class AttentionBlock(nn.Module):
    def __init__(self, embed_dim, num_heads, dropout=0.0):
        super().__init__()
        self.attn = MultiHeadAttention(embed_dim, num_heads, dropout)
        self.dropout = nn.Dropout(dropout)
        self.norm = nn.LayerNorm(embed_dim, eps=1e-3)

    def forward(self, x, mask=None):
        out, weights = self.attn(x, mask=mask)
        return self.norm(self.dropout(out) + x), weights


def plot_attention(weights, query_tokens, key_tokens, ax=None, title=None):
    grid = weights.detach().float().numpy()
    if ax is None:
        fig = plt.figure()
        ax = fig.gca()
    handle = ax.imshow(grid.T, cmap="Greys", vmin=0, vmax=1)
    ax.set_xticks(range(len(query_tokens)), query_tokens)
    ax.set_yticks(range(len(key_tokens)), key_tokens)
    ax.set_xlabel("query")
    ax.set_ylabel("key")
    ax.figure.colorbar(handle)
    if title is not None:
        ax.set_title(title)
    return ax
