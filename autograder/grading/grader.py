"""The grading session: `with Grader() as grader: grader.grade(path, options)`.

The constructor is the safety order. It starts the worker template (the fork server student
workers come from) first, before this process has imported torch, the hidden checks or the
reference solution, so nothing secret is ever in a worker's memory; only then does the grader
warm up (the reference, autograd, the renderer) while the template is still starting. There is
no other way to get a worker factory for grading, so the order cannot be got wrong.

This module imports no torch at import time: `attnkit check` starts the template before it pays
for torch, and both start at once.
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from autograder.grading.worker.launch import LaunchedTemplate, launch_template, signals_deferred

if TYPE_CHECKING:  # torch comes with these: imported after the template started
    from autograder.feedback.results import SubmissionResult
    from autograder.grading.session import GradeOptions
    from autograder.grading.worker.client import WorkerFactory


class Grader:
    """A started grader: the worker template, then the warmed-up grader process.

    template: a template launched earlier (`launch_template`, warm), before the caller's own
    `import torch` (grade-batch); this Grader then owns it. clients: how many processes share the template (a grading pool forks its processes from this
    one after the warm-up; each takes a factory with `factory_for(client)`). With one client the
    grader holds its own factory (`grader.factory`). render: warm the renderer up too (`check`
    renders only what a wrong map needs, so it does not). first_worker: ask for the first
    submission's worker at once (default sandbox, no preloads; `check`), so that it starts while
    this process warms up; a submission that needs another is given another.
    """

    def __init__(self, *, clients: int = 1, render: bool = True, first_worker: bool = False, template: LaunchedTemplate | None = None) -> None:
        self.template: LaunchedTemplate | None = None
        self.factory: WorkerFactory | None = None
        try:
            with signals_deferred():  # first: nothing secret is loaded yet; `template`: one launched earlier for at least `clients`
                self.template = template.serving(clients) if template is not None else launch_template(clients=clients, warm=render)
            if clients == 1:
                from autograder.grading.worker.client import WorkerFactory

                self.factory = WorkerFactory(self.template)
            if first_worker and self.factory is not None:  # the template forks it once ready, while this process warms up
                from autograder.grading.session import hidden_paths
                from autograder.grading.worker.sandbox import SandboxConfig

                from autograder.assignment import current

                self.factory.prepare(SandboxConfig(hidden=hidden_paths()), stand_ins=current().stand_ins_file)  # a default GradeOptions' worker
            from autograder.grading.session import warm_checks, warm_grader

            warm_grader(render)  # loads the reference: only now
            if clients > 1:
                warm_checks()  # shared by the pool's processes, forked after this
            from autograder.grading.integrity import figure

            figure.warm_up()  # the figure evidence's first label (matplotlib's Agg canvas, a font)
        except BaseException:  # interrupted while starting (Ctrl-C): the template must not outlive us
            self._abort()
            raise

    def factory_for(self, client: int) -> WorkerFactory:
        """The factory of one process of a pool (forked after the warm-up): its own control socket."""
        from autograder.grading.worker.client import WorkerFactory

        assert self.template is not None, "the grader is closed"
        return WorkerFactory(self.template, client=client)

    def grade(self, path: Path, options: GradeOptions, name: str = "") -> tuple[SubmissionResult, dict[str, bytes]]:
        """Grade one submission with this grader's factory; a bad submission or a grader failure
        on it becomes its result (session.grade_safely)."""
        from autograder.grading import session
        from autograder.grading.submission import output_name

        return session.grade_safely(Path(path), self.factory, options, name or output_name(Path(path)))

    def close(self) -> None:
        """Stop the template (after its keepers have ended); signals wait until it is done."""
        with signals_deferred():
            if self.factory is not None:
                self.factory.close()
            elif self.template is not None:
                self.template.close()
            self.factory = self.template = None

    def _abort(self) -> None:
        with signals_deferred():
            if self.factory is not None:
                self.factory.close()
            elif self.template is not None:  # it may still be warming up: no need to wait for that
                self.template.process.kill()
                self.template.process.wait()
            self.factory = self.template = None

    def __enter__(self) -> Grader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
