"""Correct, in a style the contract allows: buffers, extra parameters and submodules, a wider dtype
inside (returning the input's dtype), pcolormesh and a constrained figure layout."""
import math

import matplotlib.pyplot as plt
import torch
import torch.nn as nn


def attention_scores(q, k):
    scale = torch.tensor(q.size(-1), dtype=torch.float64).rsqrt()
    return (q.double() @ k.double().transpose(-2, -1) * scale).to(q.dtype)  # (..., Lq, Lk)


def masked_softmax(scores, mask=None):
    wide = scores.double()  # computed in float64, returned in the input's dtype
    if mask is not None:
        wide = wide.masked_fill(~mask, float("-inf"))
    top = wide.amax(-1, keepdim=True)
    top = torch.where(torch.isinf(top), torch.zeros_like(top), top)
    e = torch.exp(wide - top)
    total = e.sum(-1, keepdim=True)
    return (e / torch.where(total == 0, torch.ones_like(total), total)).to(scores.dtype)


def scaled_dot_product_attention(q, k, v, mask=None):
    weights = masked_softmax(attention_scores(q, k), mask)
    return weights @ v, weights


def causal_mask(size_q, size_k=None, device=None):
    size_k = size_q if size_k is None else size_k
    return torch.ones(size_q, size_k, dtype=torch.bool, device=device).tril()


class SelfAttention(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.W_q, self.W_k, self.W_v = (nn.Linear(dim, dim) for _ in range(3))
        self.register_buffer("calls", torch.zeros((), dtype=torch.long))  # an extra buffer

    def forward(self, x, mask=None):
        return scaled_dot_product_attention(self.W_q(x), self.W_k(x), self.W_v(x), mask)


def split_heads(x, num_heads):
    B, S, E = x.shape
    return x.reshape(B, S, num_heads, E // num_heads).permute(0, 2, 1, 3)


def merge_heads(x):
    B, H, S, Dh = x.shape
    return x.permute(0, 2, 1, 3).reshape(B, S, H * Dh)


class MultiHeadAttention(nn.Module):
    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True):
        super().__init__()
        if embed_dim % num_heads:
            raise ValueError("embed_dim must be divisible by num_heads")
        self.num_heads = num_heads
        self.W_q = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.W_k = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.W_v = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.W_o = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.dropout = nn.Dropout(dropout)
        self.register_buffer("scale", torch.tensor(1.0 / math.sqrt(embed_dim // num_heads)))
        self.gate = nn.Parameter(torch.ones(()))  # an extra parameter that leaves the values alone
        self.gate_bias = nn.Parameter(torch.zeros(()))  # another, whose name ends in "bias" (bias=False keeps it)
        self.extra = nn.Identity()  # an extra submodule

    def forward(self, query, key=None, value=None, mask=None):
        key = query if key is None else key
        value = key if value is None else value
        q = split_heads(self.W_q(query), self.num_heads)
        k = split_heads(self.W_k(key), self.num_heads)
        v = split_heads(self.W_v(value), self.num_heads)
        scores = (q @ k.transpose(-2, -1)) * self.scale.to(q.dtype)
        weights = masked_softmax(scores, mask)
        heads = self.extra(self.dropout(weights) @ v) * (self.gate / self.gate.detach()) + (self.gate_bias - self.gate_bias.detach())
        return self.W_o(merge_heads(heads)), weights


class AttentionBlock(nn.Module):
    def __init__(self, embed_dim, num_heads, dropout=0.0):
        super().__init__()
        self.attn = MultiHeadAttention(embed_dim, num_heads, dropout)
        self.norm = nn.LayerNorm(embed_dim)
        self.dropout = nn.Dropout(dropout)
        self.register_buffer("steps", torch.zeros(()))

    def forward(self, x, mask=None):
        attended, weights = self.attn(x, mask=mask)
        return self.norm(x + self.dropout(attended)), weights


def plot_attention(weights, query_tokens, key_tokens, ax=None, title=None):
    w = torch.as_tensor(weights).detach().double().cpu()  # (Lq, Lk)
    if ax is None:
        _, ax = plt.subplots(figsize=(6, 4), layout="constrained")
    mesh = ax.pcolormesh(w.T.numpy(), cmap="magma_r", vmin=0, vmax=1)  # rows = keys
    ax.invert_yaxis()
    ax.set_xticks([i + 0.5 for i in range(len(query_tokens))], labels=list(query_tokens))
    ax.set_yticks([j + 0.5 for j in range(len(key_tokens))], labels=list(key_tokens))
    ax.set_xlabel("Query")
    ax.set_ylabel("Key")
    plt.colorbar(mesh, ax=ax)
    if title:
        ax.set_title(title)
    return ax
