"""qa7h's hostile corpus (tests/qa/qa7h/): library patches through receivers the static pass did
not follow, values that are not plain tensors, signals and descriptors, reaching out of the
sandbox, markup in what the feedback quotes, notebooks whose metadata claims points.

Every file there is graded in ONE batch (`grade_batch`, two grader processes, Parts A and E) with a
copy of the reference. A file whose first line is `# snippet` is appended to the reference
(tests/batches.py's convention), so what it does not break must keep its points. For each: its
score per part (exact, or at most where the limit that stops it may vary) and the integrity flags
it must raise (exactly); for all: no internal grader error, no link or image made by the student
in Markdown feedback.

The nine `patch_through_*` files scored A 32/32 with the library softmax before the fix: the
static pass counted an attribute stored on a name as a library patch only when the name was an
import or bound to one by a plain assignment or a loop; a parameter, a default value, a `with` or
:= target, a getattr with a constant name, a class attribute, a list slot or the file's own module
(`import attention as me; me._json.dumps = f`) reached json all the same, and the patched json.dumps scrubbed softmax from the trace every reply carries. Now every
receiver that cannot be shown to be the submission's own object counts (syntax.Ownership):
`test_a_patch_through_any_receiver_is_found` holds the routes and the honest stores beside them.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from autograder.assignment import current
from autograder.grading.batch import grade_batch
from autograder.grading.integrity.flags import LIBRARY_PATCH
from autograder.grading.integrity.static import analyze
from autograder.grading.session import GradeOptions
from autograder.grading.worker.client import Budget

REPO = Path(__file__).resolve().parents[1]
CORPUS = REPO / "tests" / "qa" / "qa7h"
REFERENCE = REPO / "solutions" / "attention" / "attention.py"
PARTS = frozenset({"A", "E"})
FULL = {"A": 32, "E": 10}
BUDGET = Budget(call_seconds=5, import_seconds=20, total_seconds=120)  # every hang here stops at the call limit
PATCHED = ({"A": 29, "E": 0}, True, {"library_call", "library_patch", "tamper"})  # A.2 by hand 0, A.3 1: cannot be checked; the figure neither; library_call: its Categorical is a banned name (qa25h; rule_bypass before: the traces of masked_softmax's other calls saw its softmax, qa20h)


def scores(**changed: float) -> dict[str, float]:
    return {**FULL, **changed}


# name -> (score per part, exact?, flag codes)
EXPECTED: dict[str, tuple[dict[str, float], bool, set[str]]] = {
    # a. a library patched through a receiver that is not an import (A 32/32 before the fix)
    "patch_through_parameter": PATCHED,
    "patch_through_default_argument": PATCHED,
    "patch_through_with_target": PATCHED,
    "patch_through_walrus": PATCHED,
    "patch_through_getattr_binding": PATCHED,
    "patch_through_class_attribute": PATCHED,
    "patch_through_list_slot": PATCHED,
    "patch_through_lambda_setattr": PATCHED,
    "patch_through_own_module": PATCHED,  # `import attention as me; me._json.dumps = f`: the file's own name for json
    "scratch_cell_patch": (scores(A=30), True, {"library_call"}),  # an untagged cell is not graded: the trace sees softmax
    # b. rules. Library code run in a thread no source line names (A 32/32 before: the trace is per thread)
    "thread_via_asyncio": (scores(A=30), True, {"library_call", "network"}),  # library_call: its Categorical is a banned name (qa25h; evasion before)
    "thread_via_queue_listener": (scores(A=30), True, {"library_call"}),
    "thread_via_tqdm_map": (scores(A=30), True, {"library_call"}),  # A 29 while tqdm's monitor thread outlived the call (A.3 could not be checked either); the worker turns it off
    # ... or in a process started at import, which lives through every call (A.2's rule passed before);
    # its weights carry no gradient (A.2 loses both gradient checks)
    "process_spawned_at_import": (scores(A=27), True, {"evasion", "file_access", "process"}),
    "process_via_asyncio_at_import": (scores(A=27), True, {"evasion", "network", "process"}),
    "star_import_softmax": (scores(A=22), True, {"library_call", "rule_bypass"}),  # library_call: the static pass now reads a library's `*` import (qa23h)
    "compile_imported_by_name": (scores(A=29, E=0), True, {"evasion", "rule_bypass", "tamper"}),
    # c. values that are not plain tensors
    "meta_device_mask": (scores(A=28), True, set()),
    "sparse_scores": (scores(A=26), True, set()),
    "complex_scores": (scores(A=26), True, set()),
    "nested_tensor_mask": (scores(A=28), True, set()),
    "sixty_dims": (scores(A=26), True, set()),
    "empty_giant_shape": (scores(A=28), True, set()),
    "nested_list_mask": (scores(A=28), True, set()),
    "storage_offset_view": (scores(), True, set()),
    "recursion_in_eq_of_size": (scores(A=28), True, set()),
    # d. stalls, signals, descriptors, output
    "stop_self": (scores(), True, {"signal"}),
    "stop_process_group": (scores(), True, {"signal"}),
    "del_hangs_on_collect": (scores(A=28), False, {"resource_limit"}),
    "many_threads_at_import": (scores(), True, set()),
    "close_every_descriptor": (scores(A=28), True, set()),
    "stdout_binary_junk": (scores(), True, set()),
    # e. reaching out
    "plant_in_python_install": (scores(A=29, E=0), True, {"evasion", "file_access", "tamper"}),
    "seek_planted_code": (scores(), True, set()),
    "chroot_escape": (scores(A=28), True, {"file_access"}),
    "unix_sockets_outside": (scores(A=28), True, {"file_access", "network"}),
    "results_of_others": (scores(), True, {"file_access"}),
    # f. markup in what the feedback quotes; notebooks
    "source_line_markup": (scores(A=28), True, set()),
    "plot_label_markup": (scores(E=9.5), True, set()),
    "warning_markup": (scores(), True, set()),
    "points_claimed_in_metadata": (scores(A=18), True, set()),
    "magics_that_write": (scores(), True, set()),
    "check_cells_tagged_as_answers": (scores(), True, set()),
}
MAY_RAISE = {"del_hangs_on_collect": {"resource_limit"}}  # the hang's limit is recorded where it fires


def corpus() -> list[Path]:
    return sorted(p for p in CORPUS.iterdir() if p.suffix in (".py", ".ipynb"))


def test_corpus_is_complete():
    assert sorted(p.stem for p in corpus()) == sorted(EXPECTED)


JSON = "import json\n_f = print\n"


@pytest.mark.parametrize("source, patched", [
    # qa7h: routes to a library's object the static pass did not follow (each scored A 32/32)
    (JSON + "def _install(module):\n    module.dumps = _f\n_install(json)\n", True),
    (JSON + "def _install(module=json):\n    module.dumps = _f\n", True),
    (JSON + "import contextlib\ndef attention_scores(q, k):\n    with contextlib.nullcontext(json) as m:\n        m.dumps = _f\n", True),
    (JSON + "def attention_scores(q, k):\n    (e := json.JSONEncoder).iterencode = _f\n", True),
    (JSON + "_enc = getattr(json, 'JSONEncoder')\n_enc.iterencode = _f\n", True),
    (JSON + "class _Box:\n    target = json\ndef attention_scores(q, k):\n    _Box.target.dumps = _f\n", True),
    (JSON + "def attention_scores(q, k):\n    slots = [json]\n    slots[0].dumps = _f\n", True),
    (JSON + "(lambda m: setattr(m, 'dumps', _f))(json)\n", True),
    (JSON + "_mods = {'j': json}\n_m = _mods.get('j')\n_m.dumps = _f\n", True),
    (JSON + "def _get():\n    return json\n_get().dumps = _f\n", True),
    (JSON + "class _Holder:\n    def __init__(self):\n        self.m = json\n    def put(self):\n        self.m.dumps = _f\n", True),
    (JSON + "import attention as _me\n_me.json.dumps = _f\n", True),  # the entry's own module holds json
    (JSON + "import attention\nsetattr(attention.json, 'dumps', _f)\n", True),
    # ... and what the submission's own objects hold stays no patch
    ("import torch\nclass Block(torch.nn.Module):\n    def __init__(self):\n        super().__init__()\n        self.norm = torch.nn.LayerNorm(4)\n        self.norm.weight = torch.nn.Parameter(torch.ones(4))\n", False),
    ("import torch\nmodel = torch.nn.Sequential(torch.nn.Linear(2, 2))\nmodel.extra = torch.nn.Identity()\nlayers = [torch.nn.Linear(2, 2)]\nlayers[0].bias = None\n", False),
    ("import torch\ndef forward(x):\n    return x\nclass Attention(torch.nn.Module):\n    pass\nAttention.forward = forward\nAttention.scale = torch.tensor(2.0)\n", False),
    ("import attention\nattention.LOG = print\nattention.SCALE = attention.torch.tensor(2.0)\n", False),  # its own module's names
    ("import torch\ndef freeze(layer):\n    layer.weight.requires_grad = False\n    layer.p = 0.5\n", False),  # settings: constants
    # a parameter holds an object the pass cannot place: a name no library of the worker's path defines is no patch (qa7s c29)
    ("import torch\ndef keep(module, inputs, output):\n    module.last_weights = output[1].detach()\n    setattr(module, 'attn', output[1])\n", False),
    ("import torch\nw = torch.zeros(3)\nw.grad = torch.ones(3)\nfor block in [torch.nn.Linear(2, 2)]:\n    block.weight = torch.nn.Parameter(torch.ones(2, 2))\n", False),
])
def test_a_patch_through_any_receiver_is_found(source, patched):
    facts = analyze(((1, source),), (), current().library_names(), own={"attention"})
    assert any(f.code == LIBRARY_PATCH for f in facts.findings) == patched, facts.findings


@pytest.mark.slow
def test_hostile_corpus_in_one_batch_earns_nothing_unearned(tmp_path):
    inbox, out = tmp_path / "inbox", tmp_path / "out"
    inbox.mkdir()
    reference = REFERENCE.read_text(encoding="utf-8")
    for path in corpus():
        text = path.read_text(encoding="utf-8")
        (inbox / path.name).write_text(reference + "\n\n" + text if text.startswith("# snippet") else text, encoding="utf-8")
    (inbox / "correct.py").write_text(reference, encoding="utf-8")

    batch = grade_batch(inbox, out, jobs=2, options=GradeOptions(seed=7, parts=PARTS, budget=BUDGET))

    results = {r.submission: r for r in batch.submissions}
    assert set(results) == set(EXPECTED) | {"correct"}
    assert {p.part: p.score for p in results["correct"].parts} == FULL, [c.message for c in results["correct"].checks if not c.passed]
    wrong = []
    for name, (expected, exact, flags) in EXPECTED.items():
        result = results[name]
        got = {p.part: p.score for p in result.parts}
        if (got != expected) if exact else (set(got) != set(expected) or any(got[p] > expected[p] for p in expected)):
            wrong.append(f"{name}: {got}, expected {'' if exact else 'at most '}{expected}; " + "; ".join(c.message[:160] for c in result.checks if c.points < c.max_points)[:800])
        recorded = {f.code for f in result.flags}
        if recorded - MAY_RAISE.get(name, set()) != flags - MAY_RAISE.get(name, set()):
            wrong.append(f"{name}: flags {sorted(recorded)}, expected {sorted(flags)}")
        assert "internal grader error" not in result.grader_error, name
    assert not wrong, "\n".join(wrong)
    # nothing a student wrote became a link or an image in Markdown feedback (a fenced block is inert)
    for page in out.rglob("feedback.md"):
        unfenced = re.sub(r"(`{3,})text\n.*?\n\1\n", "", page.read_text(encoding="utf-8"), flags=re.DOTALL)
        assert not re.search(r"\]\((?:http|javascript)", unfenced), page


def test_a_thread_alive_or_made_during_a_traced_call_is_seen():
    """The trace is per thread: the worker says when another thread (not one there before the
    student's code loaded, such as a notebook kernel's) was alive as a traced call began or
    ended; in its own pid namespace, also when one was made and ended meanwhile."""
    import threading

    from autograder.grading.worker.dispatcher import ran_elsewhere, threads_seen

    ambient = threads_seen()[0]
    before = threads_seen()
    assert not ran_elsewhere(before, threads_seen(), ambient)
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait)
    thread.start()
    try:
        assert ran_elsewhere(before, threads_seen(), ambient)
        assert not ran_elsewhere(threads_seen(), threads_seen(), threads_seen()[0])  # one that was there before loading
    finally:
        stop.set()
        thread.join()
    assert ran_elsewhere((frozenset(), 7), (frozenset(), 9), frozenset())  # a thread or process made and gone
    assert ran_elsewhere((frozenset(), -1), (frozenset(), -1), frozenset())  # another process lives in the worker's namespace
