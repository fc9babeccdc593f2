"""What the benchmark found: plain frozen records that bench/report.py renders as Markdown."""
from __future__ import annotations

from dataclasses import dataclass, field

from bench.measure import Stats


@dataclass(frozen=True)
class Measured:
    """One grader (or command) measured: whole-batch seconds, seconds per submission, peak memory."""

    label: str
    submissions: int
    total: Stats  # seconds for the whole batch, one value per run
    per_submission: Stats  # seconds per submission (how it was derived: `derived`)
    peak_mib: Stats | None  # peak summed PSS of the process tree; None where it cannot be sampled
    peak_rss_mib: Stats | None = None  # peak summed RSS (shared pages counted in every process)
    derived: str = ""
    note: str = ""


@dataclass(frozen=True)
class NotMeasured:
    label: str
    reason: str


Row = Measured | NotMeasured


@dataclass(frozen=True)
class Scores:
    """What one grader gave each variant: variant -> the distinct (score, max) pairs it gave."""

    grader: str
    by_variant: dict[str, tuple[tuple[float, float], ...]] = field(default_factory=dict)


@dataclass(frozen=True)
class Section:
    """One section of RESULTS.md: its rows, notes, and the load average when it started and ended."""

    title: str
    rows: tuple[Row, ...]
    notes: tuple[str, ...] = ()
    scores: tuple[Scores, ...] = ()
    load_start: str = ""
    load_end: str = ""


def find(section: Section, label: str) -> Measured | None:
    for row in section.rows:
        if isinstance(row, Measured) and row.label == label:
            return row
    return None
