"""attnkit: grade programming assignments safely, and generate the student release.

The CLI parses arguments, calls the core, prints, and picks the exit code (0 ok, 1 a check
failed for `check`, 2 a usage or input error). Every command can be called as main([...]).
"""
from __future__ import annotations

import argparse
import os
import shutil
import sys
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from autograder.errors import AttnkitError
from autograder.feedback.i18n import LANGS, t
from autograder.feedback.shown import shown
from autograder.grading.integrity.flags import INTEGRITY_MODES
from autograder.settings import DEFAULT_BASE_IMAGE, GRADES_CSV, IMAGE, LMS_LAYOUTS, LOCAL_BASE_IMAGE

if TYPE_CHECKING:
    from tqdm import tqdm

    from autograder.deployment.roster import Roster


def _given_lang(args: argparse.Namespace, path: object = None) -> str:
    """--lang, else ATTNKIT_LANG, else the language of the file (`path`, else the one given:
    attention.zh.ipynb, attention.zh.py: zh; a folder's or zip's graded file), else English."""
    from autograder.grading.submission import file_language

    path = path if path is not None else getattr(args, "path", None)
    return getattr(args, "lang", None) or os.environ.get("ATTNKIT_LANG") or (file_language(str(path)) if isinstance(path, (str, Path)) else "en")




def _lang(args: argparse.Namespace, path: object = None) -> str:
    lang = _given_lang(args, path)
    if lang not in ("en", "zh"):
        raise AttnkitError(f"unknown language {lang!r} (from --lang or ATTNKIT_LANG): use en or zh")
    return lang


def _options(args: argparse.Namespace, parts: frozenset[str] | None = None):
    from autograder.grading.session import GradeOptions

    return GradeOptions(seed=args.seed, lang=_lang(args), parts=parts, prairielearn=getattr(args, "prairielearn", False), integrity=getattr(args, "integrity", "record"))


def _parts(args: argparse.Namespace) -> frozenset[str] | None:
    """--parts A,C: grade only those parts (None: every part)."""
    if not getattr(args, "parts", None):
        return None
    from autograder.assignment import current

    parts = frozenset(p.strip().upper() for p in args.parts.split(",") if p.strip())
    known = current().part_titles
    unknown = sorted(parts - set(known))
    if unknown or not parts:
        raise AttnkitError(f"--parts {args.parts}: unknown part {', '.join(unknown) or '(none given)'}; use letters among {', '.join(known)}")
    return parts


def _cmd_release(args: argparse.Namespace) -> int:
    from autograder.assignment import current
    from autograder.authoring.examples import write_examples
    from autograder.paths import EXAMPLES_DIR
    from autograder.authoring.release import release

    files = release()
    print(f"wrote {len(files)} files of the student release")
    manifest = current()
    examples = write_examples(manifest, EXAMPLES_DIR)
    if examples:
        print(f"wrote {len(examples)} buggy example submissions into {EXAMPLES_DIR} ({manifest.folder / manifest.mutants})")
    return 0


def _student_file() -> str:
    """The file students submit, as the assignment's manifest names it."""
    from autograder.assignment import current

    return current().student_file


def _existing(path: str) -> Path:
    if not Path(path).exists():
        raise AttnkitError(t("cli.no_submission", path=path))
    return Path(path)


def _folder_name(name: str | None) -> str:
    """--name: one folder name ('' when not given)."""
    if name is None:
        return ""
    if name in ("", ".", "..") or "/" in name or "\0" in name or name.startswith("."):
        raise AttnkitError(f"--name {name!r}: give one folder name (no '/', not hidden), e.g. alice.zip")
    return name


def _cmd_grade(args: argparse.Namespace) -> int:
    from autograder.settings import FEEDBACK_HTML

    path = _existing(args.path)
    name = _folder_name(args.name)
    if args.docker:
        from autograder.deployment.docker import grade_in_docker

        options = _options(args, _parts(args))
        result = grade_in_docker(path, Path(args.out), options, image=args.image, name=name)
        folder = Path(args.out) / result.submission
    else:
        from autograder.grading.grader import Grader

        with Grader() as grader:  # the worker template starts before this process imports torch
            options = _options(args, _parts(args))
            result, images = grader.grade(path, options, name)
        from autograder.feedback.output import ResultStore

        folder = ResultStore(Path(args.out)).write(result, images, prairielearn=options.prairielearn)
    _print_result(result, _lang(args))
    print(t("grade.feedback", _lang(args), path=folder / FEEDBACK_HTML))
    return 0


