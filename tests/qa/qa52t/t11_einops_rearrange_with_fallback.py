# CORRECT: einops-style code: rearrange 'b s (h d) -> b h s d' / 'b h s d -> b s (h d)', einops.einsum for the scores, reduce(..., 'max') for the row maximum and repeat for a default mask, all behind try: import einops / except ImportError with torch fallbacks (the README's optional-import rule; the grader has no einops); einops-style pattern strings kept as module constants
# Per-part scores: A=32 B=10 C=28 D=12 E=10 F=8.
# Mistakes named: none.
import math

import matplotlib.pyplot as plt
import torch
import torch.nn as nn

try:
    from einops import rearrange, reduce
    HAVE_EINOPS = True
except ImportError:  # einops is optional: torch does the same below
    HAVE_EINOPS = False

SPLIT = "b s (h d) -> b h s d"
MERGE = "b h s d -> b s (h d)"


def _split(x, h):
    if HAVE_EINOPS:
        return rearrange(x, SPLIT, h=h)
    b, s, hd = x.shape
    return x.reshape(b, s, h, hd // h).permute(0, 2, 1, 3)


def _merge(x):
    if HAVE_EINOPS:
        return rearrange(x, MERGE)
    b, h, s, d = x.shape
    return x.permute(0, 2, 1, 3).reshape(b, s, h * d)


def _row_max(x):
    if HAVE_EINOPS:
        return reduce(x, "... i j -> ... i 1", "max")
    return x.amax(dim=-1, keepdim=True)


def attention_scores(q, k):
    # einops.einsum(q, k, "... i d, ... j d -> ... i j") / sqrt(d), written with torch.einsum
    return torch.einsum("...id,...jd->...ij", q, k) / math.sqrt(q.shape[-1])


def masked_softmax(scores, mask=None):
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    m = _row_max(scores)
    m = torch.where(torch.isfinite(m), m, torch.zeros_like(m)).detach()
    e = torch.exp(scores - m)
    z = e.sum(dim=-1, keepdim=True)
    return e / (z + (z == 0).to(z.dtype))


def scaled_dot_product_attention(q, k, v, mask=None):
    attn = masked_softmax(attention_scores(q, k), mask)
    return torch.einsum("...ij,...jd->...id", attn, v), attn


def causal_mask(size_q, size_k=None, device=None):
    size_k = size_q if size_k is None else size_k
    i = torch.arange(size_q, device=device)
    j = torch.arange(size_k, device=device)
    return j[None, :] <= i[:, None]  # rearrange(j, 'j -> 1 j') <= rearrange(i, 'i -> i 1')


class SelfAttention(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.W_q = nn.Linear(dim, dim)
        self.W_k = nn.Linear(dim, dim)
        self.W_v = nn.Linear(dim, dim)

    def forward(self, x, mask=None):
        return scaled_dot_product_attention(self.W_q(x), self.W_k(x), self.W_v(x), mask)


def split_heads(x, num_heads):
    if x.shape[-1] % num_heads:
        raise ValueError(f"{x.shape[-1]} features cannot be split into {num_heads} heads")
    return _split(x, num_heads)


def merge_heads(x):
    return _merge(x)


class MultiHeadAttention(nn.Module):
    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True):
        super().__init__()
        if embed_dim % num_heads:
            raise ValueError(f"embed_dim={embed_dim} is not divisible by num_heads={num_heads}")
        self.heads = num_heads
        self.W_q = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.W_k = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.W_v = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.W_o = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.dropout = nn.Dropout(dropout)

    def forward(self, query, key=None, value=None, mask=None):
        key = query if key is None else key
        value = key if value is None else value
        q, k, v = (split_heads(proj(t), self.heads) for proj, t in ((self.W_q, query), (self.W_k, key), (self.W_v, value)))
        attn = masked_softmax(attention_scores(q, k), mask)
        out = torch.einsum("bhij,bhjd->bhid", self.dropout(attn), v)
        return self.W_o(merge_heads(out)), attn


class AttentionBlock(nn.Module):
    def __init__(self, embed_dim, num_heads, dropout=0.0):
        super().__init__()
        self.attn = MultiHeadAttention(embed_dim, num_heads, dropout)
        self.norm = nn.LayerNorm(embed_dim)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x, mask=None):
        out, attn = self.attn(x, mask=mask)
        return self.norm(x + self.dropout(out)), attn


def plot_attention(weights, query_tokens, key_tokens, ax=None, title=None):
    w = torch.as_tensor(weights).detach().cpu()
    grid = rearrange(w, "q k -> k q") if HAVE_EINOPS else w.T  # keys down, queries across
    if ax is None:
        _, ax = plt.subplots()
    im = ax.imshow(grid.numpy(), cmap="Blues", vmin=0, vmax=1)
    ax.set_xticks(range(len(query_tokens)), labels=query_tokens, rotation=60)
    ax.set_yticks(range(len(key_tokens)), labels=key_tokens)
    ax.set_xlabel("query")
    ax.set_ylabel("key")
    plt.colorbar(im, ax=ax)
    if title:
        ax.set_title(title)
    return ax
