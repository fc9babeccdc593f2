"""Warm-up and smoke test of the grader's Python environment, run once when it is installed.

Imports and exercises what grading uses (torch, matplotlib's Agg renderer, seaborn, pandas, pytest,
nbformat) so that Python caches the bytecode of exactly those modules, and fails the install when
any of them is broken.
"""
import io
import sys
import tempfile
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import nbformat  # noqa: E402
import numpy  # noqa: E402
import pandas  # noqa: E402
import pytest  # noqa: E402
import seaborn  # noqa: E402
import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

TEST = """
import torch

def test_softmax_rows_sum_to_one():
    scores = torch.randn(2, 3, 4)  # (B, Lq, Lk)
    assert torch.allclose(torch.softmax(scores, dim=-1).sum(-1), torch.ones(2, 3))
"""

with tempfile.TemporaryDirectory() as folder:
    (Path(folder) / "test_warmup.py").write_text(TEST)
    code = pytest.main(["-q", "-p", "no:cacheprovider", "--rootdir", folder, folder])
    if code != 0:
        sys.exit(f"warm-up: pytest failed with exit code {code}")

weights = F.softmax(nn.Linear(4, 4)(torch.randn(3, 4)), dim=-1).detach()  # (Lq, Lk)
figure, axes = plt.subplots()
axes.imshow(weights.T.numpy())
seaborn.heatmap(pandas.DataFrame(weights.numpy()), ax=axes)
figure.savefig(io.BytesIO(), format="png")
nbformat.validate(nbformat.v4.new_notebook())
print("torch", torch.__version__, "numpy", numpy.__version__, "matplotlib", matplotlib.__version__)
