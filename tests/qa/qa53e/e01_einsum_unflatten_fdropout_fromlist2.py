# CORRECT: einsum with ellipsis in A.1 and A.3; masked_softmax by torch.where(mask, s, -inf) + nan_to_num max; arange-comparison causal mask; split by unflatten, merge by flatten; F.dropout(training=self.training) in C.3; key/value defaults in if-blocks; imshow of weights.T with LinearSegmentedColormap.from_list of 2 colours (white -> navy)
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
    """(..., Lq, d), (..., Lk, d) -> (..., Lq, Lk)."""
    return torch.einsum("...qd,...kd->...qk", q, k) * q.size(-1) ** -0.5


def masked_softmax(scores: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
    """Softmax over the last axis by hand; blocked keys exactly 0, an all-blocked row zeros."""
    if mask is not None:
        scores = torch.where(mask, scores, torch.tensor(float("-inf"), dtype=scores.dtype, device=scores.device))
    peak = scores.max(dim=-1, keepdim=True).values
    peak = torch.nan_to_num(peak.detach(), neginf=0.0, posinf=0.0)
    e = (scores - peak).exp()
    denom = e.sum(-1, keepdim=True)
    return e / torch.where(denom > 0, denom, torch.ones_like(denom))


def scaled_dot_product_attention(q, k, v, mask=None):
    weights = masked_softmax(attention_scores(q, k), mask)  # (..., Lq, Lk)
    output = torch.einsum("...qk,...kd->...qd", weights, v)  # (..., Lq, dv)
    return output, weights


def causal_mask(size_q: int, size_k: int | None = None, device=None) -> torch.Tensor:
    size_k = size_k or size_q
    rows = torch.arange(size_q, device=device).unsqueeze(1)  # (Lq, 1)
    cols = torch.arange(size_k, device=device).unsqueeze(0)  # (1, Lk)
    return cols <= rows


class SelfAttention(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.W_q = nn.Linear(dim, dim)
        self.W_k = nn.Linear(dim, dim)
        self.W_v = nn.Linear(dim, dim)

    def forward(self, x, mask=None):
        return scaled_dot_product_attention(self.W_q(x), self.W_k(x), self.W_v(x), mask)


def split_heads(x: torch.Tensor, num_heads: int) -> torch.Tensor:
    return x.unflatten(-1, (num_heads, -1)).transpose(1, 2)  # (B, S, H, Dh) -> (B, H, S, Dh)


def merge_heads(x: torch.Tensor) -> torch.Tensor:
    return x.transpose(1, 2).flatten(start_dim=2)  # (B, S, H, Dh) -> (B, S, H*Dh)


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
        if key is None:
            key = query
        if value is None:
            value = key
        q = split_heads(self.W_q(query), self.num_heads)
        k = split_heads(self.W_k(key), self.num_heads)
        v = split_heads(self.W_v(value), self.num_heads)
        weights = masked_softmax(attention_scores(q, k), mask)  # (B, H, Lq, Lk)
        dropped = F.dropout(weights, p=self.dropout.p, training=self.training)
        heads = dropped @ v
        return self.W_o(merge_heads(heads)), weights


class AttentionBlock(nn.Module):
    def __init__(self, embed_dim: int, num_heads: int, dropout: float = 0.0):
        super().__init__()
        self.attn = MultiHeadAttention(embed_dim, num_heads, dropout)
        self.dropout = nn.Dropout(dropout)
        self.norm = nn.LayerNorm(embed_dim)

    def forward(self, x, mask=None):
        attended, weights = self.attn(x, mask=mask)
        return self.norm(x + self.dropout(attended)), weights


def plot_attention(weights, query_tokens, key_tokens, ax=None, title=None):
    """Queries across, keys down, darker = more weight, colour range [0, 1]."""
    weights = torch.as_tensor(weights).detach().cpu().double()  # (Lq, Lk)
    lq, lk = weights.shape
    cmap = LinearSegmentedColormap.from_list("white_navy", ["white", "navy"])
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
