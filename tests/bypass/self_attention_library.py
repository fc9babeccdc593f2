# snippet: SelfAttention.forward computes its output with torch's attention (its weights with A.3)
import torch.nn.functional as F


def _library_self_attention(self, x, mask=None):
    q, k, v = self.W_q(x), self.W_k(x), self.W_v(x)
    _, weights = scaled_dot_product_attention(q, k, v, mask)
    return F.scaled_dot_product_attention(q, k, v, attn_mask=mask), weights


SelfAttention.forward = _library_self_attention
