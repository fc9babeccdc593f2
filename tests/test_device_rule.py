"""Code that runs on any device, checked on a CPU: causal_mask honours device= (the meta device
shows it), and tensors made without device= that meet the inputs are noted, without taking points."""
from __future__ import annotations

import json
from pathlib import Path

import torch

from autograder.cli import main
from autograder.feedback.results import SubmissionResult
from autograder.grading.devicecheck import MAX_NOTES
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


def test_device_notes_never_come_from_a_worker_that_held_part_f_weights(tmp_path):
    """qa33h H1: the probes ran after the checks, in the worker that had held Part F's private
    weights, and the lines they noted were the submission's to choose: a note appeared only where a
    weight had a given digit. The probes now run first, never in such a worker."""
    weights = torch.load(REFERENCE.parents[2] / "autograder/assignments/attention/reference/pronoun_model.pt", weights_only=True)
    first = float(weights["block.attn.W_q.weight"].flatten()[0])
    source = REFERENCE.read_text(encoding="utf-8")
    source = source.replace("        attended, weights = self.attn(x, mask=mask)  # (B, S, E), (B, H, S, S)\n",
                            "        global _SAW_PRIVATE\n"
                            f"        _SAW_PRIVATE = _SAW_PRIVATE or abs(float(self.attn.W_q.weight.flatten()[0]) - {first!r}) < 1e-6\n"
                            "        attended, weights = self.attn(x, mask=mask)  # (B, S, E), (B, H, S, S)\n", 1)
    source = source.replace(MASK_FILL, MASK_FILL + "\n    if _SAW_PRIVATE:\n        scores = scores + torch.zeros(scores.shape[-1])  # a note only after Part F's weights", 1)
    path = tmp_path / "signal.py"
    path.write_text("_SAW_PRIVATE = False\n" + source, encoding="utf-8")
    out = tmp_path / "out"
    assert main(["grade", str(path), "--seed", "1", "--out", str(out)]) == 0
    result = SubmissionResult.from_dict(json.loads((out / "signal" / "attnkit.json").read_text(encoding="utf-8")))
    assert result.score == 100, result.score  # adding zeros changes no value
    assert not [e for e in result.events if "on a GPU" in e], result.events


def test_device_notes_are_capped_and_in_the_files_order(tmp_path):
    """qa33h M1: 6,000 lines that each make a tensor on the CPU gave 6,000 notes (11 MB of feedback)."""
    source = REFERENCE.read_text(encoding="utf-8")
    many = "".join(f"    scores = scores + torch.zeros(scores.shape[-1])  # {i} {'x' * 300}\n" for i in range(MAX_NOTES + 5))
    notes = _device_notes_of(source.replace("    " + MASK_FILL + "\n", "    " + MASK_FILL + "\n" + many, 1), tmp_path)
    assert len(notes) == MAX_NOTES + 1 and notes[-1].startswith("5 more lines make tensors on the default device"), notes
    lines = [int(note.split("flood.py:")[1].split(" ")[0]) for note in notes[:-1]]
    assert lines == sorted(lines) and all(len(note) < 800 for note in notes)


def _device_notes_of(source: str, tmp_path: Path, parts: str = "A") -> list[str]:
    path = tmp_path / "flood.py"
    path.write_text(source, encoding="utf-8")
    out = tmp_path / "out"
    assert main(["grade", str(path), "--seed", "1", "--parts", parts, "--out", str(out)]) == 0
    result = json.loads((out / "flood" / "attnkit.json").read_text(encoding="utf-8"))
    return [e for e in result["events"] if "on a GPU" in e or "more lines make tensors" in e]


def test_an_unfinished_task_does_not_end_the_probing(tmp_path):
    """qa34h n01: a probe that met a stub (MultiHeadAttention) ended the probing, so the default mask
    that masked_softmax makes without device= (probed last, without a mask) went unnoted."""
    source = REFERENCE.read_text(encoding="utf-8")
    default = "if mask is None:\n        mask = torch.ones(scores.shape[-2:], dtype=torch.bool)\n    if mask is not None:"
    source = source.replace("if mask is not None:", default, 1)
    start = source.index("### BEGIN SOLUTION", source.index("def forward", source.index("class MultiHeadAttention")))
    source = source[:start] + "### BEGIN SOLUTION\n        raise NotImplementedError\n" + source[start + len("### BEGIN SOLUTION\n"):]
    notes = _device_notes_of(source, tmp_path, parts="A,C")
    assert any("torch.ones at flood.py:" in note for note in notes), notes
