"""qa42s, qa42h: unseen styles and bugs of round 36, and its red team.

qa42s (tests/qa/qa42s: 20 correct styles, 37 single bugs, 7 double bugs; headers are the fair
grades):
- C.3's bias=False check read the layers only: a forward that raised without a bias kept its point
  (b24, b27); the module made with bias=False must now also give the reference's values.
- A blocked score far above the allowed ones, zeroed after its exp() overflowed, gave right values
  and a NaN gradient (b03, d03): A.2's gradient check now goes past one.
- A block whose training path differs from its eval path whatever the dropout (x added again after
  the norm, or no residual, in training mode only: b13, b43) was told to move its dropout; it is
  now told that the two modes compute different formulas.
A mistake no catalogue entry names, in code B.1 and C.3 share (a projection helper or mixin, an
attention helper: b08, b22, b23, b28, b29, b32, b33, d08) or C.3 and D.1 share (b30, b46), was
charged again in the later task. Since round 37 the shared helper is repaired (carried.repairs: the
module it is given called on the tensor, the three projections, the trusted attention); a repair
that makes every values check of the earlier task pass and the later check pass charges it once.

qa42h, the red team, on the profile of round 36 (every call of masked_softmax notes other
libraries' Python functions):
- a C profiler of the standard library (_lsprof) put in its place, its object saying it equals
  anything, or on before the call and then called by the grader's profile on every event (F1, F3:
  b01, b03): the profile is compared by identity, never calls one it did not set, and one that was
  on before the call makes it unprofiled; _lsprof is an evasion, as cProfile is;
- the profile switched off in every call but the rule's own (F4: b04, through
  torch.package.analyze.trace_dependencies, now an evasion too): what the other calls could not see
  (the profile off, another thread, a tensor subclass) makes the rule unchecked;
- the worker's audit hook called str() on a str subclass of the file's own, which ran a library
  softmax where no profile looks (F2: b05): the hook reads arguments with the C methods of str,
  bytes, int and tuple only;
- os in a list display indexed at once, or returned by a helper, reached raw descriptor I/O
  unflagged (F5: b02).
"""
from __future__ import annotations

from pathlib import Path

import pytest

from autograder.feedback.results import SubmissionResult
from autograder.grading.integrity.static import analyze
from tests.corpus import assert_each_bug_in_its_own_part, assert_graded_as_expected, graded_corpus

QA = Path(__file__).resolve().parent / "qa"
STYLES, CORPUS = QA / "qa42s", QA / "qa42h"


@pytest.fixture(scope="module")
def styles(tmp_path_factory) -> dict[str, SubmissionResult]:
    return graded_corpus(STYLES, tmp_path_factory.mktemp("qa42s_out"))


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> dict[str, SubmissionResult]:
    return graded_corpus(CORPUS, tmp_path_factory.mktemp("qa42h_out"))


@pytest.mark.parametrize("path", sorted(STYLES.glob("*.py")), ids=lambda p: p.stem)
def test_each_unseen_style_or_bug_scores_its_header(path, styles):
    assert_graded_as_expected(styles[path.stem], path)


def test_the_style_headers_charge_each_bug_in_its_own_part():
    assert_each_bug_in_its_own_part([p for p in sorted(STYLES.glob("*.py")) if p.name.startswith(("b", "c"))])


def test_no_style_file_is_flagged(styles):
    assert {stem: r.flags for stem, r in styles.items() if r.flags} == {}


@pytest.mark.parametrize("path", sorted(CORPUS.glob("*.py")), ids=lambda p: p.stem)
def test_each_red_team_file_scores_its_header(path, graded):
    assert_graded_as_expected(graded[path.stem], path)


def test_each_door_of_the_red_team_is_flagged(graded):
    """The doors (_lsprof, trace_dependencies, os held as a value) are evasions; the softmax run
    where only the audit hook looked is the A.2 rule's own finding, seen by the profile."""
    evasions = {stem.split("_")[0] for stem, result in graded.items() if any(f.code == "evasion" for f in result.flags)}
    bypass = {stem.split("_")[0] for stem, result in graded.items() if any(f.code == "rule_bypass" for f in result.flags)}
    assert evasions == {"b01", "b02", "b03", "b04"} and "b05" in bypass


OS_HELD = {
    "list display": "[os][0].write(2, b'')\n",
    "conditional": "(os if True else None).write(2, b'')\n",
    "next of iter": "next(iter([os])).write(2, b'')\n",
    "helper": "def _get():\n    return os\n_get().write(2, b'')\n",
    "lambda argument": "(lambda m: m)(os).write(2, b'')\n",
    "reduce": "from functools import reduce\nreduce(lambda a, b: b, [0, os]).write(2, b'')\n",
    "max of a list": "_M = max([os], key=id)\n_M.write(2, b'')\n",
}


@pytest.mark.parametrize("how", sorted(OS_HELD))
def test_raw_descriptor_io_is_seen_however_os_is_reached(how):
    findings = analyze([(1, "import os\n" + OS_HELD[how])]).findings
    assert any(f.code == "evasion" and "raw descriptor" in f.what for f in findings), findings


@pytest.mark.parametrize("source", [
    "def _log():\n    return open(os.devnull, 'w')\n_log().write(os.sep)\n",
    "_files = [open('x.txt', 'w')]\n_files[0].write(os.sep)\n",
    "class _Out:\n    def __init__(self):\n        self.sink = open(os.path.join('a', 'b.txt'), 'w')\n_Out().sink.write('x')\n",
], ids=["devnull helper", "file list", "file attribute"])
def test_files_reached_the_same_ways_are_no_descriptors(source):
    findings = analyze([(1, "import os\n" + source)]).findings
    assert not any("raw descriptor" in f.what for f in findings), findings
