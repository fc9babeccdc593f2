# CORRECT: Hugging Face BERT: BertSelfAttention-style transpose_for_scores with new_x_shape = x.size()[:-1] + (h, d) and permute(0, 2, 1, 3); local variables named attention_scores / attention_probs / context_layer (shadowing the A.1 name inside forward); context_layer.permute(0, 2, 1, 3).contiguous() and new_context_layer_shape; the head-size ValueError worded as BERT's; query/key/value/dense aliases after W_q..W_o; head_mask=None and output_attentions keywords; BertSelfOutput-style post-norm with self.LayerNorm alias and layer_norm_eps=1e-12; attention_head_size = int(hidden / heads), all_head_size
# Per-part scores: A=32 B=10 C=28 D=12 E=10 F=8.
# Mistakes named: none.
import math

import matplotlib.pyplot as plt
import torch
from torch import nn


def attention_scores(q, k):
    # Take the dot product between "query" and "key" to get the raw attention scores.
    attention_scores = torch.matmul(q, k.transpose(-1, -2))
    attention_scores = attention_scores / math.sqrt(q.size(-1))
    return attention_scores


def masked_softmax(scores, mask=None):
    if mask is not None:
        # BERT's extended attention mask holds finfo(dtype).min where blocked
        scores = torch.where(mask, scores, torch.finfo(scores.dtype).min)
    shifted = scores - scores.amax(-1, keepdim=True).detach()
    attention_probs = shifted.exp()
    if mask is not None:
        attention_probs = torch.where(mask, attention_probs, torch.zeros_like(attention_probs))
    denom = attention_probs.sum(-1, keepdim=True)
    return attention_probs / denom.clamp_min(torch.finfo(denom.dtype).tiny)


def scaled_dot_product_attention(q, k, v, mask=None):
    attention_probs = masked_softmax(attention_scores(q, k), mask)
    context_layer = torch.matmul(attention_probs, v)
    return context_layer, attention_probs


def causal_mask(size_q, size_k=None, device=None):
    size_k = size_q if size_k is None else size_k
    seq_ids = torch.arange(max(size_q, size_k), device=device)
    causal = seq_ids[None, :].repeat(max(size_q, size_k), 1) <= seq_ids[:, None]  # as get_extended_attention_mask
    return causal[:size_q, :size_k]


