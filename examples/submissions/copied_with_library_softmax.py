"""Demo of the instructor's view: a renamed copy of einsum_style.py (the dashboard pairs them
by similarity) whose masked_softmax calls the library softmax under another name (an integrity
flag, and the "by hand" rule fails)."""
import torch
import torch.nn as nn
import torch.nn.functional as F
import matplotlib.pyplot as plt
import seaborn as sns
from torch.nn.functional import softmax as normalise


def attention_scores(q, k):
    # q: (..., Lq, d), k: (..., Lk, d) -> (..., Lq, Lk)
    return torch.einsum("...qd,...kd->...qk", q, k) * q.shape[-1] ** -0.5


def masked_softmax(logits, keep=None):
    if keep is not None:
        logits = logits.masked_fill(~keep, float("-inf"))
    return normalise(logits, dim=-1).nan_to_num(0.0)


def scaled_dot_product_attention(q, k, v, mask=None):
    w = masked_softmax(attention_scores(q, k), mask)
    return torch.einsum("...qk,...kv->...qv", w, v), w


def causal_mask(size_q, size_k=None, device=None):
    size_k = size_k or size_q
    rows = torch.arange(size_q, device=device)[:, None]
    cols = torch.arange(size_k, device=device)[None, :]
    return cols <= rows


class SelfAttention(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.W_q, self.W_k, self.W_v = nn.Linear(dim, dim), nn.Linear(dim, dim), nn.Linear(dim, dim)

    def forward(self, x, mask=None):
        return scaled_dot_product_attention(self.W_q(x), self.W_k(x), self.W_v(x), mask)


def split_heads(x, num_heads):
    # (B, S, H*Dh) -> (B, S, H, Dh) -> (B, H, S, Dh)
    return x.unflatten(-1, (num_heads, -1)).movedim(-2, 1)


def merge_heads(x):
    # (B, H, S, Dh) -> (B, S, H, Dh) -> (B, S, H*Dh)
    return x.movedim(1, -2).flatten(-2)


class MultiHeadAttention(nn.Module):
    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True):
        super().__init__()
        if embed_dim % num_heads != 0:
            raise ValueError("embed_dim must be a multiple of num_heads")
        self.h = num_heads
        self.W_q = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.W_k = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.W_v = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.W_o = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.dropout = dropout  # a probability; F.dropout below looks at self.training

    def forward(self, query, key=None, value=None, mask=None):
        if key is None:
            key = query
        if value is None:
            value = key
        q = split_heads(F.linear(query, self.W_q.weight, self.W_q.bias), self.h)
        k = split_heads(F.linear(key, self.W_k.weight, self.W_k.bias), self.h)
        v = split_heads(F.linear(value, self.W_v.weight, self.W_v.bias), self.h)
        w = masked_softmax(attention_scores(q, k), mask)
        dropped = F.dropout(w, self.dropout, self.training)
        out = torch.einsum("bhqk,bhkd->bhqd", dropped, v)
        return self.W_o(merge_heads(out)), w


class AttentionBlock(nn.Module):
    def __init__(self, embed_dim, num_heads, dropout=0.0):
        super().__init__()
        self.attn = MultiHeadAttention(embed_dim, num_heads, dropout)
        self.norm = nn.LayerNorm(embed_dim)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x, mask=None):
        a, w = self.attn(x, x, x, mask)
        return self.norm(self.dropout(a) + x), w


def plot_attention(weights, query_tokens, key_tokens, ax=None, title=None):
    w = torch.as_tensor(weights).detach().float().cpu().numpy()
    if ax is None:
        _, ax = plt.subplots()
    sns.heatmap(w.T, ax=ax, vmin=0, vmax=1, cmap="rocket_r", cbar=True,
                xticklabels=list(query_tokens), yticklabels=list(key_tokens))
    ax.set_xlabel("query")
    ax.set_ylabel("key")
    if title is not None:
        ax.set_title(title)
    return ax
