"""attnkit: an exercise kit and isolated autograder for the attention mechanism."""
import sys

__version__ = "0.1.0"

if not hasattr(sys, "get_int_max_str_digits"):
    # Python 3.11.0rc1 (Ubuntu 22.04's python3.11, Gradescope's base) predates the limit on int
    # digits, which torch._dynamo reads when torch.softmax first runs. 0 means "no limit": what
    # that interpreter does anyway.
    sys.get_int_max_str_digits = lambda: 0  # type: ignore[attr-defined]
    sys.set_int_max_str_digits = lambda maxdigits: None  # type: ignore[attr-defined]
