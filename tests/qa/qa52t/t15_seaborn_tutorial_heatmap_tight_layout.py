# CORRECT: a seaborn tutorial heatmap: sns.set_theme() at module level, sns.heatmap(w.T, xticklabels=query_tokens, yticklabels=key_tokens, cmap='YlGnBu', vmin=0, vmax=1, annot=True, fmt='.2f', linewidths=0.5, square=True, cbar_kws={'label': ...}, ax=ax); plt.xticks / plt.yticks rotation only when the function made the figure; plt.tight_layout() at the end (also when ax= is given); nn.Module code otherwise the reference with typing.Optional hints
# Per-part scores: A=32 B=10 C=28 D=12 E=10 F=8.
# Mistakes named: none.
import math
from typing import Optional, Tuple

import matplotlib.pyplot as plt
import seaborn as sns
import torch
import torch.nn as nn

sns.set_theme()


def attention_scores(q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
    return q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))


def masked_softmax(scores: torch.Tensor, mask: Optional[torch.Tensor] = None) -> torch.Tensor:
    if mask is not None:
        scores = scores.masked_fill(mask.logical_not(), float("-inf"))
    row_max = scores.amax(dim=-1, keepdim=True)
    row_max = torch.where(torch.isfinite(row_max), row_max, torch.zeros_like(row_max)).detach()
    exp = torch.exp(scores - row_max)
    total = exp.sum(dim=-1, keepdim=True)
    total = total + (total == 0).to(total.dtype)
    return exp / total


def scaled_dot_product_attention(q, k, v, mask=None) -> Tuple[torch.Tensor, torch.Tensor]:
    weights = masked_softmax(attention_scores(q, k), mask)
    return weights @ v, weights


def causal_mask(size_q: int, size_k: Optional[int] = None, device=None) -> torch.Tensor:
    size_k = size_q if size_k is None else size_k
    return torch.ones(size_q, size_k, dtype=torch.bool, device=device).tril()


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
    if E % num_heads:
        raise ValueError(f"the feature size {E} is not divisible by num_heads={num_heads}")
    return x.reshape(B, S, num_heads, E // num_heads).transpose(1, 2)


def merge_heads(x: torch.Tensor) -> torch.Tensor:
    B, H, S, Dh = x.shape
    return x.transpose(1, 2).reshape(B, S, H * Dh)


class MultiHeadAttention(nn.Module):
    def __init__(self, embed_dim: int, num_heads: int, dropout: float = 0.0, bias: bool = True):
        super().__init__()
        if embed_dim % num_heads:
            raise ValueError(f"embed_dim={embed_dim} is not divisible by num_heads={num_heads}")
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
        return self.W_o(merge_heads(self.dropout(weights) @ v)), weights


class AttentionBlock(nn.Module):
    def __init__(self, embed_dim: int, num_heads: int, dropout: float = 0.0):
        super().__init__()
        self.attn = MultiHeadAttention(embed_dim, num_heads, dropout)
        self.norm = nn.LayerNorm(embed_dim)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x, mask=None):
        attended, weights = self.attn(x, mask=mask)
        return self.norm(x + self.dropout(attended)), weights


def plot_attention(weights, query_tokens, key_tokens, ax=None, title=None):
    w = torch.as_tensor(weights).detach().cpu().numpy()
    own_figure = ax is None
    if own_figure:
        plt.figure(figsize=(1.5 + 0.8 * len(query_tokens), 1 + 0.6 * len(key_tokens)))
        ax = plt.gca()
    sns.heatmap(w.T, xticklabels=list(query_tokens), yticklabels=list(key_tokens), cmap="YlGnBu",
                vmin=0, vmax=1, annot=True, fmt=".2f", linewidths=0.5, square=True,
                cbar_kws={"label": "attention weight"}, ax=ax)
    ax.set_xlabel("Query")
    ax.set_ylabel("Key")
    if own_figure:
        plt.xticks(rotation=45)
        plt.yticks(rotation=0)
    if title:
        ax.set_title(title)
    plt.tight_layout()
    return ax
