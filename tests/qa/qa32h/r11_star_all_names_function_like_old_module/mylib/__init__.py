"""My helpers."""
from .softmax import masked_softmax

__all__ = ["masked_softmax"]
