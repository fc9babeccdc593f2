# qa6s b05_a2_minus_1e9: BUG A.2: blocked scores filled with -1e9 instead of -inf (a fully blocked row is uniform; float16 overflows).
# Per-part scores (A-D): A=29 B=10 C=28 D=12.
# Mistakes named: fully_masked_uniform, mask_fill_overflows.
# ruff: noqa  (a student's file: written as a student writes it)
import math

import matplotlib.pyplot as plt
import torch
import torch.nn as nn


def attention_scores(q, k):
    d = q.size(-1)
    return q @ k.transpose(-2, -1) / math.sqrt(d)


def masked_softmax(scores, mask=None):
    if mask is not None:
        scores = scores.masked_fill(mask.logical_not(), -1e9)
    row_max = scores.amax(dim=-1, keepdim=True)
    row_max = torch.where(torch.isfinite(row_max), row_max, torch.zeros_like(row_max)).detach()
    exp = torch.exp(scores - row_max)
    total = exp.sum(dim=-1, keepdim=True)
    total = total + (total == 0).to(total.dtype)
    return exp / total


def scaled_dot_product_attention(q, k, v, mask=None):
    scores = attention_scores(q, k)
    weights = masked_softmax(scores, mask)
    return weights @ v, weights


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
        q = self.W_q(x)
        k = self.W_k(x)
        v = self.W_v(x)
        return scaled_dot_product_attention(q, k, v, mask)


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
