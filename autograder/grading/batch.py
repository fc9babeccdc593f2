"""The batch loop: every submission of a folder graded once into a ResultStore, by any runner.

One loop for every way of grading a batch: it lists the submissions, names their folders, takes a
shard's share, picks the batch's one seed, holds the output folder's lock, keeps what is already
graded (unless force) and hands the rest to a runner:
  - PoolRunner (here): this machine, a pool of grader processes forked from one warm `Grader`;
  - DockerRunner (deployment/docker.py): one grading container, or one per submission.
A runner gets the same GradeOptions whichever it is, so every option works on every path.
"""
from __future__ import annotations

import contextlib
import multiprocessing
import signal
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from pathlib import Path

import torch

from autograder import settings
from autograder.settings import RESULT_FILE
from autograder.errors import AttnkitError
from autograder.feedback.i18n import t
from autograder.feedback.output import ResultStore
from autograder.feedback.results import BatchResult, SubmissionResult, load_submission_result
from autograder.grading import session
from autograder.grading.grader import Grader
from autograder.grading.session import BatchJob, GradeOptions, Runner, new_seed
from autograder.grading.shard import Shard
from autograder.grading.submission import output_names, submission_digest
from autograder.grading.worker.client import Budget, ended_text, remove_stale_scratch
from autograder.grading.worker.launch import LaunchedTemplate
from autograder.grading.worker.sandbox import set_parent_death_signal

POOL_EXIT_SECONDS = 10.0  # an idle pool process asked to end: it has nothing left to do


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
        kept = kept_seeds(out, {name for _, name in todo}, {names[p]: r for p, r in done.items()})  # OUT's other shards too
        if options.seed is None:  # one seed for the batch: a run that resumes keeps the one its results were graded with
            if len(kept) > 1:
                raise SeedMismatchError(f"{out_dir} holds results of several seeds ({', '.join(map(str, sorted(kept)))}): give --seed N"
                                        " and --force to grade the class again with one seed, or give another --out")
            options = replace(options, seed=kept.pop() if kept else new_seed())
        elif kept - {options.seed}:
            raise SeedMismatchError(mismatch_text(out_dir, options.seed, kept, shard, force))
        if todo:
            job = BatchJob(Path(directory), Path(out_dir), todo, options, force, shard)
            for count, (path, result) in enumerate(chosen.run(job), start=1):
                done[path] = result
                if progress:
                    progress(count, len(todo), result)
    return BatchResult(tuple(done[p] for p in paths if p in done))


class SeedMismatchError(AttnkitError):
    """An explicit --seed that is not the seed of the results already in OUT: one class, one seed."""


def kept_seeds(out_dir: Path, regraded: set[str], loaded: dict[str, SubmissionResult]) -> set[int]:
    """The seeds of the results in out_dir/*/attnkit.json that this run does not grade again (the
    folders named in `regraded` it does); loaded: those already read, by folder; an unreadable
    result has none."""
    seeds = {result.seed for result in loaded.values()}
    for path in Path(out_dir).glob(f"*/{RESULT_FILE}"):
        if path.parent.name in regraded or path.parent.name in loaded or not path.is_file():
            continue
        try:
            seeds.add(int(load_submission_result(path).seed))
        except (OSError, ValueError, TypeError, KeyError):
            continue
    return seeds


def mismatch_text(out_dir: Path, seed: int, kept: set[int], shard: Shard | None, force: bool) -> str:
    """The one-line refusal of a --seed that is not the seed of OUT's results, with the ways out."""
    theirs = ", ".join(map(str, sorted(kept)))
    said = f"--seed {seed} is not the seed of the results already in {out_dir} (seed {theirs}): one class is graded with one seed."
    if force and shard is None:  # what is left is the results of submissions no longer in the folder graded
        return (f"{said} --force grades again only the submissions in the folder given: remove from {out_dir} the results"
                " of those no longer there, or give another --out")
    if shard is not None:
        if len(kept) == 1:
            return f"{said} Give this shard --seed {theirs}, as the other shards had, or give another --out"
        return f"{said} Give another --out, or grade the whole class again into it with one --seed and --force"
    keep = f"leave --seed out to keep seed {theirs}, " if len(kept) == 1 else ""
    return f"{said} To go on, {keep}add --force to grade every submission again with seed {seed}, or give another --out"


def grader_seconds(budget: Budget) -> float:
    """How long the grader may work on one submission before its process is stopped (settings)."""
    return settings.grader_seconds(budget.total_seconds, budget.import_seconds, budget.call_seconds)


@dataclass(frozen=True)
class PoolRunner:
    """Grading on this machine: `jobs` grader processes forked from one warm Grader, sharing its
    worker template, each through a control socket of its own. A process that works on one
    submission past `grader_seconds` is stopped, and one that dies is replaced: that submission
    gets a result that says so, and the batch goes on."""

    jobs: int = 1
    lock_tag: str = ""
    template: LaunchedTemplate | None = None  # launched for `jobs` clients before the caller imported torch (cli grade-batch)

    def run(self, job: BatchJob) -> Iterator[tuple[Path, SubmissionResult]]:
        processes = max(1, min(self.jobs, len(job.todo)))
        with Grader(clients=processes, template=self.template) as grader:
            pool = _Pool(grader, processes)
            try:
                yield from pool.grade(deque(job.todo), job)
            finally:
                pool.stop()


