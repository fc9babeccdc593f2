"""Class-level numbers for the dashboard and summary.md: pass rates, ranked mistakes, slowest, failed."""
from __future__ import annotations

import statistics
from dataclasses import dataclass

from autograder.feedback.formats.view import mistake_text, percent
from autograder.assignment import current
from autograder.feedback.results import BatchResult, SubmissionResult


@dataclass(frozen=True)
class PartRate:
    part: str
    submissions: int  # graded submissions that have this part
    full_marks: int
    mean_percent: float


@dataclass(frozen=True)
class CheckRate:
    check_id: str
    name: str
    part: str
    passed: int
    total: int

    @property
    def rate(self) -> float:
        return percent(self.passed, self.total)


@dataclass(frozen=True)
class MistakeCount:
    key: str
    message: str
    count: int  # submissions that made it


@dataclass(frozen=True)
class ClassStats:
    graded: int
    failed: int
    percents: tuple[float, ...]  # one per graded submission
    parts: tuple[PartRate, ...]
    checks: tuple[CheckRate, ...]
    mistakes: tuple[MistakeCount, ...]
    slowest: tuple[SubmissionResult, ...]

    @property
    def mean(self) -> float:
        return round(statistics.fmean(self.percents), 1) if self.percents else 0.0

    @property
    def median(self) -> float:
        return round(statistics.median(self.percents), 1) if self.percents else 0.0


def _part_order(part: str) -> tuple[int, str]:
    known = list(current().part_titles)
    return (known.index(part), part) if part in known else (len(known), part)


def part_rates(graded: tuple[SubmissionResult, ...]) -> tuple[PartRate, ...]:
    scores: dict[str, list[tuple[float, float]]] = {}
    for result in graded:
        for part in result.parts:
            scores.setdefault(part.part, []).append((part.score, part.max_score))
    rates = []
    for part in sorted(scores, key=_part_order):
        pairs = scores[part]
        full = sum(1 for score, top in pairs if score >= top)
        mean = statistics.fmean(percent(score, top) for score, top in pairs)
        rates.append(PartRate(part, len(pairs), full, round(mean, 1)))
    return tuple(rates)


def check_rates(graded: tuple[SubmissionResult, ...]) -> tuple[CheckRate, ...]:
    """Per check id, in part order and then in the order the checks first appear."""
    seen: dict[str, list] = {}
    for result in graded:
        for check in result.checks:
            entry = seen.setdefault(check.check_id, [check.name, check.part, 0, 0])
            entry[2] += int(check.passed)
            entry[3] += 1
    ordered = sorted(enumerate(seen.items()), key=lambda item: (_part_order(item[1][1][1]), item[0]))
    return tuple(CheckRate(cid, name, part, passed, total) for _, (cid, (name, part, passed, total)) in ordered)


def ranked_mistakes(graded: tuple[SubmissionResult, ...], lang: str) -> tuple[MistakeCount, ...]:
    """Mistakes by how many submissions made them (most first, then by key)."""
    counts: dict[str, int] = {}
    fallback: dict[str, str] = {}
    for result in graded:
        for key in result.mistakes:
            counts[key] = counts.get(key, 0) + 1
        for check in result.checks:
            if check.mistake and check.mistake_message:
                fallback.setdefault(check.mistake, check.mistake_message)
    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return tuple(MistakeCount(key, mistake_text(key, fallback.get(key, ""), lang), n) for key, n in ranked)


def class_stats(batch: BatchResult, lang: str = "en", *, slowest: int = 10) -> ClassStats:
    graded = batch.graded
    by_time = sorted(batch.submissions, key=lambda s: (-s.execution_time, s.submission))
    return ClassStats(
        graded=len(graded),
        failed=len(batch.failed_to_grade),
        percents=tuple(percent(s.score, s.max_score) for s in graded),
        parts=part_rates(graded),
        checks=check_rates(graded),
        mistakes=ranked_mistakes(graded, lang),
        slowest=tuple(by_time[:slowest]),
    )
