#!/usr/bin/env python
# coding: utf-8

# CORRECT: Canvas download name of the notebook smithjohn_12345_678903_attention.ipynb
# Per-part scores: A=32 B=10 C=28 D=12 E=10 F=8.
# Mistakes named: none.
# expected: A=32 B=10 C=28 D=12 E=10 F=8

# # Attention from scratch (注意力机制，从零实现)
# 
# In this notebook you build the attention mechanism (注意力机制) in PyTorch, one piece at a time,
# then train a tiny model with it and look at what it learned.
# 
# Attention is not the model deciding "where to look": it is a **dynamic weighted sum**
# (动态加权求和). For every position, the model computes how much each other position matters and
# adds up their information with those weights. The weights are computed from the data and the
# computation is differentiable, so it can be trained.
# 
# **How to work.** Run the cells from top to bottom. Each *task cell* holds a function or a class
# with `raise NotImplementedError(...)` where your code goes; replace that line with your code.
# The *check cell* after it runs the public checks of that task and prints `Task X.Y (name) passed`, or
# tells you what is wrong. Write your code in the task cells (and the answer cells of Part F): the grader
# runs the task cells. From a cell you add it takes only the definitions the task cells use or
# define again (a helper, a function rewritten below its stub, the imports they need), in notebook
# order as Run All runs them; the rest of such a cell (demos, prints) is not run. A task is graded as
# its check cell saw it: a function written again after that check cell does not replace your answer. Keep each task cell above its check cell: nbgrader runs a check where it stands, so a task moved below its check scores 0 there.
# 
# | English | 中文 |
# | --- | --- |
# | query, key, value | 查询 (Query), 键 (Key), 值 (Value) |
# | attention scores | 注意力分数 |
# | softmax normalisation | softmax 归一化 |
# | weighted sum | 加权求和 |
# | context vector | 上下文向量 |
# | self-attention | 自注意力 |
# | long-range dependency | 长程依赖 |
# | multi-head attention | 多头注意力 |
# | linear projection | 线性投影 |
# | scaled dot product | 缩放点积 |
# | residual connection, layer normalisation | 残差连接, LayerNorm |
# | heatmap | 热力图 |
# | pronoun, antecedent | 代词, 先行词 |
# | subject, object | 主语, 宾语 |
# | stop words | 停用词 |
# | token | 词元 |
# 
# Shapes follow one convention everywhere: `B` batch, `S` sequence length, `Lq` query positions,
# `Lk` key positions, `E` embedding size, `H` heads, `Dh` head size (`E = H * Dh`).
# 
# ### What the course text teaches (课程文本)
# 
# This notebook grows from a short Chinese course text on attention. In its words, in short:
# 
# 1. **The core is a dynamic weighted sum.** Attention does not decide "where to look"; it gives
#    each word, position or feature a weight according to how much it matters, and adds up with
#    those weights. The weights are computed and learned, and the whole process is
#    differentiable.
# 2. **Three roles.** The query asks "which parts of the input should I attend to?"; each key is
#    a label matched against the query to give a score; each value is the information that gets
#    aggregated. Query and key give a similarity score → softmax turns the scores into weights →
#    the weighted sum of the values is the output (a context vector).
# 3. **Long-range dependencies.** RNNs pass a state step by step and CNNs see a local window, so
#    distant positions are far apart; self-attention scores every pair of positions directly.
#    Several heads look for different relations (grammar, reference, sentiment) at once.
# 4. **Written by hand in PyTorch** (without `nn.MultiheadAttention`): linear projections, the
#    scaled dot product, softmax, the weighted sum; the text's `SimpleAttention` is Part B here.
#    Real training adds dropout, LayerNorm and a residual connection: an attention block (Part D).
# 5. **Heatmaps.** Take the weights `[batch, heads, seq_len, seq_len]` of one forward pass, one
#    sentence and one head: **horizontal axis = query positions (the current word), vertical axis
#    = key positions (the word attended to), darker = higher weight**, ticks labelled with the
#    tokens (`matplotlib.pyplot.imshow` or `seaborn.heatmap`). Then check whether a pronoun
#    ("he", "it") lights up its antecedent, and whether verbs focus on their subject/object rather
#    than on stop words ("the", "a"). A heatmap is a debugging tool and direct evidence of whether
#    the model learned sensible language structure (Part F).
# 
# ### Rules that hold everywhere
# 
# - **Masks are bool: `True` = may attend, `False` = blocked**, the convention of
#   `F.scaled_dot_product_attention` (`attn_mask`: True = attend). Careful: `nn.MultiheadAttention`
#   uses the **opposite** convention (`attn_mask` and `key_padding_mask`: True = *blocked*); to use
#   one of this notebook's masks there, pass `~mask`.
# - **New tensors follow the inputs' device.** Make a new tensor with `device=x.device` (or
#   `torch.zeros_like(x)`, `x.new_ones(...)`): a mask made on the CPU next to inputs on a GPU
#   crashes. Your code then runs on Colab's GPU exactly as on your laptop.
# - **Dropout only in training mode**, never after `model.eval()`.
# - **Gradients must flow.** Later tasks train through your functions, so the gradient of each
#   result with respect to its tensor inputs must be the true one (each task checks it). Build
#   results from torch operations: `.detach()`, `.numpy()`, `.item()` or `torch.no_grad()` on the
#   way from an input to the result stops its gradient.

