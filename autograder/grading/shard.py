"""`grade-batch --shard K/N`: a stable share of a batch, so that N machines grade one class.

A submission belongs to shard K (0 <= K < N) when the SHA-256 of its name, as a number, is K
modulo N: the same file lands in the same shard on every machine and every run, whatever else the
folder holds, and the shards together hold every submission exactly once.
"""
from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

from autograder.errors import AttnkitError

PATTERN = re.compile(r"^\s*(\d+)\s*/\s*(\d+)\s*$")


@dataclass(frozen=True)
class Shard:
    index: int  # K, from 0
    count: int  # N

    @classmethod
    def parse(cls, text: str) -> Shard:
        match = PATTERN.match(text)
        if not match:
            raise AttnkitError(f"--shard {text!r}: write K/N, e.g. --shard 0/4 (K from 0 to N-1; $SLURM_ARRAY_TASK_ID/N or $JOB_COMPLETION_INDEX/N)")
        index, count = int(match.group(1)), int(match.group(2))
        if count < 1 or not 0 <= index < count:
            raise AttnkitError(f"--shard {text}: K must be from 0 to N-1 and N at least 1")
        return cls(index, count)

    def holds(self, name: str) -> bool:
        """Whether the submission called `name` (its file name without .py/.ipynb/.zip) is ours."""
        return int.from_bytes(hashlib.sha256(name.encode("utf-8")).digest()[:8], "big") % self.count == self.index

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"
