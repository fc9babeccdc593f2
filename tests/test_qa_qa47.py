"""qa47h: the red team of round 39, on the vjp's guard and on the repair of a grossly wrong shared
helper (tests/qa/qa47h; headers are the fair grades).

- A forward that computes nothing earned B.1's, C.3's and D.1's gradient checks: `out - out.detach()`
  is zero with the true graph behind it (h01, h08), and an autograd.Function that computes nothing
  could tell the finite difference's re-runs by their leaves (h02, h09) or skip it with a float16
  parameter (h03). A gradient check now pays only where the same call's output and weights are
  the reference's (`module_support.vjp_checked`).
- A helper grossly wrong on B.1's calls may be wrong in any way on a later task's, so how far off
  it was there said nothing: it skipped or all but skipped C.3's W_o or D.1's LayerNorm by a
  branch of its own (h04, h05, h10: 20 points in C.3; h07: 11 in D.1), past the probe of its
  parameters. A later call of such a helper must now run no bytecode of the submission that the
  earlier task's calls did not (`dispatcher._Ran`). The layer inside a list (h06) was answered by
  no repair.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from autograder.feedback.results import SubmissionResult
from tests.corpus import assert_graded_as_expected, graded_corpus

RED_TEAM = Path(__file__).resolve().parent / "qa" / "qa47h"


@pytest.fixture(scope="module")
def red_team(tmp_path_factory) -> dict[str, SubmissionResult]:
    return graded_corpus(RED_TEAM, tmp_path_factory.mktemp("qa47h_out"))


@pytest.mark.parametrize("path", sorted(RED_TEAM.glob("*.py")), ids=lambda p: p.stem)
def test_each_red_team_file_scores_its_header(path, red_team):
    assert_graded_as_expected(red_team[path.stem], path)
