"""注意力机制，从零实现（attention.py 的中文版：代码相同，注释和文档字符串为中文）。

所有注释中的形状记号：
    B  批大小                S   序列长度（自注意力）
    Lq 查询位置数            Lk  键/值位置数
    E  嵌入维度              H   头数                 Dh  每个头的维度（E = H * Dh）
    d  查询/键向量的长度                              dv  值向量的长度

掩码是布尔张量：True = 这个查询可以关注这个键，False = 屏蔽。
这与 torch.nn.functional.scaled_dot_product_attention 的约定相同（attn_mask 中 True = 关注）。
torch.nn.MultiheadAttention 的约定正好相反（attn_mask、key_padding_mask 中 True = 屏蔽）：
要传给它，请用 ~mask。

新张量跟随输入所在的设备：用 device=x.device（或 *_like(x)、x.new_*）创建，这样同一份代码
也能在 GPU 上运行。在 CPU 上建的掩码遇到 CUDA 上的输入会直接报错。

梯度必须能传回去：后面的任务要通过你的函数训练，所以每个结果对它的张量输入的梯度必须正确（每个任务
都会检查）。用 torch 运算得到结果；从输入到结果的路上用了 .detach()、.numpy()、.item() 或
torch.no_grad()，梯度就断了。
"""
import math

import matplotlib.pyplot as plt
import torch
import torch.nn as nn


