"""`attnkit run-prairielearn`: PrairieLearn's external-grading contract, inside its container.

PrairieLearn mounts /grade: the student's files in /grade/student/, the question's parameters in
/grade/data/data.json, the question's own tests/ folder (here: the grader source, hidden checks,
reference and weights) in /grade/tests/. It reads /grade/results/results.json, and only when the
container exits 0. So: every path below writes results.json and returns 0; a submission that
cannot be graded at all (no files, a file that does not compile, a grader failure, bad question
parameters) gets `gradable: false`, which costs the student no attempt.

The image's entry point (docker/entrypoint-prairielearn) has made /grade root-only before this
runs: student code, run as another uid, can reach nothing under it.
"""
from __future__ import annotations

import json
import secrets
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from autograder.errors import AttnkitError
from autograder.feedback.formats.prairielearn import not_gradable, to_prairielearn
from autograder.feedback.i18n import DEFAULT_LANG, LANGS, t
from autograder.feedback.results import load_submission_result, write_json_atomic
from autograder.grading.submission import file_language
from autograder.paths import regular_files
from autograder.settings import PRAIRIELEARN_GRADE_SECONDS, PRAIRIELEARN_RESULTS_FILE, RESULT_FILE

PARAM_PREFIX = "attnkit_"
SEED_PARAM, LANG_PARAM = "attnkit_seed", "attnkit_lang"
MAX_SEED = 2**31 - 1
GRADE_TIMEOUT = PRAIRIELEARN_GRADE_SECONDS  # below the question's container timeout


@dataclass(frozen=True)
class Params:
    seed: int
    lang: str | None  # None: the handed-in file's (zh for attention.zh.ipynb, as on Gradescope: qa39p)


class ParamsError(AttnkitError):
    """The question's params are wrong: the instructor's mistake, said to the instructor. `problems`:
    one sentence per bad parameter, then the fix; the text is all of them, one a line."""

    def __init__(self, problems: list[str]):
        super().__init__("\n".join(problems))
        self.problems = list(problems)


# `attnkit export prairielearn` writes info.json, question.html and tests/ (deployment/export.py), no
# server.py: PrairieLearn takes a question's params only from the generate(data) of a server.py.
PARAMS_FIX = (
    "Where they come from: PrairieLearn writes {data_file} from the params that the generate(data) of the"
    " question's server.py sets (`attnkit export prairielearn` writes info.json, question.html and tests/,"
    " and no server.py: these come from one added to the question folder); locally, run-prairielearn reads"
    " {data_file} as it is. Fix them there, or leave them out: {seed} unset is a fresh seed, {lang} unset is the handed-in file's language (zh for a *.zh.ipynb or *.zh.py file, else {default})."
)


def read_params(data_file: Path) -> Params:
    """attnkit_seed and attnkit_lang from data.json's params, validated; a fresh seed when unset.
    Every bad parameter is named at once (ParamsError.problems), with where it was read and the fix."""
    try:
        data = json.loads(Path(data_file).read_text(encoding="utf-8")) if Path(data_file).is_file() else {}
    except (OSError, ValueError) as error:
        raise ParamsError([f"{data_file} is not readable JSON ({error}): the question is misconfigured"]) from error
    params = data.get("params") if isinstance(data, dict) else None
    params = params if isinstance(params, dict) else {}
    problems = [f"unknown question parameter {name!r}: attnkit reads {SEED_PARAM} and {LANG_PARAM}"
                for name in sorted(k for k in params if k.startswith(PARAM_PREFIX) and k not in (SEED_PARAM, LANG_PARAM))]
    seed = params.get(SEED_PARAM)
    if seed is None:
        seed = secrets.randbelow(MAX_SEED)
    elif isinstance(seed, str) and seed.strip().isdigit():
        seed = int(seed)
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
        problems.append(f"question parameter {SEED_PARAM}={seed!r} must be a whole number from 0 to {MAX_SEED}")
    lang = params.get(LANG_PARAM)
    if lang is not None and lang not in LANGS:
        problems.append(f"question parameter {LANG_PARAM}={lang!r} must be one of {', '.join(LANGS)}")
    if problems:
        raise ParamsError([*problems, PARAMS_FIX.format(data_file=data_file, seed=SEED_PARAM, lang=LANG_PARAM, default=DEFAULT_LANG)])
    return Params(seed, lang)


def grade(grade_root: Path) -> dict:
    """The results object for /grade (never raises for a student's doing)."""
    student = grade_root / "student"
    try:
        params = read_params(grade_root / "data" / "data.json")
    except ParamsError as error:
        return not_gradable(error.problems)
    try:
        handed_in = student.is_dir() and bool(regular_files(student))
    except OSError:  # a folder that cannot be listed: the grade command says why
        handed_in = True
    if not handed_in:
        return not_gradable([t("platform.no_files", params.lang or DEFAULT_LANG)])
    with tempfile.TemporaryDirectory(prefix="attnkit-pl-") as out:
        command = [sys.executable, "-m", "autograder.cli", "grade", str(student), "--out", out,
                   "--seed", str(params.seed), *(["--lang", params.lang] if params.lang else [])]
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=GRADE_TIMEOUT)
        except subprocess.TimeoutExpired:
            done = None
        result_file = Path(out) / student.name / RESULT_FILE
        if done is None or not result_file.is_file():
            tail = "" if done is None else (done.stdout + done.stderr)[-2000:]
            print(f"attnkit grade wrote no {result_file}:\n{tail}", file=sys.stderr)
            return not_gradable([t("platform.grader_failed", params.lang or file_language(str(student)))])
        return to_prairielearn(load_submission_result(result_file), result_dir=result_file.parent, source=student)


def run(grade_root: Path) -> Path:
    """Grade grade_root/student and write grade_root/results/results.json; returns its path."""
    grade_root = Path(grade_root)
    results = grade_root / "results" / PRAIRIELEARN_RESULTS_FILE
    try:
        payload = grade(grade_root)
    except Exception as error:  # noqa: BLE001 - PrairieLearn must get a results file whatever happened
        print(f"attnkit: PrairieLearn grading failed: {type(error).__name__}: {error}", file=sys.stderr)
        payload = not_gradable([t("platform.grader_failed", DEFAULT_LANG)])
    write_json_atomic(results, payload)
    score = f"score {payload['score']}" if payload.get("gradable") else "not gradable"
    print(f"wrote {results}: {score}")
    return results
