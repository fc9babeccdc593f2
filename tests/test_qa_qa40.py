"""qa40s, qa40h: unseen styles and bugs of round 34, and its red team.

qa40s (tests/qa/qa40s: 36 correct styles and 4 correct notebooks, 44 single bugs, 37 double or
shared-code bugs; headers, or EXPECTED.txt in a notebook's folder, are the fair grades): a helper
that A.3 (or A.2) hands its parameters to, with a further parameter of its own, was stood in for
by the bare trusted function: C.3, calling the helper with that parameter, crashed on the grader's
own TypeError (`stand_ins.<locals>.scaled_dot_product_attention() takes from 3 to 4 positional
arguments`, F1: d20, d31 C 7, now 28), or was charged again (F2: d28, d30 C 8, now 28). The
stand-in is now fitted to the helper's own signature, as it is to the task function's.
A helper's mistake that no catalogue entry names (d21, d37: a helper that scales by 0.9), or one a
stand-in cannot take over (a further argument at another value: d36, d39), is charged once since
round 35: the later task's reference runs on the student's own earlier functions (carried.reference_on).
A further argument the later task passes that the student's own earlier class answers the same
without (D.1 giving its C.3 `scale=1/√Dh`, what its default None does: d38) is no longer refused by
the stand-in (round 36: standins._same_at_default).
Such a mistake in code B.1 and C.3 share (d17, d24), and a dropout helper C.3 and D.1 share (d34),
are charged once since round 37 (carried.repairs).

qa40h (tests/qa/qa40h): the rules switched off, 100 with no flag,
- through torch (or os) bound by any target but a plain `x = torch`: `_T, _ = torch, None`,
  `(_T := torch)`, `for _T in [torch]`, a match class pattern's keywords on torch
  (`case object(_C=object(_pop_torch_function_stack=...))`) (F1: b10, b11, b16, b17);
- through a library softmax bound at module level by any target: `[sp.softmax][0]`, tuple
  unpacking, a loop, `with nullcontext(sp.softmax) as f`, `case object(softmax=f)` (F2: b09,
  b12-b15: A.2's rule, 98);
- through installed packages that import by text and were not listed: six, watchfiles,
  networkx.lazy_imports (F3: b02-b05, b07, b08). The static pass now reads the doors of the
  standard library and a short list of packages (names.READ_PACKAGES); an import of any other
  installed package is an evasion.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from autograder.feedback.results import SubmissionResult
from autograder.grading.integrity.names import READ_PACKAGES
from autograder.grading.integrity.static import analyze
from tests.corpus import assert_each_bug_in_its_own_part, assert_graded_as_expected, graded_corpus

QA = Path(__file__).resolve().parent / "qa"
STYLES, CORPUS = QA / "qa40s", QA / "qa40h"
STYLE_ENTRIES = sorted(STYLES.iterdir())


@pytest.fixture(scope="module")
def styles(tmp_path_factory) -> dict[str, SubmissionResult]:
    return graded_corpus(STYLES, tmp_path_factory.mktemp("qa40s_out"))


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> dict[str, SubmissionResult]:
    return graded_corpus(CORPUS, tmp_path_factory.mktemp("qa40h_out"))


def _header(path: Path) -> Path:
    """The file holding an entry's header: itself, or a folder's EXPECTED.txt or attention.py."""
    if path.is_file():
        return path
    return path / "EXPECTED.txt" if (path / "EXPECTED.txt").is_file() else path / "attention.py"


def _stem(path: Path) -> str:
    return path.stem if path.is_file() else path.name


@pytest.mark.parametrize("path", STYLE_ENTRIES, ids=_stem)
def test_each_unseen_style_or_bug_scores_its_header(path, styles):
    assert_graded_as_expected(styles[_stem(path)], _header(path))


def test_the_style_headers_charge_each_bug_in_its_own_part():
    assert_each_bug_in_its_own_part([p for p in STYLE_ENTRIES if p.is_file() and p.name.startswith(("b", "c"))])


def test_no_style_file_is_flagged(styles):
    """Every qa40s file is honest: no integrity flag, whatever its mistakes."""
    assert {stem: r.flags for stem, r in styles.items() if r.flags} == {}


@pytest.mark.parametrize("path", sorted(CORPUS.glob("*.py")), ids=lambda p: p.stem)
def test_each_red_team_file_scores_its_header(path, graded):
    assert_graded_as_expected(graded[path.stem], path)


def test_each_door_of_the_red_team_is_flagged(graded):
    """Every file that reached a rule's code through an unread door is flagged; the library
    softmax bound by an odd target (b09, b12-b15) is the A.2 rule's finding, not an evasion."""
    doors = {"b02", "b03", "b04", "b05", "b07", "b08", "b10", "b11", "b16", "b17"}
    evasions = {stem.split("_")[0] for stem, result in graded.items() if any(f.code == "evasion" for f in result.flags)}
    aliases = {stem.split("_")[0] for stem, result in graded.items() if {f.code for f in result.flags} == {"library_call"}}
    assert evasions == doors | {"b01"} and aliases == {"b09", "b12", "b13", "b14", "b15"}


ALIASES = {
    "tuple": "_T, _ = torch, None\n",
    "walrus": "(_T := torch)\n",
    "loop": "for _T in [torch]:\n    pass\n",
    "with": "import contextlib\nwith contextlib.nullcontext(torch) as _T:\n    pass\n",
    "default": "def _f(_T=torch):\n    return _T._C\n",
    "call": "def _g(m):\n    return m._C\n_g(torch)\n",
}


@pytest.mark.parametrize("how", sorted(ALIASES))
def test_torch_under_any_name_keeps_its_private_names_private(how):
    """`_T._C` is torch._C however _T came to hold torch (qa40h F1)."""
    source = "import torch\n" + ALIASES[how] + ("" if how in ("default", "call") else "_T._C\n")
    findings = analyze([(1, source)]).findings
    assert any(f.code == "evasion" and "_C" in f.what for f in findings), findings


def test_a_match_pattern_reads_the_attributes_of_its_subject():
    source = "import torch\nmatch torch:\n    case object(_C=object(_pop_torch_function_stack=pop)):\n        pass\n"
    whats = [f.what for f in analyze([(1, source)]).findings]
    assert any("torch._C" in w for w in whats) and any("private attribute read by a match pattern" in w for w in whats), whats


@pytest.mark.parametrize("package", ["six", "watchfiles", "networkx"])
def test_an_installed_package_the_pass_does_not_read_is_an_evasion(package):
    findings = analyze([(1, f"import {package}\n")]).findings
    assert [f.code for f in findings] == ["evasion"] and "does not read" in findings[0].what


@pytest.mark.parametrize("module", ["torch", "numpy", "matplotlib.pyplot", "seaborn", "scipy.special", "pandas", "IPython.display", "math", "functools", "typing_extensions"])
def test_the_standard_library_and_the_read_packages_import_freely(module):
    assert analyze([(1, f"import {module}\n")]).findings == ()


def test_the_readmes_name_every_package_the_pass_reads():
    """The contract says which installed packages may be imported (READ_PACKAGES), in both languages."""
    folder = Path(__file__).resolve().parents[1] / "assignments" / "attention"
    for readme in ("README.md", "README.zh.md"):
        text = (folder / readme).read_text(encoding="utf-8")
        assert [p for p in sorted(READ_PACKAGES - {"functorch", "mpl_toolkits", "pylab"}) if p not in text] == [], readme
