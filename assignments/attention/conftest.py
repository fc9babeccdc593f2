"""pytest setup for the public checks of attention.py (公开检查).

`pytest` runs every task's check, `pytest -m task_a2` runs one task. attention.py is imported from
this folder, matplotlib draws off screen (Agg), and a failed check is shown as its message only:
what was wrong and a hint, without a traceback.
"""

from __future__ import annotations

import ast
import os
import sys
import traceback
from pathlib import Path

os.environ.setdefault("MPLBACKEND", "Agg")  # before anything imports matplotlib.pyplot
HERE = Path(__file__).resolve().parent
if sys.path[:1] != [str(HERE)]:
    sys.path.insert(0, str(HERE))  # `import attention` finds the attention.py next to this file

import matplotlib  # noqa: E402

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

import public_checks  # noqa: E402

# What the grader has besides Python's standard library (README, Install): an import of anything
# else may stop attention.py there in the grader even though it runs here.
GRADER_HAS = {"torch", "numpy", "matplotlib", "seaborn"}

MARKERS = {
    f"task_{task_id.replace('.', '').lower()}": (task_id, name) for task_id, name, _ in public_checks.CHECKS
}


def pytest_configure(config: pytest.Config) -> None:
    for marker, (task_id, name) in MARKERS.items():
        config.addinivalue_line("markers", f"{marker}: the public check of Task {task_id} ({name})")


def pytest_report_header(config: pytest.Config) -> list[str]:
    return [
        "attention.py public checks: `pytest` runs them all, `pytest -m task_a2` runs one task",
        "  tasks: " + ", ".join(MARKERS),
    ]


def imports_the_grader_lacks(source: str) -> list[str]:
    """The packages `source` imports that the grader is not promised to have. An import in a
    `try:` block (optional) or under `if __name__ == "__main__":` (never run by the grader) is fine."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []  # the attention fixture says what is wrong
    spared = set()
    for node in ast.walk(tree):
        demo = isinstance(node, ast.If) and "__main__" in ast.unparse(node.test)
        if demo or isinstance(node, (ast.Try, getattr(ast, "TryStar", ast.Try))):
            spared.update(id(inner) for statement in node.body for inner in ast.walk(statement))
    names = set()
    for node in ast.walk(tree):
        if id(node) in spared:
            continue
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module.split(".")[0])
    return sorted(
        name for name in names
        if name not in sys.stdlib_module_names and name not in GRADER_HAS
        and not (HERE / f"{name}.py").exists() and not (HERE / name).is_dir()
    )


def pytest_terminal_summary(terminalreporter) -> None:
    try:
        lacking = imports_the_grader_lacks((HERE / "attention.py").read_text(encoding="utf-8"))
    except OSError:
        return
    if lacking:
        terminalreporter.write_line(
            f"attention.py imports {', '.join(lacking)}, which the grader does not promise to have (only Python's "
            "standard library, torch, numpy, matplotlib and seaborn): where it is missing, that import fails "
            "(ModuleNotFoundError), and so does all that needs it. Wrap an optional one in `try: ... except ImportError:`. "
            f"评分环境只保证有标准库、torch、numpy、matplotlib 和 seaborn：{', '.join(lacking)} 可能没有安装。",
            yellow=True,
        )


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    """Show a failed public check (or a task not implemented yet) as its one-line message."""
    outcome = yield
    report = outcome.get_result()
    if call.excinfo is not None and call.excinfo.errisinstance(
        (public_checks.CheckFailure, NotImplementedError)
    ):
        report.longrepr = str(call.excinfo.value)


@pytest.fixture(scope="session")
def attention():
    """The student's attention.py from this folder; an import error fails with a short message."""
    problem = ""
    try:
        import attention as module
    except Exception as error:  # a syntax error or a crash at import time in the student's file
        lines = [
            frame.lineno
            for frame in traceback.extract_tb(error.__traceback__)
            if frame.filename.endswith("attention.py")
        ]
        where = f" at line {lines[-1]}" if lines and not isinstance(error, SyntaxError) else ""
        problem = f"attention.py could not be imported{where}: {type(error).__name__}: {error}"
    if problem:
        pytest.fail(problem, pytrace=False)
    if Path(module.__file__).resolve() != HERE / "attention.py":
        pytest.fail(f"`import attention` found {module.__file__}, not {HERE / 'attention.py'}", pytrace=False)
    return module


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")
