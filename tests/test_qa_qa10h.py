"""qa10h's hostile corpus (tests/qa/qa10h/): text run as code by routes the static pass did not know.

The trace can be switched off from inside a call (torch._C.DisableTorchFunction and
torch.utils._python_dispatch._disable_current_modes), and the tripwire after the call still
passes; what stops it is the static pass, which flags any construct that can reach those
switches. Every route below reached them (and the library softmax) from a text, with no flagged
name in the source: singledispatch's register evaluating a string annotation (or one written
into __annotations__), sympy.sympify, pandas.eval, the C module _pickle, the pickle module as
torch.serialization's attribute, a torch.fx graph whose nodes name their targets as text, yaml's
full Loader, jinja2's compile_expression, traitlets' import_item. torch.distributions'
SoftmaxTransform (transform_to(constraints.simplex)) is a library softmax made of elementary
operators, which the trace cannot tell from a hand-written one.

Holes found and closed (score before -> after, at --seed 1, Parts A and E):
- softmax_transform: A 32 -> 30 (A.2 by hand paid).
- singledispatch_eval, annotations_written, sympy_text_eval, underscore_pickle, fx_graph_text,
  jinja2_expression, traitlets_import_item, traitlets_type_text: A 32, E 10 -> A 29, E 0 (the figure cannot be trusted
  either: the construct runs at import or is imported).
- pandas_eval, module_as_attribute, yaml_python_name, numpy_load_positional (np.load(f, None, True)):
  A 32 -> 30 (the construct sits in
  masked_softmax only).
- deep_expression: could not grade (internal grader error: the static pass let Python's
  RecursionError for a 4,000-term expression out) -> A 32, E 10 (that statement alone does not run).
- default_device_meta: E's messages said "plot_attention: not implemented yet" for torch's own
  NotImplementedError (a meta tensor has no data); now "raised NotImplementedError: ...".

answer_cell_singledispatch.ipynb is singledispatch_eval's route in a notebook's masked_softmax
answer cell (A 32, E 10 before). Every file is graded in ONE batch (Parts A and E) beside a copy of the reference; a file whose
first line is `# snippet` is appended to the reference (tests/batches.py's convention).
"""
from __future__ import annotations

import json
import linecache
import re
from pathlib import Path

import pytest

from autograder.assignment import current
from autograder.assignments.attention.rules import SOFTMAX_BY_HAND
from autograder.grading.batch import grade_batch
from autograder.grading.chunks import SourcePlaces
from autograder.grading.integrity.flags import EVASION
from autograder.grading.integrity.static import analyze
from autograder.grading.session import GradeOptions
from autograder.grading.worker.client import Budget
from autograder.grading.worker.dispatcher import StudentRaised

REPO = Path(__file__).resolve().parents[1]
CORPUS = REPO / "tests" / "qa" / "qa10h"
REFERENCE = REPO / "solutions" / "attention" / "attention.py"
PARTS = frozenset({"A", "E"})
FULL: dict[str, float] = {"A": 32, "E": 10}
BUDGET = Budget(call_seconds=5, import_seconds=20, total_seconds=120)
UNCHECKED = {"A": 29.0, "E": 0.0}  # A.2 by hand, A.3's rule and the figure cannot be checked
IMPORT_TIME = {"evasion", "tamper"}


def scores(**changed: float) -> dict[str, float]:
    return {**FULL, **changed}


