"""qa51h: a red team on round 42's changes (tests/qa/qa51h; the fair grades are below).

A rule charged a task for every helper file's library call (qa50h h14) and now charges only the
helper code the task can reach. The first version of that reach followed a helper's definitions
by name and import alias only, and a library call in a branch the checks never take (which the
runtime trace cannot see) went unpaid when the task reached it through a name bound by an
assignment at a helper's module level (h02: `fast_softmax = _library_softmax`; h05: a dict of
functions), a module `__getattr__` (h03), or a chain of renamed re-exports (h04): 100 each, fair
A=29. Such a name now stands for the helper's module-level code, which loads what it holds; a
name a module `__getattr__` serves for that function; a chain of imports is followed to its end
(grading/integrity/static.py, _helper_names). h01 and h12 (the same calls written in the file, or
in a helper def by its own name) were charged before and are still.

How a hand-in is read: a `# In[ ]:` line inside a string of an nbconvert export split a cell
(h06); `%time <statement>` was blanked, where IPython runs the statement in the notebook's names
(h07 in an export, h08 in a notebook); a prompt was taken off a cell whose second line is blank
(h09: IPython looks at the line after the first, blank or not); a .py whose classes' methods are
`pass` drafts (h10: 61/100), or an untouched attention.py beside a notebook that kept its stub
lines as comments (h11: 0/100), was graded instead of the finished notebook.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from autograder.feedback.results import SubmissionResult
from autograder.grading.integrity.static import analyze
from autograder.grading.submission import _checked_code
from tests.corpus import FULL, graded_corpus

CORPUS = Path(__file__).resolve().parent / "qa" / "qa51h"
FAIR = {  # the parts not at full marks
    "h01_control_untaken_branch_direct_library": {"A": 30},  # A.2's rule (2)
    "h02_helper_module_level_rebind": {"A": 29},  # A.2's rule (2), A.3's (1)
    "h03_helper_pep562_module_getattr": {"A": 29},
    "h04_helper_alias_chain_renamed_twice": {"A": 29},
    "h05_helper_registry_dict": {"A": 29},
    "h06_export_mark_inside_string_hides_rebind": {"A": 30},
    "h07_export_time_magic_rebinds_task": {"A": 30},
    "h08_nb_time_magic_rebinds_task": {"A": 30},
    "h09_nb_prompt_after_blank_line_ipython_keeps": {"A": 30},
    "h12_control_helper_def_by_own_name": {"A": 29},
}


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> dict[str, SubmissionResult]:
    return graded_corpus(CORPUS, tmp_path_factory.mktemp("qa51h_out"))


@pytest.mark.parametrize("path", sorted(CORPUS.iterdir()), ids=lambda p: p.name)
def test_each_hand_in_gets_its_fair_grade(path, graded):
    name = path.stem if path.suffix in (".py", ".ipynb") else path.name
    failed = [(c.task, c.check_id, c.message[:160]) for c in graded[name].checks if not c.passed]
    assert {p.part: p.score for p in graded[name].parts} == {**FULL, **FAIR.get(name, {})}, failed


LIBRARY = "import torch\n\n\ndef _lib(x):\n    return torch.softmax(x, dim=-1)\n\n\ndef plain(x):\n    return x\n"


@pytest.mark.parametrize(("helpers", "imports", "charged"), [
    ({"helpers.py": LIBRARY + "fast = _lib\n"}, "from helpers import fast", True),  # h02
    ({"helpers.py": LIBRARY + "KERNELS = {'softmax': _lib}\n"}, "from helpers import KERNELS as fast", True),  # h05
    ({"helpers.py": LIBRARY + "def __getattr__(name):\n    return _lib\n"}, "from helpers import fast", True),  # h03
    ({"deep.py": LIBRARY, "mid.py": "from deep import _lib as quick\n"}, "from mid import quick as fast", True),  # h04
    ({"deep.py": LIBRARY, "mid.py": "from deep import plain as quick\n"}, "from mid import quick as fast", False),
    ({"helpers.py": LIBRARY + "fast = plain\n"}, "from helpers import fast", False),  # the module-level code it stands for loads plain only
    ({"helpers.py": LIBRARY}, "from helpers import plain as fast", False),
])
def test_a_rule_follows_a_helper_through_names_bound_any_way(helpers, imports, charged):
    entry = f"{imports}\n\n\ndef masked_softmax(scores, mask=None):\n    return fast(scores) if scores.shape[-1] > 100_000 else scores\n"
    facts = analyze(((1, entry),), helpers, frozenset({"softmax"}))
    assert bool(facts.library_uses({"masked_softmax"}, frozenset({"softmax"}))) == charged


@pytest.mark.parametrize(("cell", "graded"), [
    ("%time masked_softmax = f", "masked_softmax = f"),  # h08: IPython runs it in the notebook's names
    ("t = %time f(x)", "t = f(x)"),  # its value is the expression's
    ("t = %time x = 1", "t = None"),  # a statement gives no value
    ("%timeit f(x)", "pass"),  # runs in a function of its own
    ("%time", "pass"),
    ("x = 1\n\nIn [1]: y = 2", "x = 1\n\nIn [1]: y = 2"),  # h09: no prompt on the first line, nor on the next
    ("In [1]: x = 1\n   ...: y = 2", "x = 1\ny = 2"),
])
def test_a_line_is_read_as_ipython_reads_it(cell, graded):
    assert _checked_code(cell) == graded
