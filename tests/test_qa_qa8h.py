"""qa8h's corpus (tests/qa/qa8h/): honest code that stores attributes on objects other than self,
and threads or helpers an honest student writes, against the two integrity rules of round 9 (the
static library-patch pass: integrity/static.py, syntax.Ownership; the worker's 'another thread ran
during the call'); and patches that route through a parameter.

Before qa8h, 13 of the 19 honest `h*` files scored A 29/32 ('cannot be checked' on A.2 by hand and
A.3) with a library_patch or evasion flag: the pass took any parameter, loop variable or call result
for a possible library module, and a name torch or builtins define anywhere (cache, output, grad,
name, count, dropout, device...) for a patch. Now a parameter is placed by what the source passes
it (syntax.placed_parameters), model.parameters() of an own object is own, what an own function
returns is own, and threading used for a Lock is no thread. x01 (`def _install(cls, r): cls.dumps
= r` called with json) scored A 32/32 before: self and cls were trusted by name.

Every file is graded in ONE batch (Part A, two grader processes) beside the reference; a file whose
first line is `# snippet` is appended to the reference (tests/batches.py's convention).
"""
from __future__ import annotations

from pathlib import Path

import pytest

from autograder.assignment import current
from autograder.grading.batch import grade_batch
from autograder.grading.integrity.flags import LIBRARY_PATCH
from autograder.grading.integrity.static import analyze
from autograder.grading.session import GradeOptions
from autograder.grading.worker.client import Budget

REPO = Path(__file__).resolve().parents[1]
CORPUS = REPO / "tests" / "qa" / "qa8h"
REFERENCE = REPO / "solutions" / "attention" / "attention.py"
BUDGET = Budget(call_seconds=5, import_seconds=20, total_seconds=120)
FULL = ({"A": 32}, set())
PATCHED = ({"A": 29}, {"library_call", "library_patch"})  # graded on Part A only: no figure, so no tamper; library_call: its Categorical is a banned name (qa25h; rule_bypass before, qa20h)

# name -> (score per part, flag codes)
EXPECTED: dict[str, tuple[dict[str, float], set[str]]] = {
    "h01_forward_hook_keeps_output": FULL,  # A 29 before (library_patch)
    "h02_apply_init_fn": FULL,
    "h03_zero_grad_helper": FULL,  # A 29 before
    "h04_named_modules_label": FULL,  # A 29 before
    "h05_config_passed_around": FULL,  # A 29 before
    "h06_wraps_counter_on_graded": FULL,
    "h07_tag_decorator": FULL,  # A 29 before
    "h08_register_buffer_helper": FULL,  # A 29 before
    "h09_temperature_helper": FULL,  # A 29 before
    "h10_method_hook_in_class": FULL,  # A 29 before
    "h11_lambda_hook_setattr": FULL,  # A 29 before
    "h12_logging_at_import": FULL,
    "h13_set_num_threads_at_import": FULL,
    "h14_warnings_filters": FULL,
    "h15_module_lock": FULL,  # A 29 before (evasion, process)
    "h17_stats_namespace": FULL,  # A 29 before
    "h18_copy_weights_helper": FULL,  # A 29 before
    "n01_tqdm_and_hook_in_scratch_cells": FULL,
    "h19_tqdm_training_loop": FULL,  # A 29 before (evasion): tqdm's monitor thread lived through the graded calls; the template now turns it off
    # the contract names concurrent.futures in code that runs at import: the rules cannot be checked
    "h16_executor_never_used": ({"A": 29}, {"evasion"}),
    # patches through a parameter
    "x01_patch_through_cls_parameter": PATCHED,  # A 32 before: cls was trusted by name
    "x02_patch_beside_honest_hook": PATCHED,
}


def corpus() -> list[Path]:
    return sorted(p for p in CORPUS.iterdir() if p.suffix in (".py", ".ipynb"))


def test_corpus_is_complete():
    assert sorted(p.stem for p in corpus()) == sorted(EXPECTED)


J = "import json\n_f = print\n"