def _cmd_check(args: argparse.Namespace) -> int:
    from autograder.feedback.checkview import Selection, render_check

    selection = Selection(task=args.task, until=args.until, show_all=args.all)
    parts = selection.parts()  # validates --task / --until before anything starts
    path = _existing(args.path) if args.path else _default_file("check")
    args.path = str(path)  # the language of the file found, unless told
    lang = _lang(args)
    from autograder.grading.submission import load_submission

    load_submission(path)  # a file that cannot be graded is an input error here, not a failed check
    from dataclasses import replace

    from autograder.grading.grader import Grader

    with Grader(render=False, first_worker=True) as grader:
        from autograder.grading.session import grade_submission

        assert grader.factory is not None  # a Grader of one client holds its factory
        result, _ = grade_submission(path, grader.factory, replace(_options(args, parts), visible_only=True, images=False, worker_ahead=True))
    lines, done = render_check(result, lang, selection)
    print(shown("\n".join(lines), keep="\n\t"))
    return 0 if done else 1


def _cmd_watch(args: argparse.Namespace) -> int:
    from dataclasses import replace

    from autograder.grading.watch import student_files

    paths = [Path(args.path)] if args.path else student_files(Path.cwd())  # none given: the student's files, the one saved last first
    if not paths[0].is_file():
        raise AttnkitError(t("cli.no_file", path=paths[0]))

    lang = _lang(args, paths[0])
    stop = _StopOnSignal()
    _become_subreaper()  # a keeper or worker orphaned while the template is stopped comes back here
    grader = None
    try:
        from autograder.grading.grader import Grader
        from autograder.grading.worker.launch import signals_deferred

        with signals_deferred():  # a SIGTERM between the template's launch and `grader =` left the template running
            grader = Grader()
        from autograder.feedback.formats.watchview import render_view
        from autograder.grading.session import new_seed
        from autograder.grading.watch import watch

        options = replace(_options(args), visible_only=True)
        options = replace(options, seed=options.seed if options.seed is not None else new_seed())  # one seed per session
        clear = "\x1b[2J\x1b[H" if sys.stdout.isatty() else ""

        def show(path: Path, step) -> None:
            lang = _lang(args, path)  # a Chinese notebook's view is in Chinese unless told
            print(clear + shown(render_view(step, path, options.seed, lang), keep="\n\t") + ("" if clear else "\n"), flush=True)

        assert grader.factory is not None  # a Grader of one client holds its factory
        watch(paths, grader.factory, options, show)
    except (KeyboardInterrupt, AttnkitError):
        if not stop.signalled:
            raise
        print(t("watch.stopped", lang), flush=True)
    finally:
        if grader is not None:
            grader.close()
            _reap_orphans()
        stop.restore()
    return 0


ORPHAN_REAP_SECONDS = 5.0  # orphans die at once with their parent (parent-death signals); this bounds the wait


def _become_subreaper() -> None:
    """Make this process the child subreaper of what it starts (prctl PR_SET_CHILD_SUBREAPER), so
    that a keeper or worker whose template was stopped before it is re-parented here and reaped
    by `_reap_orphans` instead of outliving `attnkit watch`."""
    import ctypes

    ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)  # 36: PR_SET_CHILD_SUBREAPER; a failure only loses this safety net


def _reap_orphans() -> None:
    """Wait (bounded) until every process re-parented here has ended, and reap it."""
    import time

    deadline = time.monotonic() + ORPHAN_REAP_SECONDS
    while time.monotonic() < deadline:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:  # no child left
            return
        if pid == 0:
            time.sleep(0.02)


