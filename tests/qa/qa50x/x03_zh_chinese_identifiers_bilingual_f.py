#!/usr/bin/env python
# coding: utf-8

# qa49n n09_zh_chinese_identifiers_bilingual_f: correct, the Chinese notebook, executed: answers with Chinese comments and Chinese variable names (维度, 行最大值, 指数, 分数, 权重, 查询, 批...), a Chinese scratch cell after the A.2 check, Part F answers in Chinese and English.
# 
# expected: A=32 B=10 C=28 D=12 E=10 F=8

# # 从零实现注意力机制 (Attention from scratch)
# 
# 在这个 notebook 里，你将用 PyTorch 一步步实现注意力机制 (attention)，然后用它训练一个小模型，
# 并观察它学到了什么。
# 
# 注意力机制不是让模型“看哪里”，而是让模型在处理信息时**动态分配不同权重**——哪些词、哪些位置、
# 哪些特征更关键，就给它更高权重。核心在于“**加权求和**”+“**可学习的权重计算**”。整个过程可微、
# 可训练。
# 
# **怎么做。** 从上到下依次运行单元格。每个*任务单元格*里有一个函数或类，你要写代码的地方是
# `raise NotImplementedError(...)`，把这一行换成你的代码。紧接着的*检查单元格*会运行这个任务的公开
# 检查：通过时打印 `任务 X.Y（函数名或类名）通过`，否则告诉你哪里不对。代码写在任务单元格（以及 F 部分的回答单元格）里：
# 评分器运行任务单元格；对你自己新建的单元格，只取其中任务单元格用到或重新定义的定义（辅助函数、在题目下方重写的函数、它们需要的 import），
# 按笔记本中的顺序（与 Run All 相同）运行，其余代码（演示、打印）不运行。每个任务按它的检查单元格看到的版本评分：
# 在检查单元格之后重新定义的函数不会替换你的答案。请把每个任务单元格留在它的检查单元格上面：nbgrader 在检查单元格所在的位置运行检查，任务单元格移到检查单元格下面，在那里得 0 分。
# 
# | 中文 | English |
# | --- | --- |
# | 查询、键、值 | query (Q), key (K), value (V) |
# | 注意力分数 | attention scores |
# | softmax 归一化 | softmax normalisation |
# | 加权求和 | weighted sum |
# | 上下文向量 | context vector |
# | 自注意力 | self-attention |
# | 长程依赖 | long-range dependency |
# | 多头注意力 | multi-head attention |
# | 线性投影 | linear projection |
# | 缩放点积 | scaled dot product |
# | 残差连接、LayerNorm | residual connection, layer normalisation |
# | 热力图 | heatmap |
# | 代词、先行词 | pronoun, antecedent |
# | 主语、宾语 | subject, object |
# | 停用词 | stop words |
# | 词元 | token |
# 
# 形状记号全文统一：`B` 批大小，`S` 序列长度，`Lq` 查询位置数，`Lk` 键位置数，`E` 嵌入维度，
# `H` 头数，`Dh` 每个头的维度（`E = H * Dh`）。
# 
# ### 课程文本讲了什么
# 
# 本 notebook 来自一篇讲注意力机制的中文课程文本。概括起来：
# 
# 1. **核心是动态加权求和。** 注意力不是让模型决定“看哪里”，而是按重要程度给每个词、位置、特征分配
#    权重，再按权重求和。权重是计算出来、可学习的，整个过程可微。
# 2. **三要素。** Query 在问“我该关注输入里的哪些部分？”；每个 Key 是和 Query 匹配打分用的标签；每个
#    Value 是被加权聚合的信息。Query 与 Key 算相似度得到分数 → softmax 归一化成权重 → 对 Value
#    加权求和得到输出（上下文向量）。
# 3. **长程依赖。** RNN 逐步传递状态，CNN 只看局部窗口，远处的位置相隔很远；自注意力直接给任意两个位置
#    打分。多个头同时寻找语法、指代、情感等不同关系。
# 4. **用 PyTorch 手写**（不依赖 `nn.MultiheadAttention`）：线性投影、缩放点积、softmax、加权求和；
#    课程文本里的 `SimpleAttention` 就是这里的 B 部分。实际训练还会加入 dropout、LayerNorm 和残差
#    连接，构成完整的注意力块（D 部分）。
# 5. **热力图。** 取一次前向传播的权重 `[batch, heads, seq_len, seq_len]`，选一个句子、一个头：
#    **横轴是 Query 位置（当前词），纵轴是 Key 位置（被关注词），颜色越深表示权重越高**，刻度标上词元
#    （`matplotlib.pyplot.imshow` 或 `seaborn.heatmap`）。然后观察代词（如 “he”、“it”）是否高亮
#    指向其先行词，动词是否聚焦于主语/宾语而非停用词（“the”、“a”）。热力图既是调试工具，也是验证
#    模型是否学到合理语言结构的直接证据（F 部分）。
# 
# ### 处处适用的约定
# 
# - **掩码是布尔张量：`True` = 可以关注，`False` = 屏蔽**，与 `F.scaled_dot_product_attention`
#   的约定相同（`attn_mask` 中 True = 关注）。注意：`nn.MultiheadAttention` 的约定**正好相反**
#   （`attn_mask` 和 `key_padding_mask` 中 True = *屏蔽*）；要在那里使用本 notebook 的掩码，请传入 `~mask`。
# - **新张量跟随输入所在的设备。** 新建张量时用 `device=x.device`（或 `torch.zeros_like(x)`、
#   `x.new_ones(...)`）：在 CPU 上建的掩码遇到 GPU 上的输入会直接报错。这样你的代码在 Colab 的 GPU
#   上和在笔记本电脑上一样能运行。
# - **dropout 只在训练模式下生效**，`model.eval()` 之后绝不生效。
# - **梯度必须能传回去。** 后面的任务要通过你的函数训练，所以每个结果对它的张量输入的梯度必须正确
#   （每个任务都会检查）。用 torch 运算得到结果：从输入到结果的路上用了 `.detach()`、`.numpy()`、
#   `.item()` 或 `torch.no_grad()`，梯度就断了。

