"""qa29s and qa29h: gradients switched off by one call, and code the static pass never read.

- qa29s b55-b58, n14: a submission that calls `torch.set_grad_enabled(False)` and never switches
  it back (at module level, in causal_mask, in SelfAttention.forward, in split_heads, in a demo at
  the bottom of a notebook cell) failed the gradient checks of every task graded after it, with
  correct code ("merge_heads: no gradient reaches x"): 90.5 for b55, C and D charged for a C.1 or
  B.1 mistake. The worker now runs each request with gradients on, as the in-process grader of
  nbgrader's kernel did: b55, b56 and n14 score 100 (the contract does not ask a function to
  leave the grad mode as it found it: a decision noted on issue 15), b57 and b58 lose points in
  their own task alone (B 9; C 27.5, C.1's gradient check). The other 149 files of qa29s (93
  correct styles, 56 single bugs, notebooks) were graded as the helper's review found fair; c11
  (a module of its own in place of nn.Linear) is b60 now: the task says "each nn.Linear".

- r01, r02, r06: a helper file named like a library that is not installed (`triton.py`,
  `uharfbuzz.py`), handed in beside the answer or written by a notebook's `%%writefile`, that
  nothing of the submission imports. The static pass does not read such a file (a file nothing
  loads never runs), but the worker wrote it first on sys.path, where torch._dynamo (a demo
  optimizer step) or fontTools (a figure saved as PDF) imported it: it put torch.softmax in A.2's
  place and blinded the trace, 100/100 for an A.2 that returns its scores. The worker now gets
  only the helper files the static pass read (`Student.worker_files`, `SourceFacts.read`): 86.
- r03, r04: a helper whose first line declares `# coding: utf-7`. The loader decoded it by that
  declaration and the worker wrote the text back in UTF-8 with the line kept, so Python decoded it
  again as UTF-7 on import, and `+AAo-` in what the static pass read as a comment became a newline
  and code: 100. The text the grader holds now declares UTF-8 (`declared_utf8`): 86.
- c01-c03: the same answers without the hidden file or the codec (86 each).
Each file's A.2 returns its scores (A 18 of 32); everything else is the reference.
- qa30h r01, r02 (the second red team): a lone CR as line 1 and `# coding: utf-7` on line 2.
  Python's tokenizer ends a line at a lone CR, tokenize.detect_encoding (and declared_utf8) did
  not: the declaration was left as it was, and the payload ran: 100. declared_utf8 ends lines as
  Python does: 86. r05: an honest `from mylib import *` whose `__init__.py` lists the submodule
  `softmax` in `__all__` (Python imports mylib/softmax.py): the static pass did not read that
  file, so the worker, which now gets only what the pass read, lacked it: 6. A star import of a
  package of the submission now reads its modules: 100. r06: a folder handed in with the work in
  hw/ (hw/attention.py beside hw/softmax_utils.py) and another file at the top: the helper was
  looked for as hw.softmax_utils and the import failed (6, before this round too). The files beside
  the entry are now put beside it in the worker, as Python and Jupyter find them: 100.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from autograder.assignment import current
from autograder.feedback.results import SubmissionResult
from autograder.grading.integrity.static import analyze
from autograder.grading.submission import declared_utf8, load_submission
from tests.corpus import assert_each_bug_in_its_own_part, assert_graded_as_expected, graded_corpus

QA = Path(__file__).resolve().parent / "qa"
CORPUS, RED, RED2 = QA / "qa29s", QA / "qa29h", QA / "qa30h"
FILES = sorted(CORPUS.glob("*.py"))
NOT_SINGLE = ("b55_", "b56_")  # gradients left off at module level or in causal_mask: charged nowhere (see above)
FULL_MARKS = {"A": 32, "B": 10, "C": 28, "D": 12, "E": 10, "F": 8}
NOTEBOOKS = {  # stem -> (per-part scores, mistakes named); the rest score full marks and name nothing
    "n04_bug_d1_pre_norm": ({**FULL_MARKS, "D": 1}, {"block_pre_norm"}),
    "n05_bug_c3_no_w_o_demo_in_cell": ({**FULL_MARKS, "C": 8}, {"mha_no_output_projection"}),
    "n06_bug_e1_default_viridis": ({**FULL_MARKS, "E": 9}, set()),
    "n08_bug_a2_blocked_row_nan": ({**FULL_MARKS, "A": 30}, {"fully_masked_nan"}),  # its gradient check too: values first (qa35n F1)
    "n11_bug_a1_rewrite_cell_between_task_and_check": ({**FULL_MARKS, "A": 27}, {"scores_scaled_by_d"}),
}
A2_STUB = {**FULL_MARKS, "A": 18}


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> dict[str, SubmissionResult]:
    return graded_corpus(CORPUS, tmp_path_factory.mktemp("qa29s_out"))


@pytest.fixture(scope="module")
def red(tmp_path_factory) -> dict[str, SubmissionResult]:
    return graded_corpus(RED, tmp_path_factory.mktemp("qa29h_out"))


def test_the_corpus_is_whole():
    notebooks = sorted(p.stem for p in CORPUS.glob("*.ipynb"))
    assert (len(FILES), len(notebooks)) == (139, 15) and set(NOTEBOOKS) <= set(notebooks)


def test_each_bug_loses_points_in_its_own_part_only():
    assert_each_bug_in_its_own_part([p for p in FILES if not p.name.startswith(NOT_SINGLE)])


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_each_submission_scores_its_parts_and_names_only_its_mistakes(path, graded):
    assert_graded_as_expected(graded[path.stem], path)


@pytest.mark.parametrize("stem", sorted(p.stem for p in CORPUS.glob("*.ipynb")))
def test_each_notebook_scores_its_parts(stem, graded):
    parts, mistakes = NOTEBOOKS.get(stem, (FULL_MARKS, set()))
    assert {p.part: p.score for p in graded[stem].parts} == parts
    assert set(graded[stem].mistakes) == mistakes


def test_gradients_switched_off_by_one_call_cost_nothing_elsewhere(graded):
    for stem in ("b55_top_level_set_grad_enabled_false", "b56_a4_set_grad_enabled_false_inside_causal_mask", "n14_bug_e1_cell_demo_disables_grad", "c84_a4_grad_mode_off_and_restored"):
        assert {p.part: p.score for p in graded[stem].parts} == FULL_MARKS, stem
    lost = {stem: {c.task for c in graded[stem].checks if c.points < c.max_points} for stem in ("b57_b1_set_grad_enabled_false_in_forward_demo_mode", "b58_c1_set_grad_enabled_false_in_split_heads")}
    assert lost == {"b57_b1_set_grad_enabled_false_in_forward_demo_mode": {"B.1"}, "b58_c1_set_grad_enabled_false_in_split_heads": {"C.1"}}


def test_code_the_static_pass_did_not_read_never_runs(red):
    assert sorted(red) == sorted(p.stem for p in RED.iterdir())
    for name, result in red.items():
        assert not result.grader_error, (name, result.grader_error)
        assert {p.part: p.score for p in result.parts} == A2_STUB, name


def test_a_declaration_after_a_lone_cr_and_a_star_import_of_a_package_are_read_as_python_reads_them(tmp_path):
    graded = graded_corpus(RED2, tmp_path)
    expected = {"c02_notebook_control": A2_STUB, "r01_cr_cookie_helper": A2_STUB, "r02_notebook_writefile_cr_cookie": A2_STUB,
                "c03_reference": FULL_MARKS, "c05_honest_helper_folder": FULL_MARKS, "r05_pkg_all_submodule": FULL_MARKS,
                "r06_subfolder_entry": FULL_MARKS}
    assert {name: {p.part: p.score for p in result.parts} for name, result in graded.items()} == expected
    assert declared_utf8("\r# coding: utf-7\n+AAo-x = 1\n") == "\r# coding: utf-8\n+AAo-x = 1\n"


def test_the_worker_gets_only_the_helper_files_the_static_pass_reads():
    submission = load_submission(RED / "r01_shadow_triton")
    facts = analyze(submission.chunks, submission.files, current().library_names())
    assert "triton.py" in submission.files and facts.read == frozenset()
    helper = load_submission(RED / "c03_control_utf8_helper")
    assert analyze(helper.chunks, helper.files, current().library_names()).read == frozenset({"softmax_utils.py"})


def test_a_coding_declaration_is_made_to_say_utf8_so_the_text_runs_as_it_was_read():
    text = "# coding: utf-7\n# note +AAo-import os\nx = 1\n"
    assert declared_utf8(text) == "# coding: utf-8\n# note +AAo-import os\nx = 1\n"
    assert declared_utf8("#!/usr/bin/env python\n# -*- coding: latin-1 -*-\ns = 'é'\n") == "#!/usr/bin/env python\n# -*- coding: utf-8 -*-\ns = 'é'\n"
    for unchanged in ("# coding: utf-8\nx = 1\n", "x = 1\n# coding: utf-7\n# coding: utf-7\n", ""):
        assert declared_utf8(unchanged) == unchanged
    submission = load_submission(RED / "r03_utf7_helper")
    assert submission.files["softmax_utils.py"].splitlines()[1] == "# coding: utf-8"
