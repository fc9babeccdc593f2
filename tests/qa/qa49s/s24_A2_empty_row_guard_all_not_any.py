# BUG A.2: the empty-row guard uses mask.all(-1) instead of mask.any(-1): every row with a blocked key is normalised by logsumexp of zeros : charged once, in A.2
# Per-part scores: A=22 B=10 C=28 D=12 E=10 F=8.
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
    """Task A.1: scaled dot-product scores, written as an einsum over the shared feature axis."""
    inv_scale = q.shape[-1] ** -0.5  # 1/√d, d = the size of a query/key vector
    return torch.einsum("...id,...jd->...ij", q, k) * inv_scale  # (..., Lq, Lk)


def masked_softmax(scores: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
    """Task A.2: softmax as exp(s - logsumexp(s)), masks through torch.where."""
    neg_inf = torch.full((), float("-inf"), dtype=scores.dtype, device=scores.device)
    if mask is None:
        filled = scores
        log_norm = torch.logsumexp(filled, dim=-1, keepdim=True)  # (..., Lq, 1)
        return torch.exp(filled - log_norm)
    filled = torch.where(mask, scores, neg_inf)  # (..., Lq, Lk), blocked keys at -inf
    has_key = mask.all(dim=-1, keepdim=True)  # (..., Lq, 1): does the row allow any key?
    safe = torch.where(has_key, filled, torch.zeros_like(filled))  # an empty row: finite stand-in
    log_norm = torch.logsumexp(safe, dim=-1, keepdim=True)  # (..., Lq, 1)
    return torch.exp(filled - log_norm)  # blocked keys: exp(-inf) = 0; empty rows: all 0


def scaled_dot_product_attention(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, mask: torch.Tensor | None = None
) -> tuple[torch.Tensor, torch.Tensor]:
    """Task A.3: scores -> softmax -> weighted sum of values (an einsum over the keys)."""
    weights = masked_softmax(attention_scores(q, k), mask)  # (..., Lq, Lk)
    output = torch.einsum("...ij,...jd->...id", weights, v)  # (..., Lq, dv)
    return output, weights


def causal_mask(size_q: int, size_k: int | None = None, device=None) -> torch.Tensor:
    """Task A.4: key position <= query position, by comparing two aranges."""
    size_k = size_q if size_k is None else size_k
    rows = torch.arange(size_q, device=device).unsqueeze(1)  # (Lq, 1) query positions
    cols = torch.arange(size_k, device=device).unsqueeze(0)  # (1, Lk) key positions
    return cols <= rows  # (Lq, Lk)


# ---------------------------------------------------------------------------------------------
# Part B: Q/K/V projections (线性投影)
# ---------------------------------------------------------------------------------------------
class SelfAttention(nn.Module):
    """Task B.1: single-head self-attention with batched matrix products (torch.bmm)."""

    def __init__(self, dim: int):
        super().__init__()
        self.dim = dim
        self.W_q = nn.Linear(dim, dim)
        self.W_k = nn.Linear(dim, dim)
        self.W_v = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor, mask: torch.Tensor | None = None):
        def project(layer: nn.Linear) -> torch.Tensor:  # this task's own helper
            return layer(x)  # (B, S, D)

        q, k, v = project(self.W_q), project(self.W_k), project(self.W_v)
        scores = torch.bmm(q, k.transpose(1, 2)) / math.sqrt(self.dim)  # (B, S, S)
        weights = masked_softmax(scores, mask)  # (B, S, S)
        return torch.bmm(weights, v), weights  # (B, S, D), (B, S, S)


# ---------------------------------------------------------------------------------------------
# Part C: multi-head attention (多头注意力)
# ---------------------------------------------------------------------------------------------
def split_heads(x: torch.Tensor, num_heads: int) -> torch.Tensor:
    """Task C.1: cut the features into num_heads blocks of Dh and stack them on a new head axis."""
    E = x.shape[-1]
    if E % num_heads:
        raise ValueError(f"the feature size {E} is not divisible by num_heads={num_heads}")
    head_size = E // num_heads
    return torch.stack(torch.split(x, head_size, dim=-1), dim=1)  # (B, H, S, Dh)


