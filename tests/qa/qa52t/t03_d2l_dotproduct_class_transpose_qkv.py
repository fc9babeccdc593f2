# CORRECT: d2l.ai: a DotProductAttention module (torch.bmm over (B*H) batches, self.attention_weights kept) sharing C.3's self.dropout; transpose_qkv / transpose_output helpers with reshape(..., -1); the mask broadcast and flattened like d2l's repeat of valid_lens; masked_softmax helper with a -1e6-style fill value (finfo.min); AddNorm class inside the block with self.norm/self.dropout aliases; self.attention alias; show_heatmaps-style subplots(squeeze=False), fig.colorbar(pcm, ax=axes, shrink=0.6)
# Per-part scores: A=32 B=10 C=28 D=12 E=10 F=8.
# Mistakes named: none.
import math

import matplotlib.pyplot as plt
import numpy as np
import torch
from torch import nn


def attention_scores(q, k):
    d = q.shape[-1]
    return torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(d)


def masked_softmax(scores, mask=None):
    """Perform softmax operation by masking elements on the last axis."""
    X = scores
    if mask is not None:
        # d2l fills with value=-1e6; the lowest value of the dtype is used so float16 fits too
        X = X.masked_fill(~mask, torch.finfo(X.dtype).min)
    X_max = X.max(dim=-1, keepdim=True)[0].detach()
    X_exp = torch.exp(X - X_max)
    if mask is not None:
        X_exp = X_exp * mask.to(X_exp.dtype)
    partition = X_exp.sum(-1, keepdim=True)
    return X_exp / torch.clamp(partition, min=torch.finfo(X_exp.dtype).tiny)


class DotProductAttention(nn.Module):
    """Scaled dot product attention."""

    def __init__(self, dropout):
        super().__init__()
        self.dropout = dropout if isinstance(dropout, nn.Module) else nn.Dropout(dropout)

    # Shape of queries: (batch_size, no. of queries, d)
    # Shape of keys: (batch_size, no. of key-value pairs, d)
    # Shape of values: (batch_size, no. of key-value pairs, value dimension)
    def forward(self, queries, keys, values, mask=None):
        d = queries.shape[-1]
        scores = torch.bmm(queries, keys.transpose(1, 2)) / math.sqrt(d)
        self.attention_weights = masked_softmax(scores, mask)
        return torch.bmm(self.dropout(self.attention_weights), values)


def scaled_dot_product_attention(q, k, v, mask=None):
    weights = masked_softmax(attention_scores(q, k), mask)
    return torch.matmul(weights, v), weights


def causal_mask(size_q, size_k=None, device=None):
    if size_k is None:
        size_k = size_q
    # like d2l's sequence_mask: compare positions with an arange
    return torch.arange(size_k, device=device)[None, :] <= torch.arange(size_q, device=device)[:, None]


