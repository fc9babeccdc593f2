# snippet: honest. MultiHeadAttention keeps num_heads as a read-only property (self._heads) and forgets W_o (C's own bug). D is graded again with the trusted MultiHeadAttention, which took the property with the submission's other extras: its own __init__ (self.num_heads = ...) failed, so D paid for C's bug. Expected: A 32/32, D 12/12, E 10/10, no flag (before qa9h: D 1/12).
class MultiHeadAttention(nn.Module):
    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True):
        super().__init__()
        if embed_dim % num_heads:
            raise ValueError("embed_dim must be divisible by num_heads")
        self.embed_dim = embed_dim
        self._heads = num_heads
        self.W_q = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.W_k = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.W_v = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.W_o = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.dropout = nn.Dropout(dropout)

    @property
    def num_heads(self):
        return self._heads

    def forward(self, query, key=None, value=None, mask=None):
        key = query if key is None else key
        value = key if value is None else value
        q = split_heads(self.W_q(query), self.num_heads)
        k = split_heads(self.W_k(key), self.num_heads)
        v = split_heads(self.W_v(value), self.num_heads)
        weights = masked_softmax(attention_scores(q, k), mask)
        heads = self.dropout(weights) @ v
        return merge_heads(heads), weights  # W_o forgotten
