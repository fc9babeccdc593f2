"""`attnkit report OUT_DIR`: the class dashboard, grades.csv, summary.md and every feedback page.

Reads only what the grader wrote (`OUT/<name>/attnkit.json` and the heatmaps beside it); every file
is written atomically, so a dashboard being regenerated is never seen half-written.
"""
from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, replace
from pathlib import Path

from autograder.errors import AttnkitError, OutputError
from autograder.feedback.formats.csvfile import grades_csv
from autograder.feedback.formats.dashboard import render_dashboard, render_summary
from autograder.feedback.formats.html import render_html
from autograder.assignment import current
from autograder.deployment.lms import Gradebook, canvas_csv, prairielearn_csv
from autograder.feedback.formats.markdown import render_markdown
from autograder.feedback.formats.prairielearn import syntax_error
from autograder.feedback.i18n import check_lang, t
from autograder.feedback.output import cannot_write
from autograder.grading.submission import submission_digest
from autograder.feedback.results import RESULT_SCHEMA, BatchResult, SubmissionResult, load_submission_result, write_atomic
from autograder.settings import BATCH_FILES, FEEDBACK_HTML, FEEDBACK_MD, LMS_CSV, RESULT_FILE
from autograder.deployment.roster import Roster

SYNTAX_EVENT = "SyntaxError"  # how the loader's note on a file that does not compile begins (load.syntax_file)


def load_result(path: Path) -> SubmissionResult:
    """One attnkit.json; an unreadable one becomes a failed-to-grade entry that says why."""
    name = path.parent.name
    try:
        result = load_submission_result(path)
    except (OSError, ValueError, TypeError, KeyError) as error:  # JSONDecodeError is a ValueError
        reason = f"could not read {path}: {type(error).__name__}: {error}"
        return SubmissionResult(submission=name, source=str(path), seed=0, grader_error=reason)
    if result.schema != RESULT_SCHEMA:
        reason = f"{path} has result schema {result.schema}, this attnkit reads schema {RESULT_SCHEMA}: re-grade it"
        return SubmissionResult(submission=name, source=str(path), seed=result.seed, grader_error=reason)
    return result


def load_results(out_dir: Path) -> list[tuple[str, SubmissionResult]]:
    """(folder name, result) for every OUT/<name>/attnkit.json, sorted by folder name."""
    out_dir = Path(out_dir)
    if not out_dir.is_dir():
        raise AttnkitError(f"{out_dir} is not a folder: give the --out folder of `attnkit grade-batch`")
    files = sorted(p for p in out_dir.glob(f"*/{RESULT_FILE}") if p.is_file())
    if not files:
        holds_submissions = any(p.suffix in (".py", ".ipynb", ".zip") for p in out_dir.iterdir())
        advice = (f"it holds submissions: give `attnkit report` the --out folder that `attnkit grade-batch {out_dir} --out OUT` wrote"
                  if holds_submissions else f"run `attnkit grade-batch DIR --out {out_dir}` first")
        raise AttnkitError(f"no graded submissions in {out_dir} (no */{RESULT_FILE}): {advice}")
    return [(path.parent.name, load_result(path)) for path in files]


def not_compiled(result: SubmissionResult) -> str:
    """Why `result` could not be graded at all when its .py file does not compile and it scores
    nothing (the rule of prairielearn.json's `gradable: false`, formats/prairielearn.py), else "".
    Read from the graded file while it is there unchanged, else from the loader's note in the result."""
    if result.grader_error or result.score != 0:
        return ""
    source = Path(result.source) if result.source else None
    if source is not None and source.exists() and (not result.digest or submission_digest(source) == result.digest):
        broken = syntax_error(source)
        return t("report.not_compiled", file=broken[0], error=broken[1]) if broken else ""
    syntax_note = t("load.syntax_file")
    return next((event for event in result.events if event.startswith(SYNTAX_EVENT) and syntax_note in event), "")


def as_reported(batch: BatchResult) -> BatchResult:
    """The batch as grades.csv, the dashboard, summary.md and the LMS files count it: a submission
    whose file does not compile and scores nothing could not be graded (status error, no score,
    never imported as 0), as its prairielearn.json says (`gradable: false`, no attempt counted)."""
    return BatchResult(tuple(replace(r, grader_error=reason) if (reason := not_compiled(r)) else r for r in batch.submissions))


def batch_seeds(batch: BatchResult) -> tuple[int, ...]:
    """The seeds the batch's results were graded with, sorted (one, unless runs were mixed into one OUT)."""
    return tuple(sorted({r.seed for r in batch.submissions if not r.grader_error or r.checks}))


