"""Bench: the static pass on a submission padded with a chain of helpers that return each
other's result (qa17h: 4,000 of them took the static pass 250 s, past the grader's limit per
submission). Times autograder.grading.integrity.static.analyze on the reference solution plus N
helpers, for this tree and, side by side in the same run, another one (`--old`, e.g. a checkout
of the previous main), each in its own process.

    .venv/bin/python bench/static_chain.py --old /work/main --sizes 250 500 1000
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
MEASURE = """
import json, sys, time
import torch
from autograder.grading.integrity.static import analyze, library_methods
from autograder.assignments.attention.rules import LIBRARY_NAMES
library_methods()
reference, sizes = sys.argv[1], [int(n) for n in sys.argv[2:]]
times = {}
for n in sizes:
    chain = "".join(f"def _h{i}(x):\\n    return _h{i - 1}(x)\\n" if i else "def _h0(x):\\n    return x\\n" for i in range(n))
    started = time.perf_counter()
    source = open(reference, encoding="utf-8").read().replace("\\ndef causal_mask", "\\n" + chain + "\\n\\ndef causal_mask")  # where qa17h put them
    analyze([(1, source)], {}, LIBRARY_NAMES)
    times[n] = time.perf_counter() - started
print(json.dumps(times))
"""


def measure(tree: Path, sizes: list[int]) -> dict[str, float]:
    reference = REPO / "solutions" / "attention" / "attention.py"
    environment = {**os.environ, "PYTHONPATH": str(tree)}
    done = subprocess.run([sys.executable, "-c", MEASURE, str(reference), *map(str, sizes)], env=environment, cwd=tree, capture_output=True, text=True, check=True)  # cwd: -c puts it first on sys.path
    return json.loads(done.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old", type=Path, help="another tree to measure side by side (the alternative)")
    parser.add_argument("--sizes", type=int, nargs="+", default=[250, 500, 1000])
    options = parser.parse_args()
    new = measure(REPO, options.sizes)
    old = measure(options.old, options.sizes) if options.old else {}
    print("| helpers | this tree, s | " + ("other tree, s | other / this |" if old else ""))
    print("| --- | --- | " + ("--- | --- |" if old else ""))
    for n in map(str, options.sizes):
        row = f"| {n} | {new[n]:.2f} | " + (f"{old[n]:.2f} | {old[n] / new[n]:.1f}x |" if old else "")
        print(row)


if __name__ == "__main__":
    main()
