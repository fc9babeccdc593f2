"""os._exit at import: the worker dies before any function exists."""
import os

os._exit(3)
