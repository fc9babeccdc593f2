"""On a machine with a GPU: does code that passes the grader here also run on CUDA tensors?

Runs a submission's functions and modules on CUDA inputs (the same calls a student's notebook makes)
and compares them with the same calls on the CPU. Usage: python bench/cuda_check.py [FILE ...]
(default: the reference solution). Prints one line per call and exits 1 on any failure.
"""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import torch

REPO = Path(__file__).resolve().parents[1]


def load(path: Path):
    spec = importlib.util.spec_from_file_location(f"submission_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def calls(m, device: str) -> dict[str, torch.Tensor]:
    torch.manual_seed(0)
    q, k, v = (torch.randn(2, 5, 8, dtype=torch.float64) for _ in range(3))
    x = torch.randn(2, 5, 16, dtype=torch.float64)
    q, k, v, x = (t.to(device) for t in (q, k, v, x))
    mask = m.causal_mask(5, device=device)
    out: dict[str, torch.Tensor] = {
        "attention_scores": m.attention_scores(q, k),
        "masked_softmax": m.masked_softmax(m.attention_scores(q, k), mask),
        "scaled_dot_product_attention": m.scaled_dot_product_attention(q, k, v, mask)[0],
        "split_merge": m.merge_heads(m.split_heads(x, 4)),
    }
    for name, cls, args in (("SelfAttention", m.SelfAttention, (16,)), ("MultiHeadAttention", m.MultiHeadAttention, (16, 4)), ("AttentionBlock", m.AttentionBlock, (16, 4))):
        torch.manual_seed(1)
        layer = cls(*args).double().to(device).eval()
        result = layer(x, mask=mask)
        out[name] = result[0] if isinstance(result, tuple) else result
    return out


def main(paths: list[Path]) -> int:
    print(f"torch {torch.__version__}, cuda {torch.version.cuda}, available {torch.cuda.is_available()}")
    if not torch.cuda.is_available():
        print("no GPU here: nothing to check")
        return 0
    failures = 0
    for path in paths:
        module = load(path)
        cpu = calls(module, "cpu")
        try:
            gpu = calls(module, "cuda")
        except Exception as error:  # the point of the script: report, don't crash
            print(f"FAIL {path.name}: {type(error).__name__}: {error}")
            failures += 1
            continue
        for name, value in cpu.items():
            same = gpu[name].device.type == "cuda" and torch.allclose(value, gpu[name].cpu(), atol=1e-9)
            failures += not same
            print(f"{'ok  ' if same else 'FAIL'} {path.name} {name}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main([Path(p) for p in sys.argv[1:]] or [REPO / "solutions" / "attention" / "attention.py"]))
