# qa33s c35: CORRECT: mix A1:prescale, A2:lse, A3:einsum, A4:arange, B1:buffer, C1:unflatten, C2:cat, C3:own_scores_buffer, D1:eps6_steps, E1:seaborn
# Per-part scores: A=32 B=10 C=28 D=12 E=10 F=8.
# Mistakes named: none.
"""Attention from scratch (注意力机制，从零实现).

Shape conventions used in every comment:
    B  batch size            S   sequence length (self-attention)
    Lq query positions       Lk  key/value positions
    E  embedding size        H   number of heads      Dh  head size (E = H * Dh)
    d  size of a query/key vector                     dv  size of a value vector

Masks are bool tensors: True = this query may attend to this key, False = blocked.
This is the convention of torch.nn.functional.scaled_dot_product_attention (attn_mask: True =
attend). torch.nn.MultiheadAttention uses the OPPOSITE one (attn_mask, key_padding_mask: True =
blocked): give it ~mask.

New tensors follow the inputs' device: make them with device=x.device (or *_like(x), or
x.new_*), so that the same code runs on a GPU. A mask made on the CPU next to CUDA inputs crashes.

Gradients must flow: later tasks train through your functions, so the gradient of each result
with respect to its tensor inputs must be the true one (it is checked in each task). Build each
result with torch operations; .detach(), .numpy(), .item() or torch.no_grad() on the way from an
input to the result stops its gradient.
"""
import math

import matplotlib.pyplot as plt
import torch
import torch.nn as nn


# ---------------------------------------------------------------------------------------------
# Part A: scaled dot-product attention (缩放点积注意力)
# ---------------------------------------------------------------------------------------------
def attention_scores(q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
    q = q / math.sqrt(q.size(-1))
    return torch.matmul(q, k.mT)


def masked_softmax(scores, mask=None):
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    lse = torch.logsumexp(scores, dim=-1, keepdim=True)
    finite = torch.isfinite(lse)
    lse = torch.where(finite, lse, torch.zeros_like(lse))
    w = torch.exp(scores - lse)
    return torch.where(finite, w, torch.zeros_like(w))


def scaled_dot_product_attention(q, k, v, mask=None):
    w = masked_softmax(attention_scores(q, k), mask)
    return torch.einsum("...qk,...kd->...qd", w, v), w


def causal_mask(size_q, size_k=None, device=None):
    if size_k is None:
        size_k = size_q
    rows = torch.arange(size_q, device=device).unsqueeze(1)
    cols = torch.arange(size_k, device=device).unsqueeze(0)
    return cols <= rows


# ---------------------------------------------------------------------------------------------
# Part B: Q/K/V projections (线性投影)
# ---------------------------------------------------------------------------------------------
class SelfAttention(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.W_q = nn.Linear(dim, dim, bias=True)
        self.W_k = nn.Linear(dim, dim, bias=True)
        self.W_v = nn.Linear(dim, dim, bias=True)
        self.register_buffer("scale", torch.tensor(dim ** -0.5))

    def forward(self, x, mask=None):
        q, k, v = self.W_q(x), self.W_k(x), self.W_v(x)
        scores = torch.bmm(q, k.transpose(1, 2)) * self.scale
        w = masked_softmax(scores, mask)
        return torch.bmm(w, v), w


# ---------------------------------------------------------------------------------------------
# Part C: multi-head attention (多头注意力)
# ---------------------------------------------------------------------------------------------
def split_heads(x, num_heads):
    return x.unflatten(-1, (num_heads, -1)).transpose(1, 2)


def merge_heads(x):
    return torch.cat(x.unbind(dim=1), dim=-1)


class MultiHeadAttention(nn.Module):
    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True):
        super().__init__()
        if embed_dim % num_heads != 0:
            raise ValueError("embed_dim must be divisible by num_heads")
        self.h = num_heads
        self.d_head = embed_dim // num_heads
        self.W_q = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.W_k = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.W_v = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.W_o = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.dropout = nn.Dropout(p=dropout)
        self.register_buffer("inv_scale", torch.tensor(1.0 / math.sqrt(self.d_head)), persistent=False)

    def forward(self, query, key=None, value=None, mask=None):
        if key is None:
            key = query
        if value is None:
            value = key
        q = split_heads(self.W_q(query), self.h)
        k = split_heads(self.W_k(key), self.h)
        v = split_heads(self.W_v(value), self.h)
        scores = torch.einsum("bhqd,bhkd->bhqk", q, k) * self.inv_scale
        attn = masked_softmax(scores, mask)
        ctx = torch.einsum("bhqk,bhkd->bhqd", self.dropout(attn), v)
        return self.W_o(merge_heads(ctx)), attn


# ---------------------------------------------------------------------------------------------
# Part D: the attention block (残差连接 + dropout + LayerNorm)
# ---------------------------------------------------------------------------------------------
class AttentionBlock(nn.Module):
    def __init__(self, embed_dim, num_heads, dropout=0.0):
        super().__init__()
        self.attn = MultiHeadAttention(embed_dim, num_heads, dropout=dropout)
        self.dropout = nn.Dropout(dropout)
        self.norm = nn.LayerNorm(embed_dim, eps=1e-6)

    def forward(self, x, mask=None):
        residual = x
        out, weights = self.attn(x, x, x, mask)
        out = self.dropout(out)
        out = out + residual
        out = self.norm(out)
        return out, weights


# ---------------------------------------------------------------------------------------------
# Part E: the attention heatmap (注意力热力图)
# ---------------------------------------------------------------------------------------------
import seaborn as sns


def plot_attention(weights, query_tokens, key_tokens, ax=None, title=None):
    data = weights.detach().cpu().double().numpy().T
    if ax is None:
        _, ax = plt.subplots(figsize=(6, 5))
    sns.heatmap(data, ax=ax, cmap="Blues", vmin=0.0, vmax=1.0, cbar=True,
                xticklabels=list(query_tokens), yticklabels=list(key_tokens), square=True)
    ax.set(xlabel="queries (查询)", ylabel="keys (键)")
    if title:
        ax.set_title(title)
    return ax


