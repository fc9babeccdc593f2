"""Hand-built results for the format and browser tests: a grader-like OUT folder with real heatmap PNGs."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from autograder.grading.plotting import render_difference, render_heatmap
from autograder.feedback.results import (
    ERROR,
    FAILED,
    PASSED,
    Artifact,
    BatchResult,
    CheckResult,
    SubmissionResult,
    write_atomic,
    write_json_atomic,
)

SCRIPT = "<script>alert('pwned')</script>"
QUERY_TOKENS = ("The", "cat", "sat", "on", "it")
KEY_TOKENS = ("The", "cat", "sat", "on", "the", "mat")


def check(check_id: str, part: str, status: str = PASSED, points: float = 2.0, **fields: object) -> CheckResult:
    earned = points if status == PASSED else 0.0
    return CheckResult(
        check_id=check_id,
        name=fields.pop("name", f"{check_id}: does what the contract says"),  # type: ignore[arg-type]
        part=part,
        task=f"{part}.1",
        points=earned,
        max_points=points,
        status=status,
        **fields,  # type: ignore[arg-type]
    )


def correct_result(name: str = "alice") -> SubmissionResult:
    checks = (
        check("sdpa.shape", "A"),
        check("sdpa.values", "A", points=3.0),
        check("proj.values", "B"),
        check("mha.values", "C", points=4.0),
        check("heatmap.axes", "E"),
    )
    return SubmissionResult(submission=name, source=f"/subs/{name}.py", seed=1234, checks=checks, execution_time=1.2)


def buggy_result(name: str = "bob", lang: str = "en") -> SubmissionResult:
    """Wrong scaling (visible and hidden checks), an after-due-date check, a timeout, hostile output."""
    mistake_message = {
        "en": "You divided the scores by d_model instead of sqrt(head_dim).",
        "zh": "你把分数除以了 d_model，而不是 sqrt(head_dim)。",
    }[lang]
    checks = (
        check("sdpa.shape", "A"),
        check(
            "sdpa.values", "A", FAILED, 3.0,
            message=f"values differ from the reference by up to 0.31 {SCRIPT}",
            hint="Scale the scores by 1/sqrt(Dh) before the softmax.",
            mistake="scale_by_d", mistake_message=mistake_message,
        ),
        check(
            "sdpa.secret_probe", "A", FAILED, 1.0, visibility="hidden",
            name="sdpa: hidden probe", message="SECRET-MESSAGE expected 0.125", hint="SECRET-HINT",
            mistake="hidden_only_mistake", mistake_message="SECRET-MISTAKE",
        ),
        check("proj.values", "B"),
        check(
            "mha.values", "C", ERROR, 4.0,
            message="timed out after 10 s in split_heads", hint="Look for an infinite loop in split_heads.",
        ),
        check(
            "heatmap.axes", "E", FAILED, 2.0, visibility="after_due_date",
            name="heatmap: queries on the horizontal axis", message="AFTER-DUE-MESSAGE",
        ),
    )
    artifacts = (
        Artifact(
            kind="heatmap", name="probe-1", caption="Probe sentence 1, head 0",
            student="heatmaps/probe-1-student.png", reference="heatmaps/probe-1-reference.png",
            difference="heatmaps/probe-1-difference.png", similarity=0.71,
        ),
    )
    return SubmissionResult(
        submission=name, source=f"/subs/{name}.ipynb", seed=987654, checks=checks, execution_time=11.5,
        events=("worker timed out after 10 s in split_heads; restarted",),
        output=f"debug: shapes ok\n{SCRIPT}\n<b>bold?</b> & done\n",
        artifacts=artifacts, lang=lang,
    )


def errored_result(name: str = "carol") -> SubmissionResult:
    return SubmissionResult(
        submission=name, source=f"/subs/{name}.zip", seed=42, execution_time=0.1,
        grader_error="the zip archive has a path that escapes it: ../../etc/passwd",
    )


def sample_batch(lang: str = "en") -> BatchResult:
    return BatchResult((correct_result(), buggy_result(lang=lang), errored_result()))


def probe_maps() -> tuple[np.ndarray, np.ndarray]:
    """A (Lq, Lk) reference map and a too-flat student map (what dividing by d_model does)."""
    rng = np.random.default_rng(7)
    logits = rng.normal(size=(len(QUERY_TOKENS), len(KEY_TOKENS))) * 2.0  # (Lq, Lk)
    return _softmax(logits / 8.0), _softmax(logits)


def _softmax(logits: np.ndarray) -> np.ndarray:
    exp = np.exp(logits - logits.max(axis=-1, keepdims=True))
    return exp / exp.sum(axis=-1, keepdims=True)


def write_heatmaps(result_dir: Path, artifact: Artifact) -> None:
    student, reference = probe_maps()
    write_atomic(result_dir / artifact.student, render_heatmap(student, QUERY_TOKENS, KEY_TOKENS, "student"))
    write_atomic(result_dir / artifact.reference, render_heatmap(reference, QUERY_TOKENS, KEY_TOKENS, "reference"))
    write_atomic(
        result_dir / artifact.difference,
        render_difference(student, reference, QUERY_TOKENS, KEY_TOKENS, "student − reference"),
    )


def write_sample_out(out_dir: Path, lang: str = "en") -> BatchResult:
    """OUT/<name>/attnkit.json (+ heatmaps) as the grader lays them out."""
    batch = sample_batch(lang)
    for result in batch.submissions:
        result_dir = out_dir / result.submission
        write_json_atomic(result_dir / "attnkit.json", result.to_dict())
        for artifact in result.artifacts:
            write_heatmaps(result_dir, artifact)
    return batch
