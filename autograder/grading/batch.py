"""The batch loop: every submission of a folder graded once into a ResultStore, by any runner.

One loop for every way of grading a batch: it lists the submissions, names their folders, takes a
shard's share, picks the batch's one seed, holds the output folder's lock, keeps what is already
graded (unless force) and hands the rest to a runner:
  - PoolRunner (here): this machine, a pool of grader processes forked from one warm `Grader`;
  - DockerRunner (deployment/docker.py): one grading container, or one per submission.
A runner gets the same GradeOptions whichever it is, so every option works on every path.
"""
from __future__ import annotations

import multiprocessing
import multiprocessing.queues
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path

import torch

from autograder.errors import AttnkitError
from autograder.feedback.output import ResultStore
from autograder.feedback.results import BatchResult, SubmissionResult
from autograder.grading import session
from autograder.grading.grader import Grader
from autograder.grading.session import BatchJob, GradeOptions, Runner, new_seed
from autograder.grading.shard import Shard
from autograder.grading.submission import output_names
from autograder.grading.worker.client import Budget, WorkerFactory, remove_stale_scratch
from autograder.grading.worker.launch import LaunchedTemplate

STALL_MARGIN_SECONDS = 120.0  # start-up (import torch, the template) and the grader's own work


def list_submissions(directory: Path) -> list[Path]:
    """The submissions of a batch folder (hidden entries skipped), in name order."""
    directory = Path(directory)
    if directory.is_file():
        raise AttnkitError(f"{directory} is a file, not a folder of submissions: grade one submission with `attnkit grade {directory}`")
    if not directory.is_dir():
        raise AttnkitError(f"{directory} is not a folder of submissions: give the folder that holds them")
    found = sorted(p for p in directory.iterdir() if not p.name.startswith("."))
    if not found:
        raise AttnkitError(f"no submissions in {directory}: put each student's .py, .ipynb, .zip or folder in it")
    return found


def grade_batch(
    directory: Path, out_dir: Path, *, jobs: int = 1, force: bool = False, options: GradeOptions = GradeOptions(),
    progress: Callable[[int, int, SubmissionResult], None] | None = None, shard: Shard | None = None,
    runner: Runner | None = None,
) -> BatchResult:
    """Grade every submission in a folder (only `shard`'s share of them when given: see
    grading/shard.py) into out_dir/<name>/ (submission.output_names); resumable unless force:
    a submission whose complete result is there is not graded again. runner: PoolRunner(jobs)
    unless given."""
    if jobs < 1:
        raise AttnkitError(f"--jobs {jobs}: must be at least 1")
    inbox, out = Path(directory).resolve(), Path(out_dir).resolve()
    if out == inbox or inbox in out.parents:  # its result folders became submissions on the next run
        raise AttnkitError(f"--out {out_dir} is inside the folder of submissions {directory}: the next run would grade its results"
                           " as submissions. Give --out a folder outside it")
    chosen: Runner = runner if runner is not None else PoolRunner(jobs)
    paths = list_submissions(directory)
    names = output_names(paths)  # from the whole folder: every shard names a submission alike
    if shard is not None:
        paths = [p for p in paths if shard.holds(names[p])]
    store = ResultStore(out_dir)
    tag = ".".join(t for t in (chosen.lock_tag, "" if shard is None else f"{shard.index}-of-{shard.count}") if t)
    done: dict[Path, SubmissionResult] = {}
    with store.lock(tag, [names[p] for p in paths]):
        remove_stale_scratch()  # a killed run's folders go even when nothing is left to grade
        todo = []
        for path in paths:
            if not force and store.is_done(path, names[path]):
                done[path] = store.load(names[path])
            else:
                todo.append((path, names[path]))
        if options.seed is None:  # one seed for the batch: a run that resumes keeps the one its results were graded with
            kept = next((result.seed for result in done.values() if result.seed is not None), None)
            options = replace(options, seed=kept if kept is not None else new_seed())
        if todo:
            job = BatchJob(Path(directory), Path(out_dir), todo, options, force, shard)
            for count, (path, result) in enumerate(chosen.run(job), start=1):
                done[path] = result
                if progress:
                    progress(count, len(todo), result)
    return BatchResult(tuple(done[p] for p in paths if p in done))


def stall_seconds(budget: Budget) -> float:
    """How long a batch waits for the next result before it calls a grader process stuck: a
    submission ends within its total budget plus one import and one call that were under way."""
    return budget.total_seconds + budget.import_seconds + budget.call_seconds + STALL_MARGIN_SECONDS


@dataclass(frozen=True)
class PoolRunner:
    """Grading on this machine: `jobs` grader processes forked from one warm Grader, sharing its
    worker template, each through a control socket of its own."""

    jobs: int = 1
    lock_tag: str = ""
    template: LaunchedTemplate | None = None  # launched for `jobs` clients before the caller imported torch (cli grade-batch)

    def run(self, job: BatchJob) -> Iterator[tuple[Path, SubmissionResult]]:
        processes = max(1, min(self.jobs, len(job.todo)))
        tasks = [(str(path), name, str(job.out_dir), job.options) for path, name in job.todo]
        with Grader(clients=processes, template=self.template) as grader:
            context = multiprocessing.get_context("fork")  # children share the parent's imported torch
            clients = context.SimpleQueue()
            for client in range(processes):
                clients.put(client)
            stalled = stall_seconds(job.options.budget)
            with context.Pool(processes, initializer=_pool_init, initargs=(grader, clients)) as pool:
                results = pool.imap_unordered(_pool_grade, tasks)
                for count in range(len(tasks)):
                    try:
                        data = results.next(timeout=stalled)
                    except multiprocessing.TimeoutError:
                        raise AttnkitError(
                            f"no submission finished in {stalled:.0f} s: a grader process is stuck or died. "
                            f"Run the same command again: the {count} results written are kept and the rest are graded"
                        ) from None
                    path, result = Path(data["path"]), SubmissionResult.from_dict(data["result"])
                    yield path, result


_FACTORY: WorkerFactory | None = None


def _pool_init(grader: Grader, clients: multiprocessing.queues.SimpleQueue) -> None:
    """A pool process: forked from the warm parent, it talks to the shared template through a
    control socket of its own."""
    global _FACTORY
    torch.set_num_threads(1)
    _FACTORY = grader.factory_for(clients.get())


def _pool_grade(task: tuple[str, str, str, GradeOptions]) -> dict:
    path, name, out_dir, options = task
    result, images = session.grade_safely(Path(path), _FACTORY, options, name)
    ResultStore(Path(out_dir)).write(result, images, prairielearn=options.prairielearn)
    return {"path": path, "result": result.to_dict()}
