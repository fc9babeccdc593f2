# CORRECT: Karpathy's nanoGPT: register_buffer("bias", tril(ones(block_size, block_size)).view(1, 1, bs, bs)) on MultiHeadAttention (a bool bias= argument for the Linears beside it), used by an optional is_causal keyword as att.masked_fill(self.bias[:,:,:T,:T] == 0, ...); B, T, C = x.size(); split with view(B, T, nh, hs).transpose(1, 2); y.transpose(1, 2).contiguous().view(B, T, C); att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1))); F.softmax in C.3 with blocked keys zeroed; attn_dropout / resid_dropout as aliases of the contract's dropouts; n_head / n_embd; ln_1 alias; ax.imshow + set_xticks/set_xticklabels + plt.colorbar(im)
# Per-part scores: A=32 B=10 C=28 D=12 E=10 F=8.
# Mistakes named: none.
import math

import matplotlib.pyplot as plt
import torch
import torch.nn as nn
from torch.nn import functional as F


def attention_scores(q, k):
    return (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))


def masked_softmax(scores, mask=None):
    att = scores
    if mask is not None:
        att = att.masked_fill(mask == 0, float("-inf"))
    m = att.amax(dim=-1, keepdim=True)
    m = torch.where(torch.isinf(m), torch.zeros_like(m), m).detach()
    e = (att - m).exp()
    s = e.sum(dim=-1, keepdim=True)
    return e / torch.where(s == 0, torch.ones_like(s), s)


def scaled_dot_product_attention(q, k, v, mask=None):
    att = masked_softmax(attention_scores(q, k), mask)
    y = att @ v  # (B, nh, T, T) x (B, nh, T, hs) -> (B, nh, T, hs)
    return y, att


def causal_mask(size_q, size_k=None, device=None):
    size_k = size_q if size_k is None else size_k
    return torch.tril(torch.ones(size_q, size_k, device=device)) == 1


class SelfAttention(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.W_q = nn.Linear(dim, dim)
        self.W_k = nn.Linear(dim, dim)
        self.W_v = nn.Linear(dim, dim)
        self.n_embd = dim

    def forward(self, x, mask=None):
        B, T, C = x.size()  # batch size, sequence length, embedding dimensionality (n_embd)
        q, k, v = self.W_q(x), self.W_k(x), self.W_v(x)
        return scaled_dot_product_attention(q, k, v, mask)


def split_heads(x, num_heads):
    B, T, C = x.size()
    if C % num_heads != 0:
        raise ValueError(f"n_embd={C} is not divisible by n_head={num_heads}")
    return x.view(B, T, num_heads, C // num_heads).transpose(1, 2)  # (B, nh, T, hs)


def merge_heads(y):
    B, nh, T, hs = y.size()
    return y.transpose(1, 2).contiguous().view(B, T, nh * hs)  # re-assemble all head outputs side by side


class MultiHeadAttention(nn.Module):
    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True, block_size=256):
        super().__init__()
        if embed_dim % num_heads != 0:  # nanoGPT asserts; the contract asks for a ValueError
            raise ValueError(f"n_embd={embed_dim} is not divisible by n_head={num_heads}")
        # key, query, value projections (nanoGPT fuses them in c_attn; the contract keeps them apart)
        self.W_q = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.W_k = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.W_v = nn.Linear(embed_dim, embed_dim, bias=bias)
        # output projection
        self.W_o = nn.Linear(embed_dim, embed_dim, bias=bias)
        # regularization
        self.dropout = nn.Dropout(dropout)
        self.attn_dropout = self.dropout
        self.n_head = num_heads
        self.n_embd = embed_dim
        # causal mask to ensure that attention is only applied to the left in the input sequence
        self.register_buffer("bias", torch.tril(torch.ones(block_size, block_size))
                             .view(1, 1, block_size, block_size))

    def forward(self, query, key=None, value=None, mask=None, is_causal=False):
        key = query if key is None else key
        value = key if value is None else value
        B, T, C = query.size()
        S = key.size(1)
        q = split_heads(self.W_q(query), self.n_head)
        k = split_heads(self.W_k(key), self.n_head)
        v = split_heads(self.W_v(value), self.n_head)
        # manual implementation of attention
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        allowed = torch.ones_like(att, dtype=torch.bool)
        if mask is not None:
            allowed = allowed & mask
        if is_causal:
            allowed = allowed & (self.bias[:, :, :T, :S] != 0)
        att = att.masked_fill(allowed == 0, torch.finfo(att.dtype).min)
        att = F.softmax(att, dim=-1)
        att = att.masked_fill(allowed == 0, 0.0)  # blocked keys exactly 0, a fully blocked query all 0
        y = self.attn_dropout(att) @ v  # (B, nh, T, T) x (B, nh, T, hs) -> (B, nh, T, hs)
        y = merge_heads(y)
        return self.W_o(y), att


class AttentionBlock(nn.Module):
    def __init__(self, embed_dim, num_heads, dropout=0.0):
        super().__init__()
        self.attn = MultiHeadAttention(embed_dim, num_heads, dropout)
        self.dropout = nn.Dropout(dropout)
        self.resid_dropout = self.dropout
        self.norm = nn.LayerNorm(embed_dim)
        self.ln_1 = self.norm

    def forward(self, x, mask=None):
        # nanoGPT is pre-norm (x + attn(ln_1(x))); the course's block is post-norm
        y, att = self.attn(x, mask=mask)
        x = self.ln_1(x + self.resid_dropout(y))
        return x, att


def plot_attention(weights, query_tokens, key_tokens, ax=None, title=None):
    att = torch.as_tensor(weights).detach().cpu().double()
    if ax is None:
        plt.figure(figsize=(6, 6))
        ax = plt.gca()
    im = ax.imshow(att.T.numpy(), cmap="Blues", vmin=0.0, vmax=1.0)
    ax.set_xticks(range(len(query_tokens)))
    ax.set_xticklabels(query_tokens, rotation=90)
    ax.set_yticks(range(len(key_tokens)))
    ax.set_yticklabels(key_tokens)
    ax.set_xlabel("query position")
    ax.set_ylabel("key position")
    plt.colorbar(im, ax=ax)
    if title:
        ax.set_title(title)
    return ax
