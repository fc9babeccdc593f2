"""The result model: check -> part -> submission -> batch.

Plain frozen dataclasses with score arithmetic as properties. Presentation (Gradescope JSON,
PrairieLearn JSON, CSV, Markdown, HTML) lives in autograder/feedback/formats/, never here.
"""
from __future__ import annotations

import json
import os
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from autograder.grading.integrity.flags import Flag
from autograder.paths import ASSIGNMENT as DEFAULT_ASSIGNMENT
from autograder.settings import PARTIAL_SUFFIX

RESULT_SCHEMA = 1
PASSED, FAILED, ERROR = "passed", "failed", "error"
VISIBILITIES = ("visible", "hidden", "after_due_date")


def total(checks: tuple[CheckResult, ...], field_name: str) -> float:
    """The sum of one numeric field over checks, rounded so that 0.1 + 0.2 reads 0.3."""
    return round(sum(getattr(c, field_name) for c in checks), 6)


@dataclass(frozen=True)
class CheckResult:
    """One check of one submission."""

    check_id: str  # stable id, e.g. "masked_softmax.fully_blocked"
    name: str  # what it proves, e.g. "masked_softmax: a fully blocked row is all zeros"
    part: str  # "A".."F"
    task: str  # "A.2"
    points: float
    max_points: float
    status: str  # PASSED / FAILED / ERROR
    message: str = ""  # what went wrong, in the student's words (empty when passed)
    hint: str = ""
    mistake: str = ""  # key of the diagnosed mistake in the assignment's catalogue (its manifest's `mistakes`), if any
    mistake_message: str = ""
    visibility: str = "visible"
    duration: float = 0.0
    message_key: str = ""  # the message in the assignment's texts or the engine's (autograder.feedback.messages; "" for English-only text)
    message_args: dict[str, Any] = field(default_factory=dict)  # plain data the message is made from

    @property
    def passed(self) -> bool:
        return self.status == PASSED


@dataclass(frozen=True)
class Artifact:
    """A file written beside the results (heatmaps), with paths relative to the result folder."""

    kind: str  # "heatmap"
    name: str  # "probe-1", "trained-head-0"
    caption: str
    student: str = ""  # relative path of the student's image, "" when there is none
    reference: str = ""
    difference: str = ""
    similarity: float | None = None


@dataclass(frozen=True)
class PartResult:
    part: str
    checks: tuple[CheckResult, ...]

    @property
    def score(self) -> float:
        return total(self.checks, "points")

    @property
    def max_score(self) -> float:
        return total(self.checks, "max_points")


@dataclass(frozen=True)
class SubmissionResult:
    """Everything the grader found out about one submission."""

    submission: str  # a name: the file or folder name without suffix
    source: str  # the path that was graded
    seed: int
    checks: tuple[CheckResult, ...] = ()
    execution_time: float = 0.0
    grader_error: str = ""  # set when the submission could not be graded at all
    events: tuple[str, ...] = ()  # worker timeouts, crashes, restarts, in plain words
    output: str = ""  # what the student's code printed (capped)
    artifacts: tuple[Artifact, ...] = ()
    lang: str = "en"
    flags: tuple[Flag, ...] = ()  # integrity flags (autograder.grading.integrity.flags): instructor only, never a score by themselves
    assignment: str = ""  # the manifest name of the assignment whose words render it ("": the current one)
    digest: str = ""  # sha256 of what was handed in (grading.submission.submission_digest): a batch run again grades a changed submission again
    grader: str = ""  # sha256 of the grader that wrote it (feedback.output.grader_digest): a batch run again by another grader grades it again
    schema: int = RESULT_SCHEMA

    @property
    def score(self) -> float:
        return total(self.checks, "points")

    @property
    def max_score(self) -> float:
        return total(self.checks, "max_points")

    @property
    def parts(self) -> tuple[PartResult, ...]:
        order: dict[str, list[CheckResult]] = {}
        for check in self.checks:
            order.setdefault(check.part, []).append(check)
        return tuple(PartResult(part, tuple(checks)) for part, checks in sorted(order.items()))

    @property
    def mistakes(self) -> tuple[str, ...]:
        """The diagnosed mistakes, each once, in check order."""
        return tuple(dict.fromkeys(c.mistake for c in self.checks if c.mistake))

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SubmissionResult:
        data = dict(data)
        data["checks"] = tuple(CheckResult(**c) for c in data.get("checks", ()))
        data["artifacts"] = tuple(Artifact(**a) for a in data.get("artifacts", ()))
        data["events"] = tuple(data.get("events", ()))
        data["flags"] = tuple(Flag(**f) for f in data.get("flags", ()))
        data.setdefault("assignment", DEFAULT_ASSIGNMENT)  # written before results named their assignment
        return cls(**data)


@dataclass(frozen=True)
class BatchResult:
    submissions: tuple[SubmissionResult, ...] = field(default_factory=tuple)

    @property
    def graded(self) -> tuple[SubmissionResult, ...]:
        return tuple(s for s in self.submissions if not s.grader_error)

    @property
    def failed_to_grade(self) -> tuple[SubmissionResult, ...]:
        return tuple(s for s in self.submissions if s.grader_error)


def write_atomic(path: Path, text: str | bytes) -> None:
    """Write a file so that readers see the old content or the new one, never a half."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    data = text.encode("utf-8") if isinstance(text, str) else text
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=PARTIAL_SUFFIX, dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, 0o644)  # mkstemp makes 0600; results and references are meant to be read
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_json_atomic(path: Path, data: Any) -> None:
    text = json.dumps(data, indent=2, ensure_ascii=False)
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate: a file name that is not UTF-8 (GBK from a Windows zip), as os.fsdecode gives it
            text = json.dumps(data, indent=2)  # written \udcd5: read back, the same path (qa23h)
    write_atomic(path, text + "\n")


def load_submission_result(path: Path) -> SubmissionResult:
    return SubmissionResult.from_dict(json.loads(Path(path).read_text(encoding="utf-8")))
