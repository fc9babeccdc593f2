# qa23s b05_a2_max_includes_blocked_keys: BUG A.2: the row's max is taken over the blocked keys too, so a blocked key far above the allowed ones makes every allowed weight underflow to 0. Before: 100/100 (no check put a blocked key above the rest).
# Per-part scores: A=31 B=10 C=28 D=12 E=10 F=8.
# Mistakes named: none.
"""QA23: projections applied by hand from the nn.Linear parameters, heatmap flipped and drawn origin='lower'."""
import math

import matplotlib.pyplot as plt
import numpy as np
import torch
import torch.nn as nn


def _apply(layer: nn.Linear, x: torch.Tensor) -> torch.Tensor:
    y = x @ layer.weight.t()
    return y if layer.bias is None else y + layer.bias


def attention_scores(q, k):
    return (q * (1.0 / math.sqrt(q.shape[-1]))) @ k.movedim(-1, -2)


def masked_softmax(scores, mask=None):
    ok = torch.ones_like(scores, dtype=torch.bool) if mask is None else torch.broadcast_to(mask, scores.shape)
    ref = scores.amax(-1, keepdim=True).detach()
    z = torch.where(ok, scores - ref, torch.zeros_like(scores))
    e = torch.where(ok, torch.exp(z), torch.zeros_like(scores))
    tot = e.sum(-1, keepdim=True)
    return e / torch.where(tot > 0, tot, torch.ones_like(tot))


def scaled_dot_product_attention(q, k, v, mask=None):
    w = masked_softmax(attention_scores(q, k), mask)
    return w @ v, w


def causal_mask(size_q, size_k=None, device=None):
    size_k = size_q if size_k is None else size_k
    return torch.ones(size_q, size_k, device=device).tril() > 0.5


class SelfAttention(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.W_q = nn.Linear(dim, dim)
        self.W_k = nn.Linear(dim, dim)
        self.W_v = nn.Linear(dim, dim)

    def forward(self, x, mask=None):
        return scaled_dot_product_attention(_apply(self.W_q, x), _apply(self.W_k, x), _apply(self.W_v, x), mask)


def split_heads(x, num_heads):
    b, s, e = x.shape
    return x.reshape(b, s, num_heads, -1).swapaxes(1, 2)


def merge_heads(x):
    b, h, s, d = x.shape
    return x.swapaxes(1, 2).reshape(b, s, h * d)


class MultiHeadAttention(nn.Module):
    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True):
        super().__init__()
        if embed_dim % num_heads:
            raise ValueError("num_heads does not divide embed_dim")
        self.num_heads = num_heads
        self.W_q = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.W_k = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.W_v = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.W_o = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.dropout = nn.Dropout(dropout)

    def forward(self, query, key=None, value=None, mask=None):
        key = query if key is None else key
        value = key if value is None else value
        q = split_heads(_apply(self.W_q, query), self.num_heads)
        k = split_heads(_apply(self.W_k, key), self.num_heads)
        v = split_heads(_apply(self.W_v, value), self.num_heads)
        w = masked_softmax(attention_scores(q, k), mask)
        return _apply(self.W_o, merge_heads(self.dropout(w) @ v)), w


class AttentionBlock(nn.Module):
    def __init__(self, embed_dim, num_heads, dropout=0.0):
        super().__init__()
        self.attn = MultiHeadAttention(embed_dim, num_heads, dropout)
        self.dropout = nn.Dropout(dropout)
        self.norm = nn.LayerNorm(embed_dim)

    def forward(self, x, mask=None):
        a, w = self.attn(x, mask=mask)
        return self.norm(x + self.dropout(a)), w


def plot_attention(weights, query_tokens, key_tokens, ax=None, title=None):
    w = weights.detach().numpy()
    lq, lk = w.shape
    if ax is None:
        _, ax = plt.subplots()
    im = ax.imshow(np.flipud(w.T), origin="lower", cmap="Blues", vmin=0, vmax=1)
    ax.set_xticks(np.arange(lq))
    ax.set_xticklabels(query_tokens)
    ax.set_yticks(np.arange(lk))
    ax.set_yticklabels(list(reversed(list(key_tokens))))
    ax.set_xlabel("query")
    ax.set_ylabel("key")
    plt.colorbar(im, ax=ax)
    if title is not None:
        ax.set_title(title)
    return ax
