# CORRECT: "Attention is all you need" / Jay Alammar's Illustrated Transformer as pseudo-code: the paper's symbols as names (Q, K, V, d_k, Kᵀ normalised by Python to KT, W_O, MultiHead, Concat, head_i), Alammar's six numbered steps as comments, Z = softmax(QKᵀ/√d_k)V, "divide by 8 = √64", an explicit sum of weighted value vectors written as (weights.unsqueeze(-1) * V.unsqueeze(-3)).sum(-2); plt.matshow when no Axes is given (ax.matshow otherwise), plt.colorbar(im)
# Per-part scores: A=32 B=10 C=28 D=12 E=10 F=8.
# Mistakes named: none.
import math

import matplotlib.pyplot as plt
import torch
import torch.nn as nn


def attention_scores(q, k):
    # Step 2: the score of each word against q is the dot product q · k
    # Step 3: divide the scores by √d_k (8 for the paper's d_k = 64)
    Q, K = q, k
    d_k = Q.shape[-1]
    Kᵀ = K.transpose(-2, -1)
    return (Q @ Kᵀ) / math.sqrt(d_k)


def masked_softmax(scores, mask=None):
    # Step 4: softmax, so the scores are all positive and add up to 1
    if mask is not None:
        scores = scores.masked_fill(~mask, -math.inf)
    m = scores.amax(-1, keepdim=True)
    m = torch.where(m == -math.inf, torch.zeros_like(m), m).detach()
    e = (scores - m).exp()
    Σ = e.sum(-1, keepdim=True)
    return e / torch.where(Σ == 0, torch.ones_like(Σ), Σ)


def scaled_dot_product_attention(q, k, v, mask=None):
    # Attention(Q, K, V) = softmax(QKᵀ / √d_k) V
    Q, K, V = q, k, v
    α = masked_softmax(attention_scores(Q, K), mask)
    # Step 5: multiply each value vector by its softmax score; Step 6: sum up the weighted value vectors
    Z = (α.unsqueeze(-1) * V.unsqueeze(-3)).sum(-2)
    return Z, α


def causal_mask(size_q, size_k=None, device=None):
    # the decoder may only attend to earlier positions (and itself)
    size_k = size_q if size_k is None else size_k
    i = torch.arange(size_q, device=device).unsqueeze(1)
    j = torch.arange(size_k, device=device).unsqueeze(0)
    return j <= i


class SelfAttention(nn.Module):
    def __init__(self, dim):
        super().__init__()
        # Step 1: create a query, a key and a value vector from each input embedding
        self.W_q = nn.Linear(dim, dim)
        self.W_k = nn.Linear(dim, dim)
        self.W_v = nn.Linear(dim, dim)

    def forward(self, x, mask=None):
        Q, K, V = self.W_q(x), self.W_k(x), self.W_v(x)
        return scaled_dot_product_attention(Q, K, V, mask)


def split_heads(x, num_heads):
    B, S, d_model = x.shape
    h = num_heads
    if d_model % h:
        raise ValueError(f"d_model = {d_model} is not divisible by h = {h}")
    d_k = d_model // h  # 512 / 8 = 64 in the paper
    return x.reshape(B, S, h, d_k).transpose(1, 2)


def merge_heads(x):
    # Concat(head_1, ..., head_h)
    B, h, S, d_k = x.shape
    return x.transpose(1, 2).reshape(B, S, h * d_k)


Concat = merge_heads


class MultiHeadAttention(nn.Module):
    # MultiHead(Q, K, V) = Concat(head_1, ..., head_h) W_O, head_i = Attention(Q W_i^Q, K W_i^K, V W_i^V)
    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True):
        super().__init__()
        if embed_dim % num_heads:
            raise ValueError(f"d_model = {embed_dim} is not divisible by h = {num_heads}")
        self.h = num_heads
        self.d_k = embed_dim // num_heads
        self.W_q = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.W_k = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.W_v = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.W_o = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.dropout = nn.Dropout(dropout)  # P_drop on the attention weights

    def forward(self, query, key=None, value=None, mask=None):
        key = query if key is None else key
        value = key if value is None else value
        Q = split_heads(self.W_q(query), self.h)
        K = split_heads(self.W_k(key), self.h)
        V = split_heads(self.W_v(value), self.h)
        α = masked_softmax(attention_scores(Q, K), mask)
        head = self.dropout(α) @ V
        W_O = self.W_o
        return W_O(Concat(head)), α


class AttentionBlock(nn.Module):
    # LayerNorm(x + Sublayer(x)), dropout applied to the output of each sub-layer
    def __init__(self, embed_dim, num_heads, dropout=0.0):
        super().__init__()
        self.attn = MultiHeadAttention(embed_dim, num_heads, dropout)
        self.norm = nn.LayerNorm(embed_dim)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x, mask=None):
        Sublayer_x, α = self.attn(x, x, x, mask)
        return self.norm(x + self.dropout(Sublayer_x)), α


def plot_attention(weights, query_tokens, key_tokens, ax=None, title=None):
    α = torch.as_tensor(weights).detach().cpu().numpy()
    if ax is None:
        im = plt.matshow(α.T, cmap="Blues", vmin=0, vmax=1)
        ax = im.axes
    else:
        im = ax.matshow(α.T, cmap="Blues", vmin=0, vmax=1)
    ax.set_xticks(range(len(query_tokens)), labels=query_tokens, rotation=90)
    ax.set_yticks(range(len(key_tokens)), labels=key_tokens)
    ax.set_xlabel("query")
    ax.set_ylabel("key")
    plt.colorbar(im, ax=ax)
    if title:
        ax.set_title(title)
    return ax
