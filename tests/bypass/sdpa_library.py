# snippet: the library attention inside scaled_dot_product_attention
import torch.nn.functional as F


def scaled_dot_product_attention(q, k, v, mask=None):
    weights = masked_softmax(attention_scores(q, k), mask)
    return F.scaled_dot_product_attention(q, k, v, attn_mask=mask), weights
