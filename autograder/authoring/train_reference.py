"""`attnkit train-reference`: train the current assignment's reference model with its training
module (the manifest's `training`), which writes the weights its checks load.

The training module defines `train_reference(out_dir, seed) -> report` (seed None: the seed of
the shipped weights) and `summary(report, out_dir) -> str`, the line the command prints.
"""
from __future__ import annotations

from pathlib import Path

from autograder.assignment import current
from autograder.errors import AttnkitError


def train_reference(out_dir: Path | None = None, seed: int | None = None) -> str:
    """Train and write the reference weights into out_dir (default: the assignment's reference
    folder); returns what the training module says of them."""
    manifest = current()
    training = manifest.content("training")
    if training is None:
        raise AttnkitError(f"the assignment {manifest.name!r} has no training module (`training` in its {manifest.folder}/manifest.toml): nothing to train")
    out_dir = manifest.reference_dir if out_dir is None else Path(out_dir)
    return training.summary(training.train_reference(out_dir, seed=seed), out_dir)
