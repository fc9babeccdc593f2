"""qa43s: unseen styles and bugs of round 37 (tests/qa/qa43s: 24 correct styles, 22 single bugs,
9 double bugs; headers are the fair grades).

- A.3's and C.3's checks run in float64, but A.1, A.2, C.1 and C.2 were never tried in it: a
  function that returned float32 for float64 lost nothing in its own task and A.3's 8 points or
  C.3's 21 (F1: b18, b23, b26, b27, d07, d09). Their dtype checks now try float64 (and A.1
  bfloat16, b01); split_heads and merge_heads say "keep x's dtype" in the contract.
- A.1 was never given the non-contiguous heads C.3 gives it: `k.view(-1, Lk, d)` cost C.3 21
  points and F.1 one (F2: b06, d04). A.1's contract says so now, and its 2-D/5-D check gives it
  such views: the worker's non-contiguous arguments keep no two axes mergeable.
- A bfloat16 score beyond float16's range, softmaxed in a float16 copy, gave NaN rows at 100
  (F3: b02, d02): A.2's dtype check has such a row, and names no mistake there (a max
  subtraction would not have saved that copy).
- A colorbar under 3 pixels, axis labels of 3 pt or white on white, tick labels of 2 pt: told
  "no colorbar" or "no label", or not charged (F4: b16, b17, b21, b22). The worker now says which
  labels hold text too small or faint to read, and the checks say so.

qa43h (tests/qa/qa43h), the red team, on the repair of a helper two tasks share (round 37):
- the later task's own call site with two arguments swapped (a dropout where the mask goes, the
  tensor where the module goes) crashed on every call, and the repair, which took its arguments
  by kind, answered it: C.3 28 of 28 for code that never ran (F1, F2: b02, b03, b04);
- the helper's own code never applied a module or a dropout that only the later task hands it
  (a LayerNorm, C.3's dropout), and the repair applied it (F3: b01, b05).
A repair now answers only calls that hand the helper, in each place, a kind of argument the
earlier task's calls did there, or a dropout where they gave None, or another module where they
gave modules, that the helper's own code applies (its values change when it is an identity).
- An honest colorbar 2.7 pixels wide at 72 dpi was called too thin (F4: c01): the least is 2 pixels.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from autograder.feedback.results import SubmissionResult
from tests.corpus import assert_each_bug_in_its_own_part, assert_graded_as_expected, graded_corpus

STYLES = Path(__file__).resolve().parent / "qa" / "qa43s"
RED_TEAM = Path(__file__).resolve().parent / "qa" / "qa43h"


@pytest.fixture(scope="module")
def styles(tmp_path_factory) -> dict[str, SubmissionResult]:
    return graded_corpus(STYLES, tmp_path_factory.mktemp("qa43s_out"))


@pytest.mark.parametrize("path", sorted(STYLES.glob("*.py")), ids=lambda p: p.stem)
def test_each_unseen_style_or_bug_scores_its_header(path, styles):
    assert_graded_as_expected(styles[path.stem], path)


def test_the_style_headers_charge_each_bug_in_its_own_part():
    assert_each_bug_in_its_own_part([p for p in sorted(STYLES.glob("*.py")) if p.name.startswith(("b", "c"))])


def test_no_style_file_is_flagged(styles):
    assert {stem: r.flags for stem, r in styles.items() if r.flags} == {}


@pytest.mark.parametrize("stem,key", [
    ("b17_E1_thin_colorbar", "colorbar_unreadable"),
    ("b16_E1_tiny_axis_labels", "axis_label_unreadable"),
    ("b21_E1_white_labels", "axis_label_unreadable"),
    ("b22_E1_tick_labels_2pt", "tick_labels_unreadable"),
])
def test_an_element_drawn_too_small_or_faint_is_said_to_be_unreadable_not_missing(stem, key, styles):
    failed = [c for c in styles[stem].checks if c.points < c.max_points]
    assert [c.message_key for c in failed] == [key], [(c.check_id, c.message_key, c.mistake) for c in failed]
    assert not any(c.mistake for c in failed)


def test_dtype_slips_in_a1_and_c2_are_charged_in_their_own_checks(styles):
    """F1: the float64 leg of A.1's dtype check and of C.2's non-contiguous-and-dtype check; A.3
    and C.3 pay given the stand-ins, saying where the mistake is charged."""
    lost = {stem: sorted(c.check_id for c in styles[stem].checks if c.points < c.max_points) for stem in ("b18_A1_f64_to_f32", "b27_C2_float32", "b06_A1_view_k")}
    assert lost == {"b18_A1_f64_to_f32": ["attention_scores_dtype"], "b27_C2_float32": ["merge_heads_noncontiguous"],
                    "b06_A1_view_k": ["attention_scores_any_leading_dims"]}


@pytest.fixture(scope="module")
def red_team(tmp_path_factory) -> dict[str, SubmissionResult]:
    return graded_corpus(RED_TEAM, tmp_path_factory.mktemp("qa43h_out"))


@pytest.mark.parametrize("path", sorted(RED_TEAM.glob("*.py")), ids=lambda p: p.stem)
def test_each_red_team_file_scores_its_header(path, red_team):
    assert_graded_as_expected(red_team[path.stem], path)
