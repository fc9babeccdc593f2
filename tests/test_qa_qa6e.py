"""qa6e's regression corpus (tests/qa/qa6e/): Part E's plot_attention, Part F and notebooks, new styles.

Each submission says at its top what it is and its expected score per part (`expected: A=32 ...`,
in a .py's first comment lines or a notebook's first markdown cell):
  c*  a correct plot_attention in a style the contract allows that qa4e's corpus lacks (pcolormesh
      with the colorbar on the left, matshow moved to the bottom, imshow with explicit extents,
      seaborn with linewidths / set_theme / cbar_ax, add_axes, gridspec, subfigures, subplot_mosaic,
      set_clim, ggplot / fivethirtyeight / bmh / Solarize_Light2 / seaborn dark styles, FixedLocator,
      Figure + FigureCanvasAgg, TwoSlopeNorm, two-line tick labels, plt.xkcd(), demo calls at import
      with 30, 1 and CJK tokens...): full marks;
  b*  one mistake in E.1, charged there only and named as what it is;
  f*  one mistake in C.3 or D.1: Part F keeps its 8 points through the trusted stand-ins;
  n*  nbgrader's release of the notebook, filled in and edited the way students do (outputs left
      in, cells run out of order, extra cells, print debugging, magics, a helper in another task
      cell or in a new cell...). tests/test_qa_qa6e_nbgrader.py grades them with real nbgrader.
Parts A and B are the reference's in every submission (a notebook's are the release's answers), so
the batch grades C-F (Part F reads the earlier parts' results through its stand-ins): one batch run.
The corpus was graded in full (every part) at seeds 1, 2 and 3 when it was written.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from autograder.grading.batch import grade_batch
from autograder.grading.session import GradeOptions

CORPUS = Path(__file__).resolve().parent / "qa" / "qa6e"
GRADED = ("C", "D", "E", "F")
EXPECTED = re.compile(r"expected: ((?:[A-F]=[0-9.]+ ?)+)")


def expected_scores(path: Path) -> dict[str, float]:
    """{part: score} from the `expected:` line at the top of a submission."""
    found = EXPECTED.search(path.read_text(encoding="utf-8")[:4000])
    assert found, f"{path.name}: no 'expected: A=.. B=..' line at its top"
    return {part: float(score) for part, score in (item.split("=") for item in found.group(1).split())}


@pytest.fixture(scope="module")
def batch(tmp_path_factory):
    out = tmp_path_factory.mktemp("qa6e")
    batch = grade_batch(CORPUS, out, jobs=2, options=GradeOptions(seed=3, parts=frozenset(GRADED)))
    assert not batch.failed_to_grade, [(s.submission, s.grader_error) for s in batch.failed_to_grade]
    return batch


@pytest.fixture(scope="module")
def graded(batch) -> dict[str, dict[str, float]]:
    return {s.submission: {p.part: p.score for p in s.parts} for s in batch.submissions}


def test_the_corpus_has_every_kind_qa6e_was_asked_for():
    names = [p.stem for p in CORPUS.iterdir()]
    counts = {kind: sum(name.startswith(kind) for name in names) for kind in "cbfn"}
    assert counts["c"] >= 25 and counts["b"] + counts["f"] >= 20 and counts["n"] >= 10, counts
    assert {p.suffix for p in CORPUS.iterdir()} == {".py", ".ipynb"}


@pytest.mark.parametrize("path", sorted(CORPUS.iterdir()), ids=lambda p: p.stem)
def test_each_submission_scores_what_its_header_says(graded, path):
    want = {part: score for part, score in expected_scores(path).items() if part in GRADED}
    assert graded[path.stem] == want, path.name


def test_no_submission_is_flagged(batch):
    """Every submission of the corpus is honest, right or wrong: none gets an integrity flag (before
    qa6e's fixes c17 and c27 got a tamper flag for their tick labels, b08 for its colours)."""
    assert {s.submission: [flag.code for flag in s.flags] for s in batch.submissions if s.flags} == {}