class SelfAttention(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.W_q = nn.Linear(dim, dim)
        self.W_k = nn.Linear(dim, dim)
        self.W_v = nn.Linear(dim, dim)
        self.query, self.key, self.value = self.W_q, self.W_k, self.W_v

    def forward(self, x, mask=None):
        hidden_states, attention_mask = x, mask
        query_layer = self.query(hidden_states)
        key_layer = self.key(hidden_states)
        value_layer = self.value(hidden_states)
        return scaled_dot_product_attention(query_layer, key_layer, value_layer, attention_mask)


def split_heads(x, num_heads):
    hidden_size = x.size(-1)
    if hidden_size % num_heads != 0:
        raise ValueError(
            f"The hidden size ({hidden_size}) is not a multiple of the number of attention heads ({num_heads})"
        )
    new_x_shape = x.size()[:-1] + (num_heads, hidden_size // num_heads)
    x = x.reshape(new_x_shape)
    return x.permute(0, 2, 1, 3)


def merge_heads(context_layer):
    context_layer = context_layer.permute(0, 2, 1, 3).contiguous()
    new_context_layer_shape = context_layer.size()[:-2] + (context_layer.size(-2) * context_layer.size(-1),)
    return context_layer.view(new_context_layer_shape)


class MultiHeadAttention(nn.Module):
    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True):
        super().__init__()
        if embed_dim % num_heads != 0:
            raise ValueError(
                f"The hidden size ({embed_dim}) is not a multiple of the number of attention heads ({num_heads})"
            )
        self.num_attention_heads = num_heads
        self.attention_head_size = int(embed_dim / num_heads)
        self.all_head_size = self.num_attention_heads * self.attention_head_size
        self.W_q = nn.Linear(embed_dim, self.all_head_size, bias=bias)
        self.W_k = nn.Linear(embed_dim, self.all_head_size, bias=bias)
        self.W_v = nn.Linear(embed_dim, self.all_head_size, bias=bias)
        self.W_o = nn.Linear(self.all_head_size, embed_dim, bias=bias)
        self.query, self.key, self.value, self.dense = self.W_q, self.W_k, self.W_v, self.W_o
        self.dropout = nn.Dropout(dropout)

    def transpose_for_scores(self, x):
        new_x_shape = x.size()[:-1] + (self.num_attention_heads, self.attention_head_size)
        x = x.view(new_x_shape)
        return x.permute(0, 2, 1, 3)

    def forward(self, query, key=None, value=None, mask=None, head_mask=None, output_attentions=True):
        # BERT's names: hidden_states (queries), encoder_hidden_states (cross-attention), attention_mask
        hidden_states, encoder_hidden_states, value_states, attention_mask = query, key, value, mask
        key_states = hidden_states if encoder_hidden_states is None else encoder_hidden_states
        value_states = key_states if value_states is None else value_states
        query_layer = self.transpose_for_scores(self.query(hidden_states))
        key_layer = self.transpose_for_scores(self.key(key_states))
        value_layer = self.transpose_for_scores(self.value(value_states))

        # Take the dot product between "query" and "key" to get the raw attention scores.
        attention_scores = torch.matmul(query_layer, key_layer.transpose(-1, -2))
        attention_scores = attention_scores / math.sqrt(self.attention_head_size)
        # Normalize the attention scores to probabilities.
        attention_probs = masked_softmax(attention_scores, attention_mask)

        # This is actually dropping out entire tokens to attend to, which might
        # seem a bit unusual, but is taken from the original Transformer paper.
        dropped_probs = self.dropout(attention_probs)
        # Mask heads if we want to
        if head_mask is not None:
            dropped_probs = dropped_probs * head_mask
        context_layer = torch.matmul(dropped_probs, value_layer)
        context_layer = context_layer.permute(0, 2, 1, 3).contiguous()
        new_context_layer_shape = context_layer.size()[:-2] + (self.all_head_size,)
        context_layer = context_layer.view(new_context_layer_shape)
        outputs = (self.dense(context_layer), attention_probs) if output_attentions else (self.dense(context_layer),)
        return outputs


class AttentionBlock(nn.Module):
    def __init__(self, embed_dim, num_heads, dropout=0.0, layer_norm_eps=1e-12):
        super().__init__()
        self.attn = MultiHeadAttention(embed_dim, num_heads, dropout)
        self.norm = nn.LayerNorm(embed_dim, eps=layer_norm_eps)
        self.dropout = nn.Dropout(dropout)
        self.LayerNorm = self.norm
        self.self = self.attn

    def forward(self, x, mask=None):
        hidden_states, attention_mask = x, mask
        self_outputs = self.self(hidden_states, mask=attention_mask)
        # BertSelfOutput: dense (inside self.attn here) -> dropout -> LayerNorm(hidden + input)
        attention_output = self.dropout(self_outputs[0])
        attention_output = self.LayerNorm(attention_output + hidden_states)
        outputs = (attention_output,) + self_outputs[1:]  # add attentions if we output them
        return outputs


def plot_attention(weights, query_tokens, key_tokens, ax=None, title=None):
    attention = torch.as_tensor(weights).detach().cpu().numpy()
    if ax is None:
        fig, ax = plt.subplots(figsize=(7, 6))
    im = ax.imshow(attention.T, cmap="Purples", vmin=0.0, vmax=1.0)
    ax.set_xticks(range(len(query_tokens)))
    ax.set_xticklabels(query_tokens, rotation=90)
    ax.set_yticks(range(len(key_tokens)))
    ax.set_yticklabels(key_tokens)
    ax.set_xlabel("query tokens")
    ax.set_ylabel("key tokens")
    ax.figure.colorbar(im, ax=ax, fraction=0.046, pad=0.04)
    if title:
        ax.set_title(title)
    return ax
