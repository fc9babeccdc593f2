# snippet: MultiHeadAttention forgets W_o (C's bug); a module-level object of the submission's class raises SystemExit when the stand-ins' walk (rebind) reads its __dict__, and an alias of split_heads sits in a dict the walk visits first: the walk stops half-way, leaving what it changed. Expected: A 29/32 and E 0/10 (__getattribute__ and __dict__ in the file: A.2 by hand, A.3's rule and the figure cannot be checked), D 10/12 (right given C.3's mistake, as in a full run), flags evasion, tamper, no grader error.
_aliases = {"split": split_heads}


class _Trap:
    def __getattribute__(self, name):
        if name == "__dict__":
            raise SystemExit(4)
        return object.__getattribute__(self, name)


_later = [_Trap(), 1, 2, 3]  # a larger container: the walk comes to it after _aliases


def _forward(self, query, key=None, value=None, mask=None):
    key = query if key is None else key
    value = key if value is None else value
    q = _aliases["split"](self.W_q(query), self.num_heads)
    k = _aliases["split"](self.W_k(key), self.num_heads)
    v = _aliases["split"](self.W_v(value), self.num_heads)
    weights = masked_softmax(attention_scores(q, k), mask)
    return merge_heads(self.dropout(weights) @ v), weights  # W_o forgotten


MultiHeadAttention.forward = _forward