# ### 开始之前，以及怎样提交
# 
# - **安装（只需一次）：** Python 3.10 或更高版本，然后 `pip install torch numpy matplotlib pytest jupyter`
#   （想用 seaborn 画图的话也装上 `seaborn`）。图中要显示中文还需要一个中文字体（Linux：
#   `sudo apt-get install fonts-noto-cjk`）。本 notebook 要和文件夹里的其他文件放在一起：它会从那里导入
#   `public_checks.py` 和 `pronoun_task.py`。评分环境只保证有 Python 标准库、torch、numpy、matplotlib 和
#   seaborn：导入别的包（einops……）在那里可能失败，依赖它的代码也随之失败。
# - **在哪里写：** 在下面的任务单元格里写；喜欢用编辑器的话也可以写在 `attention.py` 里（F 部分会从那里
#   取你的代码）。二者选其一，不要来回换。
# - **检查：** 每个任务后面的检查单元格会运行这个任务的公开检查（Run All 会运行全部）。在本文件夹的终端里，
#   `ATTNKIT_LANG=zh pytest` 运行全部公开检查，`ATTNKIT_LANG=zh pytest -m task_a2` 只检查一个任务，
#   但它们只检查 `attention.py`，不检查本 notebook。公开检查只是一部分：评分时还会运行隐藏检查。
# - **提示：** 检查没通过时会说明哪里不对，并给出提示。如果课程安装了 attnkit 评分程序：
#   `attnkit check attention.zh.ipynb --lang zh` 按任务运行评分程序的可见检查；`attnkit hint A.2 --lang zh`
#   给出任务的下一条提示（先是思路，再是操作，最后是代码）；`attnkit watch --lang zh` 每次保存都重新检查。
# - **提交：** 重启内核、从头运行全部单元格、保存，然后按课程的要求提交本 notebook（如果代码写在
#   `attention.py` 里，就提交 `attention.py`），不要改文件名。详见 `README.zh.md`。如果代码写在
#   `attention.py` 里，“运行全部”会停在第一个检查单元格（这里的任务单元格还是桩代码）：先运行最上面的两个
#   代码单元格，再从 F 部分的标题往下运行（选中那里的第一个单元格，在“运行”菜单里选“运行选中单元格及其下方所有单元格”）。

# In[1]:


import math
import matplotlib.pyplot as plt
import torch
import torch.nn as nn


# In[2]:


import public_checks  # 每个任务的公开检查，在本 notebook 旁边的 public_checks.py 里

public_checks.use_cjk_font()  # 让图中的中文正常显示（找一个已安装的中文字体）
_ = torch.manual_seed(0)  # 每次运行 notebook 都得到同样的随机数


# ## A 部分：缩放点积注意力 (scaled dot-product attention)
# 
# ### 注意力三要素：Query、Key、Value
# 
# 这是理解所有注意力变体的起点：
# 
# - **Query（查询）**：当前正在处理的单元，它在“问”：我该关注输入里的哪些部分？
# - **Key（键）**：每个输入单元的“标签”，用于和 Query 匹配打分。
# - **Value（值）**：每个输入单元真正携带的信息内容，也就是被加权聚合的对象：输出是各个值的加权和。
# 
# ### 分数 → softmax 归一化 → 加权求和
# 
# 对形状为 `(Lq, d)` 的查询 `q` 和形状为 `(Lk, d)` 的键 `k`：
# 
# 1. **注意力分数 (attention scores)**：`scores = q @ kᵀ / √d`，形状 `(Lq, Lk)`。第 `i` 行表示
#    查询 `i` 与每个键的匹配程度。除以 `√d` 防止分数随向量维度增大，否则 softmax 会被推到
#    梯度几乎为零的角落。
# 2. **softmax 归一化**：每一行分数变成 ≥ 0 且和为 1 的权重。
# 3. **加权求和 (weighted sum)**：`output = weights @ v`，形状 `(Lq, dv)`：每个查询得到一个按
#    权重混合各个值的上下文向量。
# 
# 每一步都可微，所以整个过程可以训练。

