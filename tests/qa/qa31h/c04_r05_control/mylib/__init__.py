# (r05 helper package; see ../attention.py)
__all__ = ["softmax"]
