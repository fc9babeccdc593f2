"""otter-grader, for comparison: its own virtual environment, a minimal autograder zip, `otter run`.

otter-grader goes into a separate virtual environment (bench/.otter-venv by default), never into
attnkit's. torch is pinned to attnkit's version so pip takes the same CPU wheel. The autograder zip
holds OK-format doctest files for a few of the assignment's functions (Part A, C and E), each
comparing the student's function with a PyTorch built-in on fixed inputs, plus the helper files
the notebook imports. `otter run` then executes the whole notebook in a fresh kernel and runs the
tests against its globals, one submission per command.
"""
from __future__ import annotations

import json
import pprint
import subprocess
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path

OTTER_VERSION = "7.0.0"
TORCH_VERSION = "2.13.0"
# What the kernel needs to run the notebook, besides otter-grader itself.
KERNEL_PACKAGES = ("numpy", "matplotlib", "ipykernel")
HELPERS = ("public_checks.py", "pronoun_task.py")


@dataclass(frozen=True)
class OtterEnv:
    python: Path
    otter: Path
    version: str


def _test(name: str, code: str, points: float = 1.0) -> str:
    lines = [line for line in code.strip("\n").splitlines()]
    doctest = "\n".join(lines) + "\n"
    case = {"code": doctest, "hidden": False, "locked": False}
    body = {"name": name, "points": points,
            "suites": [{"cases": [case], "scored": True, "setup": "", "teardown": "", "type": "doctest"}]}
    return f"OK_FORMAT = True\n\ntest = {pprint.pformat(body, sort_dicts=False)}\n"


# Doctests run in the notebook's globals after the whole notebook ran.
TESTS = {
    "attention_scores": """
>>> import math, torch
>>> _g = torch.Generator().manual_seed(0)
>>> _q, _k = torch.randn(2, 3, 4, 8, generator=_g), torch.randn(2, 3, 5, 8, generator=_g)
>>> bool(torch.allclose(attention_scores(_q, _k), _q @ _k.transpose(-2, -1) / math.sqrt(8), atol=1e-5))
True
""",
    "masked_softmax": """
>>> import torch
>>> _g = torch.Generator().manual_seed(1)
>>> _s = torch.randn(2, 4, 6, generator=_g) * 30
>>> _m = torch.rand(2, 4, 6, generator=_g) > 0.3
>>> _m[:, :, 0] = True
>>> _want = torch.softmax(_s.masked_fill(~_m, float("-inf")), dim=-1)
>>> bool(torch.allclose(masked_softmax(_s, _m), _want, atol=1e-5))
True
>>> bool(torch.isfinite(masked_softmax(torch.tensor([[1000.0, 0.0]]))).all())
True
""",
    "causal_mask": """
>>> import torch
>>> bool(torch.equal(causal_mask(4), torch.ones(4, 4, dtype=torch.bool).tril()))
True
>>> bool(torch.equal(causal_mask(3, 5), torch.ones(3, 5, dtype=torch.bool).tril()))
True
""",
    "scaled_dot_product_attention": """
>>> import torch
>>> _g = torch.Generator().manual_seed(2)
>>> _q, _k, _v = (torch.randn(2, 5, 8, generator=_g) for _ in range(3))
>>> _m = torch.ones(5, 5, dtype=torch.bool).tril()
>>> _out, _w = scaled_dot_product_attention(_q, _k, _v, _m)
>>> bool(torch.allclose(_out, torch.nn.functional.scaled_dot_product_attention(_q, _k, _v, attn_mask=_m), atol=1e-5))
True
""",
    "split_merge_heads": """
>>> import torch
>>> _x = torch.arange(2 * 3 * 8, dtype=torch.float32).reshape(2, 3, 8)
>>> bool(torch.equal(split_heads(_x, 2), _x.view(2, 3, 2, 4).transpose(1, 2)))
True
>>> bool(torch.equal(merge_heads(split_heads(_x, 2)), _x))
True
""",
    "plot_attention": """
>>> import matplotlib.pyplot as _plt, numpy as _np, torch
>>> _w = torch.softmax(torch.arange(6.0).reshape(2, 3), dim=-1)
>>> _ax = plot_attention(_w, ["a", "b"], ["x", "y", "z"])
>>> bool(_np.allclose(_np.asarray(_ax.images[0].get_array()), _w.T.numpy()))
True
>>> _plt.close("all")
""",
}


def write_autograder(target: Path, helpers_dir: Path) -> Path:
    """The otter autograder zip: otter_config.json, tests/*.py, files/ (the notebook's helpers)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    config = {"logo": False, "print_summary": True, "print_score": True}
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("otter_config.json", json.dumps(config, indent=2))
        for name, code in TESTS.items():
            archive.writestr(f"tests/{name}.py", _test(name, code))
        for helper in HELPERS:
            archive.write(helpers_dir / helper, f"files/{helper}")
    return target


def ensure_env(venv: Path, log: Path) -> OtterEnv | str:
    """The otter virtual environment, created and filled when missing; a reason string when it cannot be."""
    python, otter = venv / "bin" / "python", venv / "bin" / "otter"
    if not (python.is_file() and otter.is_file()):
        steps = [
            [sys.executable, "-m", "venv", str(venv)],
            [str(python), "-m", "pip", "install", "--quiet", f"otter-grader=={OTTER_VERSION}",
             f"torch=={TORCH_VERSION}", *KERNEL_PACKAGES],
        ]
        with log.open("w", encoding="utf-8") as out:
            for step in steps:
                done = subprocess.run(step, stdout=out, stderr=subprocess.STDOUT, timeout=1800)
                if done.returncode != 0:
                    return f"`{' '.join(step)}` failed (exit {done.returncode}); see {log}"
    probe = subprocess.run([str(python), "-c", "import otter, torch; print(otter.__version__)"],
                           capture_output=True, text=True)
    if probe.returncode != 0:
        return f"otter-grader does not import in {venv}: {probe.stderr.strip()[-300:]}"
    return OtterEnv(python, otter, probe.stdout.strip())


def run_command(env: OtterEnv, autograder: Path, notebook: Path, output_dir: Path) -> list[str]:
    return [str(env.otter), "run", "-a", str(autograder), "-o", str(output_dir), "--no-logo", str(notebook)]


def read_score(output_dir: Path) -> tuple[float, float]:
    """(score, max score) from the results.json that `otter run` wrote."""
    data = json.loads((output_dir / "results.json").read_text(encoding="utf-8"))
    tests = data.get("tests", [])
    score = sum(float(t.get("score") or 0.0) for t in tests)
    return score, sum(float(t.get("max_score") or 0.0) for t in tests)
