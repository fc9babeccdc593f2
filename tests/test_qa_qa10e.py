"""qa10e's regression corpus (tests/qa/qa10e/): Part E's plot_attention and Part F, round 11.

Each submission says at its top what it is and its expected score per part (`expected: A=32 ...`,
in a .py's first comment lines or a notebook's first markdown cell), and, where qa10e changed the
grader for it, what it scored before:
  c*  a correct plot_attention in a style the earlier corpora lack (the PyTorch seq2seq tutorial's
      MultipleLocator + [''] + tokens idiom, origin='lower' then invert_yaxis, pcolormesh on the cell
      centres with shading='nearest', im.set_data after a blank image, a colorbar Axes placed from
      ax.get_position(), make_axes_locatable's colorbar on top, positions as subscript or circled
      digits, a map of its own named "Blues", ax.set(...) with leading dimensions squeezed, a
      ScalarMappable colorbar in a divider's cax, a DataFrame with a repeated word, a position only
      on repeated words, viridis reversed as an object with FuncFormatters, the tokens on minor
      ticks with a grid on the major ones, a ListedColormap of a seaborn palette, view limits
      through the edge cells' centres, the weights cast to float16 or rounded through bfloat16, which
      a colour map shows alike): full marks, no flag;
  b*  one mistake in E.1, charged there only (Part F keeps its 8 through the stand-in) and named as
      what it is: the matrix oriented by its shape or keys across only when square (right on the
      probe, wrong on every self-attention map), ticks placed by a {token: position} dict or labels
      made unique (wrong where a word repeats), the colorbar's Axes returned (plt.gca() after
      fig.add_axes, cbar.ax), a colorbar on another range, each query scaled to its maximum, query
      labels shifted by one, coolwarm, axis labels set before seaborn resets them, vmin/vmax
      swapped, view limits that leave the last query off the picture, the weights rounded to one
      decimal;
  n01 the zh notebook with the orient-by-shape bug.
Parts A-D are the reference's in every submission, so the batch grades E and F (Part F reads the
earlier parts through its stand-ins): one batch run. The corpus was graded in full at seeds 1, 2
and 3 when it was written.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from autograder.grading.batch import grade_batch
from autograder.grading.session import GradeOptions

CORPUS = Path(__file__).resolve().parent / "qa" / "qa10e"
GRADED = ("E", "F")
EXPECTED = re.compile(r"expected: ((?:[A-F]=[0-9.]+ ?)+)")


def expected_scores(path: Path) -> dict[str, float]:
    """{part: score} from the `expected:` line at the top of a submission."""
    found = EXPECTED.search(path.read_text(encoding="utf-8")[:4000])
    assert found, f"{path.name}: no 'expected: A=.. B=..' line at its top"
    return {part: float(score) for part, score in (item.split("=") for item in found.group(1).split())}


@pytest.fixture(scope="module")
def batch(tmp_path_factory):
    out = tmp_path_factory.mktemp("qa10e")
    batch = grade_batch(CORPUS, out, jobs=2, options=GradeOptions(seed=3, parts=frozenset(GRADED)))
    assert not batch.failed_to_grade, [(s.submission, s.grader_error) for s in batch.failed_to_grade]
    return batch


@pytest.fixture(scope="module")
def graded(batch) -> dict[str, dict[str, float]]:
    return {s.submission: {p.part: p.score for p in s.parts} for s in batch.submissions}


def test_the_corpus_has_every_kind_qa10e_wrote():
    names = [p.stem for p in CORPUS.iterdir()]
    counts = {kind: sum(name.startswith(kind) for name in names) for kind in "cbn"}
    assert counts["c"] >= 17 and counts["b"] >= 13 and counts["n"] >= 1, counts
    assert {p.suffix for p in CORPUS.iterdir()} == {".py", ".ipynb"}


@pytest.mark.parametrize("path", sorted(CORPUS.iterdir()), ids=lambda p: p.stem)
def test_each_submission_scores_what_its_header_says(graded, path):
    want = {part: score for part, score in expected_scores(path).items() if part in GRADED}
    assert graded[path.stem] == want, path.name


def test_no_submission_is_flagged(batch):
    """Every submission of the corpus is honest, right or wrong: none gets an integrity flag (c09,
    a map of its own named "Blues", and b13, view limits that hide a column, had a tamper flag)."""
    assert {s.submission: [flag.code for flag in s.flags] for s in batch.submissions if s.flags} == {}


def test_each_mistake_is_named_as_what_it_is(batch):
    """The failed check of each bug says what is wrong, not some other mistake."""
    said = {
        s.submission: " ".join(c.message for c in s.checks if c.points < c.max_points)
        for s in batch.submissions if s.submission.startswith(("b", "n"))
    }
    expected = {
        "b01_orients_by_shape_square_left_as_is": "a self-attention map (Lq = Lk",
        "b12_square_keys_across": "drawn with the queries down the rows",
        "n01_zh_bug_e_orients_by_shape": "a self-attention map (Lq = Lk",
        "b08_repeated_tokens_dict_positions": "(horizontal: ['', 'dog', 'saw', 'the', 'cat']",
        "b11_labels_deduplicated": "(horizontal: ['the', 'dog', 'saw', 'cat', '']",
        "b02_returns_gca_after_cax": "returned an Axes that does not hold the heatmap",
        "b03_returns_colorbar_axes": "returned an Axes that does not hold the heatmap",
        "b04_colorbar_range_to_data_max": "colorbar shows other colours or another range",
        "b06_query_labels_rotated_by_one": "name another query or key",
        "b07_coolwarm_diverging": "'coolwarm' does not go from light",
        "b09_axis_labels_before_seaborn": "no label on the horizontal and vertical axes",
        "b10_vmin_vmax_swapped_to_reverse_viridis": "the colour range is [-0.1, 1]",
        "b13_last_query_cut_by_xlim": "leave 1 of the heatmap's 4 columns and 0 of its 5 rows off the picture",
        "b14_weights_rounded_to_one_decimal": "20 of 20 cells do not show the weight",
    }
    assert {name: text for name, text in expected.items() if text not in said[name]} == {}
    assert "heatmap_transposed" in next(s for s in batch.submissions if s.submission.startswith("b01")).mistakes