# In[3]:


def attention_scores(q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
    """Task A.1：缩放点积注意力分数。

    q：(..., Lq, d) 查询，k：(..., Lk, d) 键  ->  (..., Lq, Lk)，值为 q·kᵀ / √d，dtype 与 q 相同
    （float16 的输入得到 float16 的分数；float64、float32 和 bfloat16 同理）。q 和 k 可以是非连续的
    视图：C.3 传给它的是 split_heads 分出的头。
    """
    # 点积再除以 √d（缩放点积）
    维度 = q.size(-1)
    return q @ k.transpose(-2, -1) / math.sqrt(维度)  # (..., Lq, Lk)


# In[4]:


# 检查任务 A.1：通过时打印“任务 A.1（attention_scores）通过”，否则告诉你要改什么。
public_checks.check_attention_scores(attention_scores, lang="zh")


# ### 自己写 softmax，并支持掩码 (mask)
# 
# 请手写 softmax（不要用 `torch.softmax`、`F.softmax`、`log_softmax` 或 `nn.Softmax`）：只有三行，
# 写一遍就能看到每个真实实现都要处理的两个陷阱。
# 
# - **溢出。** `exp(1000)` 是 `inf`。先减去每一行的最大值在数学上不改变结果（这个因子会约掉），
#   却能让每个 `exp` 都落在 `[0, 1]` 里。
# - **掩码。** 掩码规定每个查询能看到哪些键：`True` = 可以关注，`False` = 屏蔽
#   （与 `F.scaled_dot_product_attention` 的约定相同）。被屏蔽的键权重必须恰好为 0；
#   如果一整行都被屏蔽，结果是一行 0，而不是 `NaN`。

# In[5]:


def masked_softmax(scores: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
    """Task A.2：手写的、数值稳定的 softmax，沿最后一维归一化。

    scores：(..., Lq, Lk)；mask：布尔张量，可广播到 scores 的形状，True = 可以关注。
    返回形状和 dtype 都与 scores 相同的权重：每一行在允许的键上和为 1，被屏蔽的键权重恰好为 0，
    且无论分数多大都不参与任何计算；所有键都被屏蔽的一行全为 0（绝不出现 NaN）。float16 和 bfloat16 的 scores 也要满足这些（会被检查）：
    -1e9 的填充值或 +1e-9 的保护项在 float16 里放不下（torch.finfo(scores.dtype) 给出它的范围）。
    不要调用 torch.softmax、F.softmax、log_softmax 或 nn.Softmax，也不要原地修改 `scores` 或 `mask`。
    """
    # 先减去每行最大值，避免 exp 溢出
    if mask is not None:
        scores = scores.masked_fill(mask.logical_not(), float("-inf"))  # (..., Lq, Lk)
    行最大值 = scores.amax(dim=-1, keepdim=True)  # (..., Lq, 1)
    行最大值 = torch.where(torch.isfinite(行最大值), 行最大值, torch.zeros_like(行最大值)).detach()
    指数 = torch.exp(scores - 行最大值)  # (..., Lq, Lk), every entry in [0, 1]
    总和 = 指数.sum(dim=-1, keepdim=True)  # (..., Lq, 1)
    总和 = 总和 + (总和 == 0).to(总和.dtype)  # an all-blocked row divides 0 by 1
    return 指数 / 总和  # (..., Lq, Lk)


# In[6]:


# 检查任务 A.2：通过时打印“任务 A.2（masked_softmax）通过”，否则告诉你要改什么。
public_checks.check_masked_softmax(masked_softmax, lang="zh")


# In[7]:


# 试一试：全被屏蔽的一行
分数 = torch.randn(2, 3)
掩码 = torch.tensor([[True, False, True], [False, False, False]])
print(masked_softmax(分数, 掩码))


# 现在把两者组合起来：分数、softmax、加权求和。

# In[8]:


def scaled_dot_product_attention(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, mask: torch.Tensor | None = None
) -> tuple[torch.Tensor, torch.Tensor]:
    """Task A.3：分数 -> softmax -> 对值加权求和。

    q：(..., Lq, d)，k：(..., Lk, d)，v：(..., Lk, dv)，mask：布尔张量，可广播到 (..., Lq, Lk)。
    返回 (output (..., Lq, dv), weights (..., Lq, Lk))。
    """
    # 分数 -> softmax -> 加权求和
    分数 = attention_scores(q, k)  # (..., Lq, Lk)
    权重 = masked_softmax(分数, mask)  # (..., Lq, Lk)
    输出 = 权重 @ v  # (..., Lq, dv)
    return 输出, 权重


# In[9]:


# 检查任务 A.3：通过时打印“任务 A.3（scaled_dot_product_attention）通过”，否则告诉你要改什么。
public_checks.check_scaled_dot_product_attention(scaled_dot_product_attention, lang="zh")


# ### 因果掩码 (causal mask)
# 
# 逐个生成词元的模型不能看到未来：查询 `i` 只能关注键 `0..i`。这就是一个下三角的布尔掩码。

# In[10]:


def causal_mask(size_q: int, size_k: int | None = None, device=None) -> torch.Tensor:
    """Task A.4：因果掩码：查询 i 只能关注键 0..i。

    返回建在 `device` 上（None：默认设备）的布尔张量 (size_q, size_k)，在键位置 <= 查询位置处为
    True（从左上角对齐，与 is_causal=True 相同）。size_k 默认等于 size_q。
    """
    # 下三角：查询 i 只能看键 0..i（因果掩码）
    size_k = size_q if size_k is None else size_k
    return torch.ones(size_q, size_k, dtype=torch.bool, device=device).tril()  # (Lq, Lk)


# In[11]:


# 检查任务 A.4：通过时打印“任务 A.4（causal_mask）通过”，否则告诉你要改什么。
public_checks.check_causal_mask(causal_mask, lang="zh")


# 在一个小例子上试一试：三个词元，第二个键与查询最匹配。

# In[12]:


q = torch.tensor([[0.0, 2.0]])  # (Lq=1, d=2)：一个查询
k = torch.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 0.5]])  # (Lk=3, d=2)
v = torch.tensor([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])  # (Lk=3, dv=3)
output, weights = scaled_dot_product_attention(q, k, v)
print("权重：", weights)  # (1, 3)，和为 1
print("输出：", output)  # (1, 3)，按权重混合的值
print("因果掩码（4 x 4）：\n", causal_mask(4))


