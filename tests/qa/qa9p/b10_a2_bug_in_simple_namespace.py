# qa9p b10_a2_bug_in_simple_namespace: BUG A.2 (held in a types.SimpleNamespace and a lambda's default): blocked scores filled with -10000 (a fully blocked row is uniform, not zeros).
# expected: A=30 B=10 C=28 D=12 E=10
# Public check: A.2 fails: "query row 2 has every key blocked and your result gives those keys weight"; the others pass.
# ruff: noqa  (a self-learner's file: written as a student writes it)
import math
import types

import matplotlib.pyplot as plt
import torch
import torch.nn as nn

# My notes while working through the course text on my own: I run `attnkit check` after each
# task and keep the little experiments at the bottom (they only run when I run this file).


# ----- Part A -----
def attention_scores(q, k):
    # q·kᵀ / √d, d = the size of one query vector
    d = q.shape[-1]
    scores = torch.matmul(q, k.transpose(-2, -1))
    return scores / math.sqrt(d)


def masked_softmax(scores, mask=None):
    # softmax by hand: shift by the row max so exp never overflows
    if mask is not None:
        scores = scores.masked_fill(~mask, -10000.0)
    biggest = scores.max(dim=-1, keepdim=True).values
    biggest = biggest.masked_fill(biggest == float("-inf"), 0.0).detach()  # a row with nothing allowed
    e = (scores - biggest).exp()
    s = e.sum(dim=-1, keepdim=True)
    s = torch.where(s == 0, torch.ones_like(s), s)  # 0 / 1 = 0 for such a row, never NaN
    return e / s


ops = types.SimpleNamespace(scores=attention_scores, softmax=masked_softmax)
normalise = lambda s, m=None, f=masked_softmax: f(s, m)


def scaled_dot_product_attention(q, k, v, mask=None):
    weights = normalise(ops.scores(q, k), mask)
    out = torch.matmul(weights, v)
    return out, weights


def causal_mask(size_q, size_k=None, device=None):
    if size_k is None:
        size_k = size_q
    rows = torch.arange(size_q, device=device).unsqueeze(1)
    cols = torch.arange(size_k, device=device).unsqueeze(0)
    return cols <= rows  # True = may look (the past and itself)


# ----- Part B -----
class SelfAttention(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.W_q = nn.Linear(dim, dim)
        self.W_k = nn.Linear(dim, dim)
        self.W_v = nn.Linear(dim, dim)

    def forward(self, x, mask=None):
        return scaled_dot_product_attention(self.W_q(x), self.W_k(x), self.W_v(x), mask)


# ----- Part C -----
def split_heads(x, num_heads):
    batch, length, width = x.shape
    if width % num_heads != 0:
        raise ValueError(f"{width} features do not split into {num_heads} heads")
    x = x.reshape(batch, length, num_heads, width // num_heads)
    return x.permute(0, 2, 1, 3)  # (B, H, S, Dh)


def merge_heads(x):
    batch, heads, length, size = x.shape
    return x.permute(0, 2, 1, 3).reshape(batch, length, heads * size)


class MultiHeadAttention(nn.Module):
    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True):
        super().__init__()
        if embed_dim % num_heads != 0:
            raise ValueError("embed_dim must be a multiple of num_heads")
        self.num_heads = num_heads
        self.W_q = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.W_k = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.W_v = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.W_o = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.dropout = nn.Dropout(dropout)

    def forward(self, query, key=None, value=None, mask=None):
        if key is None:
            key = query
        if value is None:
            value = key
        q = split_heads(self.W_q(query), self.num_heads)
        k = split_heads(self.W_k(key), self.num_heads)
        v = split_heads(self.W_v(value), self.num_heads)
        weights = ops.softmax(ops.scores(q, k), mask)  # (B, H, Lq, Lk)
        mixed = torch.matmul(self.dropout(weights), v)  # dropout only on the copy that meets V
        return self.W_o(merge_heads(mixed)), weights


# ----- Part D -----
class AttentionBlock(nn.Module):
    def __init__(self, embed_dim, num_heads, dropout=0.0):
        super().__init__()
        self.attn = MultiHeadAttention(embed_dim, num_heads, dropout)
        self.dropout = nn.Dropout(dropout)
        self.norm = nn.LayerNorm(embed_dim)

    def forward(self, x, mask=None):
        attended, weights = self.attn(x, x, x, mask=mask)
        y = self.norm(x + self.dropout(attended))
        return y, weights


# ----- Part E -----
def plot_attention(weights, query_tokens, key_tokens, ax=None, title=None):
    w = weights.detach().cpu().numpy()  # (Lq, Lk)
    if ax is None:
        fig, ax = plt.subplots()
    picture = ax.imshow(w.T, cmap="Purples", vmin=0, vmax=1)  # keys down, queries across
    ax.set_xticks(list(range(len(query_tokens))))
    ax.set_xticklabels(query_tokens)
    ax.set_yticks(list(range(len(key_tokens))))
    ax.set_yticklabels(key_tokens)
    ax.set_xlabel("query")
    ax.set_ylabel("key")
    plt.colorbar(picture, ax=ax)
    if title is not None:
        ax.set_title(title)
    return ax


if __name__ == "__main__":
    torch.manual_seed(0)
    x = torch.randn(2, 5, 12)
    block = AttentionBlock(12, 3)
    y, w = block(x, causal_mask(5))
    print(y.shape, w.shape, w[0, 0])
    plot_attention(w[0, 0], list("abcde"), list("abcde"), title="head 0")
    plt.show()
