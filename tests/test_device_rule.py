"""Code that runs on any device, checked on a CPU: causal_mask honours device= (the meta device
shows it), and tensors made without device= that meet the inputs are noted, without taking points."""
from __future__ import annotations

from pathlib import Path

import torch

from autograder.cli import main
from autograder.grading.worker.dispatcher import Dispatcher

REFERENCE = Path(__file__).resolve().parents[1] / "solutions" / "attention" / "attention.py"
MASK_FILL = 'scores = scores.masked_fill(mask.logical_not(), float("-inf"))  # (..., Lq, Lk)'


def _traced(source: str, tmp_path: Path, name: str, *args) -> list[dict]:
    dispatcher = Dispatcher()
    loaded = dispatcher.handle({"op": "load", "root": str(tmp_path), "chunks": [(1, source)], "files": {}, "filename": "attention.py", "module": "attention"})
    assert loaded["status"] == "ok" and not loaded["value"]["errors"], loaded
    answer = dispatcher.handle({"op": "call", "name": name, "args": list(args), "kwargs": {}, "device_trace": True})
    assert answer["status"] == "ok", answer
    return answer["value"]


def _softmax_args():
    return torch.randn(2, 4, 4), torch.ones(4, 4, dtype=torch.bool).tril()


def test_a_tensor_made_without_device_and_mixed_with_the_inputs_is_found(tmp_path):
    source = REFERENCE.read_text(encoding="utf-8").replace(
        MASK_FILL, 'scores = torch.where(mask, scores, torch.full(scores.shape, float("-inf"), dtype=scores.dtype))'
    )
    [found] = _traced(source, tmp_path, "masked_softmax", *_softmax_args())
    assert found["factory"] == "torch.full" and found["function"] == "masked_softmax" and found["op"] == "where"
    assert found["where"] == f"attention.py:{source.splitlines().index(next(line for line in source.splitlines() if 'torch.full' in line)) + 1}"


def test_code_that_follows_the_inputs_device_is_not_noted(tmp_path):
    reference = REFERENCE.read_text(encoding="utf-8")
    assert _traced(reference, tmp_path, "masked_softmax", *_softmax_args()) == []
    for line in (
        'scores = torch.where(mask, scores, torch.full(scores.shape, float("-inf"), device=scores.device, dtype=scores.dtype))',
        'scores = torch.where(mask, scores, torch.full(scores.shape, float("-inf"), dtype=scores.dtype).to(scores.device))',
        'scores = torch.where(mask, scores, torch.tensor(float("-inf"), dtype=scores.dtype))',  # a 0-d scalar mixes fine
    ):
        assert _traced(reference.replace(MASK_FILL, line), tmp_path, "masked_softmax", *_softmax_args()) == [], line


def test_check_notes_the_device_problem_without_taking_points(tmp_path, capsys):
    path = tmp_path / "cpu_constant.py"
    path.write_text(REFERENCE.read_text(encoding="utf-8").replace(
        MASK_FILL, 'scores = torch.where(mask, scores, torch.full(scores.shape, float("-inf"), dtype=scores.dtype))'
    ), encoding="utf-8")
    assert main(["check", str(path), "--until", "A.4", "--seed", "1"]) == 0  # every check passes
    printed = capsys.readouterr().out
    assert "note: on a GPU this would fail: torch.full at cpu_constant.py:" in printed
    assert "No points are taken for this." in printed


def test_causal_mask_that_ignores_device_fails_its_device_check(tmp_path, capsys):
    path = tmp_path / "no_device.py"
    path.write_text(REFERENCE.read_text(encoding="utf-8").replace("dtype=torch.bool, device=device).tril()", "dtype=torch.bool).tril()"), encoding="utf-8")
    assert main(["check", str(path), "--task", "A.4", "--seed", "1"]) == 1
    printed = capsys.readouterr().out
    assert "FAIL causal_mask: makes the mask on the device it is given" in printed
    assert "causal_mask(3, 4, device='meta') returned a mask on cpu" in printed


def test_a_default_mask_made_without_device_is_noted(tmp_path, capsys):
    """The probes also call without a mask: `if mask is None: mask = torch.ones(...)` on the CPU."""
    path = tmp_path / "default_mask.py"
    default = "if mask is None:\n        mask = torch.ones(scores.shape[-2:], dtype=torch.bool)\n    if mask is not None:"
    path.write_text(REFERENCE.read_text(encoding="utf-8").replace("if mask is not None:", default, 1), encoding="utf-8")
    assert main(["check", str(path), "--until", "A.2", "--seed", "1"]) == 0
    printed = capsys.readouterr().out
    assert "note: on a GPU this would fail: torch.ones at default_mask.py:" in printed
