"""Shared fixtures. The worker template starts when pytest starts, before any test loads the
reference solution or the hidden checks, exactly as the grader does it."""
from __future__ import annotations

from pathlib import Path

import pytest

from autograder.grading.worker.client import WorkerFactory

_FACTORY: WorkerFactory | None = None
REPO = Path(__file__).resolve().parents[1]
REFERENCE = REPO / "solutions" / "attention" / "attention.py"
BLANK = REPO / "assignments" / "attention" / "attention.py"


def pytest_configure(config: pytest.Config) -> None:
    global _FACTORY
    _FACTORY = WorkerFactory()


def pytest_unconfigure(config: pytest.Config) -> None:
    if _FACTORY is not None:
        _FACTORY.close()


@pytest.fixture(scope="session")
def factory() -> WorkerFactory:
    assert _FACTORY is not None
    return _FACTORY


@pytest.fixture(scope="session")
def reference_source() -> str:
    return REFERENCE.read_text(encoding="utf-8")


@pytest.fixture
def grade(factory, tmp_path):
    """grade(source_or_path, name=..., suffix=".py", seed=0, parts=None) -> SubmissionResult."""
    from autograder.grading.session import GradeOptions, grade_submission

    def run(submission: str | Path, name: str = "submission", suffix: str = ".py", seed: int = 0, parts: set[str] | None = None, **options):
        path = Path(submission) if isinstance(submission, Path) else tmp_path / f"{name}{suffix}"
        if not isinstance(submission, Path):
            path.write_text(submission, encoding="utf-8")
        result, _ = grade_submission(path, factory, GradeOptions(seed=seed, parts=frozenset(parts) if parts else None, **options))
        return result

    return run
