"""qa9p's regression corpus (tests/qa/qa9p/): the self-learner's path, where only the public checks speak.

Each file is a whole attention.py written the way a self-learner writes it (notes, a __main__
demo, print debugging). `c*` are correct, in styles the public checks must accept: a 0-d tensor
scale, a broadcast weighted sum, a logsumexp softmax, split_heads by view, the earlier functions
held in a SimpleNamespace, a lambda default, a class-level dict, a partial in a tuple, a list and a
default argument, a ScalarMappable colorbar with tick labels on every side, Chinese axis labels.
`b*` hold one bug each. The header gives the grader's per-part scores (A-E, the same at seeds 1,
2 and 3) and what the public checks say: the buggy task's check fails with a message naming the
mistake (a crash names its line), every other task's check passes.

Before qa9p the public checks passed where the grader charged: two projections that are one
layer (b14: C lost 20), bias= not passed on (b15), results with no gradient (b16), a changed title
(b17), swapped axis labels (b18), a softmax that overflows on widely spread scores (b19); and
failed where the grader gave full marks: a colorbar of a ScalarMappable and tick labels on both
sides (c07, as qa7e c18 and c26), earlier functions held other than by their global name (b10-b13,
b20, b21, c03: "not implemented yet" or a wrong earlier task's failure; b20: a method of an object
and a named tuple, b21: the block's own subclass of MultiHeadAttention that reads self.attn.head_dim,
the ways qa9s found the stand-ins had missed). b22-b24 (the lead, round 11): an A.3 that takes the
dropout of the weights (`dropout=self.dropout`, `dropout_p=`): the grader's stand-in refused the
argument (b22: C lost 4 points for A.3's bug), and the public checks' A.3 dropped it, so weights
returned after dropout passed (b24). EARLIER_CORPORA holds the files of
earlier corpora that the grader charges and whose public checks all passed before qa9p (or whose
check crashed: a LayerNorm without affine parameters, a gouraud-shaded mesh): a float16 NaN, a
backward that raises, dropout in the wrong place (checked in training mode with the module's
nn.Dropout replaced by one that drops fixed entries), a smoothed heatmap.

The corpus is graded in one batch run (Parts A-E, seed 1, two grader processes); the public checks
run in one process that forks per file (tests/public_agreement.py).
"""
from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.feedback.results import SubmissionResult
from autograder.grading.batch import grade_batch
from autograder.grading.session import GradeOptions

REPO = Path(__file__).resolve().parents[1]
CORPUS = REPO / "tests" / "qa" / "qa9p"
FILES = sorted(CORPUS.glob("*.py"))
EXPECTED = re.compile(r"^# expected: A=(\S+) B=(\S+) C=(\S+) D=(\S+) E=(\S+)$", re.MULTILINE)
PUBLIC = re.compile(r'^# Public check: (?:([A-E]\.\d) fails: "(.+)"; the others pass|every task passes)\.$', re.MULTILINE)
QA = REPO / "tests" / "qa"
EARLIER_CORPORA = {  # a file the grader charges -> (the task whose public check now fails, what it says)
    "qa4s/b07_a2_mean_subtracted.py": ("A.2", "not numerically stable: scores * 100"),
    "qa4s/b37_c3_bias_ignored.py": ("C.3", "bias=False) still has a bias in W_q, W_k, W_v, W_o"),
    "qa4s/b58_a2_inplace_on_amax_output.py": ("A.2", "computing the gradient of the result raised RuntimeError"),
    "qa4s/b62_a2_softmax_normalize_p1_nan_in_half.py": ("A.2", "for float16 scores with a (4, 5) mask your result has NaN or inf"),
    "qa6s/b29_c3_dropout_hardcoded.py": ("C.3", "self.dropout should be nn.Dropout(dropout), found Dropout(p=0.1"),
    "qa7s/b06_a2_clamp_guard_underflows_in_half.py": ("A.2", "for float16 scores with a (4, 5) mask your result has NaN or inf"),
    "qa7s/b17_b1_one_shared_linear.py": ("B.1", "self.W_q, self.W_k, self.W_v are one and the same layer"),
    "qa7s/b20_b1_weights_detached.py": ("B.1", "no gradient flows into the weights you return"),
    "qa7s/b36_a3_weights_detached.py": ("A.3", "no gradient flows into the weights you return"),
    "qa7s/b37_c3_weights_detached.py": ("C.3", "no gradient flows into the weights you return"),
    "qa7s/b38_d1_weights_detached.py": ("D.1", "no gradient flows into the weights you return"),
    "qa7e/b08_title_on_colorbar.py": ("E.1", "with title='probe heatmap' the Axes' title is empty"),
    "qa7e/b09_title_case_changed.py": ("E.1", "the Axes' title is 'Probe Heatmap'"),
    "qa4e/b16_axis_labels_swapped.py": ("E.1", "the axis labels are swapped"),
    "qa4s/b34_c3_dropout_on_output.py": ("C.3", "self.dropout was given a tensor of shape (2, 4, 21), not the attention weights"),
    "qa7s/b29_c3_dropout_renormalised.py": ("C.3", "your output is not the one of dropped weights times V"),
    "qa7s/b42_c3_dropout_on_scores.py": ("C.3", "the weights you return are not the ones of eval mode"),
    "qa4s/b43_d1_no_block_dropout.py": ("D.1", "y is not LayerNorm(x + self.dropout(attention output))"),
    "qa4s/b44_d1_dropout_after_norm.py": ("D.1", "y is not LayerNorm(x + self.dropout(attention output))"),
    "qa6s/b35_d1_dropout_on_x.py": ("D.1", "y is not LayerNorm(x + self.dropout(attention output))"),
    "qa6e/f04_block_no_own_dropout.py": ("D.1", "y is not LayerNorm(x + self.dropout(attention output))"),
    "qa4e/b24_bicubic_smoothed.py": ("E.1", "the heatmap is smoothed (interpolation='bicubic')"),
    "qa7e/b16_gaussian_interpolation.py": ("E.1", "the heatmap is smoothed (interpolation='gaussian')"),
    "qa7e/b17_pcolormesh_gouraud.py": ("E.1", "the heatmap is smoothed (shading='gouraud')"),  # the check crashed (ValueError)
    "qa4e/b28_imshow_bilinear.py": ("E.1", "the heatmap is smoothed (interpolation='bilinear')"),  # keeps the cells' centres: one point
    "qa4s/b47_d1_norm_no_affine.py": ("D.1", "self.norm has no learnable scale and shift"),  # the check crashed (AttributeError)
    "qa7e/c18_position_in_words.py": None,  # correct (E=10): failed E.1, "the heatmap has no colorbar"
    "qa7e/c26_labels_on_all_four_sides.py": None,  # correct (E=10): failed E.1, each x tick label twice
    # correct files the new checks must leave alone: dropout per head in a loop,
    # F.dropout(x, self.dropout.p, self.training), sdpa given the dropout module
    "qa4s/c22_mha_head_loop.py": None,
    "qa4s/c23_mha_functional_dropout_prescale.py": None,
    "qa6s/c14_functional_dropout_and_norm.py": None,
    "qa6s/c21_head_loop_selfattention_reuse.py": None,
    "qa6s/c26_mha_reuses_sdpa_with_dropout_hook.py": None,
}


