"""Attention assignment - solution with permute/view and helper methods (correct, another style)."""
import math

import matplotlib.pyplot as plt
import torch
from torch import nn


def attention_scores(q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
    d_k = k.size(-1)
    scores = torch.matmul(q, k.transpose(-1, -2))  # (..., Lq, Lk)
    return scores / math.sqrt(d_k)


def masked_softmax(scores: torch.Tensor, mask: torch.Tensor = None) -> torch.Tensor:
    x = scores.clone()
    if mask is not None:
        x = x.masked_fill(~mask.bool(), -math.inf)
    m = x.amax(-1, keepdim=True)
    m = m.masked_fill(m == -math.inf, 0).detach()
    numerator = torch.exp(x - m)
    denominator = numerator.sum(-1, keepdim=True)
    safe = torch.where(denominator > 0, denominator, torch.ones_like(denominator))
    return numerator / safe


def scaled_dot_product_attention(q, k, v, mask=None):
    p_attn = masked_softmax(attention_scores(q, k), mask)
    return torch.matmul(p_attn, v), p_attn


def causal_mask(size_q, size_k=None, device=None):
    if size_k is None:
        size_k = size_q
    upper = torch.triu(torch.ones(size_q, size_k, device=device), diagonal=1)
    return upper == 0


class SelfAttention(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.dim = dim
        self.W_q = nn.Linear(dim, dim)
        self.W_k = nn.Linear(dim, dim)
        self.W_v = nn.Linear(dim, dim)

    def forward(self, x, mask=None):
        Q, K, V = self.W_q(x), self.W_k(x), self.W_v(x)
        out, attn = scaled_dot_product_attention(Q, K, V, mask=mask)
        return out, attn


def split_heads(x, num_heads):
    b, s, e = x.size()
    head_dim = e // num_heads
    return x.contiguous().view(b, s, num_heads, head_dim).permute(0, 2, 1, 3)


def merge_heads(x):
    b, h, s, d = x.size()
    return x.permute(0, 2, 1, 3).contiguous().view(b, s, h * d)


class MultiHeadAttention(nn.Module):
    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True):
        super().__init__()
        if embed_dim % num_heads:
            raise ValueError(f"{embed_dim} % {num_heads} != 0")
        self.embed_dim, self.num_heads = embed_dim, num_heads
        self.head_dim = embed_dim // num_heads
        self.scale = 1.0 / math.sqrt(self.head_dim)
        self.W_q = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.W_k = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.W_v = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.W_o = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.dropout = nn.Dropout(p=dropout)
        self.last_weights = None  # kept for plotting later

    def _project(self, layer, x):
        return split_heads(layer(x), self.num_heads)

    def forward(self, query, key=None, value=None, mask=None):
        key = query if key is None else key
        value = key if value is None else value
        q = self._project(self.W_q, query)
        k = self._project(self.W_k, key)
        v = self._project(self.W_v, value)
        scores = torch.matmul(q, k.transpose(-2, -1)) * self.scale
        attn = masked_softmax(scores, mask)
        self.last_weights = attn.detach()
        context = torch.matmul(self.dropout(attn), v)
        return self.W_o(merge_heads(context)), attn


class AttentionBlock(nn.Module):
    def __init__(self, embed_dim, num_heads, dropout=0.0):
        super().__init__()
        self.attn = MultiHeadAttention(embed_dim, num_heads, dropout=dropout)
        self.norm = nn.LayerNorm(embed_dim)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x, mask=None):
        residual = x
        out, weights = self.attn(x, mask=mask)
        out = self.dropout(out)
        out = self.norm(residual + out)
        return out, weights


def plot_attention(weights, query_tokens, key_tokens, ax=None, title=None):
    w = weights.detach().cpu() if torch.is_tensor(weights) else torch.tensor(weights)
    if ax is None:
        fig, ax = plt.subplots(figsize=(5, 4))
    im = ax.imshow(w.t().numpy(), vmin=0.0, vmax=1.0, cmap="viridis_r")
    ax.set_xticks(list(range(len(query_tokens))))
    ax.set_xticklabels(query_tokens)
    ax.set_yticks(list(range(len(key_tokens))))
    ax.set_yticklabels(key_tokens)
    ax.set_xlabel("Query")
    ax.set_ylabel("Key")
    plt.colorbar(im, ax=ax)
    if title:
        ax.set_title(title)
    return ax