# ## B 部分：自注意力与线性投影 (self-attention, linear projections)
# 
# 在**自注意力**中，查询、键和值都来自同一个序列 `x`：三个可学习的线性投影 `W_q`、`W_k`、`W_v`
# 把每个词元的向量分别变成它的查询、键和值。这就是课程文本里的 `SimpleAttention`，建立在你写的
# `scaled_dot_product_attention` 之上。

# In[13]:


class SelfAttention(nn.Module):
    """Task B.1：单头自注意力，即课程文本中的 SimpleAttention。

    __init__(dim)：三个投影 self.W_q、self.W_k、self.W_v，各为 nn.Linear(dim, dim)。
    forward(x (B, S, dim), mask=None) -> (output (B, S, dim), weights (B, S, S))；mask：None 或 bool
    (B, S, S)，True = 查询 i 可以关注键 j，同本文件开头的约定。与课程文本相同：分数 W_q(x)·W_k(x)ᵀ
    乘以 1/√dim，output = weights @ W_v(x)（所以所有键都被屏蔽的查询输出全 0）。
    """

    def __init__(self, dim: int):
        super().__init__()
        self.W_q = nn.Linear(dim, dim)
        self.W_k = nn.Linear(dim, dim)
        self.W_v = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor, mask: torch.Tensor | None = None):
        查询 = self.W_q(x)  # (B, S, D)
        键 = self.W_k(x)  # (B, S, D)
        值 = self.W_v(x)  # (B, S, D)
        return scaled_dot_product_attention(查询, 键, 值, mask)  # (B, S, D), (B, S, S)


# In[14]:


# 检查任务 B.1：通过时打印“任务 B.1（SelfAttention）通过”，否则告诉你要改什么。
public_checks.check_self_attention(SelfAttention, lang="zh")


# ### 自注意力为什么能捕获长程依赖？
# 
# - 传统 **RNN/LSTM** 靠逐步传递隐藏状态：位置 0 的信息要经过 100 步才能到达位置 100，
#   距离越远信号越弱。
# - **CNN** 靠局部感受野：一层大小为 3 的卷积核只能看到相邻位置，需要多层堆叠才能覆盖全局。
# - **自注意力**一步到位：序列中任意两个位置可以直接计算 Query-Key 分数，不受距离限制。
# 
# 同一个词在不同语境下也会获得不同权重：“bank”在 *river bank* 中关注 “river”，在 *bank account*
# 中关注 “account”。多个注意力头（C 部分）并行计算，让模型能同时关注语法、指代、情感等不同维度。
# 这也是 Transformer 能替代 RNN 成为大模型基座的关键原因。
# 
# 用梯度来看：经过一层之后，哪些输入位置能影响**最后一个**输出位置？运行下面的单元格
# （需要你的 `SelfAttention`）。

# In[15]:


S, D = 12, 8
x = torch.randn(1, S, D, requires_grad=True)  # (B, S, D)
output, _ = SelfAttention(D)(x)  # (B, S, D)
output[0, -1].sum().backward()
print("自注意力，1 层：", (x.grad[0].norm(dim=-1) > 0).int().tolist())

conv = nn.Conv1d(D, D, kernel_size=3, padding=1)
x2 = x.detach().clone().requires_grad_(True)  # (B, S, D)
conv(x2.transpose(1, 2))[0, :, -1].sum().backward()  # Conv1d 要求 (B, D, S)
print("卷积，1 层：  ", (x2.grad[0].norm(dim=-1) > 0).int().tolist())


