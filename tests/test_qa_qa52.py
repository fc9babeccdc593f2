"""qa52: two mistakes that cancel, work tuned to what the checks feed in, and tutorials' styles.

qa52s (headers are the fair grades): two realistic mistakes in two tasks, each charged once, in its
own task. Where a later task's code undid an earlier task's mistake (A.1 leaves the scores unscaled
and C.3 divides them again: p06; A.2 inverts the mask and B.1 inverts it back: p09; C.3 skips W_o
and D.1 applies attn.W_o itself: p22; A.1 unscaled and A.3 rescaled: p24), every check of the
later task passed with the student's own earlier functions, and its own mistake cost nothing (C
lost 0 instead of 20 in p06). A check that passes while an earlier task it leans on lost points is
now graded again with trusted stand-ins for them, as a failing one is (grading/checks/plugin.py,
`_undoing`): failing on values then, it is charged, saying whose mistake it undoes.

qa52o (a red team; headers are the fair grades): 16 files each wrong on inputs the contract allows
and right on every input the checks fed in; all 16 got 100 on two seeds. The checks now try those
inputs too: Lq > Lk > d (A.1), one key blocked (A.2), 4-D scores left as they were (A.2), 2-D and
5-D inputs (A.3), a 300 x 2 causal mask (A.4), a SelfAttention in training mode (B.1, a check of
its own: its properties pay on the eval values), half-precision inputs (C.1, C.2), a value given
without a key (C.3), the share of weights dropout keeps and the mask in training mode (C.3), the
block's own dropout at a second rate and its mask in training mode (D.1), a map with more queries
than keys, and a colour map that darkens all the way (E.1). Open (qa52o_open, a strict xfail): a
per-head (H, Lq, Lk) mask read as (B, Lq, Lk) (o07), and tick labels thinned past 12 tokens (o14).

qa52t: correct files written in the idioms of well-known tutorials (The Annotated Transformer, d2l,
nanoGPT, Raschka, Hugging Face BERT, timm, fairseq, lucidrains, einops...): full marks.
"""
from __future__ import annotations

from pathlib import Path

import matplotlib
import pytest

from autograder.assignments.attention.checks.part_e import LIGHTNESS_MARGIN, lightness_rise
from autograder.feedback.results import SubmissionResult
from tests.corpus import assert_graded_as_expected, expected, graded_corpus

QA = Path(__file__).resolve().parent / "qa"
PAIRS, OVERFIT, OPEN, TUTORIALS = QA / "qa52s", QA / "qa52o", QA / "qa52o_open", QA / "qa52t"


@pytest.fixture(scope="module")
def pairs(tmp_path_factory) -> dict[str, SubmissionResult]:
    return graded_corpus(PAIRS, tmp_path_factory.mktemp("qa52s_out"))


@pytest.fixture(scope="module")
def overfit(tmp_path_factory) -> dict[str, SubmissionResult]:
    return graded_corpus(OVERFIT, tmp_path_factory.mktemp("qa52o_out"))


@pytest.fixture(scope="module")
def tutorials(tmp_path_factory) -> dict[str, SubmissionResult]:
    return graded_corpus(TUTORIALS, tmp_path_factory.mktemp("qa52t_out"))


@pytest.mark.parametrize("path", sorted(PAIRS.glob("*.py")), ids=lambda p: p.stem)
def test_each_of_two_mistakes_is_charged_once_in_its_own_task(path, pairs):
    assert_graded_as_expected(pairs[path.stem], path)


@pytest.mark.parametrize("stem", ["p06_A1_no_scale__C3_extra_sqrt_Dh_cancels", "p22_C3_no_Wo__D1_applies_attn_Wo_cancels"])
def test_a_later_task_that_undoes_an_earlier_mistake_says_so(stem, pairs):
    undone = [c for c in pairs[stem].checks if c.message_key == "scoring_undoes"]
    assert undone and all(c.points == 0 and "undoes" in c.message for c in undone)


@pytest.mark.parametrize("path", sorted(OVERFIT.glob("*.py")), ids=lambda p: p.stem)
def test_work_right_only_on_the_checks_inputs_is_charged(path, overfit):
    assert_graded_as_expected(overfit[path.stem], path)


@pytest.mark.xfail(strict=True, reason="qa52o open: no check gives C.3 a per-head (H, Lq, Lk) mask, or E.1 a map of more than 12 tokens")
def test_open_overfits_are_charged(tmp_path):
    results = graded_corpus(OPEN, tmp_path)
    wrong = {p.stem: {q.part: q.score for q in results[p.stem].parts} for p in sorted(OPEN.glob("*.py"))
             if {q.part: q.score for q in results[p.stem].parts} != expected(p)[0]}
    assert wrong == {}


@pytest.mark.parametrize("path", sorted(TUTORIALS.glob("*.py")), ids=lambda p: p.stem)
def test_a_tutorials_style_gets_full_marks(path, tutorials):
    assert_graded_as_expected(tutorials[path.stem], path)


def _described(cmap: str) -> dict:
    colours = matplotlib.colormaps[cmap]
    return {"axes": [{"images": [{"cmap_grid": [list(colours(i / 32)) for i in range(33)]}]}], "target": 0}


@pytest.mark.parametrize(("cmap", "steady"), [("Blues", True), ("viridis_r", True), ("rocket_r", True), ("cool", True),
                                              ("terrain_r", False), ("ocean_r", False), ("tab20c_r", False)])
def test_a_colour_map_darkens_all_the_way(cmap, steady):
    import seaborn  # noqa: F401 - registers rocket

    rise = lightness_rise(_described(cmap))
    assert rise is not None and (rise <= LIGHTNESS_MARGIN) == steady, rise
