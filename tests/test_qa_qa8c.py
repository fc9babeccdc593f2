"""The public checks agree with the grader (QA qa8c): a part the grader gives full marks passes
every public check of its tasks.

Self-learners have only the public checks (assignments/attention/public_checks.py: pytest in the
release folder, the notebook's check cells). Every submission of the QA corpora whose header gives
its per-part scores (tests/qa/qa4e ... qa7s; the hostile qa*h are left out), tests/styles and
examples/submissions is checked task by task, in one process that forks per file
(tests/public_agreement.py), and compared with its expected scores.

Before qa8c, a later task's check ran the student's own earlier functions, which the grader
replaces by trusted stand-ins: a correct SelfAttention beside an unscaled attention_scores failed
B.1 ("your scores are scaled by nothing"), a correct AttentionBlock beside a wrong
MultiHeadAttention failed D.1 ("self.attn does not match nn.MultiheadAttention yet"). Now such a
check runs again with the checks' own versions of the earlier tasks and passes, naming the
earlier task to fix.

Before qa9p, the checks' versions replaced only the global name; the grader's stand-ins replace
the earlier function wherever the student's code holds it (an alias, a default argument, a
closure, a dict registry, a class attribute, a frozen dataclass's field), and a stub left in an
earlier task ended the later task's check as "not implemented yet": 8 files of the corpora failed
a public check of a task the grader gives full marks (qa4s b57, qa5x m25, qa6s b04 b09 b12 b13
b39, qa6e n09).
"""
from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
QA = REPO / "tests" / "qa"
EXAMPLES = REPO / "examples" / "submissions"
FULL = {"A": 32, "B": 10, "C": 28, "D": 12, "E": 10, "F": 8}
PART_OF = {"A.1": "A", "A.2": "A", "A.3": "A", "A.4": "A", "B.1": "B", "C.1": "C", "C.2": "C", "C.3": "C", "D.1": "D", "E.1": "E"}
PER_PART = re.compile(r"^# Per-part scores \(A-D\): A=(\S+) B=(\S+) C=(\S+) D=(\S+)\.$", re.MULTILINE)
EXPECTED = re.compile(r"expected: ((?:[A-F]=[0-9.]+ ?)+)")
EARLIER = {  # public_checks.EARLIER: a task -> the earlier tasks its check calls
    "A.3": ("A.1", "A.2"), "B.1": ("A.1", "A.2", "A.3", "A.4"), "C.3": ("A.1", "A.2", "A.3", "A.4", "C.1", "C.2"),
    "D.1": ("A.1", "A.2", "A.3", "A.4", "C.1", "C.2", "C.3"),
}
BUGGY_EXAMPLES = {  # examples/README.md: the part that loses points; the others keep full marks
    "bug_no_scaling.py": "A", "bug_softmax_axis.py": "A", "bug_mask_inverted.py": "A", "copied_with_library_softmax.py": "A",
    "bug_split_no_transpose.py": "C", "bug_dropout_in_eval.py": "C", "bug_pre_norm.py": "D", "bug_heatmap_transposed.py": "E",
}


def _expected(path: Path) -> dict[str, float] | None:
    """The per-part scores a corpus file's header gives (None: it gives none)."""
    if path.parent == EXAMPLES:
        return {part: (0 if part == BUGGY_EXAMPLES.get(path.name) else full) for part, full in FULL.items()}
    if path.name == "matshow_layout.py":  # a plot_attention without its imports: tests/test_correct_styles.py puts it after Parts A-D
        return None
    if path.parent.name in ("styles", "qa5f"):  # correct code, every part full (qa5f: A, B, C, E graded)
        return dict(FULL)
    text = "".join(f.read_text(encoding="utf-8", errors="replace")[:4000] for f in ([path] if path.is_file() else sorted(path.iterdir())))
    if found := PER_PART.search(text):
        return dict(zip("ABCD", map(float, found.groups())))
    if found := EXPECTED.search(text):
        return {part: float(score) for part, score in (item.split("=") for item in found.group(1).split())}
    return None


def _corpus() -> list[Path]:
    folders = [folder for folder in sorted(QA.glob("qa*")) if not folder.name.endswith("h")]
    paths = [path for folder in folders for path in sorted(folder.iterdir()) if path.suffix in (".py", ".ipynb", "")]
    paths += sorted((REPO / "tests" / "styles").glob("*.py")) + sorted(EXAMPLES.glob("*.*"))
    return [path for path in paths if _expected(path) is not None]


def _leaning(expected: dict[str, float]) -> list[str]:
    """The tasks of parts with full marks whose checks call a task of a part that lost points:
    where the public checks and the grader could part (checking every task of every file takes
    about ten minutes; tests/public_agreement.py FILE... does it)."""
    full = {part for part, score in expected.items() if score == FULL[part]}
    return [
        task for task, earlier in EARLIER.items()
        if PART_OF[task] in full and any(PART_OF[t] not in full and PART_OF[t] in expected for t in earlier)
    ]


CORPUS = _corpus()
def _asked(path: Path) -> list[str]:
    """The examples and styles: every task of a part with full marks; the QA corpora: _leaning."""
    expected = _expected(path) or {}
    if path.parent == EXAMPLES or path.parent.name == "styles":
        return [task for task, part in PART_OF.items() if expected.get(part) == FULL[part]]
    return _leaning(expected)


ASKED = {path: tasks for path in CORPUS if (tasks := _asked(path))}


@pytest.fixture(scope="module")
def checked() -> dict[str, dict[str, str | None] | str]:
    run = subprocess.run(
        [sys.executable, str(REPO / "tests" / "public_agreement.py"), "-"],
        input=json.dumps({str(path): tasks for path, tasks in ASKED.items()}),
        capture_output=True, text=True, cwd=REPO, timeout=600,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    return json.loads(run.stdout)


def test_the_corpora_are_there():
    assert len(CORPUS) >= 500 and {path.parent.name for path in CORPUS} >= {"qa4s", "qa6s", "qa7s", "qa7e", "styles", "submissions"}
    assert len(ASKED) >= 40 and {task for tasks in ASKED.values() for task in tasks} == set(PART_OF)


@pytest.mark.parametrize("path", list(ASKED), ids=[f"{p.parent.name}/{p.name}" for p in ASKED])
def test_a_right_task_beside_a_wrong_earlier_one_passes_its_public_check(path, checked):
    results = checked[str(path)]
    assert isinstance(results, dict), f"{path.name}: {results}"
    failed = {task: message for task, message in results.items() if message is not None}
    assert not failed, f"{path.name}: the grader gives these tasks' parts full marks, yet: {failed}"