# ## C 部分：多头注意力 (multi-head attention)
# 
# 一次注意力计算只给每个查询一组权重。**多头注意力**并行运行 `H` 个较小的注意力，每个头处理特征的
# 一部分，于是不同的头可以同时捕获不同的关系（语法、指代、情感……）：
# 
# 1. 把 `x` 投影成大小为 `E` 的查询、键和值（同 B 部分）；
# 2. 把特征拆成 `H` 个大小为 `Dh = E / H` 的头：`(B, S, E) → (B, H, S, Dh)`；
#    第 `i` 个头取特征 `[i·Dh, (i+1)·Dh)`；
# 3. 在所有头上同时做缩放点积注意力（你的函数已经支持任意前导维度），缩放因子为 `1/√Dh`；
# 4. 把各个头合并回 `(B, H, S, Dh) → (B, S, E)`，再用输出投影 `W_o` 混合。
# 
# 拆分与合并只是 reshape 和 transpose，先把它们写得完全正确。

# In[16]:


def split_heads(x: torch.Tensor, num_heads: int) -> torch.Tensor:
    """Task C.1：(B, S, H*Dh) -> (B, H, S, Dh)；第 i 个头取特征 [i*Dh, (i+1)*Dh)。

    x 不连续（not contiguous）时也必须能用，并保持 x 的 dtype。
    """
    # 拆成多个头
    批, 长度, 特征 = x.shape
    if 特征 % num_heads:
        raise ValueError(f"the feature size {特征} is not divisible by num_heads={num_heads}")
    return x.reshape(批, 长度, num_heads, 特征 // num_heads).transpose(1, 2)  # (批, H, 长度, Dh)


# In[17]:


# 检查任务 C.1：通过时打印“任务 C.1（split_heads）通过”，否则告诉你要改什么。
public_checks.check_split_heads(split_heads, lang="zh")


# In[18]:


def merge_heads(x: torch.Tensor) -> torch.Tensor:
    """Task C.2：split_heads 的逆操作：(B, H, S, Dh) -> (B, S, H*Dh)。

    x 不连续（not contiguous）时也必须能用，并保持 x 的 dtype。
    """
    # 合并多个头
    批, 头数, 长度, 头维度 = x.shape
    return x.transpose(1, 2).reshape(批, 长度, 头数 * 头维度)  # (批, 长度, E)


# In[19]:


# 检查任务 C.2：通过时打印“任务 C.2（merge_heads）通过”，否则告诉你要改什么。
public_checks.check_merge_heads(merge_heads, lang="zh")


# 现在实现模块本身。dropout（`self.dropout`）作用在注意力权重上，即与值相乘的那一份（只在训练模式下）；
# 返回 dropout *之前*的权重，这样你画出来的就是模型真正算出的结果。检查会把 PyTorch
# `nn.MultiheadAttention` 的参数复制到你的模块中并比较输出：正确的模块会得到完全一样的结果。
# （检查传给 `nn.MultiheadAttention` 的是 `~mask`：它的布尔掩码 True = 屏蔽，与本 notebook 相反。）

# In[20]:


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


# In[21]:


# 检查任务 C.3：通过时打印“任务 C.3（MultiHeadAttention）通过”，否则告诉你要改什么。
public_checks.check_multi_head_attention(MultiHeadAttention, lang="zh")


# ## D 部分：注意力块（残差连接 + dropout + LayerNorm）
# 
# 课程文本提到：实际训练中通常会加入 dropout、LayerNorm 和残差连接，构成一个完整的 Attention Block。
# 这里实现原始 Transformer 的 post-norm 结构：
# 
#     y = LayerNorm(x + Dropout(MultiHeadAttention(x, x, x)))
# 
# 两处 dropout 都来自模块的 `dropout` 参数：模块把它传给自己的 `MultiHeadAttention`（在那里丢弃注意力
# 权重，同 C 部分），并用自己的 `self.dropout = nn.Dropout(dropout)` 作用在注意力输出上，然后再加上 `x`。
# 
# 残差连接让这个块从“什么都不改变”出发，去学习一个修正量；归一化让 `y` 的尺度在层与层之间保持稳定。

# In[22]:


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
        self.attn = MultiHeadAttention(embed_dim, num_heads, dropout)
        self.norm = nn.LayerNorm(embed_dim)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x: torch.Tensor, mask: torch.Tensor | None = None):
        注意力输出, 权重 = self.attn(x, mask=mask)  # (B, S, E), (B, H, S, S)
        return self.norm(x + self.dropout(注意力输出)), 权重  # (B, S, E), (B, H, S, S)


# In[23]:


# 检查任务 D.1：通过时打印“任务 D.1（AttentionBlock）通过”，否则告诉你要改什么。
public_checks.check_attention_block(AttentionBlock, lang="zh")


