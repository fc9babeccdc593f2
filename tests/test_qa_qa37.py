"""qa37s, qa37h: the same mistake written again in a later task's own code; the red team.

qa35h F3: "shared code" between an earlier task and a later one was judged by what the code could
run, read, not run: a C.3 that wrote A.1's mistake again in its own code and named attention_scores
only in code that never runs (`if False:`, a branch for 3-D inputs its 4-D heads never take) was
told "correct given your Part A" (C 28, where the same file without the dead name got C 8). Now the
earlier task's own code must be seen running in the run that shows the check failing only by that
mistake (d01, d02: C 8); C.3 that reaches A.1 through a holder no stand-in replaces is still
charged once, in A.1 (b03), and so is B.1 that reaches A.2's mistake through A.3 called with a
keyword no stand-in takes (qa25s b42). Left as it was: a helper both tasks run that carries no mistake (a
no-op) still counts as shared code; telling it apart needs to know what the helper computes.

qa37s also: merge_heads that raises on every contiguous input (a `.view` after the transpose) was
paid "works on a non-contiguous input", the one layout where it happens to work (b08, qa26s b18,
qa33s b53: C 25.5, now 25: the non-contiguous input's last axis is also a slice of a longer one,
so no view merges it); axis labels that describe one side through the other were told "swapped"
(c28, c29, c31, c32: E 9, now 10).

qa37h (`tests/qa/qa37h`, headers from the grader after review):
- honest files scored 0: the worker flushed `sys.stdout` and `sys.stderr` after each request, the
  student's objects where the contract lets the code replace them, outside any error handling (a
  Tee with no flush, a log file closed at the end: c02, c03, c05); what such a flush raises is the
  student's own now (its own streams are flushed after it). A flush that hangs still times out (h06). `import sys as _sys` then
  `_sys.stdout = ...` was a library patch (c04: 85, now 100).
- rules switched off unseen: torch's public names for the switches of torch._C
  (`torch.DisableTorchFunction`, `torch.ExcludeDispatchKeyGuard(...)`: b01), names reached as text
  through `pandas.eval` taken as a value, a string.Formatter's `convert_field`, IPython's
  EvalFormatter, DataFrame.query (b02-b04, b07, b08, b12), and modules written at run time then
  imported by text (`site.addsitedir`'s .pth files, `matplotlib.use("module://...")`,
  `help("name")`, pandas' `plotting.backend`: b05, b06, b09, b13, b14) are evasions now.
"""
from __future__ import annotations

import sys
from pathlib import Path

import pytest
import torch

from autograder.feedback.results import SubmissionResult
from autograder.grading.worker.dispatcher import Dispatcher
from tests.corpus import assert_each_bug_in_its_own_part, assert_graded_as_expected, graded_corpus

CORPUS = Path(__file__).resolve().parent / "qa" / "qa37s"
FILES = sorted(CORPUS.glob("*.py"))
REFERENCE = Path(__file__).resolve().parents[1] / "solutions" / "attention" / "attention.py"


HOSTILE = Path(__file__).resolve().parent / "qa" / "qa37h"
FIXES = Path(__file__).resolve().parent / "qa" / "qa38h"  # the red team of this round's fixes: honest files its first rules charged, bugs charged once


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> dict[str, SubmissionResult]:
    return graded_corpus(CORPUS, tmp_path_factory.mktemp("qa37s_out"))


@pytest.fixture(scope="module")
def hostile(tmp_path_factory) -> dict[str, SubmissionResult]:
    return graded_corpus(HOSTILE, tmp_path_factory.mktemp("qa37h_out"))


@pytest.fixture(scope="module")
def fixes(tmp_path_factory) -> dict[str, SubmissionResult]:
    return graded_corpus(FIXES, tmp_path_factory.mktemp("qa38h_out"))


@pytest.mark.parametrize("path", sorted(HOSTILE.glob("*.py")), ids=lambda p: p.stem)
def test_each_hostile_or_honest_file_scores_its_header(path, hostile):
    assert_graded_as_expected(hostile[path.stem], path)


