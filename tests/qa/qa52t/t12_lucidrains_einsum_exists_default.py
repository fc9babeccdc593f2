# CORRECT: lucidrains style: exists() / default() helpers; torch.einsum('b h i d, b h j d -> b h i j', q, k) * self.scale with spaces in the equation (A.1 with '... i d, ... j d -> ... i j'); max_neg_value = -torch.finfo(sim.dtype).max; sim.masked_fill(~mask, max_neg_value); q, k, v = map(lambda t: split_heads(t, h), ...); to_q/to_k/to_v/to_out aliases; einsum('b h i j, b h j d -> b h i d', attn, v)
# Per-part scores: A=32 B=10 C=28 D=12 E=10 F=8.
# Mistakes named: none.
import matplotlib.pyplot as plt
import torch
from torch import einsum, nn


def exists(val):
    return val is not None


def default(val, d):
    return val if exists(val) else d


def attention_scores(q, k):
    scale = q.shape[-1] ** -0.5
    return einsum("... i d, ... j d -> ... i j", q, k) * scale


def masked_softmax(sim, mask=None):
    if exists(mask):
        max_neg_value = -torch.finfo(sim.dtype).max
        sim = sim.masked_fill(~mask, max_neg_value)
    sim = sim - sim.amax(dim=-1, keepdim=True).detach()
    attn = sim.exp()
    if exists(mask):
        attn = attn * mask
    denom = attn.sum(dim=-1, keepdim=True)
    return attn / denom.clamp(min=torch.finfo(denom.dtype).tiny)


def scaled_dot_product_attention(q, k, v, mask=None):
    attn = masked_softmax(attention_scores(q, k), mask)
    out = einsum("... i j, ... j d -> ... i d", attn, v)
    return out, attn


def causal_mask(size_q, size_k=None, device=None):
    size_k = default(size_k, size_q)
    return torch.ones((size_q, size_k), device=device, dtype=torch.bool).triu(1).logical_not()


class SelfAttention(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.scale = dim ** -0.5
        self.W_q = nn.Linear(dim, dim)
        self.W_k = nn.Linear(dim, dim)
        self.W_v = nn.Linear(dim, dim)
        self.to_q, self.to_k, self.to_v = self.W_q, self.W_k, self.W_v

    def forward(self, x, mask=None):
        q, k, v = self.to_q(x), self.to_k(x), self.to_v(x)
        sim = einsum("b i d, b j d -> b i j", q, k) * self.scale
        attn = masked_softmax(sim, mask)
        return einsum("b i j, b j d -> b i d", attn, v), attn


def split_heads(x, num_heads):
    b, n, hd = x.shape
    if hd % num_heads:
        raise ValueError(f"dim {hd} must be divisible by heads {num_heads}")
    return x.reshape(b, n, num_heads, hd // num_heads).transpose(1, 2)  # 'b n (h d) -> b h n d'


def merge_heads(x):
    b, h, n, d = x.shape
    return x.transpose(1, 2).reshape(b, n, h * d)  # 'b h n d -> b n (h d)'


class MultiHeadAttention(nn.Module):
    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True):
        super().__init__()
        if embed_dim % num_heads:
            raise ValueError(f"dim {embed_dim} must be divisible by heads {num_heads}")
        dim_head = embed_dim // num_heads
        self.heads = num_heads
        self.scale = dim_head ** -0.5
        self.W_q = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.W_k = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.W_v = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.W_o = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.to_q, self.to_k, self.to_v, self.to_out = self.W_q, self.W_k, self.W_v, self.W_o
        self.dropout = nn.Dropout(dropout)

    def forward(self, query, key=None, value=None, mask=None):
        x = query
        context = default(key, x)
        value = default(value, context)
        h = self.heads
        q, k, v = self.to_q(x), self.to_k(context), self.to_v(value)
        q, k, v = map(lambda t: split_heads(t, h), (q, k, v))
        sim = einsum("b h i d, b h j d -> b h i j", q, k) * self.scale
        attn = masked_softmax(sim, mask)
        out = einsum("b h i j, b h j d -> b h i d", self.dropout(attn), v)
        return self.to_out(merge_heads(out)), attn


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
    ax = default(ax, None)
    if not exists(ax):
        _, ax = plt.subplots()
    im = ax.imshow(w.T.numpy(), cmap="Blues", vmin=0, vmax=1)
    ax.set_xticks(range(len(query_tokens)), labels=query_tokens)
    ax.set_yticks(range(len(key_tokens)), labels=key_tokens)
    ax.set_xlabel("query")
    ax.set_ylabel("key")
    ax.figure.colorbar(im, ax=ax)
    if exists(title):
        ax.set_title(title)
    return ax
