"""Gradebook CSV files an LMS imports as they are, from graded results and a roster.

- Canvas (Grades > Import): Student, ID, SIS User ID, SIS Login ID, Section, then one column for
  the assignment, named as in Canvas ("Attention (4567)"; a new name creates the assignment).
  The first five columns are copied from the roster row (Canvas's own gradebook export).
- PrairieLearn (assessment > Uploads > Upload new total scores): uid, instance, score_perc.

Only submissions the roster maps to exactly one student are written, one row per student (the
best score when a student has several submissions); the rest are returned, to be reported.
Submissions that could not be graded (`grader_error`; report.as_reported also marks so a file that
does not compile and scores nothing) are left out: no 0 is ever imported for them.
"""
from __future__ import annotations

import csv
import io
from dataclasses import dataclass

from autograder.errors import AttnkitError
from autograder.feedback.formats.csvfile import cell_text
from autograder.feedback.formats.view import number, percent
from autograder.feedback.results import BatchResult, SubmissionResult
from autograder.deployment.roster import KEY_COLUMNS, KIND_NAMES, Roster, Student

LAYOUTS = ("canvas", "prairielearn")
CANVAS_COLUMNS = ("Student", "ID", "SIS User ID", "SIS Login ID", "Section")
CANVAS_KEYS = ("ID", "SIS User ID", "SIS Login ID")  # what Canvas's import finds a student by
PRAIRIELEARN_COLUMNS = ("uid", "instance", "score_perc")


@dataclass(frozen=True)
class Gradebook:
    text: str
    unmatched: tuple[str, ...]  # submission names the roster does not map to one student


def _best_by_student(batch: BatchResult, roster: Roster) -> tuple[dict[str, tuple[Student, SubmissionResult]], list[str]]:
    best: dict[str, tuple[Student, SubmissionResult]] = {}
    unmatched = []
    for result in sorted(batch.submissions, key=lambda s: s.submission):
        student = roster.lookup(result.submission)
        if student is None or not student.student_id:
            unmatched.append(result.submission)
            continue
        if result.grader_error:
            continue
        current = best.get(student.student_id)
        if current is None or result.score > current[1].score:
            best[student.student_id] = (student, result)
    return best, unmatched


def _write(header: tuple[str, ...], rows: list[dict[str, str]]) -> str:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=header, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return buffer.getvalue()


def check_roster(layout: str, roster: Roster) -> None:
    """Refuse a roster the layout cannot take a student's identity from: Canvas matches an imported
    row by one of CANVAS_KEYS, which a plain `submission,student_id` roster does not have (its rows
    came out with every identity column empty: a file Canvas cannot match a single row of);
    PrairieLearn by the student's UID, which another LMS's export does not hold (a Canvas roster
    filled the uid column with SIS User IDs)."""
    if layout == "canvas" and not any(column in roster.columns for column in CANVAS_KEYS):
        raise AttnkitError(f"--lms canvas: the roster {roster.path} has none of Canvas's columns {', '.join(CANVAS_KEYS)}, so Canvas"
                           " could match no row of the import: give Canvas's own gradebook export (Grades > Export) as --roster")
    if layout == "prairielearn" and roster.kind not in ("prairielearn", "plain") and not roster.has_any(KEY_COLUMNS["prairielearn"]):
        raise AttnkitError(f"--lms prairielearn: the roster {roster.path} is {KIND_NAMES[roster.kind]}, whose ids are not PrairieLearn"
                           " UIDs (the import's uid column): give PrairieLearn's student list (a UID column) as --roster"
                           + (f", or write --lms {roster.kind}" if roster.kind in LAYOUTS else ""))


def canvas_csv(batch: BatchResult, roster: Roster, assignment: str) -> Gradebook:
    check_roster("canvas", roster)
    best, unmatched = _best_by_student(batch, roster)
    header = (*CANVAS_COLUMNS, assignment)
    rows = []
    for student, result in best.values():
        cells = {column: cell_text(student.row.get(column, "")) for column in CANVAS_COLUMNS}
        cells["Student"] = cells["Student"] or cell_text(student.name)
        cells[assignment] = number(result.score)
        rows.append(cells)
    return Gradebook(_write(header, rows), tuple(unmatched))


def prairielearn_csv(batch: BatchResult, roster: Roster) -> Gradebook:
    check_roster("prairielearn", roster)
    best, unmatched = _best_by_student(batch, roster)
    rows = [{"uid": cell_text(student.row.get("UID") or student.row.get("uid") or student.student_id),
             "instance": "1", "score_perc": f"{percent(result.score, result.max_score):g}"}
            for student, result in best.values()]
    return Gradebook(_write(PRAIRIELEARN_COLUMNS, rows), tuple(unmatched))