class _StopOnSignal:
    """Ctrl-C (SIGINT) or SIGTERM: raise KeyboardInterrupt and remember it. A check interrupted
    inside pytest comes back as an error; `signalled` tells that apart from a real one."""

    def __init__(self) -> None:
        import signal

        self.signalled = False
        self._previous = {sig: signal.signal(sig, self._handle) for sig in (signal.SIGINT, signal.SIGTERM)}

    def _handle(self, signum: int, frame: object) -> None:
        self.signalled = True
        raise KeyboardInterrupt

    def restore(self) -> None:
        import signal

        for sig, handler in self._previous.items():
            signal.signal(sig, handler)



def _default_file(command: str) -> Path:
    """The student's file when none is given: the one saved last here, else in the release
    folder (as `attnkit watch` finds it)."""
    from autograder.grading.watch import default_path

    return default_path(Path.cwd(), command)


def _cmd_hint(args: argparse.Namespace) -> int:
    from autograder.assignment import current
    from autograder.feedback.hints import TIER_NAMES, next_hint, state_path, tiers_for

    tables = current().hint_tables()
    tiers_for(args.task, tables)  # an unknown task is told first
    if args.file:
        student_file = Path(args.file)
        if not student_file.is_file():  # as check and watch: a mistyped name is an error, not a new hint state
            raise AttnkitError(t("cli.no_file", _lang(args), path=args.file))
    else:
        try:
            student_file = _default_file("hint")
        except AttnkitError:  # no file yet: the state goes next to where it will be
            student_file = Path(_student_file())
    lang = _lang(args, student_file)  # as check's: zh for attention.zh.ipynb, the file check suggested this from (qa39p)
    tier, text = next_hint(args.task, student_file, tables, lang, reset=args.reset)
    print(t("hint.heading", lang, task=args.task, tier=tier, kind=TIER_NAMES[lang][tier - 1]))
    print(text)
    again = args.task + (f" --file {args.file}" if args.file else "") + (f" --lang {args.lang}" if args.lang else "")
    print(t("hint.next", lang, task=again) if tier < 3 else t("hint.last", lang, task=args.task))
    print(t("hint.saved", lang, path=state_path(student_file)))
    return 0


def _print_result(result, lang: str = "en") -> None:
    from autograder.feedback.formats.view import note_text
    from autograder.feedback.formats.view import part_title

    print(t("grade.total", lang, name=shown(result.submission), score=f"{result.score:g}", max_score=f"{result.max_score:g}"))
    for part in result.parts:
        label = f"{t('grade.part', lang, part=part.part)} {part_title(part.part, lang, result.assignment)}"
        print(f"  {label:<36} {part.score:g}/{part.max_score:g}")
    for event in result.events:
        print(f"  {t('check.note', lang, event=shown(note_text(event, lang), keep=chr(10)))}")
    if result.grader_error:
        print(f"  {t('grade.could_not', lang, error=shown(note_text(result.grader_error, lang), keep=chr(10)))}")


def _cmd_grade_batch(args: argparse.Namespace) -> int:
    roster = _roster(args)  # read first: a bad roster fails before any grading
    template = None
    if not (args.docker or args.container_per_submission) and args.jobs >= 1:
        from autograder.grading.worker.launch import launch_template, signals_deferred

        with signals_deferred():  # before this process imports torch, as Grader does: the two start at once
            template = launch_template(clients=args.jobs)
    try:
        return _grade_batch(args, roster, template)
    finally:
        if template is not None:  # nothing to grade, or an error: the pool's Grader never took it over
            template.discard()


