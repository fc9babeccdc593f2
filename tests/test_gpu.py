"""Grading is the same with a CUDA build of torch and a GPU present.

The worker is forked from a template process. If the template ever ran torch's autograd engine,
a CUDA build would have started one engine thread per device there, and every forked worker would
fail its own backward pass ("Unable to handle autograd's threading in combination with fork-based
multiprocessing"): every gradient check lost. The same holds for a batch's grader processes,
forked from the warm parent: its warm-up ran one backward, and on an H200 every submission of a
batch lost its gradient checks (the reference 90.5/100; `grade`, which forks no pool, gave 100).
The first two tests guard the cause on any build; the last two prove the whole result where a GPU
and a CUDA build are present (skipped elsewhere).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

REPO = Path(__file__).resolve().parents[1]
REFERENCE = REPO / "solutions" / "attention" / "attention.py"

def _spied(warm_up: str) -> str:
    """A script that counts autograd engine runs during `warm_up` (its lines), then during one
    backward of its own (the spy sees a backward when there is one), and prints both counts."""
    return f"""
import torch, torch.autograd, torch.autograd.graph
calls = []
real = torch.autograd.graph._engine_run_backward
def spy(*args, **kwargs):
    calls.append(1)
    return real(*args, **kwargs)
torch.autograd._engine_run_backward = spy
torch.autograd.graph._engine_run_backward = spy
{warm_up}
x = torch.ones(2, requires_grad=True)
torch.autograd.grad([(x * x).sum()], [x])
print(during_warm_up, len(calls))
"""


WARM_UPS = {
    "the template": "from autograder.grading.worker.template import warm_up\nwarm_up()\nduring_warm_up = len(calls)",
    "a pool's parent": "from autograder.grading.grader import Grader\nwith Grader(clients=2):\n    during_warm_up = len(calls)",  # as grade-batch forks its processes from it
}


@pytest.mark.parametrize("who", WARM_UPS)
def test_a_warm_up_that_precedes_a_fork_never_runs_the_autograd_engine(who):
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    out = subprocess.run([sys.executable, "-c", _spied(WARM_UPS[who])], capture_output=True, text=True, env=env, timeout=300, check=True)
    assert out.stdout.split() == ["0", "1"]


@pytest.mark.skipif(not (torch.version.cuda and torch.cuda.is_available()), reason="needs a GPU and a CUDA build of torch")
def test_reference_gets_full_marks_with_a_cuda_build_and_a_gpu(tmp_path):
    from autograder.cli import main

    assert main(["grade", str(REFERENCE), "--out", str(tmp_path), "--seed", "0"]) == 0
    results = json.loads((tmp_path / "attention" / "results.json").read_text())
    failed = [t["name"] for t in results["tests"] if t["score"] < t["max_score"]]
    assert failed == [] and results["score"] == results["max_score"] > 0


@pytest.mark.skipif(not (torch.version.cuda and torch.cuda.is_available()), reason="needs a GPU and a CUDA build of torch")
def test_a_batch_gives_the_reference_full_marks_with_a_cuda_build_and_a_gpu(tmp_path):
    import csv
    import shutil

    inbox = tmp_path / "inbox"
    inbox.mkdir()
    for name in ("a.py", "b.py", "c.py"):
        shutil.copy(REFERENCE, inbox / name)
    # its own process, as an instructor runs it: this one ran autograd on the GPU machine already (the test above)
    command = [sys.executable, "-m", "autograder.cli", "grade-batch", str(inbox), "--out", str(tmp_path / "out"), "--jobs", "2", "--seed", "0"]
    subprocess.run(command, env={**os.environ, "PYTHONPATH": str(REPO)}, cwd=tmp_path, capture_output=True, timeout=600, check=True)
    with open(tmp_path / "out" / "grades.csv", newline="", encoding="utf-8") as handle:
        scores = [(row["submission"], row["score"]) for row in csv.DictReader(handle)]
    assert scores == [("a", "100"), ("b", "100"), ("c", "100")]