# name -> (score per part, exact?, flag codes)
EXPECTED: dict[str, tuple[dict[str, float], bool, set[str]]] = {
    # a. text run as code: the library softmax and the tracer's switches reached from a text (all 42/42 before)
    "singledispatch_eval": (UNCHECKED, True, IMPORT_TIME),
    "annotations_written": (UNCHECKED, True, IMPORT_TIME),
    "sympy_text_eval": (UNCHECKED, True, IMPORT_TIME),
    "underscore_pickle": (UNCHECKED, True, IMPORT_TIME),
    "fx_graph_text": (UNCHECKED, True, IMPORT_TIME),
    "jinja2_expression": (UNCHECKED, True, IMPORT_TIME),
    "traitlets_import_item": (UNCHECKED, True, IMPORT_TIME),
    "traitlets_type_text": (UNCHECKED, True, IMPORT_TIME),
    "answer_cell_singledispatch": (UNCHECKED, True, IMPORT_TIME),  # a notebook: the same route in the answer cell
    "pandas_eval": (scores(A=30), True, {"evasion"}),
    "module_as_attribute": (scores(A=30), True, {"evasion"}),
    "yaml_python_name": (scores(A=30), True, {"evasion"}),
    "numpy_load_positional": (scores(A=30), True, {"evasion"}),
    # b. a library softmax under another name, made of elementary operators (42/42 before)
    "softmax_transform": (scores(A=30), True, {"library_call"}),
    # c. stalls and the worker's own state
    # A.1's gradient check times out; A.3's, re-run with a trusted A.1, passes (A 30 while a hang
    # was remembered without the stand-ins in use: the re-run was refused as "not called again")
    "backward_hook_sleeps": (scores(A=31), False, {"resource_limit"}),
    "module_getattr_fills_missing": (scores(A=28), True, set()),
    "default_device_meta": (scores(A=28, E=0), True, set()),
    "deep_expression": (scores(), True, set()),  # could not grade (internal grader error) before
    # d. honest code that looks like the above: no flag, no point lost
    "honest_string_annotations": (scores(), True, set()),
    "honest_eval_mode_and_table": (scores(), True, set()),
}
MAY_RAISE: dict[str, set[str]] = {}


def corpus() -> list[Path]:
    return sorted(p for p in CORPUS.iterdir() if p.suffix in (".py", ".ipynb"))


def test_corpus_is_complete():
    assert sorted(p.stem for p in corpus()) == sorted(EXPECTED)
    for path in corpus():
        text = path.read_text(encoding="utf-8")
        first = json.loads(text)["cells"][0]["source"] if path.suffix == ".ipynb" else text.splitlines()[0]
        assert first.startswith("# snippet" if path.suffix == ".py" else "# notebook") and "Expected:" in first, path.name


@pytest.mark.slow
def test_hostile_corpus_in_one_batch_earns_nothing_unearned(tmp_path):
    inbox, out = tmp_path / "inbox", tmp_path / "out"
    inbox.mkdir()
    reference = REFERENCE.read_text(encoding="utf-8")
    for path in corpus():
        text = path.read_text(encoding="utf-8")
        (inbox / path.name).write_text(reference + "\n\n" + text if text.startswith("# snippet") else text, encoding="utf-8")
    (inbox / "correct.py").write_text(reference, encoding="utf-8")

    batch = grade_batch(inbox, out, jobs=2, options=GradeOptions(seed=1, parts=PARTS, budget=BUDGET))

    results = {r.submission: r for r in batch.submissions}
    assert set(results) == set(EXPECTED) | {"correct"}
    assert {p.part: p.score for p in results["correct"].parts} == FULL and not results["correct"].flags
    wrong = []
    for name, (expected, exact, flags) in EXPECTED.items():
        result = results[name]
        got = {p.part: p.score for p in result.parts}
        if (got != expected) if exact else (set(got) != set(expected) or any(got[p] > expected[p] for p in expected)):
            wrong.append(f"{name}: {got}, expected {'' if exact else 'at most '}{expected}; " + "; ".join(c.message[:160] for c in result.checks if c.points < c.max_points)[:800])
        recorded = {f.code for f in result.flags}
        if recorded - MAY_RAISE.get(name, set()) != flags:
            wrong.append(f"{name}: flags {sorted(recorded)}, expected {sorted(flags)}")
        assert "internal grader error" not in result.grader_error, name
    assert not wrong, "\n".join(wrong)
    # torch's NotImplementedError (a meta tensor's missing data) is a bug in written code, not a stub
    meta = [c.message for c in results["default_device_meta"].checks if c.task == "E.1"]
    assert meta and all("raised NotImplementedError" in m and "not implemented yet" not in m for m in meta), meta[:1]
    # a statement too deep for Python's parser: the rest of the file ran, and the student is told which
    assert "RecursionError" in (out / "deep_expression" / "feedback.md").read_text(encoding="utf-8")
    for page in out.rglob("feedback.md"):
        unfenced = re.sub(r"(`{3,})text\n.*?\n\1\n", "", page.read_text(encoding="utf-8"), flags=re.DOTALL)
        assert not re.search(r"\]\((?:http|javascript)", unfenced), page


