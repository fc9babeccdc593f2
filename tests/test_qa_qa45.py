"""qa45s: styles and single mistakes of round 38 that no earlier corpus tried (tests/qa/qa45s: 26
correct files, 30 single mistakes; headers are the fair grades, found equal to the grader's).

Correct: the 1/sqrt(d) scale split across q and k, a row max over a copy filled with finfo.min,
row sums by a matmul with ones, a hand-written log-sum-exp, tril_indices and ~triu(1) masks,
addmm and baddbmm projections, swapaxes and movedim heads, a C.3 that calls A.3 and recomputes
the dropped heads, an einsum on the projection weights' views, a fused QKV for self-attention,
and heatmaps drawn with pcolormesh, pcolor, origin="lower", a colorbar at the bottom or left or of
its own ScalarMappable, reversed and custom colour maps, seaborn on a DataFrame, interpolation
"none" and "antialiased". Mistakes: one per file, in A.1 to E.1, each charged in its own task.

qa45h (tests/qa/qa45h), the red team: a custom autograd.Function whose forward returns zeros and
whose backward, run by the worker's vjp outside the trace, wrote the library's values into the
returned tensors in place: the gradient checks read them (A.2's fully blocked gradient, B.1's and
C.3's gradients: h02, h17, 4 points); or left them alone and returned the library's gradients,
which B.1's and C.3's gradient checks compare without the outputs (h19, 2 points). The vjp now
exports the outputs as the forward left them, refuses a backward that changed them, and holds a
backward written in Python to a finite difference of the forward (c26, a correct one by hand,
earns everything; b32, one that returns the identity's gradient, loses A.2's two gradient checks
only). Defended already: torch.softmax in a saved-tensors pack hook (h01), a colour map named
Blues that is viridis (h03), a painted strip for a colorbar (h04), a softmax by hand only while
profiled (h16: the static pass names the library call).
"""
from __future__ import annotations

from pathlib import Path

import pytest

from autograder.feedback.results import SubmissionResult
from tests.corpus import assert_each_bug_in_its_own_part, assert_graded_as_expected, graded_corpus

STYLES = Path(__file__).resolve().parent / "qa" / "qa45s"
RED_TEAM = STYLES.parent / "qa45h"


@pytest.fixture(scope="module")
def styles(tmp_path_factory) -> dict[str, SubmissionResult]:
    return graded_corpus(STYLES, tmp_path_factory.mktemp("qa45s_out"))


@pytest.mark.parametrize("path", sorted(STYLES.glob("*.py")), ids=lambda p: p.stem)
def test_each_style_or_single_mistake_scores_its_header(path, styles):
    assert_graded_as_expected(styles[path.stem], path)


def test_the_headers_charge_each_mistake_in_its_own_part():
    assert_each_bug_in_its_own_part(sorted(STYLES.glob("*.py")))


def test_no_file_is_flagged(styles):
    assert {stem: r.flags for stem, r in styles.items() if r.flags} == {}


@pytest.fixture(scope="module")
def red_team(tmp_path_factory) -> dict[str, SubmissionResult]:
    return graded_corpus(RED_TEAM, tmp_path_factory.mktemp("qa45h_out"))


@pytest.mark.parametrize("path", sorted(RED_TEAM.glob("*.py")), ids=lambda p: p.stem)
def test_each_red_team_file_scores_its_header(path, red_team):
    assert_graded_as_expected(red_team[path.stem], path)