@pytest.mark.parametrize("source, patched", [
    # honest stores on what a helper, a hook or a loop is given (each a library_patch before qa8h)
    ("import torch\ndef hook(module, inputs, output):\n    module.cache = output\n    module.output = output\nm = torch.nn.Linear(2, 2)\nm.register_forward_hook(hook)\n", False),
    ("import torch\ndef zero(model):\n    for p in model.parameters():\n        p.grad = None\n        p.requires_grad = True\nzero(torch.nn.Linear(2, 2))\n", False),
    ("import torch\ndef label(model):\n    for name, m in model.named_modules():\n        m.name = name\nlabel(torch.nn.Linear(2, 2))\n", False),
    ("class Config:\n    pass\ndef for_eval(cfg, device):\n    cfg.device = device\n    cfg.dropout = 0.0\n    return cfg\nCONFIG = for_eval(Config(), 'cpu')\ndef reseed(cfg, s):\n    cfg.seed = s\nreseed(CONFIG, 1)\n", False),
    ("def tag(fn):\n    fn.name = fn.__name__\n    return fn\n@tag\ndef helper():\n    pass\n", False),
    ("import torch\nclass P(torch.nn.Module):\n    def __init__(self):\n        super().__init__()\n        self.lin = torch.nn.Linear(2, 2)\n        self.lin.register_forward_hook(self._keep)\n    def _keep(self, module, inputs, output):\n        module.cache = output\n", False),
    ("import torch\nm = torch.nn.Linear(2, 2)\nm.register_forward_hook(lambda mod, i, o: setattr(mod, 'output', o))\n", False),
    ("def track(stats, loss):\n    stats.count = stats.count + 1\n", False),  # a function the submission never calls: the grader's data
    ("import torch\nclass Probe(torch.nn.Module):\n    def __init__(self, block):\n        super().__init__()\n        self.block = block\n        self.block.register_forward_hook(self._keep)\n    def _keep(self, module, inputs, output):\n        module.cache = output\nProbe(torch.nn.Linear(2, 2))\n", False),
    # ... and patches through a parameter, a slot or a call stay found
    (J + "def _install(cls, r):\n    cls.dumps = r\n_install(json, _f)\n", True),  # self/cls were trusted by name
    (J + "def _install(self):\n    self.dumps = _f\n_install(json)\n", True),
    (J + "class Box:\n    def apply(self, fn):\n        fn(json)\ndef install(module):\n    module.dumps = _f\nBox().apply(install)\n", True),  # its own apply
    (J + "import torch\nclass M(torch.nn.Module):\n    def forward(self, module):\n        module.dumps = _f\nM()(json)\n", True),  # forward: called by torch
    (J + "class E(json.JSONEncoder):\n    def default(self, o):\n        o.dumps = _f\n        return 0\n    def use(self):\n        self.default(3)\n", True),  # default: called by json
    (J + "class C:\n    def put(self, module):\n        module.dumps = _f\nC().put(json)\n", True),
    (J + "def install(module):\n    module.dumps = _f\nalias = install\nalias(json)\n", True),
    (J + "def make():\n    def install(module):\n        module.dumps = _f\n    return install\nmake()(json)\n", True),
    (J + "import torch\nclass M(torch.nn.Module):\n    def forward(self, x):\n        return json\ndef hook(module, inputs, output):\n    output.dumps = _f\nM().register_forward_hook(hook)\n", True),
    (J + "import torch\nclass M(torch.nn.Module):\n    def modules(self):\n        return [json]\nfor m in M().modules():\n    m.dumps = _f\n", True),
    (J + "def f(m):\n    return m\nf(json).dumps = _f\n", True),
    (J + "def f(c):\n    return c\nA = f(json)\ndef g(c):\n    c.dumps = _f\ng(A)\n", True),
    (J + "def install(module=json):\n    module.dumps = _f\n", True),
    (J + "class Box:\n    def __init__(self, m):\n        m.dumps = _f\nBox(json)\n", True),
    # a helper given an imported module itself: any name, also one no module of the worker's replies defines (the figure's path)
    ("import matplotlib.pyplot as plt\ndef install(m, g):\n    m.get_fignums = g\ninstall(plt, lambda: [])\n", True),
    (J + "class Box:\n    def __init__(self, m):\n        m.dumps = _f\nb = Box(3)\ntype(b).__init__(b, json)\n", True),
    (J + "class Box:\n    def __init__(self, m):\n        m.dumps = _f\nclass B2(Box):\n    pass\nBox(3)\nB2(json)\n", True),
])
def test_a_store_is_a_patch_only_where_a_library_object_may_reach(source, patched):
    facts = analyze(((1, source),), (), current().library_names(), own={"attention"})
    assert any(f.code == LIBRARY_PATCH for f in facts.findings) == patched, facts.findings


@pytest.mark.parametrize("source, flagged", [
    ("import threading\n_lock = threading.Lock()\ndef f(x):\n    with _lock:\n        return x\n", False),
    ("from threading import Lock, Event\n_lock, _done = Lock(), Event()\n", False),
    ("import threading\nthreading.Thread(target=print).start()\n", True),
    ("import threading\nt = threading\nt.Lock()\n", True),
    ("from threading import Lock, Timer\n", True),
])
def test_threading_for_a_lock_runs_nothing_elsewhere(source, flagged):
    facts = analyze(((1, source),), (), current().library_names(), own={"attention"})
    assert any(f.code == "evasion" and "thread" in f.what for f in facts.findings) == flagged, facts.findings


@pytest.mark.slow
def test_corpus_in_one_batch(tmp_path):
    inbox, out = tmp_path / "inbox", tmp_path / "out"
    inbox.mkdir()
    reference = REFERENCE.read_text(encoding="utf-8")
    for path in corpus():
        text = path.read_text(encoding="utf-8")
        (inbox / path.name).write_text(reference + "\n\n" + text if text.startswith("# snippet") else text, encoding="utf-8")
    (inbox / "correct.py").write_text(reference, encoding="utf-8")

    batch = grade_batch(inbox, out, jobs=2, options=GradeOptions(seed=1, parts=frozenset({"A"}), budget=BUDGET))

    results = {r.submission: r for r in batch.submissions}
    assert set(results) == set(EXPECTED) | {"correct"}
    wrong = []
    for name, (expected, flags) in {**EXPECTED, "correct": FULL}.items():
        result = results[name]
        got = {p.part: p.score for p in result.parts}
        if got != expected:
            wrong.append(f"{name}: {got}, expected {expected}; " + "; ".join(c.message[:160] for c in result.checks if c.points < c.max_points)[:600])
        if {f.code for f in result.flags} != flags:
            wrong.append(f"{name}: flags {sorted({f.code for f in result.flags})}, expected {sorted(flags)}")
        assert "internal grader error" not in result.grader_error, name
    assert not wrong, "\n".join(wrong)
