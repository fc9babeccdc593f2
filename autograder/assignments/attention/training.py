"""Part F reference weights: the PronounModel trained with the reference AttentionBlock (the
attention assignment's training module: its manifest's `training`).

`attnkit train-reference` (autograder.authoring.train_reference) calls `train_reference` and
`summary`; they write, atomically, into autograder/assignments/attention/reference/:
  pronoun_model.pt      the model's state_dict (torch.save; load with weights_only=True)
  pronoun_metrics.json  how it was trained and how well it does (accuracy, attention on targets)
Training is deterministic: the same seed gives the same weights on the same machine.

The grader uses `reference_block_state` (the AttentionBlock's own parameters, named as Parts B-D
fix them) and `reference_probe` (the block's input x for the probe sentences, and the reference
attention maps) to run a student's AttentionBlock on exactly the input the reference block saw.
"""
from __future__ import annotations

import dataclasses
import hashlib
import io
import json
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import torch

from autograder.assignment import load_manifest, reference_module
from autograder.errors import AttnkitError
from autograder.feedback.results import write_atomic, write_json_atomic

_MANIFEST = load_manifest(Path(__file__).resolve().parent)
REFERENCE_DIR = _MANIFEST.reference_dir
SOLUTION_DIR = _MANIFEST.solution_dir

WEIGHTS_NAME = "pronoun_model.pt"
METRICS_NAME = "pronoun_metrics.json"
METRICS_FORMAT = 2
BLOCK_PREFIX = "block."
HOW_TO_MAKE = "run `attnkit train-reference` to make them again"


def pronoun_task() -> ModuleType:
    return reference_module(SOLUTION_DIR / "pronoun_task.py")


def reference_attention() -> ModuleType:
    return reference_module(_MANIFEST.solution)


def state_sha256(state: dict[str, torch.Tensor]) -> str:
    """A digest of names, dtypes, shapes and values, whatever file layout torch.save picks."""
    digest = hashlib.sha256()
    for name in sorted(state):
        tensor = state[name].detach().cpu().contiguous()
        digest.update(f"{name}|{tensor.dtype}|{tuple(tensor.shape)}\n".encode())
        digest.update(tensor.view(torch.uint8).numpy().tobytes() if tensor.numel() else b"")
    return digest.hexdigest()


def metrics_dict(model: torch.nn.Module, metrics: Any) -> dict[str, Any]:
    """The JSON form of pronoun_task.TrainMetrics plus what it takes to reproduce it."""
    data = json.loads(json.dumps(dataclasses.asdict(metrics)))  # tuples become lists, as on disk
    seconds = data.pop("seconds")
    block = model.block.attn
    return {
        "format": METRICS_FORMAT,
        **data,
        "training_seconds": round(seconds, 3),
        "embed_dim": block.embed_dim,
        "num_heads": block.num_heads,
        "seq_len": model.pos.num_embeddings,
        "vocab_size": model.embed.num_embeddings,
        "torch_version": torch.__version__,
        "weights_sha256": state_sha256(model.state_dict()),
    }


def train_reference(out_dir: Path = REFERENCE_DIR, seed: int | None = None) -> dict[str, Any]:
    """Train the reference PronounModel, write its weights and metrics, return the metrics.

    seed None: pronoun_task.REFERENCE_SEED, the seed of the shipped weights."""
    task = pronoun_task()
    seed = task.REFERENCE_SEED if seed is None else seed
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**63:
        raise AttnkitError(f"the seed must be a whole number from 0 to 2**63-1, not {seed!r}")
    out_dir = Path(out_dir)
    if out_dir.exists() and not out_dir.is_dir():
        raise AttnkitError(f"{out_dir} is a file; give --out a folder for {WEIGHTS_NAME}")
    model, metrics = task.train_model(reference_attention().AttentionBlock, seed=seed)
    report = metrics_dict(model, metrics)
    buffer = io.BytesIO()
    torch.save(model.state_dict(), buffer)
    write_atomic(out_dir / WEIGHTS_NAME, buffer.getvalue())
    write_json_atomic(out_dir / METRICS_NAME, report)
    return report