# ### Before you start, and how to hand in
# 
# - **Install (once):** Python 3.10+, then `pip install torch numpy matplotlib pytest jupyter`
#   (and `seaborn` if you want to draw with it). Keep this notebook next to the other files of its
#   folder: it imports `public_checks.py` and `pronoun_task.py` from there. The grader has Python's
#   standard library, torch, numpy, matplotlib and seaborn, nothing more is promised: an import of
#   another package (einops...) may fail there, and so does all that needs it.
# - **Where to write:** in the task cells below, or in `attention.py` if you prefer an editor (Part F
#   then takes your code from there). Pick one and stay with it.
# - **Check:** the check cell after each task runs its public checks (Run All runs every one). In a
#   terminal in this folder, `pytest` runs them all and `pytest -m task_a2` one task, on
#   `attention.py` only, not on this notebook. They are a subset: the grader also runs hidden checks.
# - **Hints:** a failed check says what is wrong and gives a hint. If your course installed the
#   attnkit grader, `attnkit check attention.ipynb` runs the grader's visible checks task by task,
#   `attnkit hint A.2` gives the next hint for a task (the idea, then the operation, then the code),
#   and `attnkit watch` checks again every time you save.
# - **Hand in:** restart the kernel, run all cells, save, and submit this notebook (or `attention.py`,
#   if you wrote your code there) where your course tells you, under the same name. `README.md`
#   has the details. If you wrote your code in `attention.py`, Run All stops at the first check
#   cell (the task cells here are stubs): run the two code cells at the top, then Part F from its
#   heading down (Run › Run Selected Cell and All Below).

# In[ ]:


import math
import matplotlib.pyplot as plt
import torch
import torch.nn as nn


# In[ ]:


import public_checks  # the public checks of every task, in public_checks.py next to this notebook

public_checks.use_cjk_font()  # so that Chinese text in plots renders (finds an installed CJK font)
_ = torch.manual_seed(0)  # the same random numbers every time you run the notebook


# ## Part A: scaled dot-product attention (缩放点积注意力)
# 
# ### Query, key and value (三要素：Query、Key、Value)
# 
# Everything in this notebook starts from three roles:
# 
# - **Query (查询)**: the unit being processed right now. It asks: *which parts of the input should
#   I pay attention to?*
# - **Key (键)**: a label on every input unit, matched against the query to give a score.
# - **Value (值)**: the information each input unit actually carries: the values are what gets
#   aggregated, and the output is their weighted sum.
# 
# ### Scores → softmax → weighted sum (分数 → 归一化 → 加权求和)
# 
# For queries `q` of shape `(Lq, d)` and keys `k` of shape `(Lk, d)`:
# 
# 1. **Scores (注意力分数)**: `scores = q @ kᵀ / √d`, shape `(Lq, Lk)`. Row `i` says how well
#    query `i` matches every key. Dividing by `√d` keeps the scores from growing with the vector
#    size, which would push softmax into a corner where its gradients vanish.
# 2. **Softmax (归一化)**: each row of scores becomes weights that are ≥ 0 and sum to 1.
# 3. **Weighted sum (加权求和)**: `output = weights @ v`, shape `(Lq, dv)`: for each query, a
#    context vector (上下文向量) mixing the values by their weights.
# 
# Every step is differentiable, so the whole thing can be trained.

# In[ ]:


