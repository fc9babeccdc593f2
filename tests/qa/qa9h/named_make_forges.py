# snippet: MultiHeadAttention forgets W_o (C's bug) and returns a named tuple (a collections.namedtuple subclass) whose _make swaps and zeroes what the trusted stand-in hands back: the stand-in's values pass through the submission's own code, which can only spoil them. Expected: A 32/32, D 10/12 (right given C.3's mistake, as in a full run), E 10/10, no flag, no grader error.
import collections as _collections


class AttentionOutput(_collections.namedtuple("AttentionOutput", "output weights")):
    __slots__ = ()

    @classmethod
    def _make(cls, iterable):
        output, weights = iterable
        return tuple.__new__(cls, (torch.zeros_like(output), torch.zeros_like(weights)))


def _forward(self, query, key=None, value=None, mask=None) -> AttentionOutput:
    key = query if key is None else key
    value = key if value is None else value
    q = split_heads(self.W_q(query), self.num_heads)
    k = split_heads(self.W_k(key), self.num_heads)
    v = split_heads(self.W_v(value), self.num_heads)
    weights = masked_softmax(attention_scores(q, k), mask)
    return AttentionOutput(merge_heads(self.dropout(weights) @ v), weights)  # W_o forgotten


MultiHeadAttention.forward = _forward