# ## E 部分：注意力权重可视化（热力图）
# 
# 训练完模型后，提取某次前向传播中的注意力权重，形状为 `(B, H, S, S)`，下标为
# `[batch, head, query, key]`；取一个句子、一个头，把 `(S, S)` 矩阵画成热力图。本 notebook 遵循
# 课程文本的约定：
# 
# - **横轴 = Query 位置**（当前词），用查询词元标注；
# - **纵轴 = Key 位置**（被关注词），用键词元标注（标签可以在词元旁加上位置，例如 `the (0)`，用来区分重复的词）；
# - 每张图都这样画：Lq ≠ Lk 的图和自注意力的图（Lq = Lk，两个轴是同一组词，像 F 部分的句子那样有重复的词）都一样。
#   按矩阵各维的含义决定方向，不要按形状判断；第 i 个刻度放在位置 i，不要按查找词得到的位置放；
# - **颜色越深表示权重越高**：使用由浅到深的颜色映射，例如 `cmap="Blues"`。imshow 的默认颜色映射
#   （viridis）和 seaborn 的默认颜色映射都是由深到浅，会让权重最大的格子反而*最亮*；
# - 颜色范围固定为 `[0, 1]`，方便比较不同的热力图，加上颜色条 (colorbar)，两个坐标轴都要有标签；
# - 每个格子画成一种纯色（imshow 的默认设置，或 `interpolation="nearest"`）：其他插值方式都会把图像平滑，让每个格子的颜色混进相邻格子（`"bilinear"` 扣一分；`"bicubic"`、`"gaussian"` 连格子中心的颜色都会改变，评分器无法读取）；
# - 把权重矩阵本身交给 `imshow`（或 `pcolormesh`、`seaborn.heatmap`），配合 `cmap=`，不要画自己算好的颜色（把 `cmap(norm(w))` 当作 RGB 图片画出）：评分器从图里读出的是权重；
# - 给了 `ax` 时，画在这个 Axes 上（`ax.imshow(...)` 或 `seaborn.heatmap(..., ax=ax)`），不要用
#   `plt.imshow(...)`，它画在“当前”的 Axes 上。F 部分会给每个子图传一个 `ax`，画出一整格热力图。
# 
# 所以**一列就是一个查询**：从上往下读一列，就能看到这个词在关注哪里（颜色最深的格子就是它最关注的键）。
# `imshow` 按行从上往下画 `matrix[row, col]`，因此要画的是*转置*后的权重（键作为行）。

# In[24]:


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
    矩阵 = torch.as_tensor(weights).detach().to("cpu", torch.float64)  # (Lq, Lk)
    if ax is None:
        _, ax = plt.subplots(figsize=(1 + 0.6 * 矩阵.shape[0], 1 + 0.5 * 矩阵.shape[1]))
    图像 = ax.imshow(矩阵.T.numpy(), cmap="Blues", vmin=0.0, vmax=1.0, aspect="auto")  # (Lk, Lq)
    ax.set_xticks(range(len(query_tokens)), labels=list(query_tokens), rotation=45, ha="right")
    ax.set_yticks(range(len(key_tokens)), labels=list(key_tokens))
    ax.set_xlabel("query position")
    ax.set_ylabel("key position")
    ax.figure.colorbar(图像, ax=ax, label="attention weight")
    if title:
        ax.set_title(title)
    return ax


# In[25]:


# 检查任务 E.1：通过时打印“任务 E.1（plot_attention）通过”，否则告诉你要改什么。
public_checks.check_plot_attention(plot_attention, lang="zh")


# In[26]:


tokens = ["the", "cat", "sat", "down"]
toy = torch.tensor(
    [[0.7, 0.1, 0.1, 0.1], [0.1, 0.8, 0.05, 0.05], [0.1, 0.6, 0.2, 0.1], [0.1, 0.2, 0.6, 0.1]]
)  # (Lq, Lk)：一行是一个查询；"sat" 主要关注 "cat"
plot_attention(toy, tokens, tokens, title="'sat' 这一列在 'cat' 行颜色最深")
plt.show()