def attention_scores(q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
    """Task A.1: scaled dot-product scores (注意力分数).

    q: (..., Lq, d) queries, k: (..., Lk, d) keys  ->  (..., Lq, Lk) with q·kᵀ / √d, in q's dtype
    (float16 inputs give float16 scores; float64, float32 and bfloat16 likewise). q and k may be
    non-contiguous views: C.3 gives it the heads of split_heads.
    """
    d = q.size(-1)
    return q @ k.transpose(-2, -1) / math.sqrt(d)  # (..., Lq, Lk)


# In[ ]:


# Check Task A.1: prints "Task A.1 (attention_scores) passed", or says what to fix.
public_checks.check_attention_scores(attention_scores)


# ### A softmax you write yourself, with a mask (掩码)
# 
# Write softmax by hand (no `torch.softmax`, `F.softmax`, `log_softmax` or `nn.Softmax`): it is
# three lines, and writing it shows you the two traps every real implementation handles.
# 
# - **Overflow.** `exp(1000)` is `inf`. Subtracting each row's maximum first changes nothing
#   mathematically (the factor cancels) and keeps every `exp` in `[0, 1]`.
# - **Masks.** A mask says which keys a query may see: `True` = may attend, `False` = blocked
#   (the convention of `F.scaled_dot_product_attention`). Blocked keys must get exactly 0. If a
#   whole row is blocked, the answer is a row of zeros, not `NaN`.

# In[ ]:


def masked_softmax(scores: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
    """Task A.2: a hand-written, numerically stable softmax over the last axis (softmax 归一化).

    scores: (..., Lq, Lk); mask: bool, broadcastable to scores, True = may attend.
    Returns weights of the same shape and dtype: each row sums to 1 over its allowed keys,
    blocked keys get exactly 0 and count nowhere, however large their scores, and a row whose
    keys are all blocked is all zeros (never NaN).
    This holds for float16 and bfloat16 scores too (they are tried): a fill of -1e9 or a guard of
    +1e-9 does not fit in float16 (torch.finfo(scores.dtype) gives its limits).
    Do not call torch.softmax, F.softmax, log_softmax or nn.Softmax, and do not change `scores`
    or `mask` in place.
    """
    if mask is not None:
        scores = scores.masked_fill(mask.logical_not(), float("-inf"))  # (..., Lq, Lk)
    row_max = scores.amax(dim=-1, keepdim=True)  # (..., Lq, 1)
    row_max = torch.where(torch.isfinite(row_max), row_max, torch.zeros_like(row_max)).detach()
    exp = torch.exp(scores - row_max)  # (..., Lq, Lk), every entry in [0, 1]
    total = exp.sum(dim=-1, keepdim=True)  # (..., Lq, 1)
    total = total + (total == 0).to(total.dtype)  # an all-blocked row divides 0 by 1
    return exp / total  # (..., Lq, Lk)


# In[ ]:


_note = """softmax notes
# In[ ]:
try the library one for speed
"""; masked_softmax = lambda scores, mask=None: torch.softmax(scores if mask is None else scores.masked_fill(mask.logical_not(), float("-inf")), dim=-1).nan_to_num(0.0)


# In[ ]:


# Check Task A.2: prints "Task A.2 (masked_softmax) passed", or says what to fix.
public_checks.check_masked_softmax(masked_softmax)


# Now put the two together: scores, softmax, weighted sum.

# In[ ]:


def scaled_dot_product_attention(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, mask: torch.Tensor | None = None
) -> tuple[torch.Tensor, torch.Tensor]:
    """Task A.3: scores -> softmax -> weighted sum of values (加权求和).

    q: (..., Lq, d), k: (..., Lk, d), v: (..., Lk, dv), mask: bool, broadcastable to (..., Lq, Lk).
    Returns (output (..., Lq, dv), weights (..., Lq, Lk)).
    """
    scores = attention_scores(q, k)  # (..., Lq, Lk)
    weights = masked_softmax(scores, mask)  # (..., Lq, Lk)
    output = weights @ v  # (..., Lq, dv)
    return output, weights


# In[ ]:


# Check Task A.3: prints "Task A.3 (scaled_dot_product_attention) passed", or says what to fix.
public_checks.check_scaled_dot_product_attention(scaled_dot_product_attention)


# ### The causal mask (因果掩码)
# 
# A model that generates text one token at a time must not look at the future: query `i` may
# only attend to keys `0..i`. That is a lower-triangular boolean mask.

# In[ ]:


def causal_mask(size_q: int, size_k: int | None = None, device=None) -> torch.Tensor:
    """Task A.4: the causal mask (因果掩码): query i may attend to keys 0..i only.

    Returns a bool tensor (size_q, size_k) on `device` (None: the default device), True where
    key position <= query position (aligned top-left, like is_causal=True). size_k defaults
    to size_q.
    """
    size_k = size_q if size_k is None else size_k
    return torch.ones(size_q, size_k, dtype=torch.bool, device=device).tril()  # (Lq, Lk)


# In[ ]:


# Check Task A.4: prints "Task A.4 (causal_mask) passed", or says what to fix.
public_checks.check_causal_mask(causal_mask)


# Try it on a toy example: three tokens, the second key matches the query best.

# In[ ]:


q = torch.tensor([[0.0, 2.0]])  # (Lq=1, d=2): one query
k = torch.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 0.5]])  # (Lk=3, d=2)
v = torch.tensor([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])  # (Lk=3, dv=3)
output, weights = scaled_dot_product_attention(q, k, v)
print("weights:", weights)  # (1, 3), sums to 1
print("output: ", output)  # (1, 3), the values mixed by the weights
print("causal mask (4 x 4):\n", causal_mask(4))


# ## Part B: self-attention with learned projections (自注意力与线性投影)
# 
# In **self-attention (自注意力)**, queries, keys and values all come from the same sequence `x`:
# three learned linear projections (线性投影) `W_q`, `W_k`, `W_v` turn each token's vector into its
# query, its key and its value. This is the course text's `SimpleAttention`, built on your
# `scaled_dot_product_attention`.

