"""The dot assignment's words: its checks' Chinese names and its own messages."""
from __future__ import annotations

CHECK_TEXTS: dict[str, str] = {
    "dot_vectors": "点积：两个向量的数值",
    "dot_batched": "点积：批量 (..., n) 输入得到 (...)",
}

MESSAGES: dict[str, dict[str, str]] = {
    "not_a_tensor": {"en": "{where} returned {kind}, expected a torch.Tensor", "zh": "{where} 返回了 {kind}，应返回 torch.Tensor"},
    "wrong_values": {"en": "{where} returned wrong values", "zh": "{where} 返回的数值不对"},
}
