"""qa46h: the red team of round 38, on the repair of a shared helper and on the worker's vjp
(tests/qa/qa46h; headers are the fair grades).

- A helper shared by B.1 and C.3 (or C.3 and D.1) that is nearly right on the earlier task's calls
  and does nothing on the later task's path (4-D heads: h01; a module flagged by the later task:
  h03; a LayerNorm: h04, h06) earned the later task's points through the repair (20 in C.3, 11 in
  D.1). A repair now compares the helper's own values with its own on every call, and answers a
  later call only when they are as far apart as they typically were on the earlier task's calls.
- A helper that differs only when gradients are off (h05) made the comparison see a mistake that
  is not there: the helper's own values are now computed with gradients on, on copies.
- A helper wrong everywhere (h02) is one mistake, charged once in B.1: C.3's own projections, heads
  and W_o are right, as they would be given a wrong A.3.
- A forward that computes nothing with gradients from tensor hooks (h07), or from an
  autograd.Function that computes the values only when gradients are off (h08), earned B.1's and
  C.3's gradient checks: the finite difference of the vjp now runs when a hook is on the outputs,
  the inputs or the parameters, with gradients on.
- Round 39: hooks on the graph's nodes (grad_fn.register_prehook and register_hook: h09), which no
  attribute of a tensor shows, did the same. The worker now notes any Python the autograd engine
  calls in the backward (`dispatcher._EngineCalls`), and the finite difference runs then too;
  hooks that only note gradient norms (h10) keep full marks.
- Round 39: a helper grossly wrong on B.1's calls (every layer's result tripled) may be wrong in any
  way on C.3's, so how far off it is there said nothing, and it could skip C.3's W_o (h11, 20
  points). A later call that hands it a module with parameters must now find its own code reading
  them, where the earlier calls did (`dispatcher._reads_parameters`), and run no bytecode of the
  submission that the earlier calls did not (`dispatcher._Ran`, after qa47h), run as if given
  what the earlier calls gave where it is given another kind (a dropout beside W_o: h14). The same
  helper without the skip (h12), and one that never applies a layer (h13), stay one mistake,
  charged in B.1.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from autograder.feedback.results import SubmissionResult
from tests.corpus import assert_graded_as_expected, graded_corpus

RED_TEAM = Path(__file__).resolve().parent / "qa" / "qa46h"


@pytest.fixture(scope="module")
def red_team(tmp_path_factory) -> dict[str, SubmissionResult]:
    return graded_corpus(RED_TEAM, tmp_path_factory.mktemp("qa46h_out"))


@pytest.mark.parametrize("path", sorted(RED_TEAM.glob("*.py")), ids=lambda p: p.stem)
def test_each_red_team_file_scores_its_header(path, red_team):
    assert_graded_as_expected(red_team[path.stem], path)