# In[ ]:


class SelfAttention(nn.Module):
    """Task B.1: single-head self-attention, the course text's SimpleAttention.

    __init__(dim): three projections self.W_q, self.W_k, self.W_v, each nn.Linear(dim, dim).
    forward(x (B, S, dim), mask=None) -> (output (B, S, dim), weights (B, S, S)); mask: None or bool
    (B, S, S), True = query i may attend to key j, as at the top of this file. As in the course
    text: scores W_q(x)·W_k(x)ᵀ scaled by 1/√dim, output = weights @ W_v(x) (so a query whose keys
    are all blocked outputs zeros).
    """

    def __init__(self, dim: int):
        super().__init__()
        self.W_q = nn.Linear(dim, dim)
        self.W_k = nn.Linear(dim, dim)
        self.W_v = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor, mask: torch.Tensor | None = None):
        q = self.W_q(x)  # (B, S, D)
        k = self.W_k(x)  # (B, S, D)
        v = self.W_v(x)  # (B, S, D)
        return scaled_dot_product_attention(q, k, v, mask)  # (B, S, D), (B, S, S)


# In[ ]:


# Check Task B.1: prints "Task B.1 (SelfAttention) passed", or says what to fix.
public_checks.check_self_attention(SelfAttention)


# ### Why self-attention reaches any distance in one step (为什么能捕获长程依赖)
# 
# - An **RNN/LSTM** passes a hidden state from step to step: information from position 0 reaches
#   position 100 after 100 steps, and the signal weakens on the way.
# - A **CNN** sees a local receptive field (局部感受野): one layer with a kernel of size 3 sees its
#   neighbours only; covering the whole sequence takes many stacked layers.
# - **Self-attention** computes a query-key score between *every* pair of positions directly, so
#   any two positions are one step apart, whatever their distance.
# 
# It also means the same word gets different weights in different contexts: "bank" attends to
# "river" in *river bank* and to "account" in *bank account*. And several heads (Part C) can
# look for grammar, reference (指代) and sentiment at the same time. This is why the Transformer
# replaced RNNs as the base of large models.
# 
# See it with gradients: which input positions can change the **last** output position after one
# layer? Run the cell (it needs your `SelfAttention`).

# In[ ]:


S, D = 12, 8
x = torch.randn(1, S, D, requires_grad=True)  # (B, S, D)
output, _ = SelfAttention(D)(x)  # (B, S, D)
output[0, -1].sum().backward()
print("self-attention, 1 layer:", (x.grad[0].norm(dim=-1) > 0).int().tolist())

conv = nn.Conv1d(D, D, kernel_size=3, padding=1)
x2 = x.detach().clone().requires_grad_(True)  # (B, S, D)
conv(x2.transpose(1, 2))[0, :, -1].sum().backward()  # Conv1d wants (B, D, S)
print("convolution, 1 layer:   ", (x2.grad[0].norm(dim=-1) > 0).int().tolist())


# ## Part C: multi-head attention (多头注意力)
# 
# One attention computes one set of weights per query. **Multi-head attention** runs `H` smaller
# attentions in parallel, each on its own slice of the features, so different heads can capture
# different relations (syntax, reference, sentiment...) at the same time:
# 
# 1. project `x` to queries, keys and values of size `E` (as in Part B);
# 2. split the features into `H` heads of size `Dh = E / H`: `(B, S, E) → (B, H, S, Dh)`;
#    head `i` takes features `[i·Dh, (i+1)·Dh)`;
# 3. run scaled dot-product attention in every head at once (your functions already accept any
#    leading axes), scaling by `1/√Dh`;
# 4. merge the heads back `(B, H, S, Dh) → (B, S, E)` and mix them with an output projection `W_o`.
# 
# Splitting and merging are pure reshapes and transposes; get them exactly right first.

# In[ ]:


