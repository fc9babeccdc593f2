# qa5x m24: 3 bugs in different tasks, each from a graded single-bug file:
#   qa4s/b54_a1_bug_extra_scale_arg: A.1: attention_scores(q, k, scale=None) does not scale by default; MultiHeadAttention passes scale=None and divides itself.
#   qa4s/b48_d1_inplace_residual: D.1: x += dropout(attended) changes the input in place.
#   qa4e/b13_ignores_given_ax: E.1, always makes a new figure: ax= ignored.
# expected: A=27 B=10 C=8 D=11 E=9 F=8
# mistakes: scores_no_scaling
# ruff: noqa  (a student's file: unused imports and the like are kept as written)
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
def attention_scores(q: torch.Tensor, k: torch.Tensor, scale: float | None = None) -> torch.Tensor:
    """Task A.1: scaled dot-product scores (注意力分数).

    q: (..., Lq, d) queries, k: (..., Lk, d) keys  ->  (..., Lq, Lk) with q·kᵀ / √d.
    """
    scores = q @ k.transpose(-2, -1)
    return scores if scale is None else scores * scale


def masked_softmax(scores: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
    """Task A.2: a hand-written, numerically stable softmax over the last axis (softmax 归一化).

    scores: (..., Lq, Lk); mask: bool, broadcastable to scores, True = may attend.
    Returns weights of the same shape and dtype: each row sums to 1 over its allowed keys,
    blocked keys get exactly 0, and a row whose keys are all blocked is all zeros (never NaN).
    Do not call torch.softmax, F.softmax, log_softmax or nn.Softmax, and do not change `scores`.
    """
    if mask is not None:
        scores = scores.masked_fill(mask.logical_not(), float("-inf"))  # (..., Lq, Lk)
    row_max = scores.amax(dim=-1, keepdim=True)  # (..., Lq, 1)
    row_max = torch.where(torch.isfinite(row_max), row_max, torch.zeros_like(row_max)).detach()
    exp = torch.exp(scores - row_max)  # (..., Lq, Lk), every entry in [0, 1]
    total = exp.sum(dim=-1, keepdim=True)  # (..., Lq, 1)
    total = total + (total == 0).to(total.dtype)  # an all-blocked row divides 0 by 1
    return exp / total  # (..., Lq, Lk)


def scaled_dot_product_attention(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, mask: torch.Tensor | None = None
) -> tuple[torch.Tensor, torch.Tensor]:
    """Task A.3: scores -> softmax -> weighted sum of values (加权求和).

    q: (..., Lq, d), k: (..., Lk, d), v: (..., Lk, dv), mask: bool, broadcastable to (..., Lq, Lk).
    Returns (output (..., Lq, dv), weights (..., Lq, Lk)).
    """
    scores = attention_scores(q, k)  # (..., Lq, Lk)
    weights = masked_softmax(scores, mask)  # (..., Lq, Lk)
    output = weights @ v  # (..., Lq, dv)
    return output, weights


def causal_mask(size_q: int, size_k: int | None = None, device=None) -> torch.Tensor:
    """Task A.4: the causal mask (因果掩码): query i may attend to keys 0..i only.

    Returns a bool tensor (size_q, size_k) on `device` (None: the default device), True where
    key position <= query position (aligned top-left, like is_causal=True). size_k defaults
    to size_q.
    """
    size_k = size_q if size_k is None else size_k
    return torch.ones(size_q, size_k, dtype=torch.bool, device=device).tril()  # (Lq, Lk)


# ---------------------------------------------------------------------------------------------
# Part B: Q/K/V projections (线性投影)
# ---------------------------------------------------------------------------------------------
class SelfAttention(nn.Module):
    """Task B.1: single-head self-attention, the course text's SimpleAttention.

    __init__(dim): three projections self.W_q, self.W_k, self.W_v, each nn.Linear(dim, dim).
    forward(x (B, S, dim), mask=None) -> (output (B, S, dim), weights (B, S, S)).
    """

    def __init__(self, dim: int):
        super().__init__()
        self.W_q = nn.Linear(dim, dim)
        self.W_k = nn.Linear(dim, dim)
        self.W_v = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor, mask: torch.Tensor | None = None):
        q = self.W_q(x)  # (B, S, D)
        k = self.W_k(x)  # (B, S, D)
        v = self.W_v(x)  # (B, S, D)
        return scaled_dot_product_attention(q, k, v, mask)  # (B, S, D), (B, S, S)


