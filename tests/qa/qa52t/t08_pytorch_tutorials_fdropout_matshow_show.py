# CORRECT: the PyTorch tutorials: d_k = query.size(-1) and math.sqrt(d_k); generate_square_subsequent_mask's (torch.triu(torch.ones(...)) == 1).transpose(0, 1) for the causal mask; F.dropout(p=self.dropout.p, training=self.training) for the block's own dropout (the nn.Dropout's rate); showAttention-style fig.add_subplot(111) + ax.matshow(cmap='bone_r') + fig.colorbar(cax) + set_xticklabels(rotation=90) + plt.show()
# Per-part scores: A=32 B=10 C=28 D=12 E=10 F=8.
# Mistakes named: none.
import math

import matplotlib.pyplot as plt
import torch
import torch.nn as nn
import torch.nn.functional as F


def attention_scores(q, k):
    d_k = q.size(-1)
    return torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(d_k)


def masked_softmax(scores, mask=None):
    if mask is not None:
        scores = scores.masked_fill(mask.logical_not(), float("-inf"))
    row_max = scores.amax(dim=-1, keepdim=True)
    row_max = torch.where(torch.isfinite(row_max), row_max, torch.zeros_like(row_max)).detach()
    exp = torch.exp(scores - row_max)
    total = exp.sum(dim=-1, keepdim=True)
    total = total + (total == 0).to(total.dtype)
    return exp / total


def scaled_dot_product_attention(q, k, v, mask=None):
    p_attn = masked_softmax(attention_scores(q, k), mask)
    return torch.matmul(p_attn, v), p_attn


def generate_square_subsequent_mask(sz_q, sz_k, device=None):
    # the tutorial's mask, rectangular: True where the key may be attended to
    return (torch.triu(torch.ones((sz_k, sz_q), device=device)) == 1).transpose(0, 1)


def causal_mask(size_q, size_k=None, device=None):
    return generate_square_subsequent_mask(size_q, size_q if size_k is None else size_k, device=device)


class SelfAttention(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.W_q = nn.Linear(dim, dim)
        self.W_k = nn.Linear(dim, dim)
        self.W_v = nn.Linear(dim, dim)

    def forward(self, x, mask=None):
        return scaled_dot_product_attention(self.W_q(x), self.W_k(x), self.W_v(x), mask)


def split_heads(x, num_heads):
    batch_size, seq_len, d_model = x.size()
    if d_model % num_heads:
        raise ValueError("d_model must be divisible by num_heads")
    d_k = d_model // num_heads
    return x.reshape(batch_size, seq_len, num_heads, d_k).transpose(1, 2)


def merge_heads(x):
    batch_size, num_heads, seq_len, d_k = x.size()
    return x.transpose(1, 2).contiguous().view(batch_size, seq_len, num_heads * d_k)


class MultiHeadAttention(nn.Module):
    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True):
        super().__init__()
        if embed_dim % num_heads != 0:
            raise ValueError("d_model must be divisible by num_heads")
        self.d_model = embed_dim
        self.num_heads = num_heads
        self.d_k = embed_dim // num_heads
        self.W_q = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.W_k = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.W_v = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.W_o = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.dropout = nn.Dropout(dropout)

    def forward(self, query, key=None, value=None, mask=None):
        key = query if key is None else key
        value = key if value is None else value
        Q = split_heads(self.W_q(query), self.num_heads)
        K = split_heads(self.W_k(key), self.num_heads)
        V = split_heads(self.W_v(value), self.num_heads)
        attn_scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(self.d_k)
        attn_probs = masked_softmax(attn_scores, mask)
        output = torch.matmul(self.dropout(attn_probs), V)
        return self.W_o(merge_heads(output)), attn_probs


class AttentionBlock(nn.Module):
    def __init__(self, embed_dim, num_heads, dropout=0.0):
        super().__init__()
        self.attn = MultiHeadAttention(embed_dim, num_heads, dropout)
        self.norm = nn.LayerNorm(embed_dim)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x, mask=None):
        attn_output, attn_weights = self.attn(x, x, x, mask)
        # the tutorials' functional dropout, at the rate of the block's own nn.Dropout
        attn_output = F.dropout(attn_output, p=self.dropout.p, training=self.training)
        return self.norm(x + attn_output), attn_weights


def plot_attention(weights, query_tokens, key_tokens, ax=None, title=None):
    attentions = torch.as_tensor(weights).detach().cpu()
    if ax is None:
        fig = plt.figure()
        ax = fig.add_subplot(111)
    fig = ax.figure
    cax = ax.matshow(attentions.T.numpy(), cmap="bone_r", vmin=0, vmax=1)
    fig.colorbar(cax)

    # Set up axes
    ax.set_xticks(range(len(query_tokens)))
    ax.set_xticklabels(query_tokens, rotation=90)
    ax.set_yticks(range(len(key_tokens)))
    ax.set_yticklabels(key_tokens)
    ax.set_xlabel("input (query)")
    ax.set_ylabel("attended to (key)")
    if title:
        ax.set_title(title)
    plt.show()
    return ax