def _grade_batch(args: argparse.Namespace, roster, template) -> int:
    from autograder.grading.batch import PoolRunner, grade_batch
    from autograder.grading.session import Runner
    from autograder.grading.integrity.similarity import BatchFingerprints
    from autograder.grading.shard import Shard

    shard = Shard.parse(args.shard) if args.shard else None
    if shard and args.seed is None:
        raise AttnkitError("--shard needs --seed N: every shard must draw the same random inputs (e.g. --seed 2024)")
    runner: Runner = PoolRunner(args.jobs, template=template)
    if args.docker or args.container_per_submission:
        from autograder.deployment.docker import DockerRunner

        runner = DockerRunner(image=args.image, jobs=args.jobs, per_submission=args.container_per_submission)
    prints = None if shard else BatchFingerprints()  # a shard writes no class report

    def on_result(count: int, total: int, result) -> None:
        progress(count, total, result)
        if prints is not None:  # taken now, while the pool grades the rest, rather than all in the report
            prints.add(result.submission, result.source)

    with BatchProgress() as progress:
        result = grade_batch(Path(args.directory), Path(args.out), jobs=args.jobs, force=args.force, options=_options(args, _parts(args)),
                             progress=on_result, shard=shard, runner=runner)
    skipped = len(result.submissions) - progress.graded
    if skipped:  # resumed: the unchanged ones kept their results
        print(f"{skipped} submission(s) already graded in {args.out} by this grader, unchanged since, were not graded again (--force regrades them)",
              file=sys.stderr)
    if shard:  # other shards are still writing: the class report comes once all are done
        from autograder.feedback.report import as_reported

        _print_scores(as_reported(result))
        kept = f" ({skipped} already there)" if skipped else ""  # this run's count: a re-run that grades nothing says 0
        print(f"shard {shard}: {progress.graded} submission(s) graded into {args.out}{kept}; when every shard is done: attnkit report {args.out}")
        return 0
    _finish_batch(result, Path(args.out), _lang(args), roster, prints)
    return 0


def shown_name(name: str) -> str:
    """A submission's name as the terminal shows it (feedback/shown.py): a file name chosen by a
    student must not act in the instructor's terminal or read as another name."""
    return shown(name)


class BatchProgress:
    """grade-batch's progress: a tqdm bar with one line per submission on a terminal; on a pipe or
    in a log, the same lines alone (no bar, no carriage returns)."""

    def __init__(self, stream: TextIO | None = None) -> None:
        self._stream = stream or sys.stderr
        self._bar: tqdm | None = None
        self.graded = 0  # submissions graded in this run (a resumed batch skips those already done)

    def __call__(self, count: int, total: int, result) -> None:
        self.graded += 1
        status = "could not grade" if result.grader_error else f"{result.score:g}/{result.max_score:g}"
        line = f"{shown_name(result.submission)}: {status} ({result.execution_time:.1f} s)"
        if not self._stream.isatty():
            print(f"{count}/{total} {line}", file=self._stream, flush=True)
            return
        if self._bar is None:
            from tqdm import tqdm  # lazy: only a batch on a terminal draws a bar

            self._bar = tqdm(total=total, file=self._stream, unit="submission", dynamic_ncols=True)
        self._bar.write(line, file=self._stream)
        self._bar.update(count - self._bar.n)

    def __enter__(self) -> BatchProgress:
        return self

    def __exit__(self, *exc: object) -> None:
        if self._bar is not None:
            self._bar.close()


def _finish_batch(batch, out_dir: Path, lang: str, roster=None, prints=None) -> None:
    """The class report after a batch; prints: the BatchFingerprints of the submissions it graded."""
    from autograder.feedback.report import as_reported, write_report

    taken = prints.prints if prints is not None else {}
    index = write_report(out_dir, lang, roster=roster, fresh=set(taken), prints=taken)
    _print_scores(as_reported(batch))  # a file that does not compile: could not grade, as in grades.csv
    if roster is not None:
        _warn_unmatched([r.submission for r in batch.submissions], roster, f"no student_id in {GRADES_CSV}")
    print(f"grades: {out_dir / GRADES_CSV}")
    print(f"class dashboard: {index}")
    print(f"feedback pages: {out_dir}/<submission>/feedback.html")


def _print_scores(batch) -> None:
    """The batch's score table. A submission that could not be graded says so, as grades.csv does
    (no score there): its checks are all 0 points, and '0/100' read as a grade it never got."""
    names = {result.submission: shown_name(result.submission) for result in batch.submissions}
    width = max([28, *map(len, names.values())])  # a long name no longer pushes its row out of line
    print(f"{'submission':<{width}} {'score':>9}  parts")
    for result in batch.submissions:
        if result.grader_error:
            print(f"{names[result.submission]:<{width}} {'error':>9}  could not grade: {shown(result.grader_error)}")
            continue
        parts = " ".join(f"{p.part}:{p.score:g}/{p.max_score:g}" for p in result.parts)
        score = f"{result.score:g}/{result.max_score:g}"
        print(f"{names[result.submission]:<{width}} {score:>9}  {parts}")


