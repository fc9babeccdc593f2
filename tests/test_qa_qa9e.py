"""qa9e's regression corpus (tests/qa/qa9e/): Part E's plot_attention, Part F and notebooks, round 10.

Each submission says at its top what it is and its expected score per part (`expected: A=32 ...`,
in a .py's first comment lines or a notebook's first markdown cell):
  c*  a correct plot_attention in a style the contract allows that the earlier corpora lack (a
      colorbar from a ScalarMappable of its own, SymLogNorm, a named figure reused with clear=True,
      twiny / secondary_xaxis numbering the positions, axes_grid1's inset_locator, the Colorbar
      class with make_axes, argmax cells boxed or marked by a scatter, seaborn's mask=,
      light_palette, center=, a norm named by a string, the Axis-level tick APIs and
      ax.title.set_text, MultipleLocator with a plain formatter function, pcolormesh with
      IndexLocator, '0: the' and math-text ('$\\mathrm{the}_{0}$') labels, plt.ioff(),
      matplotlib.use('Agg'), a resized given figure, a default title, seaborn contexts around
      imshow, drawedges, im.axes returned, a title on the right, sizes from the token count, a
      MultiIndex DataFrame, axis labels at their ends, module-level rcParams, a short anchored
      colorbar, enumerate pairs as labels): full marks;
  b*  one mistake in E.1 (one token list for both axes, the key ticks counted with the query
      length, a colorbar of another colour map, np.tril on the picture, fig.supxlabel, seaborn's
      every other label, tokens cut to three letters, a norm with vmin/vmax, percentages, the title
      overwritten, an extent that flips the rows, the colorbar's ylim for the range, `return` under
      `if title:`, seaborn with ticks on the cell edges, colours computed by hand), charged there
      only (Part F keeps its 8 through the stand-in) and named as what it is;
  n*  notebooks: the zh release cleaned by nbstripout and paired by jupytext (no kernelspec),
      nbgrader's release with a raw cell and a pasted image, with its metadata emptied and a bug
      in E.1, with math-text tick labels and LaTeX answers. The nbgrader ones are also graded by
      real nbgrader below (marked slow: each is a kernel run of the whole notebook, ~1 minute).
Parts A-D are the reference's in every submission, so the batch grades E and F (Part F reads the
earlier parts through its stand-ins): one batch run. The corpus was graded in full at seeds 1, 2
and 3 when it was written.
"""
from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from autograder.grading.batch import grade_batch
from autograder.grading.session import GradeOptions

CORPUS = Path(__file__).resolve().parent / "qa" / "qa9e"
GRADED = ("E", "F")
EXPECTED = re.compile(r"expected: ((?:[A-F]=[0-9.]+ ?)+)")


def expected_scores(path: Path) -> dict[str, float]:
    """{part: score} from the `expected:` line at the top of a submission."""
    found = EXPECTED.search(path.read_text(encoding="utf-8")[:4000])
    assert found, f"{path.name}: no 'expected: A=.. B=..' line at its top"
    return {part: float(score) for part, score in (item.split("=") for item in found.group(1).split())}


@pytest.fixture(scope="module")
def batch(tmp_path_factory):
    out = tmp_path_factory.mktemp("qa9e")
    batch = grade_batch(CORPUS, out, jobs=2, options=GradeOptions(seed=3, parts=frozenset(GRADED)))
    assert not batch.failed_to_grade, [(s.submission, s.grader_error) for s in batch.failed_to_grade]
    return batch


@pytest.fixture(scope="module")
def graded(batch) -> dict[str, dict[str, float]]:
    return {s.submission: {p.part: p.score for p in s.parts} for s in batch.submissions}


def test_the_corpus_has_every_kind_qa9e_was_asked_for():
    names = [p.stem for p in CORPUS.iterdir()]
    counts = {kind: sum(name.startswith(kind) for name in names) for kind in "cbn"}
    assert counts["c"] >= 25 and counts["b"] >= 12 and counts["n"] >= 3, counts
    assert {p.suffix for p in CORPUS.iterdir()} == {".py", ".ipynb"}


@pytest.mark.parametrize("path", sorted(CORPUS.iterdir()), ids=lambda p: p.stem)
def test_each_submission_scores_what_its_header_says(graded, path):
    want = {part: score for part, score in expected_scores(path).items() if part in GRADED}
    assert graded[path.stem] == want, path.name


def test_no_submission_is_flagged(batch):
    """Every submission of the corpus is honest, right or wrong: none gets an integrity flag."""
    assert {s.submission: [flag.code for flag in s.flags] for s in batch.submissions if s.flags} == {}


def test_each_mistake_is_named_as_what_it_is(batch):
    """The failed check of each bug says what is wrong, not some other mistake."""
    said = {
        s.submission: " ".join(c.message for c in s.checks if c.points < c.max_points)
        for s in batch.submissions if s.submission.startswith(("b", "n03"))
    }
    expected = {
        "b03_colorbar_of_another_colour_map": "colorbar shows other colours",
        "b05_figure_supxlabel_supylabel": "no label on the horizontal and vertical axes",
        "b07_tokens_cut_to_three_letters": "not every label is its token (horizontal: ['the', 'cat', 'sat', 'dow'])",
        "n03_bug_e_tokens_cut_no_notebook_metadata": "not every label is its token",
        "b10_title_overwritten_by_default": "title is not the text given",
        "b12_colorbar_ylim_instead_of_clim": "colour range follows the data",
        "b13_return_inside_title_branch": "given ax= and no title, plot_attention returned NoneType",
        "b15_rgba_image_of_computed_colours": "RGB(A) picture",
    }
    assert {name: text for name, text in expected.items() if text not in said[name]} == {}


NBGRADER = ("n02_raw_cell_and_pasted_image_attachment", "n03_bug_e_tokens_cut_no_notebook_metadata", "n04_mathtext_tick_labels_latex_answers")


@pytest.fixture(scope="module")
def nbgrader_scores(tmp_path_factory) -> dict[str, dict[str, float]]:
    from nbgrader.api import Gradebook

    from autograder.authoring.nbgrader_course import init_course
    from autograder.authoring.notebook import notebook_name
    from autograder.paths import ASSIGNMENT
    from tests.test_nbgrader_e2e import BIN, _run

    course = tmp_path_factory.mktemp("qa9e-nbgrader") / "course"
    init_course(course)
    _run(str(BIN / "nbgrader"), "generate_assignment", ASSIGNMENT, cwd=course)
    for name in NBGRADER:
        target = course / "submitted" / name.split("_")[0] / ASSIGNMENT / notebook_name()
        target.parent.mkdir(parents=True)
        shutil.copyfile(CORPUS / f"{name}.ipynb", target)
    _run(str(BIN / "nbgrader"), "autograde", ASSIGNMENT, cwd=course)
    scores = {}
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        for name in NBGRADER:
            [notebook] = gradebook.find_submission(ASSIGNMENT, name.split("_")[0]).notebooks
            scores[name] = {grade.name.removeprefix("grade-"): float(grade.auto_score) for grade in notebook.grades}
    return scores


@pytest.mark.nbgrader
@pytest.mark.slow
@pytest.mark.parametrize("name", NBGRADER)
def test_nbgrader_scores_every_part_as_grade_batch_does(nbgrader_scores, name):
    """nbgrader's release filled in (a raw cell and a pasted image, the notebook metadata emptied,
    math-text labels): real nbgrader gives every part the score of the `expected:` line."""
    assert nbgrader_scores[name] == expected_scores(CORPUS / f"{name}.ipynb"), name
