import torch


def library_softmax(x):
    """For comparing my masked_softmax with torch's, in my own experiments."""
    return torch.softmax(x, dim=-1)


def library_attention(q, k, v):
    return torch.nn.functional.scaled_dot_product_attention(q, k, v)