def merge_heads(x: torch.Tensor) -> torch.Tensor:
    """Task C.2: put the head axis next to the head size, then flatten the two."""
    return x.permute(0, 2, 1, 3).flatten(start_dim=2)  # (B, S, H*Dh)


class MultiHeadAttention(nn.Module):
    """Task C.3: multi-head attention, scores by einsum over the head size."""

    def __init__(self, embed_dim: int, num_heads: int, dropout: float = 0.0, bias: bool = True):
        super().__init__()
        if embed_dim % num_heads:
            raise ValueError(f"embed_dim={embed_dim} is not divisible by num_heads={num_heads}")
        self.embed_dim = embed_dim
        self.num_heads = num_heads
        self.head_dim = embed_dim // num_heads
        self.W_q = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.W_k = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.W_v = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.W_o = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.dropout = nn.Dropout(dropout)

    def forward(self, query, key=None, value=None, mask=None):
        key = query if key is None else key
        value = key if value is None else value
        q = split_heads(self.W_q(query), self.num_heads)  # (B, H, Lq, Dh)
        k = split_heads(self.W_k(key), self.num_heads)  # (B, H, Lk, Dh)
        v = split_heads(self.W_v(value), self.num_heads)  # (B, H, Lk, Dh)
        scores = torch.einsum("bhqd,bhkd->bhqk", q, k) / math.sqrt(self.head_dim)  # (B, H, Lq, Lk)
        weights = masked_softmax(scores, mask)  # (B, H, Lq, Lk)
        heads = torch.einsum("bhqk,bhkd->bhqd", self.dropout(weights), v)  # (B, H, Lq, Dh)
        return self.W_o(merge_heads(heads)), weights  # (B, Lq, E), (B, H, Lq, Lk)


# ---------------------------------------------------------------------------------------------
# Part D: the attention block (残差连接 + dropout + LayerNorm)
# ---------------------------------------------------------------------------------------------
class AttentionBlock(nn.Module):
    """Task D.1: post-norm residual block, y = norm(x + dropout(attn(x)))."""

    def __init__(self, embed_dim: int, num_heads: int, dropout: float = 0.0):
        super().__init__()
        self.attn = MultiHeadAttention(embed_dim, num_heads, dropout)
        self.norm = nn.LayerNorm(embed_dim)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x: torch.Tensor, mask: torch.Tensor | None = None):
        attended, weights = self.attn(x, mask=mask)  # (B, S, E), (B, H, S, S)
        residual = torch.add(x, self.dropout(attended))  # (B, S, E)
        return self.norm(residual), weights


# ---------------------------------------------------------------------------------------------
# Part E: the attention heatmap (注意力热力图)
# ---------------------------------------------------------------------------------------------
def plot_attention(weights, query_tokens, key_tokens, ax=None, title=None):
    """Task E.1: keys down the rows, queries across the columns."""
    grid = torch.as_tensor(weights).detach().cpu().double().numpy()  # (Lq, Lk)
    grid = grid.swapaxes(0, 1)  # (Lk, Lq): rows = keys, columns = queries
    if ax is None:
        fig, ax = plt.subplots(figsize=(1 + 0.6 * grid.shape[1], 1 + 0.5 * grid.shape[0]))
    image = ax.imshow(grid, cmap="Blues", vmin=0.0, vmax=1.0, aspect="auto")
    ax.set_xticks(range(len(query_tokens)))
    ax.set_xticklabels(list(query_tokens), rotation=45, ha="right")
    ax.set_yticks(range(len(key_tokens)))
    ax.set_yticklabels(list(key_tokens))
    ax.set_xlabel("query position")
    ax.set_ylabel("key position")
    ax.figure.colorbar(image, ax=ax, label="attention weight")
    if title:
        ax.set_title(title)
    return ax