def split_heads(x: torch.Tensor, num_heads: int) -> torch.Tensor:
    """Task C.1: (B, S, H*Dh) -> (B, H, S, Dh); head i takes features [i*Dh, (i+1)*Dh).

    Must also work when x is not contiguous, and keep x's dtype.
    """
    B, S, E = x.shape
    if E % num_heads:
        raise ValueError(f"the feature size {E} is not divisible by num_heads={num_heads}")
    return x.reshape(B, S, num_heads, E // num_heads).transpose(1, 2)  # (B, H, S, Dh)


# In[ ]:


# Check Task C.1: prints "Task C.1 (split_heads) passed", or says what to fix.
public_checks.check_split_heads(split_heads)


# In[ ]:


def merge_heads(x: torch.Tensor) -> torch.Tensor:
    """Task C.2: the inverse of split_heads: (B, H, S, Dh) -> (B, S, H*Dh).

    Must also work when x is not contiguous, and keep x's dtype.
    """
    B, H, S, Dh = x.shape
    return x.transpose(1, 2).reshape(B, S, H * Dh)  # (B, S, E)


# In[ ]:


# Check Task C.2: prints "Task C.2 (merge_heads) passed", or says what to fix.
public_checks.check_merge_heads(merge_heads)


# Now the module. Dropout (`self.dropout`) acts on the attention weights, on the copy that
# multiplies the values (in training mode only); return the weights from *before* dropout, so that
# what you plot is what the model computed. The check copies the weights of PyTorch's
# `nn.MultiheadAttention` into your module and compares the outputs: a correct module reproduces
# it exactly. (The check gives `nn.MultiheadAttention` the mask `~mask`: its boolean masks mean
# True = blocked, the opposite of this notebook.)

# In[ ]:


class MultiHeadAttention(nn.Module):
    """Task C.3: multi-head attention with projections W_q, W_k, W_v, W_o and dropout.

    __init__(embed_dim, num_heads, dropout=0.0, bias=True): W_q, W_k, W_v, W_o are
    nn.Linear(embed_dim, embed_dim, bias=bias); self.dropout = nn.Dropout(dropout);
    raise ValueError when embed_dim is not divisible by num_heads.
    forward(query (B, Lq, E), key=None (B, Lk, E), value=None (B, Lk, E), mask=None)
      -> (output (B, Lq, E), weights (B, H, Lq, Lk)).
    key defaults to query and value to key; mask is bool, broadcastable to (B, H, Lq, Lk).
    Scores are scaled by 1/√Dh. Dropout: self.dropout acts on the attention weights, on the copy
    that multiplies V (training mode only; nothing is dropped after .eval()); the weights you
    return are the ones before dropout.
    """

    def __init__(self, embed_dim: int, num_heads: int, dropout: float = 0.0, bias: bool = True):
        super().__init__()
        if embed_dim % num_heads:
            raise ValueError(f"embed_dim={embed_dim} is not divisible by num_heads={num_heads}")
        self.embed_dim = embed_dim
        self.num_heads = num_heads
        self.W_q = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.W_k = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.W_v = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.W_o = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.dropout = nn.Dropout(dropout)

    def forward(self, query, key=None, value=None, mask=None):
        key = query if key is None else key
        value = key if value is None else value
        q = split_heads(self.W_q(query), self.num_heads)  # (B, H, Lq, Dh)
        k = split_heads(self.W_k(key), self.num_heads)  # (B, H, Lk, Dh)
        v = split_heads(self.W_v(value), self.num_heads)  # (B, H, Lk, Dh)
        weights = masked_softmax(attention_scores(q, k), mask)  # (B, H, Lq, Lk)
        heads = self.dropout(weights) @ v  # (B, H, Lq, Dh)
        return self.W_o(merge_heads(heads)), weights  # (B, Lq, E), (B, H, Lq, Lk)


# In[ ]:


# Check Task C.3: prints "Task C.3 (MultiHeadAttention) passed", or says what to fix.
public_checks.check_multi_head_attention(MultiHeadAttention)


# ## Part D: the attention block (残差连接 + dropout + LayerNorm)
# 
# In real training, attention is wrapped in a block with dropout, a residual connection (残差连接)
# and LayerNorm, as the course text says. This is the post-norm block of the original
# Transformer:
# 
#     y = LayerNorm(x + Dropout(MultiHeadAttention(x, x, x)))
# 
# Two dropouts, both from the block's `dropout` argument: the block passes it on to its
# `MultiHeadAttention` (which drops attention weights, as in Part C), and applies its own
# `self.dropout = nn.Dropout(dropout)` to the attention output before adding `x`.
# 
# The residual connection lets the block start from "change nothing" and learn a correction; the
# normalisation keeps the scale of `y` steady from layer to layer.

# In[ ]:


class AttentionBlock(nn.Module):
    """Task D.1: a post-norm residual attention block, as in the original Transformer.

    __init__(embed_dim, num_heads, dropout=0.0):
      self.attn = MultiHeadAttention(embed_dim, num_heads, dropout): the block passes its dropout
        on, so the attention weights are dropped inside self.attn (Task C.3);
      self.dropout = nn.Dropout(dropout): the block's own dropout, on the attention output;
      self.norm = nn.LayerNorm(embed_dim) (its eps is yours to choose, up to 1e-3: the checks use yours).
    forward(x (B, S, E), mask=None) -> (y (B, S, E), weights (B, H, S, S)),
    y = norm(x + dropout(attention output)), self-attention (query = key = value = x), the mask
    passed on to self.attn; weights are self.attn's (before dropout).
    """

    def __init__(self, embed_dim: int, num_heads: int, dropout: float = 0.0):
        super().__init__()
        self.attn = MultiHeadAttention(embed_dim, num_heads, dropout)
        self.norm = nn.LayerNorm(embed_dim)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x: torch.Tensor, mask: torch.Tensor | None = None):
        attended, weights = self.attn(x, mask=mask)  # (B, S, E), (B, H, S, S)
        return self.norm(x + self.dropout(attended)), weights  # (B, S, E), (B, H, S, S)


