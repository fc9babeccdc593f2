"""qa41s, qa41h: unseen styles and bugs of round 35, and its red team.

qa41s (tests/qa/qa41s: 39 correct styles, 82 single bugs, 18 double bugs; headers are the fair
grades): a dropout rate checked at one value let a rate of the submission's own pass where it
equals the one given there: `nn.Dropout()` in the block (always 0.5, the rate D.1 asked for:
b26, b32, b84, d17), `dropout or 0.1` for the block's attention (b86), `F.dropout(w, 0.5)` in C.3
(b53). C.3 now also trains at dropout=0.25, D.1 at dropout=0, and D.1's structure check builds
the block at 0 too. No check had an axis of size 1 but the batch of B.1 and C.3: a `.squeeze()`
got full marks (b49-b61, d18); the shape checks of A.1, A.3, B.1, C.3 and D.1 now try one query,
one key, one head, one position, one batch element, and E.1's one query (b60: a `.squeeze()` made
the map 1-D).

qa41h, the red team:

- A long expression (a 400-term sum, an if with 360 elifs) crashed the grader (RecursionError:
  0/0 for an honest file), and a longer one (1,000 terms) made the static pass give up on the
  whole file without a word, every rule then off (F1: c01, c02, b09, b10). The pass now walks any
  tree CPython compiles (static.STATIC_PASS_RECURSION); deeper, the file is unread, not unparsed.
- torch held on `self` (`self.t = torch`), in a class attribute or in a list slot reached its
  private modules and its softmax unflagged (F2, F3: b02, b11): a private module of torch's
  (names.TORCH_PRIVATE_MODULES) read on anything but the submission's own attribute is an evasion,
  and `self.t.softmax` is a library name.
- A library softmax bound through a lambda, a getattr with a constant name or a container's
  append (F4: b05, b07, b12) is an alias.
- torch's private attention kernels (`_scaled_dot_product_attention_math`) were no library
  attention (F5: b01, b03).
- Axis labels in white at 1 pt and a colorbar strip narrower than a pixel earned their points (F6: b08).
- A notebook cell switched off with `%%script false` was graded as code (F7: c03).
- os held in a list slot reached raw descriptor I/O unflagged (b04): os is followed through
  subscripts, attributes given it (`self.o = os`) and a lambda's result. scipy.special.softmax
  taken out of an `except*` group (b06) or looked up by a text-built name on an object held by
  `self` (b13) passed A.2's rule: each call of masked_softmax now runs under a profile too, which
  notes other libraries' Python functions by name however the file reached them.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from autograder.feedback.results import SubmissionResult
from autograder.grading.integrity.static import analyze
from autograder.grading.submission import _checked_code
from tests.corpus import assert_each_bug_in_its_own_part, assert_graded_as_expected, graded_corpus

QA = Path(__file__).resolve().parent / "qa"
CORPUS = QA / "qa41h"
STYLES = QA / "qa41s"
ENTRIES = sorted(CORPUS.iterdir())


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> dict[str, SubmissionResult]:
    return graded_corpus(CORPUS, tmp_path_factory.mktemp("qa41h_out"))


@pytest.fixture(scope="module")
def styles(tmp_path_factory) -> dict[str, SubmissionResult]:
    return graded_corpus(STYLES, tmp_path_factory.mktemp("qa41s_out"))


@pytest.mark.parametrize("path", sorted(STYLES.glob("*.py")), ids=lambda p: p.stem)
def test_each_unseen_style_or_bug_scores_its_header(path, styles):
    assert_graded_as_expected(styles[path.stem], path)


def test_the_style_headers_charge_each_bug_in_its_own_part():
    assert_each_bug_in_its_own_part([p for p in sorted(STYLES.glob("*.py")) if p.name.startswith(("b", "c"))])


def test_no_style_file_is_flagged(styles):
    assert {stem: r.flags for stem, r in styles.items() if r.flags} == {}


def _stem(path: Path) -> str:
    return path.stem if path.is_file() else path.name


@pytest.mark.parametrize("path", ENTRIES, ids=_stem)
def test_each_red_team_file_scores_its_header(path, graded):
    assert_graded_as_expected(graded[_stem(path)], path if path.is_file() else path / "EXPECTED.txt")


@pytest.mark.parametrize("terms", [400, 1000, 2000])
@pytest.mark.parametrize("shape", ["sum", "elif"])
def test_any_expression_python_compiles_is_read(terms, shape):
    """However deep the tree, a file that compiles is read through: torch._C below it is found."""
    if shape == "sum":
        source = "_X = (" + " + ".join(["1"] * terms) + ")\n"
    else:
        source = "def _u(i):\n    if i == 0:\n        return 0\n" + "".join(f"    elif i == {j}:\n        return {j}\n" for j in range(1, terms))
    source = "import torch\n" + source + "torch._C\n"
    compile(source, "deep", "exec")
    facts = analyze([(1, source)])
    assert facts.unread == 0 and any(f.what == "torch._C" for f in facts.findings), facts.findings


HOLDERS = {
    "self": "class K:\n    def __init__(self):\n        self.t = torch\n    def run(self):\n        return self.t._C\n",
    "class attribute": "class Lib:\n    t = torch\nLib.t._C\n",
    "list slot": "_T = [torch]\n_T[0]._C\n",
    "returned": "(lambda: torch)()._C\n",
}


@pytest.mark.parametrize("how", sorted(HOLDERS))
def test_torchs_private_modules_are_private_wherever_torch_is_held(how):
    findings = analyze([(1, "import torch\n" + HOLDERS[how])]).findings
    assert any(f.code == "evasion" and f.what.endswith("._C") for f in findings), findings


OS_HOLDERS = {
    "list slot": "_O = [os]\n_O[0].write(2, b'')\n",
    "dict": "_D = {'o': os}\n_D['o'].write(2, b'')\n",
    "self": "class K:\n    def __init__(self):\n        self.o = os\n    def run(self):\n        return self.o.write(2, b'')\nK().run()\n",
    "class attribute": "class L:\n    o = os\nL.o.write(2, b'')\n",
    "returned": "(lambda: os)().write(2, b'')\n",
}
FILES_HELD = {
    "list slot": "_F = [open('x.txt', 'w')]\n_F[0].write('hi')\n",
    "self": "class K:\n    def __init__(self):\n        self.f = open('x.txt', 'w')\n        self.sep = os.sep\n    def run(self):\n        return self.f.write(self.sep)\nK().run()\n",
}


@pytest.mark.parametrize("how", sorted(OS_HOLDERS))
def test_raw_descriptor_io_is_seen_wherever_os_is_held(how):
    findings = analyze([(1, "import os\n" + OS_HOLDERS[how])]).findings
    assert any(f.code == "evasion" and "raw descriptor" in f.what for f in findings), findings


@pytest.mark.parametrize("how", sorted(FILES_HELD))
def test_a_file_held_the_same_way_is_no_descriptor(how):
    findings = analyze([(1, "import os\n" + FILES_HELD[how])]).findings
    assert not any("raw descriptor" in f.what for f in findings), findings


def test_the_submissions_own_attribute_of_that_name_is_its_own():
    assert analyze([(1, "class K:\n    def __init__(self):\n        self._C = 1\n    def run(self):\n        return self._C\n")]).findings == ()


SOFTMAX_ALIASES = {
    "lambda": "_SM = lambda s: F.softmax(s, -1)\n",
    "getattr": "_SM = getattr(F, 'softmax')\n",
    "append": "_BOX = []\n_BOX.append(F.softmax)\n_SM = _BOX[0]\n",
    "self": "class K:\n    def __init__(self):\n        self.f = F\n    def __call__(self, s):\n        return self.f.softmax(s, -1)\n_SM = K()\n",
}


@pytest.mark.parametrize("how", sorted(SOFTMAX_ALIASES))
def test_a_library_softmax_bound_at_module_level_counts_in_what_calls_it(how):
    source = "import torch.nn.functional as F\n" + SOFTMAX_ALIASES[how] + "def masked_softmax(s, mask=None):\n    return _SM(s)\n"
    facts = analyze([(1, source)], library=frozenset({"softmax"}))
    assert facts.library_uses({"masked_softmax"}, frozenset({"softmax"})), facts.findings


@pytest.mark.parametrize("magic", ["%%script false --no-raise-error", "%%bash", "%%html", "\n%%markdown"])
def test_a_cell_whose_body_is_not_python_run_in_the_kernel_holds_no_code(magic):
    text = magic + "\nimport torch.nn.functional as F\ndef masked_softmax(s, mask=None):\n    return F.softmax(s, -1)\n"
    assert _checked_code(text).strip() == "" and _checked_code(text).count("\n") == text.count("\n")


@pytest.mark.parametrize("magic", ["%%time", "%%capture out", "%%prun -q"])
def test_a_cell_the_kernel_runs_keeps_its_code(magic):
    assert "def masked_softmax" in _checked_code(magic + "\ndef masked_softmax(s, mask=None):\n    return s\n")


def test_a_cell_under_timeit_defines_nothing():
    """qa50h h10: %%timeit runs its body inside a function of its own (IPython 9: nothing it
    defines is in the notebook's names), so a task written only there is not written."""
    assert _checked_code("%%timeit -n 1\ndef masked_softmax(s, mask=None):\n    return s\n").strip() == ""


def test_a_label_shows_when_it_stands_out_from_what_it_is_drawn_on():
    """qa41h F6: white 1 pt labels on a white page earned E.1's point; a dark style's white labels
    on its black figure (qa4e c40), or white on a black box of its own, are seen."""
    import matplotlib.pyplot as plt

    from autograder.grading.worker.plotdata import _inked

    with plt.style.context("dark_background"):
        figure, ax = plt.subplots()
        ax.set_xlabel("query")
        assert _inked(ax.xaxis.label)
    plt.close(figure)
    figure, ax = plt.subplots()
    ax.set_xlabel("query", color="white")
    ax.set_ylabel("key", fontsize=1)
    ax.set_title("weights", color="white", bbox={"facecolor": "black"})
    assert not _inked(ax.xaxis.label) and not _inked(ax.yaxis.label) and _inked(ax.title)
    plt.close(figure)
