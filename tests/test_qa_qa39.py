"""qa39s, qa39h: unseen styles and bugs of round 33; its red team, and the honest files the static pass charged.

qa39s (tests/qa/qa39s: 56 correct styles, 50 single bugs, 24 double bugs; headers are the fair
grades): the grader's own walk of the submission's objects (`gc.get_referents` in the stand-ins,
for a functools.partial, a dataclass, a mixin, a mappingproxy registry) was recorded as the
student's evasion (F3: b54, d18-d23 flagged, now none is). A mistake written again in C.3's (or
A.3's) own code beside a correct helper both tasks run (`_check_input`, `_size`) was excused as
the earlier task's (F2: d24, d26, d27, d31 C 28, now 8; A.3 6 of 8, now 1): the shared code must now
make tensors itself (a torch operation called from it, or tensors returned other than its own
arguments handed back). A mistake in a helper B.1 (or A.3) and C.3 both run was charged again in
C.3 where the reference's mutant lives in code its C.3 never runs (F1: d10, d13, d16 C 24 or 8,
now 28: the later task's reference is given the same mistake, mutants.SHARED_WAYS), and again when
Part C was graded alone, as nbgrader grades (F4: d09, now 28: the earlier part's values checks run
unscored to learn its mistake). d12, whose helper's mistake (scores divided by √Lk in B.1) has no
name in B.1, is charged once since round 37: the helper is repaired (carried.repairs).

- Honest test and debug code charged 15 points (F2): `import unittest`, `import doctest` or
  `import pdb` at the top, with the tests under the main guard, or `"get_ipython" in globals()`,
  zeroed every rule and Part E. Importing such a module runs nothing: its names count where they
  are used (c04-c07: 100); `unittest.mock`, a doctest run or pdb fed from a replaced stdin at
  import still count (t01-t03: 85). A `breakpoint()` left in a branch that never runs (F3, c03)
  counts only where the file can feed the debugger (t04: PYTHONBREAKPOINT written).
- Reflection on the file's own object by a constant name (F4): `object.__setattr__(self, "x", v)`
  in a frozen dataclass, `vars(self)` (c01, c02: 100).
- An evasion in masked_softmax was charged again in C.3, which calls it itself (F5, b01: C 28).
- Modules that import and look names up by text, unlisted (F1): `lazy_loader.attach`, fsspec's
  registry, `pytest.importorskip`, `traceback.walk_stack` with stack_data (h02-h06, h10: each an
  evasion at import, 85, where they were 100 with no flag).
"""
from __future__ import annotations

from pathlib import Path

import pytest

from autograder.feedback.results import SubmissionResult
from autograder.grading.integrity.names import MAIN_GUARD
from autograder.grading.batch import grade_batch
from autograder.grading.integrity.static import analyze
from autograder.grading.session import GradeOptions
from tests.corpus import assert_each_bug_in_its_own_part, assert_graded_as_expected, expected, graded_corpus

CORPUS = Path(__file__).resolve().parent / "qa" / "qa39h"
STYLES = Path(__file__).resolve().parent / "qa" / "qa39s"
STYLE_FILES = sorted(STYLES.iterdir())
SHARED_HELPERS = ("d09", "d10", "d13", "d14", "d16", "d17", "d24", "d26", "d27")  # a helper B.1 (or A.3) and C.3 both run, right or wrong


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> dict[str, SubmissionResult]:
    return graded_corpus(CORPUS, tmp_path_factory.mktemp("qa39h_out"))


@pytest.fixture(scope="module")
def styles(tmp_path_factory) -> dict[str, SubmissionResult]:
    return graded_corpus(STYLES, tmp_path_factory.mktemp("qa39s_out"))


@pytest.mark.parametrize("path", sorted(CORPUS.glob("*.py")), ids=lambda p: p.stem)
def test_each_file_scores_its_header(path, graded):
    assert_graded_as_expected(graded[path.stem], path)