@pytest.mark.parametrize("path", sorted(FIXES.glob("*.py")), ids=lambda p: p.stem)
def test_each_file_of_the_fixes_red_team_scores_its_header(path, fixes):
    """qa38h: help() of an object, a backend or pandas option given by a variable, a DataFrame
    query over its columns, a `format_field` of a class of one's own, `model.eval` as a value,
    `import site`, stdout replaced in every common way: 100 each; a bug once in A.1 or B.1 that C.3
    runs through a callable object, an alias, a generator, deep recursion or inheritance: charged
    once (b31-b37); an axis label that is barely the wrong side's name beside one that names
    neither (b41 "Queries (rows)" down, b42 "key j" across): E 9."""
    assert_graded_as_expected(fixes[path.stem], path)


def test_a_rule_switched_off_through_a_text_door_is_an_evasion(hostile):
    for stem in ("b01_A2_public_mode_switches_cross_entropy", "b03_A2_formatter_convert_field", "b07_A2_pandas_query", "b13_A2_help_imports_written_module"):
        by_hand = next(c for c in hostile[stem].checks if c.check_id == "masked_softmax_by_hand")
        assert not by_hand.passed and any(flag.code == "evasion" for flag in hostile[stem].flags), stem


@pytest.mark.parametrize(("source", "evasion"), [
    ("import torch\nhelp('torch.softmax')\nhelp(torch.nn)\nfor f in (torch.exp,):\n    help(f)\n", False),  # qa38h c01, c02, c14
    ("help('zz_fast')\n", True),
    ("import matplotlib\nBACKEND = 'Agg'\nmatplotlib.use(BACKEND)\nimport matplotlib.pyplot as plt\nplt.style.use(['ggplot'])\n", False),  # c03, c32
    ("import pandas as pd\npd.set_option('display.width', 100)\npd.set_option('plotting.backend', 'matplotlib')\n", False),  # c06
    ("import pandas as pd\ndf = pd.DataFrame({'weight': [0.1, 0.5]})\nprint(df.query('weight > 0.2'))\n", False),  # c05
    ("class TablePrinter:\n    def format_field(self, value, spec):\n        return str(value)\n", False),  # c09
    ("import torch\nm = torch.nn.Linear(2, 2)\nset_mode = m.train if False else m.eval\n", False),  # c08
    ("import site\nprint(site.getsitepackages())\n", False),  # c10
    ("import matplotlib\nmatplotlib.use('module://zz_fast')\n", True),
    ("import matplotlib\nmatplotlib.rcParams['backend'] = 'module://zz_fast'\n", True),
    ("import pandas as pd\npd.set_option('plotting.backend', 'zz_fast')\n", True),
    ("import pandas as pd\ndf = pd.DataFrame({'a': [1]})\ndf.query('@box', local_dict={'box': 1})\n", True),
    ("import pandas as pd\nrun = pd.eval\n", True),
    ("import string\nclass Keep(string.Formatter):\n    def convert_field(self, value, conversion):\n        return value\n", True),
    ("import torch\nwith torch.DisableTorchFunction():\n    pass\n", True),
    ("import site\nsite.addsitedir('/tmp/x')\n", True),
    ("import sys\nprint(sys.getprofile())\n", True),
    ("import sys as _sys\n_sys.stdout = open('log.txt', 'w')\n", False),
])
def test_the_static_pass_reads_the_text_doors(source, evasion):
    from autograder.grading.integrity.static import analyze

    facts = analyze([(1, source)])
    assert any(f.code == "evasion" for f in facts.findings) is evasion, facts.findings
    assert not any(f.code == "library_patch" for f in facts.findings), facts.findings


def test_each_bug_loses_points_in_its_own_part_only():
    assert_each_bug_in_its_own_part([p for p in FILES if not p.name.startswith("d")])  # d*: one mistake written twice


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_each_submission_scores_its_parts_and_names_only_its_mistakes(path, graded):
    assert_graded_as_expected(graded[path.stem], path)


