"""My helpers."""
__all__ = "softmax scores".split()