_Task = tuple[str, str, str, GradeOptions]  # (path, name, out_dir, options)


@dataclass
class _Slot:
    """One grader process of the pool, and the submission it is grading (None: idle)."""

    client: int  # its control socket of the template
    process: BaseProcess
    conn: Connection
    task: _Task | None = None
    since: float = 0.0


class _Pool:
    """Grader processes forked from the warm parent (multiprocessing.Pool cannot stop one process
    and say which task it held: a stuck or dead process lost its task and the batch waited forever)."""

    def __init__(self, grader: Grader, processes: int) -> None:
        self.grader = grader
        self.context = multiprocessing.get_context("fork")  # children share the parent's imported torch
        self.slots: list[_Slot] = []
        for client in range(processes):
            self.slots.append(self._start(client))

    def _start(self, client: int) -> _Slot:
        ours, theirs = self.context.Pipe()
        process = self.context.Process(target=_serve, args=(self.grader, client, theirs), daemon=True)
        process.start()
        theirs.close()
        return _Slot(client, process, ours)

    def grade(self, todo: deque[tuple[Path, str]], job: BatchJob) -> Iterator[tuple[Path, SubmissionResult]]:
        limit = grader_seconds(job.options.budget)
        while todo or any(slot.task for slot in self.slots):
            for slot in self.slots:
                if slot.task is None and todo:
                    path, name = todo.popleft()
                    slot.task, slot.since = (str(path), name, str(job.out_dir), job.options), time.monotonic()
                    with contextlib.suppress(OSError):  # it died: its sentinel says so below
                        slot.conn.send(slot.task)
            busy = [slot for slot in self.slots if slot.task]
            due = min(slot.since for slot in busy) + limit
            wait([slot.conn for slot in busy] + [slot.process.sentinel for slot in busy], timeout=max(0.0, due - time.monotonic()))
            for slot in busy:
                done = self._settle(slot, limit)
                if done is not None:
                    yield done

    def _settle(self, slot: _Slot, limit: float) -> tuple[Path, SubmissionResult] | None:
        """The result of `slot`'s submission once it has one: the process's, or, when the process
        died or ran past `limit`, one that says so (the process is then replaced)."""
        assert slot.task is not None
        path, name, out_dir, options = slot.task
        reply = _reply(slot.conn)
        if reply is not None:
            if "error" in reply:  # the grader cannot grade at all here (a full disk): the batch stops
                raise reply["error"]
            slot.task = None
            return Path(path), SubmissionResult.from_dict(reply["result"])
        alive = slot.process.is_alive()
        if alive and time.monotonic() < slot.since + limit:
            return None
        slot.process.kill()
        slot.process.join()
        if alive:
            reason = t("note.grader_stopped", seconds=f"{limit:g}")
        else:
            reason = t("note.grader_died", ended=ended_text(slot.process.exitcode or 0))
        result = session.failed_result(Path(path), name, options, reason, submission_digest(Path(path)))
        self._replace(slot)
        store = ResultStore(Path(out_dir))
        store.remove_partials([name])  # it may have been writing that submission's files
        store.write(result, {}, prairielearn=options.prairielearn)
        return Path(path), result

    def _replace(self, slot: _Slot) -> None:
        slot.conn.close()
        assert self.grader.template is not None
        try:
            self.grader.template.renew(slot.client)
        except OSError as error:
            raise AttnkitError(f"the worker template is not answering ({error}): the results written are kept; run the same command again") from None
        fresh = self._start(slot.client)
        slot.process, slot.conn, slot.task = fresh.process, fresh.conn, None

    def stop(self) -> None:
        """Every process ends: asked to when idle, killed when still grading (an error stopped the batch)."""
        for slot in self.slots:
            if slot.task is None:
                with contextlib.suppress(OSError):
                    slot.conn.send(None)
            else:
                slot.process.kill()
        for slot in self.slots:
            slot.process.join(POOL_EXIT_SECONDS)
            if slot.process.is_alive():
                slot.process.kill()
                slot.process.join()
            slot.conn.close()


def _reply(conn: Connection) -> dict | None:
    """What a pool process sent, if it has; None while it works, or when it died (end of file)."""
    try:
        return conn.recv() if conn.poll() else None
    except (EOFError, OSError):
        return None


def _serve(grader: Grader, client: int, conn: Connection) -> None:
    """A pool process: forked from the warm parent, it grades what the parent sends, through a
    control socket of its own to the shared template, until it is sent None."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the batch's: it stops this process
    set_parent_death_signal()  # the batch killed: this process goes too
    torch.set_num_threads(1)
    factory = grader.factory_for(client)
    while (task := conn.recv()) is not None:
        path, name, out_dir, options = task
        try:
            result, images = session.grade_safely(Path(path), factory, options, name)
            ResultStore(Path(out_dir)).write(result, images, prairielearn=options.prairielearn)
            conn.send({"path": path, "result": result.to_dict()})
        except AttnkitError as error:
            conn.send({"error": error})
