# CORRECT: timm's Attention: self.scale = head_dim ** -0.5 and q = q * self.scale before q @ k.transpose(-2, -1) (A.1 and C.3); attn.softmax(dim=-1) in C.3 on a finfo.min fill with blocked keys zeroed after; attn_drop alias of self.dropout, proj alias of W_o, proj_drop = nn.Dropout(0.) and q_norm/k_norm = nn.Identity(); B, N, C = x.shape; x = (attn @ v).transpose(1, 2).reshape(B, N, C); qkv_bias-style; fig.colorbar(im, ax=ax) with constrained layout
# Per-part scores: A=32 B=10 C=28 D=12 E=10 F=8.
# Mistakes named: none.
import matplotlib.pyplot as plt
import torch
import torch.nn as nn


def attention_scores(q, k):
    scale = q.shape[-1] ** -0.5
    q = q * scale
    return q @ k.transpose(-2, -1)


def masked_softmax(scores, mask=None):
    attn = scores
    if mask is not None:
        attn = attn.masked_fill(~mask, float("-inf"))
    attn_max = attn.amax(dim=-1, keepdim=True)
    attn_max = attn_max.nan_to_num(0.0, posinf=0.0, neginf=0.0).detach()
    attn = (attn - attn_max).exp()
    denom = attn.sum(dim=-1, keepdim=True)
    return attn / denom.where(denom > 0, torch.ones_like(denom))


def scaled_dot_product_attention(q, k, v, mask=None):
    attn = masked_softmax(attention_scores(q, k), mask)
    return attn @ v, attn


def causal_mask(size_q, size_k=None, device=None):
    size_k = size_q if size_k is None else size_k
    return torch.ones(size_q, size_k, dtype=torch.bool, device=device).tril(diagonal=0)


class SelfAttention(nn.Module):
    def __init__(self, dim, qkv_bias=True):
        super().__init__()
        self.scale = dim ** -0.5
        self.W_q = nn.Linear(dim, dim, bias=qkv_bias)
        self.W_k = nn.Linear(dim, dim, bias=qkv_bias)
        self.W_v = nn.Linear(dim, dim, bias=qkv_bias)

    def forward(self, x, mask=None):
        q, k, v = self.W_q(x), self.W_k(x), self.W_v(x)
        q = q * self.scale
        attn = masked_softmax(q @ k.transpose(-2, -1), mask)
        x = attn @ v
        return x, attn


def split_heads(x, num_heads):
    B, N, C = x.shape
    if C % num_heads:
        raise ValueError("dim should be divisible by num_heads")
    return x.reshape(B, N, num_heads, C // num_heads).permute(0, 2, 1, 3)


def merge_heads(x):
    B, H, N, D = x.shape
    return x.transpose(1, 2).reshape(B, N, H * D)


class MultiHeadAttention(nn.Module):
    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True, proj_drop=0.0):
        super().__init__()
        if embed_dim % num_heads != 0:
            raise ValueError("dim should be divisible by num_heads")
        self.num_heads = num_heads
        self.head_dim = embed_dim // num_heads
        self.scale = self.head_dim ** -0.5
        # timm fuses them into one qkv Linear; the contract keeps them apart
        self.W_q = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.W_k = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.W_v = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.q_norm = nn.Identity()
        self.k_norm = nn.Identity()
        self.dropout = nn.Dropout(dropout)
        self.attn_drop = self.dropout
        self.W_o = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.proj = self.W_o
        self.proj_drop = nn.Dropout(proj_drop)

    def forward(self, query, key=None, value=None, mask=None):
        key = query if key is None else key
        value = key if value is None else value
        B, N, C = query.shape
        q = split_heads(self.W_q(query), self.num_heads)
        k = split_heads(self.W_k(key), self.num_heads)
        v = split_heads(self.W_v(value), self.num_heads)
        q, k = self.q_norm(q), self.k_norm(k)

        q = q * self.scale
        attn = q @ k.transpose(-2, -1)
        if mask is not None:
            attn = attn.masked_fill(~mask, torch.finfo(attn.dtype).min)
        attn = attn.softmax(dim=-1)
        if mask is not None:
            attn = attn.masked_fill(~mask, 0.0)
        x = self.attn_drop(attn) @ v

        x = x.transpose(1, 2).reshape(B, N, C)
        x = self.proj(x)
        x = self.proj_drop(x)
        return x, attn


class AttentionBlock(nn.Module):
    def __init__(self, embed_dim, num_heads, dropout=0.0, norm_layer=nn.LayerNorm):
        super().__init__()
        self.attn = MultiHeadAttention(embed_dim, num_heads, dropout)
        self.dropout = nn.Dropout(dropout)
        self.norm = norm_layer(embed_dim)

    def forward(self, x, mask=None):
        y, attn = self.attn(x, mask=mask)
        x = self.norm(x + self.dropout(y))
        return x, attn


def plot_attention(weights, query_tokens, key_tokens, ax=None, title=None):
    attn = torch.as_tensor(weights).detach().cpu().float()
    if ax is None:
        fig, ax = plt.subplots(layout="constrained")
    im = ax.imshow(attn.T.numpy(), cmap="GnBu", vmin=0.0, vmax=1.0, interpolation="nearest")
    ax.set_xticks(range(len(query_tokens)), labels=query_tokens)
    ax.set_yticks(range(len(key_tokens)), labels=key_tokens)
    ax.set_xlabel("query")
    ax.set_ylabel("key")
    ax.figure.colorbar(im, ax=ax)
    if title is not None:
        ax.set_title(title)
    return ax
