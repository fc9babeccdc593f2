"""qa50: mistakes only at an edge, and notebooks that Jupyter runs as IPython reads them.

qa50s (headers are the fair grades): one behaviour right on the common path and wrong only at an
edge the contract states (a float16 input, a fully blocked row, a broadcast mask, a view...), or
different at an edge it does not state (full marks). Charged more than their edge were:
- e04, e24: A.3's values check also held its mask edges (every key blocked, the broadcast masks),
  and A.3's four properties are gated on it: an edge cost 4-5 points. The edges are now a check of
  their own (`sdpa_mask_edges`, half of the point), the properties still gated on the values.
- e10: D.1's hidden causal check was gated on the mask check, whose (B, 1, S, S) mask it never
  uses; it is gated on the values and compares its own call's values.

qa50h (a red team on how a notebook is read; the fair grade is what Jupyter runs): honest notebooks
lost points where the grader read a cell other than IPython does (grading/submission.py,
_checked_code): a `!= x` line continuing an expression was blanked as a shell escape (h01); a
U+2028 in a comment split a line (h04); a cell pasted indented, or with `>>> ` prompts, was not
cleaned (h02, h03); `%run helpers.py  # note` and `%run -m mask_helper` were blanked (h08, h12); a
finished notebook beside an attention.py of `return None` drafts lost to it, its markdown's mention
of `raise NotImplementedError` counted as a stub (h11: 0/100). And a task written only under
%%timeit, which runs its body in a function of its own, was graded (h10: A.2 earned 14 points).
And an honest file that imports a helper module of its own experiments (a library softmax and
attention it never calls from a task) lost every rule (h14: 95/100): a helper file's library call
counted for every task. A task is now charged for the helpers' definitions it can reach (by their
names, an import's alias, their module's name; all of them when a file loads code by other means),
and for their module-level code (grading/integrity/static.py, _helper_names).
A notebook that writes all its code to attention.py with %%writefile and imports it in its task
cells got 0/100 without a note (h09): the grader's module of the notebook is attention itself, and
the file was left out. Such a cell's code now runs as the notebook's own, when a cell imports it.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from autograder.feedback.results import SubmissionResult
from autograder.grading.integrity.static import analyze
from tests.corpus import FULL, assert_graded_as_expected, graded_corpus

QA = Path(__file__).resolve().parent / "qa"
EDGES, NOTEBOOKS = QA / "qa50s", QA / "qa50h"
NOT_FULL = {  # qa50h's fair grades where they are not full marks
    "h05_nb_formfeed_comment_library_softmax_in_jupyter": {"A": 30},  # Jupyter runs its torch.softmax: A.2's rule
    "h10_nb_task_only_inside_timeit_cell": {"A": 18},  # A.2 is a stub where Jupyter runs it
}


@pytest.fixture(scope="module")
def edges(tmp_path_factory) -> dict[str, SubmissionResult]:
    return graded_corpus(EDGES, tmp_path_factory.mktemp("qa50s_out"))


@pytest.fixture(scope="module")
def notebooks(tmp_path_factory) -> dict[str, SubmissionResult]:
    return graded_corpus(NOTEBOOKS, tmp_path_factory.mktemp("qa50h_out"))


@pytest.mark.parametrize("path", sorted(EDGES.glob("*.py")), ids=lambda p: p.stem)
def test_an_edge_costs_its_own_checks_only(path, edges):
    assert_graded_as_expected(edges[path.stem], path)


@pytest.mark.parametrize("path", sorted(NOTEBOOKS.iterdir()), ids=lambda p: p.name)
def test_a_notebook_is_graded_as_jupyter_runs_it(path, notebooks):
    name = path.stem if path.suffix in (".ipynb", ".zip") else path.name
    result = notebooks[name]
    failed = [(c.task, c.check_id, c.message[:160]) for c in result.checks if not c.passed]
    assert {p.part: p.score for p in result.parts} == {**FULL, **NOT_FULL.get(name, {})}, failed


HELPERS = {"helpers.py": "import torch\n\n\ndef library_softmax(x):\n    return torch.softmax(x, dim=-1)\n\n\ndef mine(x):\n    return library_softmax(x)\n"}


@pytest.mark.parametrize(("imports", "body", "charged"), [
    ("from helpers import library_softmax", "return scores", False),  # h14: imported for experiments, never called by the task
    ("import helpers", "return scores", False),
    ("from helpers import library_softmax", "return library_softmax(scores) if scores.shape[-1] == 999 else scores", True),
    ("from helpers import library_softmax as ls", "return ls(scores) if scores.shape[-1] == 999 else scores", True),
    ("from helpers import mine", "return mine(scores) if scores.shape[-1] == 999 else scores", True),  # through another helper
    ("from helpers import *", "return library_softmax(scores) if scores.shape[-1] == 999 else scores", True),
    ("import helpers as h", "return h.mine(scores) if scores.shape[-1] == 999 else scores", True),  # a module's name reaches all of it
    ("import helpers", "return getattr(helpers, 'library_' + 'softmax')(scores)", True),  # code loaded by other means: every helper counts
])
def test_a_rule_charges_the_helpers_a_task_can_reach(imports, body, charged):
    """qa50h h14: a helper file's library call was charged to every task, so an honest file that
    imported a module of its own experiments lost every rule (A.2, A.3, B.1, C.3: 95/100)."""
    entry = f"{imports}\n\n\ndef masked_softmax(scores, mask=None):\n    {body}\n"
    facts = analyze(((1, entry),), HELPERS, frozenset({"softmax"}))
    assert bool(facts.library_uses({"masked_softmax"}, frozenset({"softmax"}))) == charged