# ---------------------------------------------------------------------------------------------
# Part C: multi-head attention (多头注意力)
# ---------------------------------------------------------------------------------------------
def split_heads(x: torch.Tensor, num_heads: int) -> torch.Tensor:
    """Task C.1: (B, S, H*Dh) -> (B, H, S, Dh); head i takes features [i*Dh, (i+1)*Dh).

    Must also work when x is not contiguous.
    """
    B, S, E = x.shape
    if E % num_heads:
        raise ValueError(f"the feature size {E} is not divisible by num_heads={num_heads}")
    return x.reshape(B, S, num_heads, E // num_heads).transpose(1, 2)  # (B, H, S, Dh)


def merge_heads(x: torch.Tensor) -> torch.Tensor:
    """Task C.2: the inverse of split_heads: (B, H, S, Dh) -> (B, S, H*Dh).

    Must also work when x is not contiguous.
    """
    B, H, S, Dh = x.shape
    return x.transpose(1, 2).reshape(B, S, H * Dh)  # (B, S, E)


class MultiHeadAttention(nn.Module):
    """Task C.3: multi-head attention with projections W_q, W_k, W_v, W_o and dropout.

    __init__(embed_dim, num_heads, dropout=0.0, bias=True): W_q, W_k, W_v, W_o are
    nn.Linear(embed_dim, embed_dim, bias=bias); self.dropout = nn.Dropout(dropout);
    raise ValueError when embed_dim is not divisible by num_heads.
    forward(query (B, Lq, E), key=None (B, Lk, E), value=None (B, Lk, E), mask=None)
      -> (output (B, Lq, E), weights (B, H, Lq, Lk)).
    key defaults to query and value to key; mask is bool, broadcastable to (B, H, Lq, Lk).
    Scores are scaled by 1/√Dh. Dropout: self.dropout acts on the attention weights, on the copy
    that multiplies V (training mode only; nothing is dropped after .eval()); the weights you
    return are the ones before dropout.
    """

    def __init__(self, embed_dim: int, num_heads: int, dropout: float = 0.0, bias: bool = True):
        super().__init__()
        if embed_dim % num_heads:
            raise ValueError(f"embed_dim={embed_dim} is not divisible by num_heads={num_heads}")
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
        q = split_heads(self.W_q(query), self.num_heads)  # (B, H, Lq, Dh)
        k = split_heads(self.W_k(key), self.num_heads)  # (B, H, Lk, Dh)
        v = split_heads(self.W_v(value), self.num_heads)  # (B, H, Lk, Dh)
        weights = masked_softmax(attention_scores(q, k, scale=None) / math.sqrt(q.size(-1)), mask)  # (B, H, Lq, Lk)
        heads = self.dropout(weights) @ v  # (B, H, Lq, Dh)
        return self.W_o(merge_heads(heads)), weights  # (B, Lq, E), (B, H, Lq, Lk)


# ---------------------------------------------------------------------------------------------
# Part D: the attention block (残差连接 + dropout + LayerNorm)
# ---------------------------------------------------------------------------------------------
class AttentionBlock(nn.Module):
    """Task D.1: a post-norm residual attention block, as in the original Transformer.

    __init__(embed_dim, num_heads, dropout=0.0):
      self.attn = MultiHeadAttention(embed_dim, num_heads, dropout): the block passes its dropout
        on, so the attention weights are dropped inside self.attn (Task C.3);
      self.dropout = nn.Dropout(dropout): the block's own dropout, on the attention output;
      self.norm = nn.LayerNorm(embed_dim).
    forward(x (B, S, E), mask=None) -> (y (B, S, E), weights (B, H, S, S)),
    y = norm(x + dropout(attention output)), self-attention (query = key = value = x), the mask
    passed on to self.attn; weights are self.attn's (before dropout).
    """

    def __init__(self, embed_dim: int, num_heads: int, dropout: float = 0.0):
        super().__init__()
        self.attn = MultiHeadAttention(embed_dim, num_heads, dropout)
        self.norm = nn.LayerNorm(embed_dim)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x: torch.Tensor, mask: torch.Tensor | None = None):
        attended, weights = self.attn(x, mask=mask)  # (B, S, E), (B, H, S, S)
        x += self.dropout(attended)
        return self.norm(x), weights  # (B, S, E), (B, H, S, S)


# ---------------------------------------------------------------------------------------------
# Part E: the attention heatmap (注意力热力图)
# ---------------------------------------------------------------------------------------------
def plot_attention(weights, query_tokens, key_tokens, ax=None, title=None):
    w = weights.detach().cpu().numpy()  # (Lq, Lk)
    fig, ax = plt.subplots(figsize=(6, 5))
    im = ax.imshow(w.T, cmap="Blues", vmin=0, vmax=1)  # (Lk, Lq): keys down, queries across
    ax.set_xticks(range(len(query_tokens)))
    ax.set_xticklabels(query_tokens, rotation=45)
    ax.set_yticks(range(len(key_tokens)))
    ax.set_yticklabels(key_tokens)
    ax.set_xlabel("Query")
    ax.set_ylabel("Key")
    ax.figure.colorbar(im, ax=ax)
    if title:
        ax.set_title(title)
    return ax
