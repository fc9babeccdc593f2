# qa7s c08_unicode_identifiers: CORRECT: unicode identifiers throughout (Greek and Chinese names: σ, α, 权重, 分数, 头数), the task names as the contract spells them.
# Per-part scores (A-D): A=32 B=10 C=28 D=12.
# Mistakes named: none.
# ruff: noqa  (a student's file: written as a student writes it)
import math

import matplotlib.pyplot as plt
import torch
import torch.nn as nn


def attention_scores(q, k):
    α = 1.0 / math.sqrt(q.shape[-1])
    分数 = q @ k.transpose(-2, -1)
    return 分数 * α


def masked_softmax(scores, mask=None):
    σ = scores if mask is None else scores.masked_fill(~mask, -math.inf)
    μ = σ.amax(-1, keepdim=True).detach()
    μ = torch.where(μ.isinf(), torch.zeros_like(μ), μ)
    ε = torch.exp(σ - μ)
    Σ = ε.sum(-1, keepdim=True)
    return ε / Σ.masked_fill(Σ == 0, 1.0)


def scaled_dot_product_attention(q, k, v, mask=None):
    权重 = masked_softmax(attention_scores(q, k), mask)
    return 权重 @ v, 权重


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
    批, 长, 宽 = x.shape
    if 宽 % num_heads:
        raise ValueError("宽度不能被头数整除")
    return x.reshape(批, 长, num_heads, 宽 // num_heads).transpose(1, 2)


def merge_heads(x):
    B, H, S, Dh = x.shape
    return x.transpose(1, 2).reshape(B, S, H * Dh)


class MultiHeadAttention(nn.Module):
    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True):
        super().__init__()
        if embed_dim % num_heads:
            raise ValueError("embed_dim 必须能被 num_heads 整除")
        self.头数 = num_heads
        self.W_q = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.W_k = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.W_v = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.W_o = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.dropout = nn.Dropout(dropout)

    def forward(self, query, key=None, value=None, mask=None):
        key = query if key is None else key
        value = key if value is None else value
        查询, 键, 值 = (split_heads(层(张量), self.头数) for 层, 张量 in ((self.W_q, query), (self.W_k, key), (self.W_v, value)))
        权重 = masked_softmax(attention_scores(查询, 键), mask)
        return self.W_o(merge_heads(self.dropout(权重) @ 值)), 权重


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