# ## F 部分：训练好的模型在关注什么？
# 
# 课程文本建议在训练好的模型的热力图中检查两件事：**代词**（如 “he”/“she”）是否高亮指向其
# **先行词**；**动词**是否聚焦于**主语/宾语**，而非**停用词**（“the”, “a”）。
# 
# `pronoun_task.py`（与本 notebook 在同一文件夹）构造了一个答案已知的小语言。每个句子都是
# `<the|a> <名词> <动词> <the|a> <名词> . <he|she> <动词> <the|a> <名词>`，例如
# `the king met a queen . she thanked the princess`。第一句的两个名词性别不同，所以代词恰好有一个
# 先行词（这里是 `queen`）。最后一个名词与代词性别相同，但它是代词自己那个动词的宾语，所以不可能是
# 先行词（如果 she 就是 princess，句子会说 “herself”）。
# 
# 由嵌入层、**你的 `AttentionBlock`** 和一个线性层组成的模型学习：在代词位置预测它指代的名词，在
# 第一个动词位置预测它的主语。**其他位置都没有训练目标。** 每个句子里都有两个与代词同性别的名词，
# 只有它们所在的位置能说明哪一个是先行词。对所有词一视同仁地求平均的模块只保留“出现了哪些词”，
# 丢掉了“词在哪里”，所以解不了这个任务（在训练过的句子上接近抛硬币，在留出的名词组合上全错）：
# 模型必须学会去关注，而且每个查询都必须选出自己的键。
# 
# F 部分的自动评分来自评分器，而不是这个 notebook：评分器把本套件训练好的权重加载进你的
# `AttentionBlock`，检查注意力图和模型输出是否与参考模型一致；用你的 `plot_attention` 画出一张图，
# 与参考模型的热力图比较（比较图中显示的数值，也比较图像相似度）；并检查下面的模式：代词那一列
# 颜色最深的格子是它的先行词，动词那一列颜色最深的格子是它的主语或宾语，而不是 “the” 或 “a”。
# 最后的分析题由老师阅读。
# 
# 如果你是在 `attention.py` 里而不是在上面的单元格里写的代码，下一个单元格会从那里取
# `AttentionBlock` 和 `plot_attention`。

# In[27]:


import importlib.util


def _implemented(function, *args, **kwargs) -> bool:
    """`function` 仍然抛出 NotImplementedError（任务没有完成）时为 False。"""
    try:
        function(*args, **kwargs)
    except NotImplementedError:
        return False
    except Exception:  # 已经写了，即使还不对：F 部分会用它，并显示哪里出了问题
        pass
    return True


def _draws(plot) -> bool:
    fig, ax = plt.subplots()
    try:
        return _implemented(plot, torch.full((2, 2), 0.5), ["a", "b"], ["a", "b"], ax=ax)
    finally:
        plt.close(fig)


# 根本没有定义：任务单元格没有运行过（代码写在 attention.py 里，只运行了 F 部分）。
_in_file = importlib.util.find_spec("attention") is not None  # attention.py 就在本 notebook 旁边
if _in_file and ("AttentionBlock" not in globals() or not _implemented(lambda: AttentionBlock(8, 2)(torch.zeros(1, 3, 8)))):
    from attention import AttentionBlock
if _in_file and ("plot_attention" not in globals() or not _draws(plot_attention)):
    from attention import plot_attention
for name, found in (("AttentionBlock", AttentionBlock), ("plot_attention", plot_attention)):
    print(f"F 部分使用的 {name} 来自", "attention.py" if found.__module__ == "attention" else "本 notebook")


# In[28]:


from pronoun_task import (
    REFERENCE_SEED, VOCAB, argument_attention, determiner_attention, antecedent_attention,
    probe_sentences, train_model, untrained_model,
)

model, metrics = train_model(AttentionBlock, steps=300, seed=REFERENCE_SEED)
print(f"训练了 {metrics.steps} 步，用时 {metrics.seconds:.1f} 秒，最终损失 {metrics.final_loss:.3f}")
for split, result in (
    ("见过的名词组合    ", metrics.train),
    ("留出的名词组合    ", metrics.heldout),
    ("从没见过的名词    ", metrics.unseen),
):
    print(
        f"{split}：代词准确率 {result.pronoun_accuracy:.0%}，动词准确率 {result.verb_accuracy:.0%}，"
        f"注意力 代词 -> 先行词 {result.antecedent.best:.2f}（头 {result.antecedent.best_head}）；"
        f"均匀注意力只有 {result.antecedent.uniform:.2f}"
    )


# 现在用你的 `plot_attention` 把探针句子画两遍：**训练前**的模型（相同的初始权重，`untrained_model`）
# 和训练后的模型（两个头）。记住：一**列**是一个查询词；一列中颜色最深的格子就是它关注的键。

# In[29]:


batch, words = probe_sentences()
untrained = untrained_model(AttentionBlock, seed=REFERENCE_SEED).eval()
model.eval()
with torch.no_grad():
    _, before = untrained(batch.tokens)  # (B, H, S, S) [句子, 头, 查询, 键]
    _, weights = model(batch.tokens)  # (B, H, S, S)
B, H = weights.shape[:2]
fig, axes = plt.subplots(B, 1 + H, figsize=(4.8 * (1 + H), 3.8 * B), squeeze=False)
for b in range(B):
    plot_attention(before[b, 0], words[b], words[b], ax=axes[b, 0], title=f"{' '.join(words[b])}\n训练前，头 0")
    for h in range(H):
        plot_attention(weights[b, h], words[b], words[b], ax=axes[b, 1 + h], title=f"{' '.join(words[b])}\n训练后，头 {h}")
fig.tight_layout()
plt.show()

for name, found in (
    ("代词 -> 先行词       ", antecedent_attention(weights, batch)),
    ("动词 -> 主语或宾语   ", argument_attention(weights, batch)),
    ("动词 -> 'the'/'a'    ", determiner_attention(weights, batch)),
):
    print(f"{name} 每个头：{[round(w, 2) for w in found.per_head]}（均匀注意力：{found.uniform:.2f}）")