def _cmd_demo(args: argparse.Namespace) -> int:
    from autograder.assignment import current
    from autograder.authoring.stubs import stub_source
    from autograder.paths import EXAMPLES_DIR

    out = Path(args.out)
    inbox = out / "submissions"
    if inbox.exists():
        shutil.rmtree(inbox)
    inbox.mkdir(parents=True)
    manifest = current()
    shutil.copyfile(manifest.solution, inbox / "reference.py")
    blank = stub_source(manifest.solution.read_text(encoding="utf-8"), str(manifest.solution))  # not the student's working copy
    (inbox / "blank_release.py").write_text(blank, encoding="utf-8")
    for example in sorted(EXAMPLES_DIR.iterdir()):
        target = inbox / example.name
        shutil.copytree(example, target) if example.is_dir() else shutil.copyfile(example, target)
    from autograder.grading.batch import grade_batch

    with BatchProgress() as progress:
        batch = grade_batch(inbox, out / "results", jobs=args.jobs, force=True, options=_options(args), progress=progress)
    _finish_batch(batch, out / "results", _lang(args))
    print(f"Gradescope package (not built by the demo): attnkit export gradescope --out {out / 'autograder.zip'}")
    print(f"PrairieLearn question (not built by the demo): attnkit export prairielearn --out {out / 'pl-question'}"
          f" --image <registry>/{IMAGE}")
    return 0


def _cmd_train_reference(args: argparse.Namespace) -> int:
    from autograder.authoring.train_reference import train_reference

    print(train_reference(Path(args.out) if args.out is not None else None, seed=args.seed))
    return 0


def _cmd_nbgrader_init(args: argparse.Namespace) -> int:
    from autograder.authoring.nbgrader_course import init_course

    notebook = init_course(Path(args.course_dir))
    course = notebook.parents[2]
    print(f"created the nbgrader course {course} (source notebook: {notebook})")
    print(f"next: cd {course} && nbgrader generate_assignment {notebook.parent.name}")
    return 0


def _roster(args: argparse.Namespace):
    if not getattr(args, "roster", None):
        return None
    from autograder.deployment.roster import load_roster

    return load_roster(Path(args.roster))


def _warn_unmatched(names: list[str], roster: Roster, consequence: str) -> None:
    """A warning for each graded submission the roster maps to no student, or to several."""
    for name in names:
        if roster.lookup(name) is None:
            print(f"warning: {name}: not in the roster (or more than one match); {consequence}", file=sys.stderr)


def _cmd_report(args: argparse.Namespace) -> int:
    from autograder.feedback.report import mixed_seeds_warning, read_class, write_gradebook, write_report

    roster = _roster(args)
    if args.lms and roster is None:
        raise AttnkitError(f"--lms {args.lms} needs --roster FILE: the LMS's student list that says whose each submission is")
    if args.lms and roster is not None:
        from autograder.deployment.lms import check_roster

        check_roster(args.lms, roster)  # before anything is written
    out_dir = Path(args.out_dir)
    results = read_class(out_dir)
    index = write_report(out_dir, _lang(args), show_after_due=args.show_after_due, roster=roster, results=results)
    warning = mixed_seeds_warning(results.batch)
    if warning:  # also at the top of summary.md
        print(f"warning: {warning}", file=sys.stderr)
    print(f"class dashboard: {index}")
    print(f"grades:          {index.parent / GRADES_CSV}")
    if args.lms:
        path, book = write_gradebook(out_dir, results.batch, roster, args.lms, args.assignment)
        print(f"{args.lms} import: {path}")
        for name in book.unmatched:
            print(f"warning: {name}: not in the roster {args.roster} (or more than one match); left out of {path.name}",
                  file=sys.stderr)
    elif roster is not None:
        _warn_unmatched([r.submission for r in results.batch.submissions], roster, f"no student_id in {GRADES_CSV}")
    print(f"summary:         {index.parent / 'summary.md'}")
    print(f"feedback pages:  {index.parent}/<submission>/feedback.html (and feedback.md)")
    return 0


def _cmd_docker_build(args: argparse.Namespace) -> int:
    from autograder.deployment.docker import build_image, describe

    print(describe(build_image(tag=args.tag, base_image=args.base_image, download=not args.no_download)))
    return 0