def mixed_seeds_warning(batch: BatchResult, lang: str = "en") -> str:
    """A warning when the batch holds results of more than one seed (naming them), else ""."""
    seeds = batch_seeds(batch)
    return t("report.mixed_seeds", lang, count=len(seeds), seeds=", ".join(map(str, seeds))) if len(seeds) > 1 else ""


def with_warning(summary: str, warning: str) -> str:
    """summary.md with `warning` under its title."""
    if not warning:
        return summary
    title, _, rest = summary.partition("\n")
    return f"{title}\n\n> ⚠ **{warning}**\n{rest}"


def write_feedback(result_dir: Path, result: SubmissionResult, lang: str, *, show_after_due: bool = False) -> None:
    """feedback.html and feedback.md beside the result."""
    write_atomic(result_dir / FEEDBACK_HTML, render_html(result, result_dir, lang, show_after_due=show_after_due))
    write_atomic(result_dir / FEEDBACK_MD, render_markdown(result, lang, show_after_due=show_after_due))


def refresh_similarity(out_dir: Path, batch: BatchResult, prints: dict | None = None) -> list:
    """Rank the batch's answers by similarity (out/similarity.json); the saved ranking when the
    submissions are no longer where they were graded from. prints: fingerprints already taken
    (similarity.BatchFingerprints)."""
    from autograder.grading.integrity.similarity import SIMILARITY_FILE, batch_similarity, read_similarity, write_similarity

    sources = {r.submission: Path(r.source) for r in batch.submissions if r.source and Path(r.source).exists()}
    if len(sources) < 2:
        return read_similarity(out_dir / SIMILARITY_FILE)
    pairs = batch_similarity(sources, prints)
    write_similarity(out_dir / SIMILARITY_FILE, pairs)
    return pairs


@dataclass(frozen=True)
class ClassResults:
    """Every result in an OUT folder, read once: (folder, result) as written, and the batch as
    reported (as_reported)."""

    entries: list[tuple[str, SubmissionResult]]
    batch: BatchResult


def read_class(out_dir: Path) -> ClassResults:
    """The results in out_dir (load_results), and the batch as grades.csv and the LMS files count it."""
    entries = load_results(Path(out_dir))
    return ClassResults(entries, as_reported(BatchResult(tuple(result for _, result in entries))))


def write_report(out_dir: Path, lang: str = "en", *, show_after_due: bool = False, roster: Roster | None = None,
                 fresh: Collection[str] = (), prints: dict | None = None, results: ClassResults | None = None) -> Path:
    """Regenerate every feedback page, then grades.csv, summary.md and index.html; returns index.html.

    With a roster, grades.csv carries each submission's student id. fresh: the submissions the
    batch has just graded, whose pages it wrote in their own language into their own folders
    (kept when it is `lang`); prints: their fingerprints, taken as they came in (refresh_similarity);
    results: out_dir's results when the caller has read them (read_class).
    """
    check_lang(lang)
    out_dir = Path(out_dir)
    results = results or read_class(out_dir)
    entries, batch = results.entries, results.batch
    grades, summary, dashboard = BATCH_FILES
    ids = {}
    if roster is not None:
        ids = {r.submission: s.student_id for r in batch.submissions if (s := roster.lookup(r.submission))}
    index = out_dir / dashboard
    try:
        for folder, result in entries:
            if not (folder == result.submission and folder in fresh and result.lang == lang and not show_after_due):
                write_feedback(out_dir / folder, result, lang, show_after_due=show_after_due)
        write_atomic(out_dir / grades, grades_csv(batch, ids))
        write_atomic(out_dir / summary, with_warning(render_summary(batch, lang), mixed_seeds_warning(batch, lang)))
        similar = refresh_similarity(out_dir, batch, prints)
        write_atomic(index, render_dashboard(batch, lang, folders=[folder for folder, _ in entries], similar=similar))
    except OSError as error:
        raise OutputError(cannot_write(out_dir, error)) from None
    return index


def write_gradebook(out_dir: Path, batch: BatchResult, roster: Roster, layout: str, assignment: str = "") -> tuple[Path, Gradebook]:
    """OUT/grades-<layout>.csv, the file Canvas or PrairieLearn imports, from out_dir's batch as
    reported (read_class); returns it and the gradebook."""
    if layout == "canvas":
        book = canvas_csv(batch, roster, assignment or current().lms_name)  # default: the manifest's lms_name
    elif layout == "prairielearn":
        book = prairielearn_csv(batch, roster)
    else:
        raise AttnkitError(f"--lms {layout}: use canvas or prairielearn")
    path = Path(out_dir) / LMS_CSV.format(layout=layout)
    write_atomic(path, book.text)
    return path, book
