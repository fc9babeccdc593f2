import torch


def causal_mask(size_q: int, size_k: int | None = None, device=None) -> torch.Tensor:
    """Task A.4: the causal mask (因果掩码): query i may attend to keys 0..i only.

    Returns a bool tensor (size_q, size_k) on `device` (None: the default device), True where
    key position <= query position (aligned top-left, like is_causal=True). size_k defaults
    to size_q.
    """
    size_k = size_q if size_k is None else size_k
    return torch.ones(size_q, size_k, dtype=torch.bool, device=device).tril()
