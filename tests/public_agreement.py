"""Run the student release's public checks, task by task, on submission files; print JSON.

    python tests/public_agreement.py FILE...   ->  {"FILE": {"A.1": null | "failure message", ...}, ...}
    echo '{"FILE": ["B.1", "C.3"], ...}' | python tests/public_agreement.py -   (these tasks only)

Used by tests/test_qa_qa8c.py. torch and public_checks are imported once; each submission is
loaded and checked in a forked child (a file may change torch's global state), as the student's
attention.py: its chunks run in a fresh module named `attention`, its helper files next to it.
"""
from __future__ import annotations

import json
import multiprocessing
import os
import sys
import tempfile
import types
from pathlib import Path

os.environ["MPLBACKEND"] = "Agg"
REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "assignments" / "attention"))

import matplotlib.pyplot as plt  # noqa: E402
import torch  # noqa: E402
import public_checks  # noqa: E402

try:  # imported once here rather than in each child: many submissions draw with seaborn
    import seaborn  # noqa: F401, E402
except ImportError:
    pass

from autograder.grading.submission import load_submission  # noqa: E402

TIMEOUT_S = 120


def _warm_up() -> None:
    """Run every check once on the reference solution, so that torch's first-use costs (the meta
    device of A.4's check: seconds) are paid here, once, and not again in each child."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("attnkit_reference", REPO / "solutions" / "attention" / "attention.py")
    assert spec is not None and spec.loader is not None
    reference = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(reference)
    saved, sys.stdout = sys.stdout, open(os.devnull, "w")
    try:
        for _, name, check in public_checks.CHECKS:
            check(getattr(reference, name), "en")
    finally:
        sys.stdout = saved
    plt.close("all")


def _check(path: Path, tasks: list[str] | None, folder: Path, reply) -> None:
    sys.stdout = sys.stderr = open(os.devnull, "w")  # the passed lines and the submission's prints
    submission = load_submission(path)
    for name, text in submission.files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text, encoding="utf-8")
    sys.path.insert(0, str(folder))
    os.chdir(folder)  # what a submission writes (a figure, a log) lands there
    module = types.ModuleType("attention")
    module.__file__ = str(folder / "attention.py")
    sys.modules["attention"] = module
    for line, text in submission.chunks:  # a chunk that raises is skipped, as in the grader's worker
        try:
            exec(compile("\n" * (line - 1) + text, str(path), "exec"), vars(module))
        except BaseException:  # noqa: BLE001 (SystemExit too: the checks still run)
            pass
    results: dict[str, str | None] = {}
    for task_id, name, check in public_checks.CHECKS:
        if tasks is not None and task_id not in tasks:
            continue
        try:
            check(public_checks.student_attr(module, name, "en"), "en")
            results[task_id] = None
        except public_checks.CheckFailure as failure:
            results[task_id] = str(failure)
        except Exception as error:  # a crash of the check itself: a failure to report
            results[task_id] = f"the check crashed: {type(error).__name__}: {error}"
        plt.close("all")
    reply.send(results)


def check_files(paths: dict[Path, list[str] | None]) -> dict[str, dict[str, str | None] | str]:
    torch.set_num_threads(1)  # no OpenMP pool in the parent: a child forked after one was used hangs
    _warm_up()
    context = multiprocessing.get_context("fork")
    found: dict[str, dict[str, str | None] | str] = {}
    for path, tasks in paths.items():
        receive, send = context.Pipe(duplex=False)
        with tempfile.TemporaryDirectory(prefix="public_agreement") as folder:  # removed once the child is gone
            child = context.Process(target=_check, args=(path, tasks, Path(folder), send))
            child.start()
            try:
                found[str(path)] = receive.recv() if receive.poll(TIMEOUT_S) else "no answer"
            except EOFError:  # the child died without answering
                found[str(path)] = "no answer"
            child.join(5)
            if child.is_alive():
                child.kill()
                child.join()
    return found


if __name__ == "__main__":
    if sys.argv[1:] == ["-"]:
        asked = {Path(path): tasks for path, tasks in json.load(sys.stdin).items()}
    else:
        asked = dict.fromkeys(map(Path, sys.argv[1:]))
    print(json.dumps(check_files(asked)))