def summary(report: dict[str, Any], out_dir: Path = REFERENCE_DIR) -> str:
    """What `attnkit train-reference` prints: where the files went and how good the model is."""
    heldout = report["heldout"]
    heldout_antecedent = heldout["antecedent"]
    size = (Path(out_dir) / WEIGHTS_NAME).stat().st_size
    return (
        f"wrote {Path(out_dir) / WEIGHTS_NAME} ({size / 1000:.1f} kB) and {METRICS_NAME}: "
        f"seed {report['seed']}, {report['steps']} steps in {report['training_seconds']:.1f} s; "
        f"held-out accuracy {heldout['pronoun_accuracy']:.1%} at the pronoun, "
        f"{heldout['verb_accuracy']:.1%} at the verb; head {heldout_antecedent['best_head']} puts "
        f"{heldout_antecedent['best']:.3f} of the pronoun's attention on its antecedent "
        f"(uniform: {heldout_antecedent['uniform']:.3f})"
    )


def load_state(path: Path = REFERENCE_DIR / WEIGHTS_NAME) -> dict[str, torch.Tensor]:
    path = Path(path)
    if not path.is_file():
        raise AttnkitError(f"no reference weights at {path}; {HOW_TO_MAKE}")
    try:
        state = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as error:  # torch's text suggests weights_only=False: never show that
        kind = type(error).__name__
        message = f"{path} is not a state_dict of tensors ({kind}); {HOW_TO_MAKE}"
        raise AttnkitError(message) from error
    if not isinstance(state, dict) or not all(isinstance(v, torch.Tensor) for v in state.values()):
        raise AttnkitError(f"{path} does not hold a state_dict of tensors; {HOW_TO_MAKE}")
    return state


def load_metrics(path: Path = REFERENCE_DIR / METRICS_NAME) -> dict[str, Any]:
    path = Path(path)
    if not path.is_file():
        raise AttnkitError(f"no reference metrics at {path}; {HOW_TO_MAKE}")
    return json.loads(path.read_text(encoding="utf-8"))


def reference_block_state(path: Path = REFERENCE_DIR / WEIGHTS_NAME) -> dict[str, torch.Tensor]:
    """The AttentionBlock's parameters, named as in the block: attn.W_q.weight, norm.weight..."""
    state = load_state(path)
    block = {k[len(BLOCK_PREFIX):]: v for k, v in state.items() if k.startswith(BLOCK_PREFIX)}
    if not block:
        raise AttnkitError(f"{path} has no '{BLOCK_PREFIX}*' parameters; {HOW_TO_MAKE}")
    return block


def load_reference_model(path: Path = REFERENCE_DIR / WEIGHTS_NAME) -> torch.nn.Module:
    """A PronounModel around the reference AttentionBlock with the shipped weights (strict)."""
    model = pronoun_task().PronounModel(reference_attention().AttentionBlock)
    try:
        model.load_state_dict(load_state(path), strict=True)
    except RuntimeError as error:
        message = f"{path} does not fit the PronounModel ({error}); {HOW_TO_MAKE}"
        raise AttnkitError(message) from error
    return model.eval()


@dataclass(frozen=True)
class ProbeReference:
    """The probe sentences as the reference AttentionBlock saw them.

    x (B, S, E): the block's input; weights (B, H, S, S) [query, key]: its attention maps;
    words: the tokens of each sentence; antecedent, pronoun (B,): positions of the known pair.
    """

    x: torch.Tensor
    weights: torch.Tensor
    words: list[list[str]]
    pronoun: torch.Tensor
    antecedent: torch.Tensor


@torch.no_grad()
def reference_probe(path: Path = REFERENCE_DIR / WEIGHTS_NAME) -> ProbeReference:
    """Block input and reference attention maps for pronoun_task.probe_sentences()."""
    model = load_reference_model(path)
    batch, words = pronoun_task().probe_sentences()
    x = model.block_input(batch.tokens)  # (B, S, E)
    _, weights = model.block(x)  # (B, S, E), (B, H, S, S)
    return ProbeReference(
        x=x, weights=weights, words=words, pronoun=batch.pronoun, antecedent=batch.antecedent
    )
