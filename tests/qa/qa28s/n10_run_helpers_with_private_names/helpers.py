# qa28s n10 helpers, run by %run helpers.py in the A.2 task cell
import numpy as np
import torch
from matplotlib import colors as mcolors

NEG_INF = float('-inf')


def _row_normalise(e):
    """Divide each row by its sum; a row of zeros stays zeros."""
    total = e.sum(dim=-1, keepdim=True)
    return e / torch.where(total > 0, total, torch.ones_like(total))


def _label_axes(ax, query_tokens, key_tokens):
    ax.set_xticks(np.arange(len(query_tokens)), labels=list(query_tokens), rotation=90)
    ax.set_yticks(np.arange(len(key_tokens)), labels=list(key_tokens))
    ax.set_xlabel("query")
    ax.set_ylabel("key")