def _facts(source: str):
    return analyze(((1, source),), (), current().library_names(), own={"attention"})


@pytest.mark.parametrize("source", [
    # a string annotation is code: functools.singledispatch's register evaluates it (get_type_hints inside)
    "import functools\n@functools.singledispatch\ndef f(x): return x\ndef g(x: \"__import__('torch')\"): return x\nf.register(g)\n",
    "class C:\n    x: \"vars(__import__('torch'))\"\n",
    "def g(x) -> \"List['__import__(\\\"torch\\\")']\": return x\n",  # a text inside the text
    "def g(x): return x\ng.__annotations__ = {'x': 'anything'}\n",
    "import sympy\n",
    "from sympy.parsing.sympy_parser import parse_expr\n",
    "import pandas as pd\nf = pd.eval('t.special', local_dict={'t': 1})\n",
    "def f(frame, text):\n    return frame.eval(text)\n",
    "import _pickle\n",
    "from _pickle import loads\n",
    "import _frozen_importlib\n",
    "from cffi import FFI\n",  # raw memory, as ctypes
    "import _cffi_backend\n",
    "import torch.serialization as s\nf = s.pickle.loads\n",
    "import numpy as np\nf = np.importlib\n",
    "import torch.fx\n",
    "import torch.fx.graph\n",
    "from torch import fx\n",
    "import jinja2\n",
    "from mako.template import Template\n",
    "import pure_eval\n",
    "import yaml\nf = yaml.load('x', Loader=yaml.Loader)\n",
    "from traitlets import import_item\n",
    "import traitlets\nclass T(traitlets.HasTraits):\n    off = traitlets.Type('torch._C.DisableTorchFunction')\n",
    "from tornado.util import import_object\n",
    "from IPython.core.interactiveshell import InteractiveShell\nInteractiveShell.instance().run_cell('x')\n",
    "import pytest\nm = pytest.MonkeyPatch()\n",
    "import numpy as np\nx = np.load('f.npy', None, True)\n",  # allow_pickle by position
    "import numpy as np\nopts = {'allow_pickle': True}\nx = np.load('f.npy', **opts)\n",
    "import torch\nx = torch.load('f.pt', None, object())\n",  # pickle_module by position
])
def test_text_run_as_code_can_switch_the_trace_off(source):
    """Each of these reached torch._C (and the library softmax) from a text, unflagged before qa10h."""
    facts = _facts(source)
    assert any(f.code == EVASION for f in facts.findings), [f.what for f in facts.findings]


@pytest.mark.parametrize("source", [
    "import torch\nw = torch.softmax(torch.zeros(3), -1)  # a demo value, no alias\nfrom typing import Optional\ndef f(x: 'torch.Tensor', m: 'Optional[torch.Tensor]' = None) -> 'torch.Tensor':\n    y: 'torch.Tensor' = x\n    return y\n",
    "from dataclasses import dataclass\n@dataclass\nclass Spec:\n    size: 'int' = 4\n    kind: 'Literal[\"causal\", \"full\"]' = 'causal'\n",
    "import torch\nmodel = torch.nn.Linear(2, 2)\nmodel.eval()\n",
    "import torch\nt = torch.eye(3).trace()\nu = torch.trace(torch.eye(3))\n",
    "def f(error):\n    return error.code\n",
    "import torch\nwith torch.profiler.profile() as p:\n    pass\n",
    "import yaml\ncfg = yaml.safe_load('a: 1')\n",
    "from IPython.display import display\ndisplay(1)\n",
    "import pandas as pd\nprint(pd.DataFrame([[1.0]]).round(2))\n",
    "from torch.utils.data import DataLoader\nloader = DataLoader([1, 2], batch_size=1)\n",
    "get_ipython().run_line_magic('matplotlib', 'inline')\n",
    "import numpy as np\nimport torch\nx = np.load('f.npy', 'r')\ny = torch.load('f.pt', 'cpu')\nz = np.load('f.npy', None, False)\n",  # what nbconvert writes for %matplotlib inline
])
def test_honest_lookalikes_switch_nothing_off(source):
    facts = _facts(source)
    assert not [f.what for f in facts.findings if f.code == EVASION]


