# CORRECT: The Annotated Transformer: a free attention(query, key, value, mask, dropout) returning (p_attn @ value, p_attn) used by A.3 and C.3; clones() unpacked into W_q..W_o; mask == 0 fills; subsequent_mask via triu(diagonal=1) == 0; list-comprehension projections with view(nbatches, -1, h, d_k).transpose(1, 2); self.attn kept; del query/key/value; LayerNorm(eps=1e-6); a sublayer-connection method; seaborn draw() with xticklabels/yticklabels, square=True
# Per-part scores: A=32 B=10 C=28 D=12 E=10 F=8.
# Mistakes named: none.
"""Attention from scratch, written the way The Annotated Transformer (Harvard NLP) writes it."""
import copy
import math

import matplotlib.pyplot as plt
import seaborn
import torch
import torch.nn as nn


def clones(module, N):
    "Produce N identical layers."
    return nn.ModuleList([copy.deepcopy(module) for _ in range(N)])


def attention_scores(q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
    d_k = q.size(-1)
    return torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(d_k)


def masked_softmax(scores: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
    # The Annotated Transformer fills with -1e9; that does not fit in float16, so the dtype's own
    # lowest value is used, and the blocked keys are zeroed afterwards (a fully blocked row -> 0).
    if mask is not None:
        scores = scores.masked_fill(mask == 0, torch.finfo(scores.dtype).min)
    row_max = scores.amax(dim=-1, keepdim=True).detach()
    p = torch.exp(scores - row_max)
    if mask is not None:
        p = p.masked_fill(mask == 0, 0.0)
    total = p.sum(dim=-1, keepdim=True)
    total = total + (total == 0).to(total.dtype)
    return p / total


def attention(query, key, value, mask=None, dropout=None):
    "Compute 'Scaled Dot Product Attention'"
    scores = attention_scores(query, key)
    p_attn = masked_softmax(scores, mask)
    # the contract returns the weights from before dropout (the tutorial returns the dropped ones)
    p_used = dropout(p_attn) if dropout is not None else p_attn
    return torch.matmul(p_used, value), p_attn


def scaled_dot_product_attention(q, k, v, mask=None):
    return attention(q, k, v, mask=mask)


def subsequent_mask(size_q, size_k, device=None):
    "Mask out subsequent positions."
    attn_shape = (size_q, size_k)
    blocked = torch.triu(torch.ones(attn_shape, device=device), diagonal=1).type(torch.uint8)
    return blocked == 0


def causal_mask(size_q: int, size_k: int | None = None, device=None) -> torch.Tensor:
    return subsequent_mask(size_q, size_q if size_k is None else size_k, device=device)


class SelfAttention(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.W_q = nn.Linear(dim, dim)
        self.W_k = nn.Linear(dim, dim)
        self.W_v = nn.Linear(dim, dim)

    def forward(self, x, mask=None):
        return attention(self.W_q(x), self.W_k(x), self.W_v(x), mask=mask)


def split_heads(x: torch.Tensor, num_heads: int) -> torch.Tensor:
    nbatches, S, d_model = x.shape
    if d_model % num_heads:
        raise ValueError(f"the feature size {d_model} is not divisible by num_heads={num_heads}")
    return x.reshape(nbatches, -1, num_heads, d_model // num_heads).transpose(1, 2)


def merge_heads(x: torch.Tensor) -> torch.Tensor:
    nbatches, h, S, d_k = x.shape
    return x.transpose(1, 2).contiguous().view(nbatches, -1, h * d_k)


class MultiHeadAttention(nn.Module):
    def __init__(self, embed_dim: int, num_heads: int, dropout: float = 0.0, bias: bool = True):
        "Take in model size and number of heads."
        super().__init__()
        if embed_dim % num_heads != 0:
            raise ValueError(f"embed_dim={embed_dim} is not divisible by num_heads={num_heads}")
        # We assume d_v always equals d_k
        self.d_k = embed_dim // num_heads
        self.h = num_heads
        self.num_heads = num_heads
        self.W_q, self.W_k, self.W_v, self.W_o = clones(nn.Linear(embed_dim, embed_dim, bias=bias), 4)
        self.attn = None
        self.dropout = nn.Dropout(p=dropout)

    def forward(self, query, key=None, value=None, mask=None):
        "Implements Figure 2"
        key = query if key is None else key
        value = key if value is None else value
        nbatches = query.size(0)

        # 1) Do all the linear projections in batch from d_model => h x d_k
        query, key, value = [
            lin(x).view(nbatches, -1, self.h, self.d_k).transpose(1, 2)
            for lin, x in zip((self.W_q, self.W_k, self.W_v), (query, key, value))
        ]

        # 2) Apply attention on all the projected vectors in batch.
        x, self.attn = attention(query, key, value, mask=mask, dropout=self.dropout)

        # 3) "Concat" using a view and apply a final linear.
        x = x.transpose(1, 2).contiguous().view(nbatches, -1, self.h * self.d_k)
        del query
        del key
        del value
        return self.W_o(x), self.attn


class AttentionBlock(nn.Module):
    """A residual connection followed by a layer norm (post-norm, as the contract asks)."""

    def __init__(self, embed_dim: int, num_heads: int, dropout: float = 0.0):
        super().__init__()
        self.attn = MultiHeadAttention(embed_dim, num_heads, dropout)
        self.norm = nn.LayerNorm(embed_dim, eps=1e-6)
        self.dropout = nn.Dropout(dropout)

    def sublayer_connection(self, x, sublayer):
        "Apply residual connection to any sublayer with the same size."
        out, extra = sublayer(x)
        return self.norm(x + self.dropout(out)), extra

    def forward(self, x, mask=None):
        return self.sublayer_connection(x, lambda x: self.attn(x, x, x, mask))


def draw(data, x, y, ax):
    seaborn.heatmap(data, xticklabels=x, square=True, yticklabels=y, vmin=0.0, vmax=1.0,
                    cbar=True, cmap="Blues", ax=ax)


def plot_attention(weights, query_tokens, key_tokens, ax=None, title=None):
    data = torch.as_tensor(weights).detach().cpu().double()
    if ax is None:
        fig, ax = plt.subplots(figsize=(8, 6))
    # the tutorial draws keys across; the course puts the queries across, so transpose
    draw(data.T.numpy(), list(query_tokens), list(key_tokens), ax)
    ax.set_xlabel("Query")
    ax.set_ylabel("Key")
    if title:
        ax.set_title(title)
    return ax
