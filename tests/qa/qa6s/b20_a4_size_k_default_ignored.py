# qa6s b20_a4_size_k_default_ignored: BUG A.4: size_k's default None never replaced (torch.ones(size_q, None) raises).
# Per-part scores (A-D): A=29 B=10 C=28 D=12.
# Mistakes named: none.
# ruff: noqa  (a student's file: written as a student writes it)
import math

import matplotlib.pyplot as plt
import torch
import torch.nn as nn


def attention_scores(query, key, scale=None):
    scale = 1.0 / math.sqrt(query.shape[-1]) if scale is None else scale
    return torch.matmul(query, key.transpose(-2, -1)) * scale


def masked_softmax(x, attn_mask=None, dim=-1):
    if attn_mask is not None:
        x = x.masked_fill(attn_mask == False, float("-inf"))  # noqa: E712
    shift = x.amax(dim, keepdim=True)
    shift = torch.nan_to_num(shift, neginf=0.0).detach()
    num = torch.exp(x - shift)
    den = num.sum(dim, keepdim=True)
    return num / den.masked_fill(den == 0, 1.0)


def scaled_dot_product_attention(query, key, value, attn_mask=None):
    p = masked_softmax(attention_scores(query, key), attn_mask, dim=-1)
    return torch.matmul(p, value), p


def causal_mask(n, m=None, device=None, dtype=torch.bool):
    return torch.tril(torch.ones((n, m), device=device)).to(dtype)


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


def split_heads(t, h):
    b, s, e = t.shape
    if e % h:
        raise ValueError("cannot split")
    return t.reshape(b, s, h, e // h).permute(0, 2, 1, 3)


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