def _header(path: Path) -> tuple[dict[str, float], tuple[str, str] | None]:
    text = path.read_text(encoding="utf-8")
    scores, public = EXPECTED.search(text), PUBLIC.search(text)
    assert scores and public, f"{path.name}: the header gives no expected scores or public check"
    return dict(zip("ABCDE", map(float, scores.groups()))), (public.group(1), public.group(2)) if public.group(1) else None


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> dict[str, SubmissionResult]:
    out = tmp_path_factory.mktemp("qa9p_out")
    batch = grade_batch(CORPUS, out, jobs=2, options=GradeOptions(seed=1, parts=frozenset("ABCDE")))
    return {result.submission: result for result in batch.submissions}


@pytest.fixture(scope="module")
def public() -> dict[str, dict[str, str | None] | str]:
    """Every public check of every file of the corpus and of EARLIER_CORPORA, by path."""
    paths = [str(path) for path in FILES] + [str(QA / name) for name in EARLIER_CORPORA]
    run = subprocess.run(
        [sys.executable, str(REPO / "tests" / "public_agreement.py"), "-"],
        input=json.dumps(dict.fromkeys(paths)), capture_output=True, text=True, cwd=REPO, timeout=600,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    return json.loads(run.stdout)


def test_the_corpus_holds_correct_files_and_single_bugs():
    names = [path.stem for path in FILES]
    assert sum(n.startswith("c") for n in names) >= 8 and sum(n.startswith("b") for n in names) >= 20
    for path in FILES:
        scores, said = _header(path)
        lost = [part for part, score in scores.items() if score < {"A": 32, "B": 10, "C": 28, "D": 12, "E": 10}[part]]
        assert (not lost and said is None) if path.stem.startswith("c") else (len(lost) == 1 and said and said[0][0] == lost[0]), path.name


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_the_grader_scores_each_part_as_the_header_says(path, graded):
    result = graded[path.stem]
    assert not result.grader_error, result.grader_error
    failures = [f"{c.task} {c.check_id}: {c.message[:160]}" for c in result.checks if not c.passed]
    assert {p.part: p.score for p in result.parts} == _header(path)[0], failures


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_the_public_checks_fail_the_buggy_task_only_and_name_its_mistake(path, public):
    results = public[str(path)]
    assert isinstance(results, dict), results
    failed = {task: message for task, message in results.items() if message is not None}
    said = _header(path)[1]
    if said is None:
        assert not failed, failed
    else:
        task, words = said
        assert list(failed) == [task] and words in failed[task], failed


@pytest.mark.parametrize("name", list(EARLIER_CORPORA))
def test_an_earlier_corpus_file_the_grader_charges_fails_its_public_check(name, public):
    """(None: a correct file: every public check passes.)"""
    results = public[str(QA / name)]
    assert isinstance(results, dict), results
    failed = {task: message for task, message in results.items() if message is not None}
    if EARLIER_CORPORA[name] is None:
        assert not failed, failed
    else:
        task, words = EARLIER_CORPORA[name]
        assert task in failed and words in failed[task], failed
