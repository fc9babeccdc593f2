# qa33s c36: CORRECT: mix A1:f64, A2:f64, A3:matmul, A4:triu, B1:own_softmax, C1:stack_chunks, C2:permute_flatten, C3:functional_dropout, D1:functional_ln, E1:pcolormesh
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
def attention_scores(q, k):
    d = q.shape[-1]
    s = q.to(torch.float64) @ k.to(torch.float64).transpose(-1, -2)
    return (s / d ** 0.5).to(q.dtype)


def masked_softmax(scores, mask=None):
    s = scores.double()
    if mask is not None:
        s = torch.where(mask, s, torch.tensor(float("-inf"), dtype=s.dtype, device=s.device))
    m = s.amax(-1, keepdim=True)
    m = torch.nan_to_num(m, neginf=0.0).detach()
    e = (s - m).exp()
    z = e.sum(-1, keepdim=True)
    out = torch.where(z > 0, e / torch.where(z > 0, z, torch.ones_like(z)), torch.zeros_like(e))
    return out.to(scores.dtype)


def scaled_dot_product_attention(q, k, v, mask=None):
    scores = attention_scores(q, k)
    attn = masked_softmax(scores, mask=mask)
    return torch.matmul(attn, v), attn


def causal_mask(size_q, size_k=None, device=None):
    size_k = size_k or size_q
    return ~torch.ones((size_q, size_k), dtype=torch.bool, device=device).triu(diagonal=1)


# ---------------------------------------------------------------------------------------------
# Part B: Q/K/V projections (线性投影)
# ---------------------------------------------------------------------------------------------
class SelfAttention(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.W_q, self.W_k, self.W_v = nn.Linear(dim, dim), nn.Linear(dim, dim), nn.Linear(dim, dim)
        self.extra = nn.Identity()

    def forward(self, x, mask=None):
        q = self.W_q(x)
        k = self.W_k(x)
        s = attention_scores(q, k)
        w = masked_softmax(s, mask)
        return self.extra(w @ self.W_v(x)), w


# ---------------------------------------------------------------------------------------------
# Part C: multi-head attention (多头注意力)
# ---------------------------------------------------------------------------------------------
def split_heads(x, num_heads):
    return torch.stack(x.chunk(num_heads, dim=-1), dim=1)


def merge_heads(x):
    return x.permute(0, 2, 1, 3).flatten(start_dim=2)


import torch.nn.functional as F


class MultiHeadAttention(nn.Module):
    def __init__(self, embed_dim: int, num_heads: int, dropout: float = 0.0, bias: bool = True):
        super().__init__()
        if embed_dim % num_heads:
            raise ValueError(f"{embed_dim} % {num_heads} != 0")
        self.num_heads = num_heads
        self.W_q = nn.Linear(embed_dim, embed_dim, bias)
        self.W_k = nn.Linear(embed_dim, embed_dim, bias)
        self.W_v = nn.Linear(embed_dim, embed_dim, bias)
        self.W_o = nn.Linear(embed_dim, embed_dim, bias)
        self.dropout = nn.Dropout(dropout)

    def forward(self, query, key=None, value=None, mask=None):
        key = key if key is not None else query
        value = value if value is not None else key
        heads = [split_heads(lin(t), self.num_heads)
                 for lin, t in ((self.W_q, query), (self.W_k, key), (self.W_v, value))]
        q, k, v = heads
        weights = masked_softmax(attention_scores(q, k), mask)
        dropped = F.dropout(weights, p=self.dropout.p, training=self.training)
        return self.W_o(merge_heads(dropped @ v)), weights


# ---------------------------------------------------------------------------------------------
# Part D: the attention block (残差连接 + dropout + LayerNorm)
# ---------------------------------------------------------------------------------------------
import torch.nn.functional as F


class AttentionBlock(nn.Module):
    def __init__(self, embed_dim: int, num_heads: int, dropout: float = 0.0):
        super().__init__()
        self.attn = MultiHeadAttention(embed_dim, num_heads, dropout)
        self.dropout = nn.Dropout(dropout)
        self.norm = nn.LayerNorm(embed_dim)
        self.embed_dim = embed_dim

    def forward(self, x, mask=None):
        a, w = self.attn(query=x, mask=mask)
        h = x + self.dropout(a)
        y = F.layer_norm(h, (self.embed_dim,), self.norm.weight, self.norm.bias, self.norm.eps)
        return y, w


# ---------------------------------------------------------------------------------------------
# Part E: the attention heatmap (注意力热力图)
# ---------------------------------------------------------------------------------------------
def plot_attention(weights, query_tokens, key_tokens, ax=None, title=None):
    w = weights.detach().cpu().numpy()
    if ax is None:
        fig, ax = plt.subplots()
    mesh = ax.pcolormesh(w.T, cmap="Blues", vmin=0, vmax=1)
    ax.set_xticks([i + 0.5 for i in range(len(query_tokens))])
    ax.set_xticklabels(query_tokens)
    ax.set_yticks([j + 0.5 for j in range(len(key_tokens))])
    ax.set_yticklabels(key_tokens)
    ax.invert_yaxis()
    ax.set_xlabel("Query")
    ax.set_ylabel("Key")
    plt.colorbar(mesh, ax=ax)
    if title is not None:
        ax.set_title(title)
    return ax


