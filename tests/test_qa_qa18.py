"""qa18's regression corpus (tests/qa/qa18/): a single bug charged once in its own task, and two
hostile figures that cost the grader gigabytes (headers as in qa16). What was wrong before (main
at 8479f24), and is fixed:
- b01: tick labels set with plt.xticks/plt.yticks: with ax= given they went to the current Axes of
  another figure and ax kept matplotlib's numbers, yet E was full (the ax= check compared only the
  title, the axis labels and the colorbar). The tick labels are compared too now (E 9).
- h01: a dot drawn 8,000 pixels away grew the tight box: a 283 KB PNG of 8023x8000 pixels, decoded
  to float64 by the grader (2.7 GB; 13,500 pixels a side ended in PIL's DecompressionBombError, an
  internal error). A picture of more than PLOT_MAX_PNG_PIXELS is refused, with a message, unread.
- h02: tick labels of 200 characters: the grader drew each again on a canvas twice its box (2.2 GB).
  A label box over 1000 pixels is not drawn again: the figure cannot be compared with its picture.
- h03, h04: E.1's light-to-dark check read the colour map's ends (cmap(0.0), cmap(1.0)): a map that
  answers those with Blues' ends while its cells get viridis, or Blues through a norm that turns it
  around, kept E 10. The cells' own colours (those held against the picture) are read too.
This test grades seed 1, the whole corpus in one batch run.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from autograder.feedback.results import SubmissionResult
from tests.corpus import assert_each_bug_in_its_own_part, assert_graded_as_expected, graded_corpus

CORPUS = Path(__file__).resolve().parent / "qa" / "qa18"
FILES = sorted(CORPUS.glob("*.py"))


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> dict[str, SubmissionResult]:
    return graded_corpus(CORPUS, tmp_path_factory.mktemp("qa18_out"))


def test_correct_files_expect_full_marks_and_each_bug_loses_points_in_its_own_part_only():
    assert_each_bug_in_its_own_part(FILES)


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_each_submission_scores_its_parts_and_names_only_its_mistakes(path, graded):
    assert_graded_as_expected(graded[path.stem], path)


@pytest.mark.parametrize(("name", "check", "said"), [
    ("b01_e1_ticks_via_plt_on_current_axes", "plot_attention_uses_given_axes", "its tick labels went to another Axes or figure"),
    ("h01_e1_picture_grown_by_a_far_dot", "plot_attention_cell_values", "your figure's picture is 8023x8000 pixels, more than the grader reads"),
    ("h02_e1_tick_labels_of_200_characters", "plot_attention_cell_values", "a tick label's box is more than 1000 pixels long"),
    ("h03_e1_colour_map_lies_about_its_ends", "plot_attention_light_to_dark", "the cell of the highest weight is not darker than the cell of the lowest"),
    ("h04_e1_norm_inverts_blues", "plot_attention_light_to_dark", "the cell of the highest weight is not darker than the cell of the lowest"),
])
def test_the_feedback_says_what_went_wrong(graded, name, check, said):
    failed = {c.check_id: c.message for c in graded[name].checks if not c.passed}
    assert said in failed.get(check, ""), failed