# **没有训练目标的列。** 只有两列被训练过：代词那一列和第一个动词那一列。其他每一列（第二个动词、
# 最后一个名词、“the”、“.”）显示的只是它的查询在这些为那两列学到的权重下碰巧算出的结果。这样的一列
# 可能看起来和训练过的列一样“自信”（只有一个深色格子），但它选中的格子是任意的：没有任何东西奖励或
# 惩罚过它，换一个训练种子可能选中别的格子。训练前，各列颜色都很浅、很模糊：随机的初始权重让每个
# 查询的注意力分散在许多键上，没有任何模式。只对任务训练过的列解读含义。

# **模型从没见过的名词。** `lady`、`nun`、`lord` 和 `monk` 在词表里，但没有任何训练句子包含它们：
# 它们的嵌入仍是随机的初始值，输出层也从没学过说出它们。

# In[30]:


unseen, unseen_words = probe_sentences(unseen=True)
with torch.no_grad():
    logits, unseen_weights = model(unseen.tokens)  # (B, S, V), (B, H, S, S)
head = metrics.heldout.antecedent.best_head
fig, axes = plt.subplots(1, len(unseen_words), figsize=(4.8 * len(unseen_words), 3.8), squeeze=False)
for b, sentence in enumerate(unseen_words):
    plot_attention(unseen_weights[b, head], sentence, sentence, ax=axes[0, b], title=f"{' '.join(sentence)}\n训练后，头 {head}")
    guess = VOCAB[int(logits[b, unseen.pronoun[b]].argmax())]
    print(f"{' '.join(sentence)!r}：模型认为代词指的是 {guess!r}，答案是 {sentence[int(unseen.antecedent[b])]!r}")
fig.tight_layout()
plt.show()


# ### 分析题
# 
# 在每道题下面的单元格里用几句话回答（中文或英文均可），请引用上面的数字和热力图。
# 
# **Q1** 哪个头把代词和它的先行词联系起来（代词 → 先行词）？前两个探针句子只有代词和最后一个名词
# 不同（`she` → `he`）：代词那一列发生了什么变化？为什么模型要成功就必须这样变化？与训练前同一列比较。

# 头 1 把代词连到先行词：代词那一列在同性别的名词处最深。she 换成 he 时，这一列移到另一个名词。
# 
# (English) Head 1 links the pronoun to its antecedent: its column is darkest at the noun of the same gender. When she -> he the column moves to the other noun.

# **Q2** 看第一个动词那一列。它关注的是主语、宾语，还是 “the”/“a”（停用词）？这与模型在这个位置
# 被训练去预测的内容有什么关系？在真实文本中，如果一个动词的那一列在 “the” 或 “a” 处颜色很深，
# 说明了什么？

# 第一个动词关注它的主语（主语），而不是 "the"/"a"（停用词）。
# 
# (English) The first verb attends to its subject, not to "the"/"a": it was trained to predict the object there.

# **Q3** 选一列没有训练目标的列（例如第二个动词或最后一个名词）。它“自信”吗（只有一个深色格子）？
# 你能据此得出这个词“关注”那个键的结论吗？为什么不能？换一个训练种子，你预计会怎样？

# 最后一个名词的列很自信，但没有训练目标：换一个随机种子结果会不同。
# 
# (English) The last noun column is confident but untrained: the cell it picks is arbitrary and would change with another seed.

# **Q4** 比较训练后打印的三行：见过的名词组合、留出的组合（两个名词都认识，但训练中从未一起出现）、
# 以及一个从没见过的名词。在含有未见名词的热力图中，代词还能找到它的先行词吗？模型预测的是什么？
# 为什么它说不出一个从没见过的名词？这说明注意力学到了什么，模型的其余部分又学到了什么？

# 见过的和留出的名词对几乎都对；没见过的名词，代词仍然找到位置，但输出层说不出它。
# 
# (English) Seen and held-out pairs are near 100%; with an unseen noun the pronoun still finds the position, but the output layer cannot name a noun it never saw.

# **Q5** 每个句子里都有两个与代词同性别的名词。为什么对所有词一视同仁求平均的模块（均匀注意力）
# 在这里会失败，而在 `alice met bob . she smiled` 上却能成功？先行词离代词两个或五个位置，一层注意力
# 就够了：RNN 需要多少步才能把这个名词带到那里？对于 500 个词元的句子，情况会有什么变化？

# 均匀注意力把两个同性别名词平均，无法选出一个。RNN 需要 2 到 5 步，500 个词元则需要 500 步。
# 
# (English) Uniform attention averages both same-gender nouns, so it cannot pick one. An RNN needs 2 to 5 steps here, 500 for a 500-token sentence.

# ## 完成
# 
# 你从零实现了缩放点积注意力、自注意力、多头注意力和注意力块，按课程文本的方式画出了热力图，
# 并用它验证了训练好的模型学到了真实的语言结构。热力图不仅是调试工具，更是验证模型是否学到合理
# 语言结构的直接证据。
