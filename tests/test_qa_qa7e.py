"""qa7e's regression corpus (tests/qa/qa7e/): Part E's plot_attention, Part F and notebooks, round 9.

Each submission says at its top what it is and its expected score per part (`expected: A=32 ...`,
in a .py's first comment lines or a notebook's first markdown cell):
  c*  a correct plot_attention in a style the contract allows that the earlier corpora lack (the
      matplotlib gallery's annotated heatmap, the classic style, an inset_axes colorbar,
      BoundaryNorm / CenteredNorm, a percent-formatted colorbar below with y labels on the right,
      pcolorfast, subplot2grid, rc_context, Chinese axis labels, a unit-square extent, seaborn-like
      pcolormesh by hand, add_gridspec, a tiny figure, coloured tick labels, a DataFrame with
      set_norm, masked arrays, positions named in words or in Chinese ('the (pos 0)',
      'the（位置 0）') or in quotes, opaque boxed annotations, labels on all four sides, a grid
      through the cells, rows two units tall, plt.matshow(fignum=0), plt.axes, a bar chart under
      the map, a panel letter beside the title, decorators, FuncNorm, shadowed tick labels...): full marks;
  b*  one mistake in E.1 (labels on automatic ticks, sorted or one-based, one end of the range
      from the data, 1 - w on a reversed map, rounded weights, the label or title on the colorbar,
      seaborn without ax=, LogNorm, inferno, the colorbar removed, a Figure returned, gaussian or
      gouraud smoothing...), charged there only (Part F keeps its 8 through the stand-in) and named
      as what it is;
  n*  nbgrader's release of the notebook, filled in and saved the way students' tools save it
      (JupyterLab 4's nbformat 4.5 with ids and outputs, VS Code's one-string sources with CRLF,
      Colab's metadata with `!pip`, cells reordered, cell magics, nbformat 4.1, a bug in E.1, an
      answer cell whose last line raises). tests/test_qa_qa7e_nbgrader.py grades six of them with
      real nbgrader.
Parts A and B are the reference's in every submission, so the batch grades C-F (Part F reads the
earlier parts' results through its stand-ins): one batch run. The corpus was graded in full at
seeds 1, 2 and 3 when it was written.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from autograder.grading.batch import grade_batch
from autograder.grading.session import GradeOptions

CORPUS = Path(__file__).resolve().parent / "qa" / "qa7e"
GRADED = ("C", "D", "E", "F")
EXPECTED = re.compile(r"expected: ((?:[A-F]=[0-9.]+ ?)+)")


def expected_scores(path: Path) -> dict[str, float]:
    """{part: score} from the `expected:` line at the top of a submission."""
    found = EXPECTED.search(path.read_text(encoding="utf-8")[:4000])
    assert found, f"{path.name}: no 'expected: A=.. B=..' line at its top"
    return {part: float(score) for part, score in (item.split("=") for item in found.group(1).split())}


@pytest.fixture(scope="module")
def batch(tmp_path_factory):
    out = tmp_path_factory.mktemp("qa7e")
    batch = grade_batch(CORPUS, out, jobs=2, options=GradeOptions(seed=2, parts=frozenset(GRADED)))
    assert not batch.failed_to_grade, [(s.submission, s.grader_error) for s in batch.failed_to_grade]
    return batch


@pytest.fixture(scope="module")
def graded(batch) -> dict[str, dict[str, float]]:
    return {s.submission: {p.part: p.score for p in s.parts} for s in batch.submissions}


def test_the_corpus_has_every_kind_qa7e_was_asked_for():
    names = [p.stem for p in CORPUS.iterdir()]
    counts = {kind: sum(name.startswith(kind) for name in names) for kind in "cbn"}
    assert counts["c"] >= 20 and counts["b"] >= 12 and counts["n"] >= 6, counts
    assert {p.suffix for p in CORPUS.iterdir()} == {".py", ".ipynb"}


@pytest.mark.parametrize("path", sorted(CORPUS.iterdir()), ids=lambda p: p.stem)
def test_each_submission_scores_what_its_header_says(graded, path):
    want = {part: score for part, score in expected_scores(path).items() if part in GRADED}
    assert graded[path.stem] == want, path.name


def test_no_submission_is_flagged(batch):
    """Every submission of the corpus is honest, right or wrong: none gets an integrity flag."""
    assert {s.submission: [flag.code for flag in s.flags] for s in batch.submissions if s.flags} == {}
