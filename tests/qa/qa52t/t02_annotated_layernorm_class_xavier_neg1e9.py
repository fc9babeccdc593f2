# CORRECT: The Annotated Transformer: mask == 0 filled with -1e9 where the dtype holds it (finfo.min in float16) and blocked keys zeroed after; a LayerNorm class (a subclass of nn.LayerNorm, eps=1e-6) with the tutorial's a_2/b_2 names as properties; xavier_uniform_ on every p.dim() > 1 as make_model does; MultiHeadedAttention as a class alias; EncoderLayer-style self.size; ax.imshow with set_xticks/set_xticklabels, plt.colorbar(im, ax=ax), fig.tight_layout()
# Per-part scores: A=32 B=10 C=28 D=12 E=10 F=8.
# Mistakes named: none.
import math

import matplotlib.pyplot as plt
import torch
import torch.nn as nn


def attention_scores(q, k):
    d_k = q.size(-1)
    scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(d_k)
    return scores


def masked_softmax(scores, mask=None):
    if mask is not None:
        # -1e9 as in the tutorial, where the dtype can hold it (float16 cannot)
        fill = -1e9 if torch.finfo(scores.dtype).max > 1e9 else torch.finfo(scores.dtype).min
        scores = scores.masked_fill(mask == 0, fill)
    scores = scores - scores.max(dim=-1, keepdim=True).values.detach()
    p_attn = scores.exp()
    if mask is not None:
        p_attn = p_attn.masked_fill(mask == 0, 0)  # a fully blocked row is all zeros
    denom = p_attn.sum(dim=-1, keepdim=True)
    return p_attn / torch.where(denom == 0, torch.ones_like(denom), denom)


def scaled_dot_product_attention(q, k, v, mask=None):
    "Compute 'Scaled Dot Product Attention'"
    p_attn = masked_softmax(attention_scores(q, k), mask)
    return torch.matmul(p_attn, v), p_attn


def causal_mask(size_q, size_k=None, device=None):
    size_k = size_q if size_k is None else size_k
    subsequent = torch.triu(torch.ones((1, size_q, size_k), device=device), diagonal=1).type(torch.uint8)
    return (subsequent == 0)[0]


class SelfAttention(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.W_q = nn.Linear(dim, dim)
        self.W_k = nn.Linear(dim, dim)
        self.W_v = nn.Linear(dim, dim)

    def forward(self, x, mask=None):
        query, key, value = self.W_q(x), self.W_k(x), self.W_v(x)
        return scaled_dot_product_attention(query, key, value, mask)


def split_heads(x, num_heads):
    nbatches, seq, d_model = x.shape
    if d_model % num_heads:
        raise ValueError(f"d_model={d_model} is not divisible by h={num_heads}")
    return x.reshape(nbatches, -1, num_heads, d_model // num_heads).transpose(1, 2)


def merge_heads(x):
    nbatches, h, seq, d_k = x.shape
    return x.transpose(1, 2).reshape(nbatches, -1, h * d_k)


class MultiHeadAttention(nn.Module):
    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True):
        super().__init__()
        if embed_dim % num_heads:
            raise ValueError(f"embed_dim={embed_dim} is not divisible by num_heads={num_heads}")
        self.d_k = embed_dim // num_heads
        self.h = num_heads
        self.W_q = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.W_k = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.W_v = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.W_o = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.dropout = nn.Dropout(p=dropout)
        # This was important from their code. Initialize parameters with Glorot / fan_avg.
        for p in self.parameters():
            if p.dim() > 1:
                nn.init.xavier_uniform_(p)

    def forward(self, query, key=None, value=None, mask=None):
        if key is None:
            key = query
        if value is None:
            value = key
        query = split_heads(self.W_q(query), self.h)
        key = split_heads(self.W_k(key), self.h)
        value = split_heads(self.W_v(value), self.h)
        p_attn = masked_softmax(attention_scores(query, key), mask)
        x = torch.matmul(self.dropout(p_attn), value)
        return self.W_o(merge_heads(x)), p_attn


MultiHeadedAttention = MultiHeadAttention


class LayerNorm(nn.LayerNorm):
    "Construct a layernorm module (See citation for details)."

    def __init__(self, features, eps=1e-6):
        super().__init__(features, eps=eps)

    @property
    def a_2(self):
        return self.weight

    @property
    def b_2(self):
        return self.bias


class AttentionBlock(nn.Module):
    "Encoder layer is made up of self-attn (post-norm here, as the course asks)"

    def __init__(self, embed_dim, num_heads, dropout=0.0):
        super().__init__()
        self.attn = MultiHeadedAttention(embed_dim, num_heads, dropout)
        self.norm = LayerNorm(embed_dim)
        self.dropout = nn.Dropout(dropout)
        self.size = embed_dim

    def forward(self, x, mask=None):
        "Follow Figure 1 (left) for connections."
        attended, weights = self.attn(x, x, x, mask)
        return self.norm(x + self.dropout(attended)), weights


def plot_attention(weights, query_tokens, key_tokens, ax=None, title=None):
    data = torch.as_tensor(weights).detach().cpu().float()
    if ax is None:
        fig, ax = plt.subplots(figsize=(6, 5))
    fig = ax.figure
    im = ax.imshow(data.T.numpy(), cmap="Blues", vmin=0, vmax=1)
    ax.set_xticks(range(len(query_tokens)))
    ax.set_xticklabels(query_tokens, rotation=90)
    ax.set_yticks(range(len(key_tokens)))
    ax.set_yticklabels(key_tokens)
    ax.set_xlabel("query")
    ax.set_ylabel("key")
    plt.colorbar(im, ax=ax)
    if title is not None:
        ax.set_title(title)
    fig.tight_layout()
    return ax
