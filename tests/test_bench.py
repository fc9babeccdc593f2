"""The benchmark script runs end to end on a small batch and writes every section of RESULTS.md.

A smoke test only: `bench/run.py --quick` on two notebooks with one job, with nbgrader, otter,
Docker, the floor and scaling left out, into a temporary file. Timings are never asserted: only that the
script grades, reports what it measured, and says "not measured" (with the reason) for the rest.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
HEADINGS = (
    "## Machine and versions",
    "## 1. attnkit, nbgrader and otter-grader on the same notebooks",
    "## 2. A student's check against the floor (`import torch`)",
    "## 3. Docker: one container for the batch, or one per submission",
    "## 4. Scaling with the batch size and `--jobs`",
)


@pytest.fixture(scope="module")
def quick_results(tmp_path_factory) -> tuple[str, Path]:
    root = tmp_path_factory.mktemp("bench")
    out = root / "RESULTS.md"
    command = [sys.executable, str(REPO / "bench" / "run.py"), "--quick", "--n", "2", "--jobs", "1",
               "--skip", "nbgrader,otter,docker,floor,scaling", "--workdir", str(root / "work"), "--out", str(out)]
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    done = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"bench/run.py failed:\n{done.stdout[-2000:]}\n{done.stderr[-4000:]}"
    return out.read_text(encoding="utf-8"), root / "work"


def test_results_file_has_every_section(quick_results):
    text, _ = quick_results
    positions = [text.find(heading) for heading in HEADINGS]
    assert all(p >= 0 for p in positions), [h for h, p in zip(HEADINGS, positions) if p < 0]
    assert positions == sorted(positions)


def test_attnkit_row_reports_a_time_and_memory_for_two_submissions(quick_results):
    text, _ = quick_results
    [row] = [line for line in text.splitlines() if line.startswith("| `attnkit grade-batch --jobs 1`")]
    cells = [cell.strip() for cell in row.strip("|").split("|")]
    assert cells[1] == "2"  # submissions
    assert re.fullmatch(r"\d+\.\d\d", cells[3]), cells  # seconds per submission
    assert re.match(r"\d+ \[\d+\]", cells[5]), cells  # peak PSS [RSS sum]


def test_skipped_parts_say_not_measured_with_the_reason(quick_results):
    text, _ = quick_results
    assert "| `nbgrader autograde` | not measured: skipped (--skip nbgrader)" in text
    assert "| `otter run` | not measured: skipped (--skip otter)" in text
    for part in ("floor", "docker", "scaling"):
        assert f"not measured: skipped (--skip {part})" in text


def test_graded_scores_tell_the_correct_notebook_from_the_buggy_one(quick_results):
    text, _ = quick_results
    scores = {}
    for line in text.splitlines():
        match = re.match(r"\| (reference|triu-mask) \| .* \| (yes|no) \| (\d+(?:\.\d+)?)/(\d+(?:\.\d+)?) \|$", line)
        if match:
            scores[match.group(1)] = float(match.group(3))
    assert set(scores) == {"reference", "triu-mask"}, text
    assert scores["triu-mask"] < scores["reference"]


def test_reproduce_command_and_load_average_are_recorded(quick_results):
    text, _ = quick_results
    assert "Reproduce: `.venv/bin/python bench/run.py --quick --n 2" in text
    assert re.search(r"load average \(1, 5, 15 min\) at start: [\d.]+ [\d.]+ [\d.]+; at end: [\d.]+", text)


def test_notebooks_are_written_for_both_variants(quick_results):
    _, work = quick_results
    names = sorted(p.name for p in (work / "inbox").glob("*.ipynb"))
    assert names == ["s000-reference.ipynb", "s001-triu-mask.ipynb"]


def test_unknown_skip_part_is_a_usage_error():
    done = subprocess.run([sys.executable, str(REPO / "bench" / "run.py"), "--skip", "nbgrader,gpu"],
                          cwd=REPO, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "--skip gpu: unknown part" in done.stderr