# ---------------------------------------------------------------------------------------------
# A 部分：缩放点积注意力
# ---------------------------------------------------------------------------------------------
def attention_scores(q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
    """Task A.1：缩放点积注意力分数。

    q：(..., Lq, d) 查询，k：(..., Lk, d) 键  ->  (..., Lq, Lk)，值为 q·kᵀ / √d，dtype 与 q 相同
    （float16 的输入得到 float16 的分数；float64、float32 和 bfloat16 同理）。q 和 k 可以是非连续的
    视图：C.3 传给它的是 split_heads 分出的头。
    """
    ### BEGIN SOLUTION
    d = q.size(-1)
    return q @ k.transpose(-2, -1) / math.sqrt(d)  # (..., Lq, Lk)
    ### END SOLUTION


def masked_softmax(scores: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
    """Task A.2：手写的、数值稳定的 softmax，沿最后一维归一化。

    scores：(..., Lq, Lk)；mask：布尔张量，可广播到 scores 的形状，True = 可以关注。
    返回形状和 dtype 都与 scores 相同的权重：每一行在允许的键上和为 1，被屏蔽的键权重恰好为 0，
    且无论分数多大都不参与任何计算；所有键都被屏蔽的一行全为 0（绝不出现 NaN）。float16 和 bfloat16 的 scores 也要满足这些（会被检查）：
    -1e9 的填充值或 +1e-9 的保护项在 float16 里放不下（torch.finfo(scores.dtype) 给出它的范围）。
    不要调用 torch.softmax、F.softmax、log_softmax 或 nn.Softmax，也不要原地修改 `scores` 或 `mask`。
    """
    ### BEGIN SOLUTION
    if mask is not None:
        scores = scores.masked_fill(mask.logical_not(), float("-inf"))  # (..., Lq, Lk)
    row_max = scores.amax(dim=-1, keepdim=True)  # (..., Lq, 1)
    row_max = torch.where(torch.isfinite(row_max), row_max, torch.zeros_like(row_max)).detach()
    exp = torch.exp(scores - row_max)  # (..., Lq, Lk)，每个元素都在 [0, 1] 内
    total = exp.sum(dim=-1, keepdim=True)  # (..., Lq, 1)
    total = total + (total == 0).to(total.dtype)  # 全部被屏蔽的一行：0 除以 1
    return exp / total  # (..., Lq, Lk)
    ### END SOLUTION


def scaled_dot_product_attention(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, mask: torch.Tensor | None = None
) -> tuple[torch.Tensor, torch.Tensor]:
    """Task A.3：分数 -> softmax -> 对值加权求和。

    q：(..., Lq, d)，k：(..., Lk, d)，v：(..., Lk, dv)，mask：布尔张量，可广播到 (..., Lq, Lk)。
    返回 (output (..., Lq, dv), weights (..., Lq, Lk))。
    """
    ### BEGIN SOLUTION
    scores = attention_scores(q, k)  # (..., Lq, Lk)
    weights = masked_softmax(scores, mask)  # (..., Lq, Lk)
    output = weights @ v  # (..., Lq, dv)
    return output, weights
    ### END SOLUTION


def causal_mask(size_q: int, size_k: int | None = None, device=None) -> torch.Tensor:
    """Task A.4：因果掩码：查询 i 只能关注键 0..i。

    返回建在 `device` 上（None：默认设备）的布尔张量 (size_q, size_k)，在键位置 <= 查询位置处为
    True（从左上角对齐，与 is_causal=True 相同）。size_k 默认等于 size_q。
    """
    ### BEGIN SOLUTION
    size_k = size_q if size_k is None else size_k
    return torch.ones(size_q, size_k, dtype=torch.bool, device=device).tril()  # (Lq, Lk)
    ### END SOLUTION


# ---------------------------------------------------------------------------------------------
# B 部分：Q/K/V 线性投影
# ---------------------------------------------------------------------------------------------
class SelfAttention(nn.Module):
    """Task B.1：单头自注意力，即课程文本中的 SimpleAttention。

    __init__(dim)：三个投影 self.W_q、self.W_k、self.W_v，各为 nn.Linear(dim, dim)。
    forward(x (B, S, dim), mask=None) -> (output (B, S, dim), weights (B, S, S))；mask：None 或 bool
    (B, S, S)，True = 查询 i 可以关注键 j，同本文件开头的约定。与课程文本相同：分数 W_q(x)·W_k(x)ᵀ
    乘以 1/√dim，output = weights @ W_v(x)（所以所有键都被屏蔽的查询输出全 0）。
    """

    def __init__(self, dim: int):
        super().__init__()
        ### BEGIN SOLUTION
        self.W_q = nn.Linear(dim, dim)
        self.W_k = nn.Linear(dim, dim)
        self.W_v = nn.Linear(dim, dim)
        ### END SOLUTION

    def forward(self, x: torch.Tensor, mask: torch.Tensor | None = None):
        ### BEGIN SOLUTION
        q = self.W_q(x)  # (B, S, D)
        k = self.W_k(x)  # (B, S, D)
        v = self.W_v(x)  # (B, S, D)
        return scaled_dot_product_attention(q, k, v, mask)  # (B, S, D), (B, S, S)
        ### END SOLUTION


# ---------------------------------------------------------------------------------------------
# C 部分：多头注意力
# ---------------------------------------------------------------------------------------------
def split_heads(x: torch.Tensor, num_heads: int) -> torch.Tensor:
    """Task C.1：(B, S, H*Dh) -> (B, H, S, Dh)；第 i 个头取特征 [i*Dh, (i+1)*Dh)。

    x 不连续（not contiguous）时也必须能用，并保持 x 的 dtype。
    """
    ### BEGIN SOLUTION
    B, S, E = x.shape
    if E % num_heads:
        raise ValueError(f"the feature size {E} is not divisible by num_heads={num_heads}")
    return x.reshape(B, S, num_heads, E // num_heads).transpose(1, 2)  # (B, H, S, Dh)
    ### END SOLUTION


def merge_heads(x: torch.Tensor) -> torch.Tensor:
    """Task C.2：split_heads 的逆操作：(B, H, S, Dh) -> (B, S, H*Dh)。

    x 不连续（not contiguous）时也必须能用，并保持 x 的 dtype。
    """
    ### BEGIN SOLUTION
    B, H, S, Dh = x.shape
    return x.transpose(1, 2).reshape(B, S, H * Dh)  # (B, S, E)
    ### END SOLUTION


class MultiHeadAttention(nn.Module):
    """Task C.3：带投影 W_q、W_k、W_v、W_o 和 dropout 的多头注意力。

    __init__(embed_dim, num_heads, dropout=0.0, bias=True)：W_q、W_k、W_v、W_o 为
    nn.Linear(embed_dim, embed_dim, bias=bias)；self.dropout = nn.Dropout(dropout)；
    embed_dim 不能被 num_heads 整除时抛出 ValueError。
    forward(query (B, Lq, E), key=None (B, Lk, E), value=None (B, Lk, E), mask=None)
      -> (output (B, Lq, E), weights (B, H, Lq, Lk))。
    key 默认等于 query，value 默认等于 key；mask 是布尔张量，可广播到 (B, H, Lq, Lk)。
    分数按 1/√Dh 缩放。dropout：self.dropout 作用在注意力权重上，即与 V 相乘的那一份（只在训练模式
    下；.eval() 之后什么也不丢弃）；返回的权重是 dropout 之前的。
    """

    def __init__(self, embed_dim: int, num_heads: int, dropout: float = 0.0, bias: bool = True):
        super().__init__()
        ### BEGIN SOLUTION
        if embed_dim % num_heads:
            raise ValueError(f"embed_dim={embed_dim} is not divisible by num_heads={num_heads}")
        self.embed_dim = embed_dim
        self.num_heads = num_heads
        self.W_q = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.W_k = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.W_v = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.W_o = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.dropout = nn.Dropout(dropout)
        ### END SOLUTION

    def forward(self, query, key=None, value=None, mask=None):
        ### BEGIN SOLUTION
        key = query if key is None else key
        value = key if value is None else value
        q = split_heads(self.W_q(query), self.num_heads)  # (B, H, Lq, Dh)
        k = split_heads(self.W_k(key), self.num_heads)  # (B, H, Lk, Dh)
        v = split_heads(self.W_v(value), self.num_heads)  # (B, H, Lk, Dh)
        weights = masked_softmax(attention_scores(q, k), mask)  # (B, H, Lq, Lk)
        heads = self.dropout(weights) @ v  # (B, H, Lq, Dh)
        return self.W_o(merge_heads(heads)), weights  # (B, Lq, E), (B, H, Lq, Lk)
        ### END SOLUTION


# ---------------------------------------------------------------------------------------------
# D 部分：注意力块（残差连接 + dropout + LayerNorm）
# ---------------------------------------------------------------------------------------------
class AttentionBlock(nn.Module):
    """Task D.1：post-norm 残差注意力块，与原始 Transformer 相同。

    __init__(embed_dim, num_heads, dropout=0.0)：
      self.attn = MultiHeadAttention(embed_dim, num_heads, dropout)：模块把自己的 dropout 传下去，
        注意力权重在 self.attn 内部被丢弃（Task C.3）；
      self.dropout = nn.Dropout(dropout)：模块自己的 dropout，作用在注意力输出上；
      self.norm = nn.LayerNorm(embed_dim)（eps 由你选，不超过 1e-3：检查用你的 eps）。
    forward(x (B, S, E), mask=None) -> (y (B, S, E), weights (B, H, S, S))，
    y = norm(x + dropout(注意力输出))，自注意力（query = key = value = x），掩码传给 self.attn；
    weights 是 self.attn 返回的权重（dropout 之前）。
    """

    def __init__(self, embed_dim: int, num_heads: int, dropout: float = 0.0):
        super().__init__()
        ### BEGIN SOLUTION
        self.attn = MultiHeadAttention(embed_dim, num_heads, dropout)
        self.norm = nn.LayerNorm(embed_dim)
        self.dropout = nn.Dropout(dropout)
        ### END SOLUTION

    def forward(self, x: torch.Tensor, mask: torch.Tensor | None = None):
        ### BEGIN SOLUTION
        attended, weights = self.attn(x, mask=mask)  # (B, S, E), (B, H, S, S)
        return self.norm(x + self.dropout(attended)), weights  # (B, S, E), (B, H, S, S)
        ### END SOLUTION


# ---------------------------------------------------------------------------------------------
# E 部分：注意力热力图
# ---------------------------------------------------------------------------------------------
def plot_attention(weights, query_tokens, key_tokens, ax=None, title=None):
    """Task E.1：把一个 (Lq, Lk) 的权重矩阵画成热力图，并返回 matplotlib 的 Axes。

    weights：CPU 上的 torch.Tensor (Lq, Lk)，float32 或 float64。直接取自模型的权重（F 部分）仍需要梯度：
    调用 .numpy() 之前先 .detach()。

    横轴 = Query 位置，用 query_tokens 标注；纵轴 = Key 位置，用 key_tokens 标注（刻度标签可以在词元旁
    加上它的位置，例如 'the (0)'，用来区分重复的词）。
    颜色越深表示权重越高：使用由浅到深的颜色映射，例如 "Blues"（imshow 的默认 viridis 和
    seaborn 的默认颜色映射都是由深到浅）。颜色范围固定为 [0, 1]，加颜色条和坐标轴标签。给了 `ax` 时画在
    这个 Axes 上（不是当前的 Axes：用 ax.imshow，不用 plt.imshow）并返回它；否则新建一张图。给了
    `title` 时，它就是这个 Axes 的标题（用 ax.set_title(title)，不是 fig.suptitle）。
    """
    ### BEGIN SOLUTION
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
    ### END SOLUTION
