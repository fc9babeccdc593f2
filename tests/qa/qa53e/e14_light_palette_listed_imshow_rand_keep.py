# CORRECT: imshow with ListedColormap(seaborn.light_palette('seagreen', 8)); rand < keep dropout; clone+in-place softmax; matmul mT; arange causal; unflatten split, permute/view merge; shared-source defaults; block by hand
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
    """Works on a copy in place (the caller's scores and mask are never written)."""
    s = scores.clone()
    if mask is not None:
        s.masked_fill_(mask.logical_not(), float("-inf"))
    row_max = s.amax(dim=-1, keepdim=True).detach()
    row_max[~torch.isfinite(row_max)] = 0.0
    s = s - row_max
    s = s.exp()
    total = s.sum(dim=-1, keepdim=True)
    total = total.clamp_min(torch.finfo(s.dtype).tiny)
    return s / total


def scaled_dot_product_attention(q, k, v, mask=None):
    scores = attention_scores(q, k)
    attn = masked_softmax(scores, mask=mask)
    context = torch.matmul(attn, v)
    return context, attn


def causal_mask(size_q: int, size_k: int | None = None, device=None) -> torch.Tensor:
    size_k = size_k or size_q
    rows = torch.arange(size_q, device=device).unsqueeze(1)  # (Lq, 1)
    cols = torch.arange(size_k, device=device).unsqueeze(0)  # (1, Lk)
    return cols <= rows


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
        self.dim = dim
        self.W_q, self.W_k, self.W_v = nn.Linear(dim, dim), nn.Linear(dim, dim), nn.Linear(dim, dim)

    def forward(self, x, mask=None):
        q, k, v = self.W_q(x), self.W_k(x), self.W_v(x)      # (B, S, D)
        scores = torch.bmm(q, k.transpose(1, 2)) / math.sqrt(self.dim)  # (B, S, S)
        weights = masked_softmax(scores, mask)
        return torch.bmm(weights, v), weights


def split_heads(x: torch.Tensor, num_heads: int) -> torch.Tensor:
    return x.unflatten(-1, (num_heads, -1)).transpose(1, 2)  # (B, S, H, Dh) -> (B, H, S, Dh)


def merge_heads(x: torch.Tensor) -> torch.Tensor:
    batch, heads, seq, head_dim = x.shape
    return x.permute(0, 2, 1, 3).contiguous().view(batch, seq, heads * head_dim)


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
        source = query if key is None else key
        key, value = source, (source if value is None else value)
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
    cmap = ListedColormap(sns.light_palette("seagreen", 8))
    if ax is None:
        fig, ax = plt.subplots(figsize=(2 + 0.6 * lq, 1.5 + 0.5 * lk))
    matrix = np.asarray(weights.T)  # (Lk, Lq): keys on the rows, queries across
    image = ax.imshow(matrix, cmap=cmap, vmin=0, vmax=1, aspect="auto", interpolation="nearest")
    ax.set_xticks(range(lq))
    ax.set_xticklabels(query_tokens, rotation=45, ha="right")
    ax.set_yticks(range(lk))
    ax.set_yticklabels(key_tokens)
    ax.figure.colorbar(image, ax=ax)
    ax.set_xlabel("Query position")
    ax.set_ylabel("Key position")
    if title is not None:
        ax.set_title(title)
    return ax