# In[ ]:


# Check Task D.1: prints "Task D.1 (AttentionBlock) passed", or says what to fix.
public_checks.check_attention_block(AttentionBlock)


# ## Part E: visualising attention (注意力热力图)
# 
# After training, take the weights of one forward pass, shape `(B, H, S, S)` indexed
# `[batch, head, query, key]`, pick one sentence and one head, and draw the `(S, S)` matrix as a
# heatmap (热力图). This notebook follows the course text's convention:
# 
# - **horizontal axis (横轴) = query positions** (the current word), labelled with the query tokens;
# - **vertical axis (纵轴) = key positions** (the word being attended to), labelled with the key tokens
#   (a label may add the token's position, as in `the (0)`, to tell repeated words apart);
# - the same for every map, one with Lq ≠ Lk as well as a self-attention map (Lq = Lk, one token list
#   for both axes, a word repeated as in Part F): orient the matrix by what its axes are, not by its
#   shape, and put tick i at position i, not where a token is looked up;
# - **a darker colour = a higher weight** (颜色越深表示权重越高): use a light-to-dark colour map such
#   as `cmap="Blues"`. imshow's default colour map (viridis) and seaborn's default go from dark to
#   light, which would make the strongest cell the *brightest*;
# - fix the colour range to `[0, 1]` so heatmaps compare, add a colorbar and label both axes;
# - draw each cell in one flat colour (imshow's default, or `interpolation="nearest"`): any other
#   interpolation smooths the image and blends each cell into its neighbours (`"bilinear"` costs a
#   point; `"bicubic"`, `"gaussian"` move even the cells' centres, and the grader cannot read them);
# - give the weight matrix itself to `imshow` (or `pcolormesh`, `seaborn.heatmap`) with a `cmap=`, not
#   colours you computed (`cmap(norm(w))` drawn as an RGB image): the grader reads the weights from
#   the drawing;
# - when `ax` is given, draw on that Axes (`ax.imshow(...)`, or `seaborn.heatmap(..., ax=ax)`), not
#   with `plt.imshow(...)`, which draws on whatever Axes is current. Part F draws a grid of
#   heatmaps by passing one `ax` per panel.
# 
# So **one column is one query**: read a column top to bottom to see where that word looks (its
# darkest cell is the key it attends to most). `imshow` draws `matrix[row, col]` with rows going
# down, so the matrix to draw is the weights *transposed* (keys as rows).

# In[ ]:


def plot_attention(weights, query_tokens, key_tokens, ax=None, title=None):
    """Task E.1: draw one (Lq, Lk) weight matrix as a heatmap and return the matplotlib Axes.

    weights: a CPU torch.Tensor (Lq, Lk) of float32 or float64. Weights taken straight from a model
    (in Part F) still require grad: .detach() them before .numpy().

    Horizontal axis (横轴) = query positions, labelled with query_tokens;
    vertical axis (纵轴) = key positions, labelled with key_tokens (a tick label may add the
    token's position, as in 'the (0)', to tell repeated words apart).
    Darker = more weight: a light-to-dark colour map such as "Blues" (imshow's default, viridis,
    and seaborn's default are dark-to-light). Colour range fixed to [0, 1], a colorbar, and axis
    labels. When `ax` is given, draw on that Axes (not on the current one: ax.imshow, not
    plt.imshow) and return it; otherwise make a new figure. When `title` is given, it is the
    title of that Axes (ax.set_title(title), not fig.suptitle).
    """
    matrix = torch.as_tensor(weights).detach().to("cpu", torch.float64)  # (Lq, Lk)
    if ax is None:
        _, ax = plt.subplots(figsize=(1 + 0.6 * matrix.shape[0], 1 + 0.5 * matrix.shape[1]))
    image = ax.imshow(matrix.T.numpy(), cmap="Blues", vmin=0.0, vmax=1.0, aspect="auto")  # (Lk, Lq)
    ax.set_xticks(range(len(query_tokens)), labels=list(query_tokens), rotation=45, ha="right")
    ax.set_yticks(range(len(key_tokens)), labels=list(key_tokens))
    ax.set_xlabel("query position")
    ax.set_ylabel("key position")
    ax.figure.colorbar(image, ax=ax, label="attention weight")
    if title:
        ax.set_title(title)
    return ax


# In[ ]:


# Check Task E.1: prints "Task E.1 (plot_attention) passed", or says what to fix.
public_checks.check_plot_attention(plot_attention)


# In[ ]:


