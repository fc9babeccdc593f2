"""Helpers of the QA corpora's tests (tests/test_qa_qa*.py): the public checks' verdicts."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def public_verdicts(files: list[Path]) -> dict[str, dict[str, str | None] | str]:
    """Every public check of every file, by path (tests/public_agreement.py, one process)."""
    run = subprocess.run([sys.executable, str(REPO / "tests" / "public_agreement.py"), *map(str, files)], capture_output=True, text=True, cwd=REPO, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    return json.loads(run.stdout)
