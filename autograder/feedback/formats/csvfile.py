"""grades.csv: one row per submission, the same columns in the same order every time.

`student_id` is filled from a roster (`--roster`), empty without one. `part_S` is the rules part
(checks of the assignment's rules, e.g. a function that must not call a library): empty when no
rule check ran. The layouts an LMS imports directly are in formats/lms.py.
"""
from __future__ import annotations

import csv
import io
from collections.abc import Mapping

from autograder.feedback.formats.view import number, percent
from autograder.assignment import current
from autograder.feedback.results import BatchResult, SubmissionResult
from autograder.feedback.shown import shown

LEAD_COLUMNS = ("submission", "student_id", "score", "max_score", "percent")
TAIL_COLUMNS = ("status", "grader_error", "seed", "execution_time")
FLAG_COLUMNS = ("integrity_flags",)  # codes (part) of the integrity flags; instructor only
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def part_column(part: str) -> str:
    return f"part_{part}"


def columns(batch: BatchResult) -> tuple[str, ...]:
    """Every known part always (stable for imports), then parts the model does not know, sorted."""
    extra = sorted({c.part for s in batch.submissions for c in s.checks} - set(current().part_titles))
    parts = (*current().part_titles, *extra)
    return (*LEAD_COLUMNS, *(part_column(p) for p in parts), *TAIL_COLUMNS, *FLAG_COLUMNS)


def cell_text(text: str) -> str:
    """Text a spreadsheet will not run as a formula (a file name like '=cmd|...' is student-chosen),
    with control and format characters shown as `\\x1b` (feedback/shown.py)."""
    text = shown(text)
    return "'" + text if text.startswith(FORMULA_STARTS) else text


def row(result: SubmissionResult, header: tuple[str, ...], student_id: str = "") -> dict[str, str]:
    """One submission's cells; score cells stay empty when it could not be graded, so no 0 is imported."""
    values = {
        "submission": cell_text(result.submission),
        "student_id": cell_text(student_id),
        "status": "error" if result.grader_error else "graded",
        "grader_error": cell_text(" ".join(result.grader_error.split())),
        "seed": str(result.seed),
        "execution_time": f"{result.execution_time:.2f}",
        "integrity_flags": "; ".join(dict.fromkeys(f"{f.code}({f.part})" if f.part else f.code for f in result.flags)),
    }
    if not result.grader_error:
        values["score"] = number(result.score)
        values["max_score"] = number(result.max_score)
        values["percent"] = f"{percent(result.score, result.max_score):.2f}"
        for part in result.parts:
            values[part_column(part.part)] = number(part.score)
    return {column: values.get(column, "") for column in header}


def grades_csv(batch: BatchResult, student_ids: Mapping[str, str] | None = None) -> str:
    """student_ids: submission name -> student id (from a roster)."""
    student_ids = student_ids or {}
    header = columns(batch)
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=header, lineterminator="\n")
    writer.writeheader()
    for result in sorted(batch.submissions, key=lambda s: s.submission):
        writer.writerow(row(result, header, student_ids.get(result.submission, "")))
    return buffer.getvalue()