def _seed(text: str) -> int:
    """A run's seed: a whole number in the range every platform keeps (PrairieLearn's params, the grader's own)."""
    try:
        seed = int(text)
    except ValueError:
        seed = -1
    if not 0 <= seed < 2**31:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number from 0 to {2**31 - 1}")
    return seed


def _cmd_export(args: argparse.Namespace) -> int:
    from autograder.deployment.export import export_gradescope, export_prairielearn

    if args.platform == "gradescope":
        path = export_gradescope(Path(args.out), download=not args.no_download, online=args.online)
    else:
        path = export_prairielearn(Path(args.out), image=args.image)
        if args.image == IMAGE:  # the local name: PrairieLearn pulls from a registry
            print(f"note: info.json names the image {IMAGE}, which PrairieLearn cannot pull; push the image to a registry"
                  " PrairieLearn reaches and pass --image <registry>/attnkit-grader:latest", file=sys.stderr)
    print(f"wrote {path}")
    return 0


def _cmd_run_prairielearn(args: argparse.Namespace) -> int:
    from autograder.deployment.platforms.prairielearn import run

    run(Path(args.grade_dir))
    return 0  # PrairieLearn reads results.json only after an exit code 0, and one is always written


def _kit_folder() -> str:
    """The student folder of the kit this command belongs to (not the current folder's: qa39p 5)."""
    from autograder.paths import REPO_ROOT

    return f"{REPO_ROOT / 'assignments'}/<assignment>/"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="attnkit", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)

    per_file = "feedback language (or ATTNKIT_LANG; default: zh for a *.zh.ipynb or *.zh.py file, or a folder or zip whose graded file is one, else en)"
    one_for_all = "feedback language of every submission (or ATTNKIT_LANG; default: en, whatever the file names)"

    def common(p: argparse.ArgumentParser, lang_help: str = per_file) -> None:
        p.add_argument("--seed", type=_seed, default=None, help="reproduce the inputs of an earlier run (0 to 2147483647)")
        p.add_argument("--lang", choices=("en", "zh"), default=None, help=lang_help)
        p.add_argument("--integrity", choices=INTEGRITY_MODES, default="record", help="record: integrity flags only show to the instructor; strict: a flagged part scores 0")

    p = sub.add_parser("release", help="generate assignments/ and examples/submissions/bug_*.py from solutions/",
                       description="Regenerate the student release (assignments/<assignment>/: stubs, notebooks, public checks) and "
                                   "examples/submissions/bug_*.py from the reference solution in solutions/.")
    p.set_defaults(func=_cmd_release)

    p = sub.add_parser("grade", help="grade one submission (.py, .ipynb, folder or .zip)")
    p.add_argument("path", help="the submission: a .py file, an .ipynb notebook, a folder or a .zip")
    p.add_argument("--out", default="out", help="results folder (default: out)")
    p.add_argument("--docker", action="store_true", help="grade in a fresh container of the grader image")
    p.add_argument("--prairielearn", action="store_true", help="also write PrairieLearn's results file (prairielearn.json)")
    p.add_argument("--parts", default=None, help="grade only these parts, e.g. A,B (default: all)")
    p.add_argument("--image", default=IMAGE, help="grader image (attnkit docker build)")
    p.add_argument("--name", default=None, help="the results folder under --out (default: the submission's name without .py/.ipynb/.zip)")
    common(p)
    p.set_defaults(func=_cmd_grade)

    p = sub.add_parser("grade-batch", help="grade every submission in a folder")
    p.add_argument("directory", help="a folder holding one entry per submission (.py, .ipynb, .zip or a folder)")
    p.add_argument("--out", required=True, help="results folder: OUT/<submission>/, grades.csv, index.html")
    p.add_argument("--jobs", type=int, default=1, help="submissions graded at once (default: 1)")
    p.add_argument("--force", action="store_true", help="grade again those already graded (a changed submission is graded again anyway)")
    p.add_argument("--docker", action="store_true", help="grade in one container of the grader image")
    p.add_argument("--prairielearn", action="store_true", help="also write PrairieLearn's results file (prairielearn.json)")
    p.add_argument("--container-per-submission", action="store_true", help="with --docker: a fresh container for each submission")
    p.add_argument("--parts", default=None, help="grade only these parts, e.g. A,B (default: all)")
    p.add_argument("--roster", default=None, help="CSV mapping submissions to students (an LMS export): fills grades.csv's student_id")
    p.add_argument("--shard", default=None, metavar="K/N", help="grade only share K (0..N-1) of N, stable by submission name; needs --seed; then attnkit report OUT")
    p.add_argument("--image", default=IMAGE, help="grader image (attnkit docker build)")
    common(p, one_for_all)
    p.set_defaults(func=_cmd_grade_batch)

    p = sub.add_parser("check", help="the visible checks, task by task, with hints (for students)")
    p.add_argument("path", nargs="?", default=None, help="your file or notebook (default: the one saved last, here or in assignments/<assignment>/)")
    which = p.add_mutually_exclusive_group()
    which.add_argument("--task", type=str.upper, default=None, help="only this task's checks, e.g. A.2 (a part's letter, e.g. F: all its tasks)")
    which.add_argument("--until", type=str.upper, default=None, help="the tasks up to this one, e.g. A.4")
    which.add_argument("--all", action="store_true", help="list every task, not only the first unfinished one")
    common(p)
    p.set_defaults(func=_cmd_check)

    p = sub.add_parser("hint", help="the next hint for a task: the idea, then the operation, then the code")
    p.add_argument("task", type=str.upper, help="a task id, e.g. A.2")
    p.add_argument("--file", default=None, help=f"your file (default: the one saved last, here or in {_kit_folder()}); the hint state is saved next to it")
    p.add_argument("--reset", action="store_true", help="start this task's hints again from the first")
    p.add_argument("--lang", choices=("en", "zh"), default=None, help="hint language (or ATTNKIT_LANG; default: zh for a *.zh.ipynb or *.zh.py file, else en)")
    p.set_defaults(func=_cmd_hint)

    p = sub.add_parser("watch", help="check your file again every time you save it (for students)")
    p.add_argument("path", nargs="?", default=None, help=f"your file or notebook (default: your .py file and notebooks here, or in {_kit_folder()}: the one saved last, then the one you save)")
    common(p)
    p.set_defaults(func=_cmd_watch)

    p = sub.add_parser("demo", help="grade the bundled example submissions")
    p.add_argument("--out", default="demo-out", help="folder for the copied submissions and OUT/results/ (default: demo-out)")
    p.add_argument("--jobs", type=int, default=2, help="submissions graded at once (default: 2)")
    common(p, one_for_all)
    p.set_defaults(func=_cmd_demo)

    p = sub.add_parser("train-reference", help="train the assignment's reference model (its manifest's training module) and write its weights")
    p.add_argument("--seed", type=int, default=None, help="training seed (default: the seed of the shipped weights)")
    p.add_argument("--out", default=None, help="folder for the weights (default: the assignment's reference folder)")
    p.set_defaults(func=_cmd_train_reference)

    p = sub.add_parser("nbgrader", help="the assignment as an nbgrader course")
    nbsub = p.add_subparsers(dest="nbgrader_command", required=True)
    q = nbsub.add_parser("init", help="create a ready nbgrader course folder")
    q.add_argument("course_dir", metavar="COURSE_DIR", help="a new folder: nbgrader_config.py and source/<assignment>/ go there")
    q.set_defaults(func=_cmd_nbgrader_init)

    p = sub.add_parser("report", help="class dashboard, grades.csv, summary.md and every feedback page of a graded folder")
    p.add_argument("out_dir", metavar="OUT_DIR", help="the --out folder of grade-batch")
    p.add_argument("--lang", choices=("en", "zh"), default=None, help=one_for_all)
    p.add_argument("--show-after-due", action="store_true", help="also show checks whose visibility is after_due_date")
    p.add_argument("--roster", default=None, help="CSV mapping submissions to students (an LMS export): fills grades.csv's student_id")
    p.add_argument("--lms", choices=LMS_LAYOUTS, default=None, help="also write grades-<lms>.csv, the layout that LMS imports (needs --roster)")
    p.add_argument("--assignment", default="", help="canvas: the assignment's column name, as in Canvas (e.g. 'Homework 3 (4567)'; default: the manifest's lms_name)")
    p.set_defaults(func=_cmd_report)

    p = sub.add_parser("docker", help="the grader image")
    dsub = p.add_subparsers(dest="docker_command", required=True)
    q = dsub.add_parser("build", help="build the grader image offline (pip download on the host, docker build --network none)")
    q.add_argument("--base-image", default=None, help=f"default {DEFAULT_BASE_IMAGE} (or ATTNKIT_BASE_IMAGE); {LOCAL_BASE_IMAGE} from docker/build-base.sh needs no registry")
    q.add_argument("--tag", default=IMAGE, help=f"the image's name (default: {IMAGE})")
    q.add_argument("--no-download", action="store_true", help="build from docker/wheelhouse/ as it is (air-gapped)")
    q.set_defaults(func=_cmd_docker_build)

    p = sub.add_parser("export", help="package the grader for Gradescope or PrairieLearn")
    p.add_argument("platform", choices=("gradescope", "prairielearn"), help="gradescope: an autograder zip; prairielearn: a question folder")
    p.add_argument("--out", required=True, help="gradescope: autograder.zip; prairielearn: a question folder (or .zip)")
    p.add_argument("--image", default=IMAGE, help="prairielearn: the image name PrairieLearn pulls")
    p.add_argument("--no-download", action="store_true", help="gradescope: bundle docker/wheelhouse/cp311-x86_64/ as it is")
    p.add_argument("--online", action="store_true", help="gradescope: a small zip without wheels; setup.sh installs from PyPI")
    p.set_defaults(func=_cmd_export)

    p = sub.add_parser("run-prairielearn", help="inside PrairieLearn's grading container: grade GRADE_DIR/student")
    p.add_argument("grade_dir", metavar="GRADE_DIR", nargs="?", default="/grade", help="default /grade")
    p.set_defaults(func=_cmd_run_prairielearn)
    return parser


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line; an unknown option is said with its command's usage, not attnkit's."""
    parser = build_parser()
    args, unknown = parser.parse_known_args(argv)
    if unknown:
        commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        commands.choices[args.command].error(f"unrecognized arguments: {' '.join(unknown)}")
    return args


def main(argv: list[str] | None = None) -> int:
    return _run(parse(argv))


INTERRUPTED = 130  # the shell's code for a command ended by SIGINT
BROKEN_PIPE = 141  # the shell's code for a command ended by SIGPIPE


def _run(args: argparse.Namespace) -> int:
    lang = _given_lang(args)
    try:
        return args.func(args)
    except AttnkitError as error:
        from autograder.feedback.formats.view import note_text

        text = note_text(str(error), lang) if lang in LANGS and lang != "en" else str(error)  # the student's language where we have it
        print(t("cli.error", lang if lang in LANGS else "en", error=shown(text, keep=chr(10))), file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # Ctrl-C: a traceback from wherever it landed (torch's import, a pool) helps no one
        key = "cli.interrupted_batch" if args.command == "grade-batch" else "cli.interrupted"  # a batch resumes
        print(t(key, lang if lang in LANGS else "en"), file=sys.stderr)
        return INTERRUPTED
    except BrokenPipeError:  # the reader went away (`attnkit check | head`): nothing more to say, and no traceback
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # the interpreter's last flush would raise it again
        return BROKEN_PIPE


QUICK_EXIT_COMMANDS = ("check", "watch")  # the student's loop: its exit is on the clock


def entry() -> None:
    """The `attnkit` command: main(); then `check` and `watch` end without the interpreter's
    teardown, which with torch, sympy and matplotlib loaded costs 0.5-1 s CPU (as much as
    a third of `import torch`) and frees nothing the ended process needs. Their grader is closed
    by then (template and workers reaped); exit handlers and the streams' flush still run."""
    args = parse()
    code = _run(args)
    if args.command in QUICK_EXIT_COMMANDS:
        import atexit

        atexit._run_exitfuncs()  # what normal exit runs first (temporary folders, weakref finalizers)
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    sys.exit(code)


if __name__ == "__main__":
    entry()