@pytest.mark.parametrize("source", [
    "from torch.distributions import constraints, transform_to\ndef masked_softmax(scores, mask=None):\n    return transform_to(constraints.simplex)(scores)\n",
    "import torch\ndef masked_softmax(scores, mask=None):\n    return torch.distributions.transforms.SoftmaxTransform()(scores)\n",
])
def test_the_distributions_softmax_is_a_library_softmax(source):
    """SoftmaxTransform is exp and sum in Python: the trace sees only elementary operators."""
    facts = _facts(source)
    assert facts.library_uses(set(SOFTMAX_BY_HAND.roots), SOFTMAX_BY_HAND.banned | SOFTMAX_BY_HAND.source_banned)
    assert not _facts("import torch\ndef masked_softmax(scores, mask=None):\n    e = scores.exp()\n    return e / e.sum(-1, keepdim=True)\n").library_uses(
        set(SOFTMAX_BY_HAND.roots), SOFTMAX_BY_HAND.banned | SOFTMAX_BY_HAND.source_banned)


def test_only_the_students_own_not_implemented_error_is_a_stub():
    """A stub raises NotImplementedError on the student's line; torch raises one for a meta tensor's
    data, deep inside the library: that is a bug in written code ("raised NotImplementedError")."""
    source = ("import torch\n"
              "def stub():\n    raise NotImplementedError('Task A.4')\n"
              "def written():\n    return torch.ones(2, device='meta').tolist()\n")
    linecache.cache["attention.py"] = (len(source), None, source.splitlines(True), "attention.py")  # as the worker keeps it
    code = compile(source, "attention.py", "exec")
    namespace: dict = {}
    exec(code, namespace)  # noqa: S102 - the test's own code
    places = SourcePlaces({"attention.py": ()})
    raised = {}
    for name in ("stub", "written"):
        try:
            namespace[name]()
        except NotImplementedError as error:
            raised[name] = StudentRaised(error, places).as_dict()
    assert raised["stub"]["own"] is True and raised["written"]["own"] is False
    assert raised["written"]["frames"]
    linecache.cache.pop("attention.py", None)


def test_a_text_too_deep_for_the_parser_is_no_grader_error():
    """Python's parser raises RecursionError (not SyntaxError) for an expression of 4,000 terms: the
    static pass reads such a statement as text, and the rest of the file as code."""
    deep = "a + " * 4000 + "a"
    assert not _facts(f"x = {deep}\n").findings
    assert not _facts(f"def f(x: '{deep}'):\n    return x\n").findings  # an annotation too deep to evaluate
    facts = _facts(f"import sympy\n\nx = {deep}\n")
    assert [f.what for f in facts.findings if f.code == EVASION] == ["import of sympy"]


def test_prairielearn_names_a_file_too_deep_to_parse(tmp_path):
    """A file of nothing but such a statement scores 0: PrairieLearn's export asks why it did not
    compile, and must get Python's reason, not the parser's RecursionError."""
    from autograder.feedback.formats.prairielearn import syntax_error

    (tmp_path / "attention.py").write_text("x = " + "a + " * 4000 + "a\n", encoding="utf-8")
    assert syntax_error(tmp_path / "attention.py") == ("attention.py", "maximum recursion depth exceeded during ast construction")