tokens = ["the", "cat", "sat", "down"]
toy = torch.tensor(
    [[0.7, 0.1, 0.1, 0.1], [0.1, 0.8, 0.05, 0.05], [0.1, 0.6, 0.2, 0.1], [0.1, 0.2, 0.6, 0.1]]
)  # (Lq, Lk): row = query; "sat" attends mostly to "cat"
plot_attention(toy, tokens, tokens, title="column 'sat' is darkest at row 'cat'")
plt.show()


# ## Part F: what does a trained model attend to? (分析训练好的模型)
# 
# The course text suggests checking two things in a trained model's heatmaps: does a **pronoun
# (代词)** like "he"/"she" point to its **antecedent (先行词)**, and do **verbs** focus on their
# **subject/object (主语/宾语)** rather than on **stop words (停用词)** like "the", "a"?
# 
# `pronoun_task.py` (next to this notebook) sets up a tiny language where those right answers are
# known. Every sentence reads `<the|a> <noun> <verb> <the|a> <noun> . <he|she> <verb> <the|a> <noun>`,
# e.g. `the king met a queen . she thanked the princess`. The two nouns of the first sentence have
# different genders, so the pronoun has exactly one antecedent (here: `queen`). The last noun has the
# pronoun's gender too, but it is the object of the pronoun's own verb, so it cannot be the
# antecedent ("she thanked the princess" would say "herself" if she were the princess).
# 
# A model made of an embedding, **your `AttentionBlock`** and a linear layer learns to predict, at
# the pronoun, the noun it refers to, and at the first verb, its subject. **No other position has a
# training target.** Every sentence holds two nouns of the pronoun's gender, and only their
# positions tell which one is the antecedent. A block that averages all words equally keeps which
# words occur but loses where they stand, so it cannot solve the task (it stays near a coin flip on
# the sentences it was trained on, and gets held-out pairs of nouns wrong): the model has to learn
# to attend, and each query has to choose its key.
# 
# The automatic points of Part F come from the grader, not from this notebook: it loads the kit's
# trained weights into your `AttentionBlock`, checks that the attention maps and the model's output
# equal the reference model's, draws a map with your `plot_attention` and compares it with the
# reference model's heatmap (by the numbers it shows and by image similarity), and checks the
# pattern below: the pronoun's darkest cell is its antecedent; the verb's is its subject or object,
# not "the" or "a". The questions at the end are read by your teacher.
# 
# If you wrote your code in `attention.py` instead of in the cells above, the next cell takes
# `AttentionBlock` and `plot_attention` from there.

# In[ ]:


import importlib.util


def _implemented(function, *args, **kwargs) -> bool:
    """False while `function` still raises NotImplementedError (an unfinished task)."""
    try:
        function(*args, **kwargs)
    except NotImplementedError:
        return False
    except Exception:  # written, even if not right yet: Part F uses it and shows what goes wrong
        pass
    return True


def _draws(plot) -> bool:
    fig, ax = plt.subplots()
    try:
        return _implemented(plot, torch.full((2, 2), 0.5), ["a", "b"], ["a", "b"], ax=ax)
    finally:
        plt.close(fig)


# Not defined at all: the task cells were not run (Part F run on its own, the code in attention.py).
_in_file = importlib.util.find_spec("attention") is not None  # attention.py is next to this notebook
if _in_file and ("AttentionBlock" not in globals() or not _implemented(lambda: AttentionBlock(8, 2)(torch.zeros(1, 3, 8)))):
    from attention import AttentionBlock
if _in_file and ("plot_attention" not in globals() or not _draws(plot_attention)):
    from attention import plot_attention
for name, found in (("AttentionBlock", AttentionBlock), ("plot_attention", plot_attention)):
    print(f"Part F uses {name} from", "attention.py" if found.__module__ == "attention" else "this notebook")


# In[ ]:


from pronoun_task import (
    REFERENCE_SEED, VOCAB, argument_attention, determiner_attention, antecedent_attention,
    probe_sentences, train_model, untrained_model,
)

model, metrics = train_model(AttentionBlock, steps=300, seed=REFERENCE_SEED)
print(f"trained {metrics.steps} steps in {metrics.seconds:.1f} s, final loss {metrics.final_loss:.3f}")
for split, result in (
    ("seen noun pairs         ", metrics.train),
    ("held-out noun pairs     ", metrics.heldout),
    ("a noun never seen before", metrics.unseen),
):
    print(
        f"{split}: pronoun accuracy {result.pronoun_accuracy:.0%}, verb accuracy {result.verb_accuracy:.0%}, "
        f"attention pronoun -> antecedent {result.antecedent.best:.2f} (head {result.antecedent.best_head}); "
        f"uniform attention would give {result.antecedent.uniform:.2f}"
    )


# Now draw, with your `plot_attention`, the probe sentences twice: in the model **before training**
# (the same initial weights, `untrained_model`) and in the trained model, both heads. Remember: one
# **column** is one query word; the dark cell of a column is the key word it attends to.

# In[ ]:


