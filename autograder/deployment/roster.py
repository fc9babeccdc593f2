"""Who a submission belongs to: `--roster FILE` maps submission names to students.

The roster is a CSV file, usually the LMS's own export: Canvas's gradebook export (Student, ID,
SIS User ID, SIS Login ID, Section), PrairieLearn's gradebook or student list (UID, UIN, Name),
Gradescope's grade export (Name, SID, Email, Submission ID), or a plain `submission,student_id`
table. A submission name is matched to a row:

1. exactly, against the roster's `submission` column when it has one;
2. else by the platform's download naming, recognised in the name:
   - Canvas `smithjohn_12345_678901_attention` (also `smithjohn_LATE_12345_...`): user id 12345,
     matched against the roster's ID column;
   - Gradescope `submission_123456789`: matched against its Submission ID column;
   - PrairieLearn `alice@example.com_1_attention_2002_3003_attention`: the uid before the first
     `_<number>_`, matched against its UID column.

A name that matches no row, or more than one, gets no student: nothing is ever guessed.
"""
from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from pathlib import Path

from autograder.errors import AttnkitError
from autograder.feedback.shown import clean_name

# Which roster column holds each platform's key (first present wins), and which the student id.
KEY_COLUMNS = {
    "canvas": ("ID",),
    "gradescope": ("Submission ID",),
    "prairielearn": ("UID", "uid"),
    "plain": ("submission",),
}
# PrairieLearn's UID before its UIN: the UID is who a student is there (its "Upload new total scores"
# takes it), the UIN an optional institution number, often empty
ID_COLUMNS = ("student_id", "SIS User ID", "SID", "UID", "uid", "UIN", "ID", "Email")
# Which LMS export a roster is, by the columns only that export has (first match wins; else "plain")
KIND_COLUMNS = (
    ("canvas", ("SIS User ID", "SIS Login ID")),
    ("gradescope", ("Submission ID",)),
    ("prairielearn", ("UID", "uid")),
)
KIND_NAMES = {"canvas": "Canvas's gradebook export", "gradescope": "Gradescope's grade export",
              "prairielearn": "PrairieLearn's student list", "plain": "a plain submission,student_id table"}
NAME_COLUMNS = ("Student", "Name", "name")
PATTERNS = (
    ("canvas", re.compile(r"^[a-z0-9-]+_(?:LATE_)?(?P<key>\d+)_\d+_.+$")),
    ("gradescope", re.compile(r"^submission_(?P<key>\d+)$")),
    ("prairielearn", re.compile(r"^(?P<key>[^_\s]+@[^_\s]+?)_\d+_.+$")),
)


@dataclass(frozen=True)
class Student:
    student_id: str
    name: str
    row: dict[str, str]  # the roster's whole row (LMS layouts copy columns from it)


def recognise(submission: str) -> tuple[str, str] | None:
    """(platform, key) when the name follows a platform's download naming, else None."""
    for platform, pattern in PATTERNS:
        match = pattern.match(submission)
        if match:
            return platform, match.group("key")
    return None


@dataclass(frozen=True)
class Roster:
    path: Path
    columns: tuple[str, ...]
    rows: tuple[dict[str, str], ...]

    @property
    def kind(self) -> str:
        """Which LMS exported it (KIND_COLUMNS): canvas, gradescope, prairielearn, or plain."""
        return next((kind for kind, wanted in KIND_COLUMNS if self.has_any(wanted)), "plain")

    def has_any(self, wanted: tuple[str, ...]) -> bool:
        return any(c in self.columns for c in wanted)

    def _column(self, wanted: tuple[str, ...]) -> str | None:
        return next((c for c in wanted if c in self.columns), None)

    def _student(self, row: dict[str, str]) -> Student:
        id_column = self._column(ID_COLUMNS)
        name_column = self._column(NAME_COLUMNS)
        return Student(row.get(id_column or "", "").strip(), row.get(name_column or "", "").strip(), row)

    def _rows_where(self, column: str | None, value: str, named=lambda cell: cell) -> list[dict[str, str]]:
        if column is None:
            return []
        return [row for row in self.rows if named(row.get(column, "").strip()).lower() == value.lower()]

    def lookup(self, submission: str) -> Student | None:
        """The one student this submission belongs to, or None (no match, or an ambiguous one).
        A `submission` cell may hold the name as handed in: it is read as the id the grader gave
        that name (feedback.shown.clean_name: control characters as `_`, no `=` first...)."""
        matches = self._rows_where(self._column(KEY_COLUMNS["plain"]), submission, clean_name)
        if not matches:
            recognised = recognise(submission)
            if recognised:
                platform, key = recognised
                matches = self._rows_where(self._column(KEY_COLUMNS[platform]), key)
        return self._student(matches[0]) if len(matches) == 1 else None


def load_roster(path: Path) -> Roster:
    """Read a roster CSV (UTF-8, a BOM allowed); raises AttnkitError saying what is wrong and where."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as error:
        raise AttnkitError(f"--roster {path}: cannot read it ({error}); give a UTF-8 CSV file") from error
    reader = csv.DictReader(text.splitlines())
    columns = tuple(c.strip() for c in reader.fieldnames or ())
    rows = tuple({(k or "").strip(): (v or "") for k, v in row.items()} for row in reader)
    keys = [c for wanted in KEY_COLUMNS.values() for c in wanted if c in columns]
    if not keys or not any(c in columns for c in ID_COLUMNS):
        raise AttnkitError(
            f"--roster {path}: its header {list(columns)} names no submission key and student id: it needs"
            " `submission` and `student_id` columns, or an LMS export (Canvas: ID, SIS User ID;"
            " PrairieLearn: UID; Gradescope: Submission ID, SID)")
    return Roster(path, columns, rows)
