# (h06 helper package; see ../attention.py)
__all__ = ["softmax", "old_try"]
