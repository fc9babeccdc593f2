"""qa44s: helpers two tasks share, in shapes the repair of round 37 had not seen (tests/qa/qa44s:
12 correct files, single mistakes in shared helpers and their controls; headers are the fair grades).

A helper's arguments are taken in the order of its own parameters, however it is called (keywords
in any order: b02, b03, b17, b21); a staticmethod or classmethod is repaired as a function (b07,
b08), and so is a method of a class defined in a class's body (b09); a helper that returns
(weights, output) (b15), scores with the keys first (b18), a weighted sum (b22), applies a Linear
from its weight and bias (b19) or a dropout from a rate and a flag (b12) has a repair of its own; a
repair's values come back in the container the helper's own do (a dict, a named tuple, one stacked
tensor: b04, b05, b20); up to 12 shared helpers are tried (b23, b24). A None where the earlier
task's calls gave a tensor (C.3's bias=False) is answered when the helper's own code takes it for
zeros (b19), not when its path for None differs (d14); a mask where the earlier task's code gave
None (it drops the mask: d12) when the helper's own weights are 0 where the mask blocks and its
rows sum as without one, not when it multiplies by the mask without normalizing again (d15). The
earlier task's repair is accepted when none of its values checks that passed fails with it, and
one that failed passes or the helper's own values differ from the repair's on the earlier task's
calls (a second mistake of the task's own keeps every check failing: d02, d10). On the later
task's calls the helper's own values must be as far from the repair's as they typically were on
the earlier task's (a helper 0.9 times right stays so), so a second mistake on a path only the
later task takes stays its own (d07 a dropout put on the heads, d11 a transpose right only for 3-D
inputs, d13 a cross-attention branch).

Open (tests/qa/qa44s_open, a strict xfail; headers are the fair grades): d08, a LayerNorm branch of
the helper that adds 0.1, about as far from the repair as its 0.9 is on the earlier task's calls.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from autograder.feedback.results import SubmissionResult
from tests.corpus import assert_graded_as_expected, expected, graded_corpus

QA = Path(__file__).resolve().parent / "qa"
STYLES, OPEN = QA / "qa44s", QA / "qa44s_open"


@pytest.fixture(scope="module")
def styles(tmp_path_factory) -> dict[str, SubmissionResult]:
    return graded_corpus(STYLES, tmp_path_factory.mktemp("qa44s_out"))


@pytest.mark.parametrize("path", sorted(STYLES.glob("*.py")), ids=lambda p: p.stem)
def test_each_shared_helper_file_scores_its_header(path, styles):
    assert_graded_as_expected(styles[path.stem], path)


def test_no_file_is_flagged(styles):
    assert {stem: r.flags for stem, r in styles.items() if r.flags} == {}


@pytest.mark.xfail(strict=True, reason="qa44s open: a second mistake on the later task's path of the helper, as far off as the first")
def test_a_mistake_in_a_helper_two_tasks_share_is_charged_once_in_every_shape(tmp_path):
    results = graded_corpus(OPEN, tmp_path)
    wrong = {p.stem: {q.part: q.score for q in results[p.stem].parts} for p in sorted(OPEN.glob("*.py"))
             if {q.part: q.score for q in results[p.stem].parts} != expected(p)[0]}
    assert wrong == {}
