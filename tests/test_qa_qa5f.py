"""qa5f's corpus (tests/qa/qa5f/): correct submissions in ordinary Python that the static pass's
routes around the traced rules must not mistake for evasion.

Each file is the reference (or its notebook) with what a real student writes: functools
(partial, reduce, lru_cache, wraps, cached_property), operator, dataclasses, typing with
`from __future__ import annotations`, enum, logging, warnings, pathlib, open() of a data file or
a log, print(file=sys.stderr), `if __name__ == "__main__":` demos (argparse, time, random,
sys.argv, comparisons with the library softmax), decorators of its own, functions as default
values and class attributes, module-level constants computed by its own helpers, lambdas in
dicts, getattr(self, name), torch.load(weights_only=True), numpy, itertools, contextlib,
optional tqdm/einops imports, notebook magics. All are graded in ONE batch, on the parts the
integrity rules touch (A.2, A.3, B.1, C.3 and Part E's figure; D and F reach no rule of their
own), and each must keep every point with no flag but `file_access` where its source reads or
writes files (recorded, never charged).
"""
from __future__ import annotations

from pathlib import Path

from autograder.grading.batch import grade_batch
from autograder.grading.integrity.flags import FILE_ACCESS
from autograder.grading.session import GradeOptions

CORPUS = Path(__file__).resolve().parents[0] / "qa" / "qa5f"
PARTS = frozenset({"A", "B", "C", "E"})
# they read a data file or write a log (open, read_text, listdir) in a function of their own: on the
# record, never charged. The others that do so only under `if __name__ == "__main__":` (einops_optional_reads_data,
# open_argv_main, open_log_constant, os_path_data_dir), which never runs in the grader, get no flag at all.
READS_OR_WRITES_FILES = {
    "json_config_main", "open_argv_in_main_function", "open_devnull", "open_read_data_function", "pathlib_read_vocab_main", "print_to_log_file",
}


def test_corpus_is_there():
    names = {p.stem for p in CORPUS.iterdir() if p.suffix in (".py", ".ipynb")}
    assert len(names) >= 40 and READS_OR_WRITES_FILES <= names


def test_correct_code_in_ordinary_python_keeps_every_point_and_raises_no_flag(tmp_path):
    batch = grade_batch(CORPUS, tmp_path / "out", jobs=2, options=GradeOptions(seed=1, parts=PARTS))
    results = {r.submission: r for r in batch.submissions}
    assert set(results) == {p.stem for p in CORPUS.iterdir() if p.suffix in (".py", ".ipynb")}
    wrong = []
    for name, result in sorted(results.items()):
        lost = [f"{c.part} {c.check_id}: {c.message[:200]}" for c in result.checks if c.points < c.max_points]
        if result.grader_error or lost or {p.part for p in result.parts} != PARTS or result.score != result.max_score:
            wrong.append(f"{name}: {result.score}/{result.max_score} {result.grader_error} {lost}")
        allowed = {FILE_ACCESS} if name in READS_OR_WRITES_FILES else set()
        flags = [f"{f.code} ({f.part}): {f.detail[:160]}" for f in result.flags if f.code not in allowed]
        if flags:
            wrong.append(f"{name}: flagged {flags}")
    assert not wrong, "\n".join(wrong)