class SelfAttention(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.W_q = nn.Linear(dim, dim)
        self.W_k = nn.Linear(dim, dim)
        self.W_v = nn.Linear(dim, dim)

    def forward(self, X, mask=None):
        return scaled_dot_product_attention(self.W_q(X), self.W_k(X), self.W_v(X), mask)


def split_heads(X, num_heads):
    # Shape of input X: (batch_size, no. of queries or key-value pairs, num_hiddens)
    if X.shape[-1] % num_heads:
        raise ValueError(f"num_hiddens={X.shape[-1]} is not divisible by num_heads={num_heads}")
    X = X.reshape(X.shape[0], X.shape[1], num_heads, -1)
    return X.permute(0, 2, 1, 3)


def merge_heads(X):
    X = X.permute(0, 2, 1, 3)
    return X.reshape(X.shape[0], X.shape[1], -1)


class MultiHeadAttention(nn.Module):
    """Multi-head attention."""

    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True):
        super().__init__()
        if embed_dim % num_heads:
            raise ValueError(f"num_hiddens={embed_dim} is not divisible by num_heads={num_heads}")
        self.num_heads = num_heads
        # d2l uses nn.LazyLinear(num_hiddens); the contract wants nn.Linear(E, E)
        self.W_q = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.W_k = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.W_v = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.W_o = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.dropout = nn.Dropout(dropout)
        self.attention = DotProductAttention(self.dropout)

    def transpose_qkv(self, X):
        """Transposition for parallel computation of multiple attention heads."""
        X = split_heads(X, self.num_heads)
        return X.reshape(-1, X.shape[2], X.shape[3])

    def transpose_output(self, X):
        """Reverse the operation of transpose_qkv."""
        X = X.reshape(-1, self.num_heads, X.shape[1], X.shape[2])
        return merge_heads(X)

    def forward(self, query, key=None, value=None, mask=None):
        queries = query
        keys = queries if key is None else key
        values = keys if value is None else value
        batch_size, num_queries, num_keys = queries.shape[0], queries.shape[1], keys.shape[1]
        queries = self.transpose_qkv(self.W_q(queries))
        keys = self.transpose_qkv(self.W_k(keys))
        values = self.transpose_qkv(self.W_v(values))
        if mask is not None:
            # d2l repeats valid_lens num_heads times; a mask is broadcast and flattened the same way
            mask = torch.broadcast_to(mask, (batch_size, self.num_heads, num_queries, num_keys))
            mask = mask.reshape(-1, num_queries, num_keys)
        output = self.attention(queries, keys, values, mask)
        output_concat = self.transpose_output(output)
        weights = self.attention.attention_weights.reshape(batch_size, self.num_heads, num_queries, num_keys)
        return self.W_o(output_concat), weights


class AddNorm(nn.Module):
    """The residual connection followed by layer normalization."""

    def __init__(self, norm_shape, dropout):
        super().__init__()
        self.dropout = nn.Dropout(dropout)
        self.ln = nn.LayerNorm(norm_shape)

    def forward(self, X, Y):
        return self.ln(self.dropout(Y) + X)


class AttentionBlock(nn.Module):
    def __init__(self, embed_dim, num_heads, dropout=0.0):
        super().__init__()
        self.attn = MultiHeadAttention(embed_dim, num_heads, dropout)
        self.addnorm1 = AddNorm(embed_dim, dropout)
        self.norm = self.addnorm1.ln
        self.dropout = self.addnorm1.dropout
        self.attention = self.attn

    def forward(self, X, mask=None):
        attended, weights = self.attention(X, X, X, mask)
        return self.addnorm1(X, attended), weights


def show_heatmaps(matrices, xlabel, ylabel, titles=None, figsize=(2.5, 2.5), cmap="Reds", axes=None):
    """Show heatmaps of matrices (d2l.show_heatmaps, one row and one column here)."""
    num_rows, num_cols = len(matrices), len(matrices[0])
    if axes is None:
        fig, axes = plt.subplots(num_rows, num_cols, figsize=figsize, sharex=True, sharey=True, squeeze=False)
    fig = axes[0][0].figure
    for i, (row_axes, row_matrices) in enumerate(zip(axes, matrices)):
        for j, (ax, matrix) in enumerate(zip(row_axes, row_matrices)):
            pcm = ax.imshow(matrix.detach().numpy(), cmap=cmap, vmin=0, vmax=1)
            if i == num_rows - 1:
                ax.set_xlabel(xlabel)
            if j == 0:
                ax.set_ylabel(ylabel)
            if titles:
                ax.set_title(titles[j])
    fig.colorbar(pcm, ax=axes, shrink=0.6)
    return axes


def plot_attention(weights, query_tokens, key_tokens, ax=None, title=None):
    # d2l draws queries down and keys across; the course wants queries across: transpose
    matrix = torch.as_tensor(weights).detach().cpu().double().T
    axes = show_heatmaps([[matrix]], xlabel="Queries", ylabel="Keys",
                         titles=[title] if title else None, figsize=(5, 5), cmap="Reds",
                         axes=None if ax is None else np.array([[ax]], dtype=object))
    ax = axes[0][0]
    ax.set_xticks(range(len(query_tokens)))
    ax.set_xticklabels(query_tokens, rotation=45)
    ax.set_yticks(range(len(key_tokens)))
    ax.set_yticklabels(key_tokens)
    return ax
