# CORRECT: Karpathy's "Let's build GPT" lecture: torch.manual_seed(1337) and a device string at module level; wei = q @ k.transpose(-2, -1) * k.shape[-1]**-0.5; tril = torch.tril(torch.ones(T, T)) and masked_fill(tril == 0, float('-inf')); the softmax written as in "version 4" by hand; Head-style key/query/value names as aliases registered after W_q/W_k/W_v; self.proj alias of W_o; Block with self.sa registered first and self.attn as its alias, ln1 alias; head_size = n_embd // n_head
# Per-part scores: A=32 B=10 C=28 D=12 E=10 F=8.
# Mistakes named: none.
import math

import matplotlib.pyplot as plt
import torch
import torch.nn as nn

torch.manual_seed(1337)
device = "cuda" if torch.cuda.is_available() else "cpu"  # only the demo below uses it


def attention_scores(q, k):
    wei = q @ k.transpose(-2, -1) * k.shape[-1] ** -0.5  # (B, T, C) @ (B, C, T) -> (B, T, T)
    return wei


def masked_softmax(wei, mask=None):
    if mask is not None:
        wei = wei.masked_fill(mask == 0, float("-inf"))
    top = wei.max(dim=-1, keepdim=True).values
    top = top.masked_fill(top == float("-inf"), 0.0).detach()
    wei = torch.exp(wei - top)
    norm = wei.sum(dim=-1, keepdim=True)
    return wei / norm.masked_fill(norm == 0, 1.0)


def scaled_dot_product_attention(q, k, v, mask=None):
    wei = masked_softmax(attention_scores(q, k), mask)
    out = wei @ v  # (B, T, T) @ (B, T, hs) -> (B, T, hs)
    return out, wei


def causal_mask(size_q, size_k=None, device=None):
    T, S = size_q, (size_q if size_k is None else size_k)
    tril = torch.tril(torch.ones(T, S, device=device))
    return tril != 0


class SelfAttention(nn.Module):
    """ one head of self-attention """

    def __init__(self, dim):
        super().__init__()
        self.W_q = nn.Linear(dim, dim)
        self.W_k = nn.Linear(dim, dim)
        self.W_v = nn.Linear(dim, dim)
        self.query, self.key, self.value = self.W_q, self.W_k, self.W_v

    def forward(self, x, mask=None):
        B, T, C = x.shape
        k = self.key(x)    # (B,T,C)
        q = self.query(x)  # (B,T,C)
        # compute attention scores ("affinities")
        wei = q @ k.transpose(-2, -1) * C ** -0.5  # (B, T, C) @ (B, C, T) -> (B, T, T)
        wei = masked_softmax(wei, mask)  # (B, T, T)
        # perform the weighted aggregation of the values
        v = self.value(x)  # (B,T,C)
        out = wei @ v  # (B, T, T) @ (B, T, C) -> (B, T, C)
        return out, wei


def split_heads(x, num_heads):
    B, T, C = x.shape
    if C % num_heads:
        raise ValueError(f"n_embd={C} is not divisible by n_head={num_heads}")
    head_size = C // num_heads
    return x.reshape(B, T, num_heads, head_size).transpose(1, 2)


def merge_heads(x):
    B, nh, T, hs = x.shape
    return x.transpose(1, 2).reshape(B, T, nh * hs)


class MultiHeadAttention(nn.Module):
    """ multiple heads of self-attention in parallel """

    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True):
        super().__init__()
        if embed_dim % num_heads:
            raise ValueError(f"n_embd={embed_dim} is not divisible by n_head={num_heads}")
        self.num_heads = num_heads
        self.head_size = embed_dim // num_heads
        self.W_q = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.W_k = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.W_v = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.W_o = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.proj = self.W_o
        self.dropout = nn.Dropout(dropout)

    def forward(self, query, key=None, value=None, mask=None):
        key = query if key is None else key
        value = key if value is None else value
        q = split_heads(self.W_q(query), self.num_heads)
        k = split_heads(self.W_k(key), self.num_heads)
        v = split_heads(self.W_v(value), self.num_heads)
        wei = masked_softmax(attention_scores(q, k), mask)
        out = self.dropout(wei) @ v
        out = self.proj(merge_heads(out))
        return out, wei


class AttentionBlock(nn.Module):
    """ Transformer block: communication (post-norm, as the course asks) """

    def __init__(self, embed_dim, num_heads, dropout=0.0):
        # n_embd: embedding dimension, n_head: the number of heads we'd like
        super().__init__()
        self.sa = MultiHeadAttention(embed_dim, num_heads, dropout)
        self.attn = self.sa
        self.ln1 = nn.LayerNorm(embed_dim)
        self.norm = self.ln1
        self.dropout = nn.Dropout(dropout)

    def forward(self, x, mask=None):
        sa_out, wei = self.sa(x, mask=mask)
        x = self.ln1(x + self.dropout(sa_out))
        return x, wei


def plot_attention(weights, query_tokens, key_tokens, ax=None, title=None):
    wei = torch.as_tensor(weights).detach().cpu().double()
    if ax is None:
        fig, ax = plt.subplots()
    im = ax.imshow(wei.T.numpy(), cmap="Blues", vmin=0, vmax=1)
    ax.set_xticks(range(len(query_tokens)))
    ax.set_xticklabels(query_tokens)
    ax.set_yticks(range(len(key_tokens)))
    ax.set_yticklabels(key_tokens)
    ax.set_xlabel("query (the token doing the looking)")
    ax.set_ylabel("key (the token looked at)")
    ax.figure.colorbar(im, ax=ax)
    if title:
        ax.set_title(title)
    return ax


if __name__ == "__main__":
    x = torch.randn(4, 8, 32, device=device)
    block = AttentionBlock(32, 4).to(device)
    print(block(x, causal_mask(8, device=device))[0].shape)