def test_part_c_graded_alone_pays_as_in_a_full_run(tmp_path):
    """F4: nbgrader grades one part at a time. Part C graded alone learns the mistake of the helper
    it shares with B.1 (or A.3) from the earlier part's values checks, run unscored, and pays as a
    full run does: C 28 where the helper holds the mistake (d09, d10, d13, d16, d17), 8 where C.3
    writes it again beside a correct helper (d24, d26, d27), 24 where each drops the mask (d14)."""
    corpus = tmp_path / "in"
    corpus.mkdir()
    for path in STYLE_FILES:
        if path.stem.split("_")[0] in SHARED_HELPERS:
            (corpus / path.name).write_bytes(path.read_bytes())
    batch = grade_batch(corpus, tmp_path / "out", jobs=2, options=GradeOptions(seed=1, parts=frozenset({"C"})))
    got = {r.submission: {p.part: p.score for p in r.parts} for r in batch.submissions}
    assert got == {p.stem: {"C": expected(p)[0]["C"]} for p in corpus.iterdir()}


def _header(path: Path) -> Path:
    return path / "attention.py" if path.is_dir() else path


@pytest.mark.parametrize("path", STYLE_FILES, ids=lambda p: p.stem)
def test_each_unseen_style_or_bug_scores_its_header(path, styles):
    assert_graded_as_expected(styles[path.stem if path.is_file() else path.name], _header(path))


def test_each_single_bug_loses_points_in_its_own_part_only():
    assert_each_bug_in_its_own_part([p for p in STYLE_FILES if p.is_file() and p.name.startswith(("b", "c"))])


def test_the_workers_own_walk_of_the_submissions_objects_is_no_evasion(styles):
    """qa39s F3: a partial, a dataclass, a mixin, a mappingproxy registry walked by the stand-ins."""
    assert {stem: result.flags for stem, result in styles.items() if result.flags} == {}


def test_honest_files_carry_no_flag_and_hostile_ones_an_evasion(graded):
    for stem, result in graded.items():
        codes = {flag.code for flag in result.flags}
        assert (not codes) if stem.startswith("c") else ("evasion" in codes or stem.startswith("b")), (stem, codes)


def _evasions(source: str) -> list[str]:
    """What the static pass calls an evasion in code that can run (a main-guard demo never does)."""
    return [f.what for f in analyze([(1, source)]).findings if f.code == "evasion" and f.scope != MAIN_GUARD]


@pytest.mark.parametrize("source", [
    "import unittest\nclass T(unittest.TestCase):\n    pass\n",
    "from unittest import TestCase, skipIf\n@skipIf(True, 'x')\nclass T(TestCase):\n    pass\n",
    "import doctest\nif __name__ == '__main__':\n    doctest.testmod()\n",
    "import pdb\nDEBUG = False\ndef f(x):\n    if DEBUG:\n        pdb.set_trace()\n    return x\n",
    "def f(x):\n    if False:\n        breakpoint()\n    return x\n",
    "import os\nos.environ['KMP_DUPLICATE_LIB_OK'] = 'TRUE'\ndef f(x):\n    breakpoint()\n    return x\n",
    "IN_NOTEBOOK = 'get_ipython' in globals()\n",
    "class A:\n    def r(self):\n        return vars(self)\n    def __post_init__(self):\n        object.__setattr__(self, 'n', 1)\n",
])
def test_honest_test_and_debug_code_is_no_evasion(source):
    assert _evasions(source) == []


@pytest.mark.parametrize("source, named", [
    ("from unittest import mock\nmock.patch('torch.softmax')\n", "unittest.mock"),
    ("import unittest.mock as m\ndef f():\n    return m.patch\n", "unittest.mock"),
    ("import doctest\ndoctest.run_docstring_examples('x', {})\n", "doctest"),
    ("import io, sys, pdb\nsys.stdin = io.StringIO('c')\npdb.set_trace()\n", "pdb"),
    ("import os\nos.environ.update(A='x')\nbreakpoint()\n", "breakpoint"),
    ("import lazy_loader as lazy\nlazy.attach('torch', submod_attrs={})\n", "import of lazy_loader"),
    ("import pytest\npytest.importorskip('torch')\n", "importorskip"),
    ("import traceback\nframes = traceback.walk_stack(None)\n", "walk_stack"),
    ("class A:\n    def r(self, name):\n        object.__setattr__(self, name, 1)\n", "object.__setattr__"),
    ("def f(obj):\n    return vars(obj)\n", "vars"),
    ("x = globals()['__builtins__']\n", "globals"),
])
def test_what_runs_text_still_is_an_evasion(source, named):
    assert any(what.startswith(named) for what in _evasions(source)), _evasions(source)