def test_a_mistake_written_again_beside_a_call_that_never_runs_is_charged_in_c3(graded):
    for stem in ("d01_a1_unscaled_again_in_c3_beside_dead_call", "d02_a1_unscaled_again_in_c3_beside_3d_branch"):
        c3 = [c for c in graded[stem].checks if c.task == "C.3"]
        assert not any("charged in A.1" in c.message for c in c3), stem
        assert any(c.mistake == "scores_no_scaling" and not c.passed for c in c3), stem


SHARED = '''
def _scale(x):
    return x / 2

def early(x):
    return _scale(x) + 1

def later(x, flag=False):
    if flag:
        return early(x)
    return x * 3
'''


def test_the_worker_notes_an_earlier_tasks_code_only_when_it_runs(tmp_path):
    dispatcher = Dispatcher()
    loaded = dispatcher.handle({"op": "load", "root": str(tmp_path), "chunks": [(1, SHARED)], "files": {}, "filename": "attention.py", "module": "attention"})
    assert loaded["status"] == "ok" and not loaded["value"]["errors"], loaded
    assert dispatcher.handle({"op": "shared_code", "names": ["early"], "others": ["later"], "besides": []})["value"] is True  # read: it may
    for flag, expected in ((False, False), (True, True)):
        assert dispatcher.handle({"op": "watch_shared", "names": ["early"], "besides": []})["status"] == "ok"
        called = dispatcher.handle({"op": "call", "name": "later", "args": [torch.ones(2)], "kwargs": {"flag": flag}})
        assert called["status"] == "ok", called
        assert sys.getprofile() is None  # only while a request runs
        assert dispatcher.handle({"op": "shared_ran"})["value"] is expected
    assert dispatcher.handle({"op": "shared_ran"})["value"] is False  # nothing watched
    # what `besides` may run (a task with stand-ins of its own) is not the earlier task's own
    assert dispatcher.handle({"op": "watch_shared", "names": ["early"], "besides": ["_scale"]})["status"] == "ok"
    dispatcher.handle({"op": "call", "name": "_scale", "args": [torch.ones(2)], "kwargs": {}})
    assert dispatcher.handle({"op": "shared_ran"})["value"] is False


@pytest.mark.parametrize("lang, hint", [("en", "Return both results as one tuple"), ("zh", "把两个结果作为一个元组一起返回")])
def test_one_tensor_where_a_pair_is_due_gets_the_pairs_hint(tmp_path, capsys, lang, hint):
    """qa35n F2: A.3 returning the output alone was told "Only the last two axes take part in the
    product" (the shape check's idea); the failure's own message has its own idea now."""
    from autograder.cli import main

    path = tmp_path / "one.py"
    path.write_text(REFERENCE.read_text(encoding="utf-8").replace("    return output, weights\n", "    return output\n"), encoding="utf-8")
    main(["check", str(path), "--task", "A.3", "--seed", "1", "--lang", lang])
    printed = capsys.readouterr().out
    assert hint in printed and "last two axes" not in printed and "最后两维" not in printed, printed


def test_a_non_contiguous_argument_merges_with_no_view():
    """The worker's non-contiguous input: same values; the view after merge_heads' transpose fails
    on it as on a contiguous one, reshape works (qa37s b08)."""
    from autograder.grading.worker.dispatcher import _strided

    x = torch.randn(2, 4, 5, 6)
    [y] = _strided([x], [0])
    assert torch.equal(x, y) and not y.is_contiguous()
    with pytest.raises(RuntimeError):
        y.transpose(1, 2).view(2, 5, 24)
    assert torch.equal(y.transpose(1, 2).reshape(2, 5, 24), x.transpose(1, 2).reshape(2, 5, 24))


def test_an_integer_too_long_to_send_is_refused_by_name(hostile):
    """qa37h b10: causal_mask returning 10**5000 ended the worker ("exited with code 70": its
    reply could not be written as JSON); it is a refused value now, named as what it is."""
    failed = [c for c in hostile["b10_A4_huge_int_return"].checks if c.points < c.max_points]
    assert failed and all(c.task == "A.4" for c in failed)
    assert all("causal_mask returned an integer of about 5001 digits" in c.message for c in failed), [c.message for c in failed]