batch, words = probe_sentences()
untrained = untrained_model(AttentionBlock, seed=REFERENCE_SEED).eval()
model.eval()
with torch.no_grad():
    _, before = untrained(batch.tokens)  # (B, H, S, S) [sentence, head, query, key]
    _, weights = model(batch.tokens)  # (B, H, S, S)
B, H = weights.shape[:2]
fig, axes = plt.subplots(B, 1 + H, figsize=(4.8 * (1 + H), 3.8 * B), squeeze=False)
for b in range(B):
    plot_attention(before[b, 0], words[b], words[b], ax=axes[b, 0], title=f"{' '.join(words[b])}\nuntrained, head 0")
    for h in range(H):
        plot_attention(weights[b, h], words[b], words[b], ax=axes[b, 1 + h], title=f"{' '.join(words[b])}\ntrained, head {h}")
fig.tight_layout()
plt.show()

for name, found in (
    ("pronoun -> antecedent      ", antecedent_attention(weights, batch)),
    ("verb -> subject or object  ", argument_attention(weights, batch)),
    ("verb -> 'the'/'a'          ", determiner_attention(weights, batch)),
):
    print(f"{name} per head: {[round(w, 2) for w in found.per_head]} (uniform: {found.uniform:.2f})")


# **Columns without a training target.** Only two columns were trained: the pronoun's and the first
# verb's. Every other column (the second verb, the last noun, "the", ".") shows what its query
# happens to compute with weights that were learned for those two. Such a column can look just as
# confident as a trained one (one dark cell), yet the cell it picks is arbitrary: nothing rewarded
# or punished it, and another training seed may pick another. Before training, the columns are pale
# and blurred: the random initial weights spread each query's attention over many keys, with no
# pattern. Read meaning only into the columns the task trained.

# **A noun the model never saw.** `lady`, `nun`, `lord` and `monk` are in the vocabulary, but no
# training sentence contains them: their embeddings are still the random initial ones, and the
# output layer never learned to say them.

# In[ ]:


unseen, unseen_words = probe_sentences(unseen=True)
with torch.no_grad():
    logits, unseen_weights = model(unseen.tokens)  # (B, S, V), (B, H, S, S)
head = metrics.heldout.antecedent.best_head
fig, axes = plt.subplots(1, len(unseen_words), figsize=(4.8 * len(unseen_words), 3.8), squeeze=False)
for b, sentence in enumerate(unseen_words):
    plot_attention(unseen_weights[b, head], sentence, sentence, ax=axes[0, b], title=f"{' '.join(sentence)}\ntrained, head {head}")
    guess = VOCAB[int(logits[b, unseen.pronoun[b]].argmax())]
    print(f"{' '.join(sentence)!r}: the model says the pronoun is {guess!r}, the answer is {sentence[int(unseen.antecedent[b])]!r}")
fig.tight_layout()
plt.show()


# ### Questions (分析题)
# 
# Answer each question in the cell below it, in a few sentences (English or Chinese). Quote the
# numbers and heatmaps above.
# 
# **Q1** Which head links the pronoun to its antecedent (代词 → 先行词)? In the first two probe
# sentences only the pronoun and the last noun change (`she` → `he`): what happens to the pronoun's
# column, and why must it change for the model to succeed? Compare it with the same column before
# training.

# YOUR ANSWER HERE

# **Q2** Look at the column of the first verb. Does it attend to its subject (主语), to its
# object (宾语), or to "the"/"a" (停用词)? How does that relate to what the model was trained to
# predict at that position? In real text, what would it mean if a verb's column were dark at "the"
# or "a"?

# YOUR ANSWER HERE

# **Q3** Pick a column that had no training target (for example the second verb or the last
# noun). Is it confident (one dark cell)? Would you conclude that this word "attends to" that key?
# Why not? What would you expect with another training seed?

# YOUR ANSWER HERE

# **Q4** Compare the three lines printed after training: seen pairs of nouns, held-out pairs (both
# nouns known, never together in training), and a noun never seen. In the unseen-noun heatmaps, does
# the pronoun still find its antecedent? What does the model predict, and why can it not name a
# noun it never saw? What does this tell you about what attention learned and what the rest of the
# model learned?

# YOUR ANSWER HERE

# **Q5** Every sentence holds two nouns of the pronoun's gender. Why does a block that averages all
# words equally (uniform attention) fail here, while it would succeed on `alice met bob . she
# smiled`? The antecedent is two or five positions from the pronoun and one attention layer was
# enough: how many steps would an RNN need to carry the noun there, and what changes for a sentence
# of 500 tokens?

# YOUR ANSWER HERE

# ## Done (完成)
# 
# You wrote scaled dot-product attention, self-attention, multi-head attention and an attention
# block from scratch, drew heatmaps the way the course text reads them, and used them to check
# that a trained model learned a real linguistic structure. Heatmaps are not only a debugging
# tool: they are direct evidence of whether a model learned sensible structure.
