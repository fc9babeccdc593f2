# CORRECT: fairseq's MultiheadAttention: self.scaling = self.head_dim ** -0.5 and q *= self.scaling in place on the projection's output; time-first (T x B x C) internals with q.contiguous().view(tgt_len, bsz * num_heads, head_dim).transpose(0, 1); torch.bmm; attn_weights_float computed in float32 and type_as back; attn.transpose(0, 1).contiguous().view(tgt_len, bsz, embed_dim); q_proj/k_proj/v_proj/out_proj and dropout_module aliases; the divisibility error as fairseq words it; post-norm (normalize_before=False) with residual = x and self_attn_layer_norm alias
# Per-part scores: A=32 B=10 C=28 D=12 E=10 F=8.
# Mistakes named: none.
import math

import matplotlib.pyplot as plt
import torch
import torch.nn as nn


def attention_scores(q, k):
    scaling = q.size(-1) ** -0.5
    return torch.matmul(q * scaling, k.transpose(-2, -1))


def masked_softmax(scores, mask=None):
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    m = scores.amax(-1, keepdim=True)
    m = torch.where(torch.isfinite(m), m, torch.zeros_like(m)).detach()
    e = torch.exp(scores - m)
    s = e.sum(-1, keepdim=True)
    return e / (s + (s == 0).type_as(s))


def scaled_dot_product_attention(q, k, v, mask=None):
    attn_probs = masked_softmax(attention_scores(q, k), mask)
    return torch.matmul(attn_probs, v), attn_probs


def causal_mask(size_q, size_k=None, device=None):
    size_k = size_q if size_k is None else size_k
    # fairseq's buffered_future_mask fills triu(1) with -inf; True = allowed here
    return torch.triu(torch.ones(size_q, size_k, dtype=torch.bool, device=device), 1).logical_not()


class SelfAttention(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.W_q = nn.Linear(dim, dim)
        self.W_k = nn.Linear(dim, dim)
        self.W_v = nn.Linear(dim, dim)

    def forward(self, x, mask=None):
        return scaled_dot_product_attention(self.W_q(x), self.W_k(x), self.W_v(x), mask)


def split_heads(x, num_heads):
    bsz, tgt_len, embed_dim = x.size()
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise ValueError("embed_dim must be divisible by num_heads")
    return x.reshape(bsz, tgt_len, num_heads, head_dim).transpose(1, 2)


def merge_heads(x):
    bsz, num_heads, tgt_len, head_dim = x.size()
    return x.transpose(1, 2).reshape(bsz, tgt_len, num_heads * head_dim)


class MultiHeadAttention(nn.Module):
    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True):
        super().__init__()
        self.embed_dim = embed_dim
        self.num_heads = num_heads
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != self.embed_dim:
            raise ValueError("embed_dim must be divisible by num_heads")
        self.scaling = self.head_dim ** -0.5
        self.W_q = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.W_k = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.W_v = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.W_o = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.k_proj, self.v_proj, self.q_proj, self.out_proj = self.W_k, self.W_v, self.W_q, self.W_o
        self.dropout = nn.Dropout(dropout)
        self.dropout_module = self.dropout

    def forward(self, query, key=None, value=None, mask=None, need_weights=True):
        key = query if key is None else key
        value = key if value is None else value
        # fairseq works time-first: Time x Batch x Channel
        query, key, value = query.transpose(0, 1), key.transpose(0, 1), value.transpose(0, 1)
        tgt_len, bsz, embed_dim = query.size()
        src_len = key.size(0)

        q = self.q_proj(query)
        k = self.k_proj(key)
        v = self.v_proj(value)
        q *= self.scaling

        q = q.contiguous().view(tgt_len, bsz * self.num_heads, self.head_dim).transpose(0, 1)
        k = k.contiguous().view(src_len, bsz * self.num_heads, self.head_dim).transpose(0, 1)
        v = v.contiguous().view(src_len, bsz * self.num_heads, self.head_dim).transpose(0, 1)

        attn_weights = torch.bmm(q, k.transpose(1, 2))
        attn_weights = attn_weights.view(bsz, self.num_heads, tgt_len, src_len)
        attn_weights_float = masked_softmax(attn_weights.float(), mask)
        attn_weights = attn_weights_float.type_as(attn_weights)
        attn_probs = self.dropout_module(attn_weights)

        attn = torch.bmm(attn_probs.view(bsz * self.num_heads, tgt_len, src_len), v)
        attn = attn.transpose(0, 1).contiguous().view(tgt_len, bsz, embed_dim)
        attn = self.out_proj(attn)
        return attn.transpose(0, 1), attn_weights


class AttentionBlock(nn.Module):
    def __init__(self, embed_dim, num_heads, dropout=0.0):
        super().__init__()
        self.attn = MultiHeadAttention(embed_dim, num_heads, dropout)
        self.self_attn = self.attn
        self.norm = nn.LayerNorm(embed_dim)
        self.self_attn_layer_norm = self.norm
        self.dropout = nn.Dropout(dropout)
        self.dropout_module = self.dropout
        self.normalize_before = False

    def residual_connection(self, x, residual):
        return residual + x

    def forward(self, x, mask=None):
        residual = x
        if self.normalize_before:
            x = self.self_attn_layer_norm(x)
        x, attn = self.self_attn(query=x, key=x, value=x, mask=mask)
        x = self.dropout_module(x)
        x = self.residual_connection(x, residual)
        if not self.normalize_before:
            x = self.self_attn_layer_norm(x)
        return x, attn


def plot_attention(weights, query_tokens, key_tokens, ax=None, title=None):
    w = torch.as_tensor(weights).detach().cpu().float()
    if ax is None:
        fig, ax = plt.subplots()
    im = ax.imshow(w.T.numpy(), cmap="Oranges", vmin=0, vmax=1)
    ax.set_xticks(range(len(query_tokens)), labels=query_tokens, rotation=45, ha="right")
    ax.set_yticks(range(len(key_tokens)), labels=key_tokens)
    ax.set_xlabel("target (query)")
    ax.set_ylabel("source (key)")
    ax.figure.colorbar(im, ax=ax)
    if title:
        ax.set_title(title)
    return ax
