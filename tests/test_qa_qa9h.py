"""qa9h's hostile corpus (tests/qa/qa9h/): attacks on round 10's machinery and routes no earlier
corpus tried.

dispatch_subclass_softmax scored A 29/32 with A.2's "written by hand" check passed: its
masked_softmax had a tensor subclass's own __torch_dispatch__ compute torch's softmax. Torch hands
an operator to such a subclass from inside the worker's dispatch mode, with that mode switched off,
so the trace saw only `exp`. The worker now reports that a subclass's __torch_dispatch__ ran during
a traced call (`subclassed`), and a rule cannot be checked then (as for another thread).

Holes found and closed (score before -> after, at --seed 1):
- dispatch_subclass_softmax: A 29 -> 27 (A.2 "by hand" paid; see above).
- patch_through_instance_class: A 32, E 10 -> A 29, E 0: `json.JSONEncoder().__class__.iterencode = f`
  was no library patch for the static pass (an own object's attributes were taken for own).
- patch_through_identity_function: A 32, E 10 -> A 29, E 0: `def Keep(x): return x` then
  `Keep(json.JSONEncoder).iterencode = f`: any call of a capitalised name was taken for a new object.
- honest_num_heads_property (honest): D 1 -> 12: the trusted MultiHeadAttention took the
  submission's read-only `num_heads` property, and its own __init__ failed.
- honest_big_module_table (honest): A 15, D 8 -> A 22, D 12: the stand-ins' walk read a 3-million
  item table in every request with stand-ins, and the checks graded again timed out.
- mask_broadcast_to_grader: a stand-in's mask broadcast its small inputs to 33.5M weights computed
  in the grader's process (unit test below; the batch shows no score change).

Every file is graded in ONE batch (Parts A, D and E, two grader processes) beside a copy of the
reference; a file whose first line is `# snippet` is appended to the reference (tests/batches.py's
convention). A part a file's header does not name keeps full marks.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest
import torch

from autograder.assignments.attention.checks.carried import trusted_answer
from autograder.grading.integrity.flags import EVASION, LIBRARY_PATCH
from autograder.grading.integrity.rules import judge
from autograder.grading.batch import grade_batch
from autograder.grading.integrity.static import analyze
from autograder.grading.session import GradeOptions
from autograder.assignment import current
from autograder.assignments.attention.rules import SOFTMAX_BY_HAND
from autograder.grading.worker.dispatcher import OpTracer, probe_tracer
from autograder.grading.worker import standins
from autograder.grading.worker.client import Budget
from autograder.grading.worker.standins import StandInRefused

REPO = Path(__file__).resolve().parents[1]
CORPUS = REPO / "tests" / "qa" / "qa9h"
REFERENCE = REPO / "solutions" / "attention" / "attention.py"
PARTS = frozenset({"A", "D", "E"})
FULL: dict[str, float] = {"A": 32, "D": 12, "E": 10}
BUDGET = Budget(call_seconds=5, import_seconds=20, total_seconds=120)
UNCHECKED: dict[str, float] = {"A": 29, "D": 12, "E": 0}  # A.2 by hand, A.3's rule and the figure cannot be checked


def scores(**changed: float) -> dict[str, float]:
    return {**FULL, **changed}


# name -> (score per part, exact?, flag codes)
EXPECTED: dict[str, tuple[dict[str, float], bool, set[str]]] = {
    # a. the "by hand" rule: code run where the trace does not look, or library softmax by other names
    "dispatch_subclass_softmax": (scores(A=27), True, {"library_call"}),  # A 29 before: A.2 by hand paid; library_call: its Categorical is a banned name (qa25h; evasion before)
    "dispatch_subclass_constant": (scores(A=28), True, {"library_call"}),  # A.2 by hand paid before; evasion before qa25h (library_call: its Categorical is a banned name since qa25h)
    "torch_function_subclass_softmax": (scores(A=30), True, {"library_call"}),  # rule_bypass before (library_call: its Categorical is a banned name since qa25h)
    "own_dispatch_mode_softmax": (scores(A=27, E=0), True, {"evasion", "library_call", "tamper"}),  # rule_bypass before (library_call: its Categorical is a banned name since qa25h)
    "autograd_function_softmax": (scores(A=30), True, {"library_call"}),  # rule_bypass before (library_call: its Categorical is a banned name since qa25h)
    "signal_handler_softmax": (scores(A=30), True, {"rule_bypass", "signal"}),
    "thread_joined_within_call": (scores(A=30), True, {"library_call"}),  # evasion before (library_call: its Categorical is a banned name since qa25h)
    "sparse_softmax_route": (scores(A=27), True, {"library_call"}),  # A 26 before qa10h: the float16 NotImplementedError raised inside torch was taken for a stub in the fully-blocked check too; the crash is masked_softmax_dtypes'
    "cross_entropy_gradient_route": (scores(A=28), True, {"rule_bypass"}),
    "patch_through_instance_class": (scores(A=29, E=0), True, {"library_call", "library_patch", "tamper"}),  # A 32, E 10 before; rule_bypass before (what its other calls ran, qa20h) (library_call: its Categorical is a banned name since qa25h)
    "patch_through_identity_function": (scores(A=29, E=0), True, {"library_call", "library_patch", "tamper"}),  # A 32, E 10 before; rule_bypass before (what its other calls ran, qa20h) (library_call: its Categorical is a banned name since qa25h)
    # b. the stand-ins (error carried forward): the submission's own named tuple, the walk, the callbacks
    # D 1 before qa39s F4: Part D graded without Part C could not learn C.3's mistake (no W_o); it
    # now runs C.3's values checks unscored, and D's block, the reference's, is right given that
    # mistake, as a full run found it (D 10 there before too: its eval dropout check stays charged)
    "named_make_exits": (scores(D=10), True, set()),
    "named_make_forges": (scores(D=10), True, set()),
    "rebind_walk_exits": (scores(A=29, D=10, E=0), True, {"evasion", "tamper"}),
    "mask_broadcast_to_grader": (scores(A=22), True, set()),
    "standin_refusal_markup": (scores(A=14), True, set()),  # its own masked_softmax refuses the layout, and so does the trusted one, naming its class (one that changes nothing is taken since round 36)
    # c. the figure of Part E
    "figure_image_subclass_forged": (scores(E=0), True, {"tamper"}),
    "figure_savefig_override": (scores(), True, set()),
    # d. stalls, crashes, resources, neighbours
    "cpu_limit_at_import": (scores(), False, set()),
    "fd_exhaustion_at_import": (scores(E=0), True, {"file_access"}),
    "mmap_reserve_at_import": (scores(), True, {"file_access"}),
    "tiny_recursion_limit": (scores(), True, set()),
    "deep_traceback": (scores(A=28), True, set()),
    "exception_group_flood": (scores(A=28), True, set()),
    "huge_exception_text": (scores(A=28), True, set()),
    "tensor_with_payload": (scores(), True, set()),
    "shared_memory_squatter": (scores(), True, {"file_access"}),
    "cpu_burner_child": (UNCHECKED, True, {"evasion", "process", "tamper"}),
    # e. honest code: no flag, no point lost that its own mistakes do not cost
    "honest_num_heads_property": (scores(), True, set()),  # D 1 before
    "honest_big_module_table": (scores(A=22), True, set()),  # A 15, D 8, resource_limit before
    "honest_softmax_via_logsumexp": (scores(), True, set()),
    "honest_softmax_via_normalize": (scores(A=31), True, set()),  # a real float16 bug
    "honest_warnings_as_errors": (scores(), True, set()),
    "honest_chdir_at_import": (scores(), True, set()),
    "honest_svg_backend": (scores(), True, set()),
    "honest_high_dpi_rcparams": (scores(), True, set()),
    "honest_dark_style": (scores(), True, set()),
}
MAY_RAISE = {"cpu_limit_at_import": {"resource_limit"},  # where the CPU limit is hit depends on the machine's load
             # open (note 47): with A.2's mistake carried into A.3, the worker's look at the code both share is seen walking this class
             "standin_refusal_markup": {"evasion"}}


def corpus() -> list[Path]:
    return sorted(p for p in CORPUS.iterdir() if p.suffix == ".py")


def test_corpus_is_complete():
    assert sorted(p.stem for p in corpus()) == sorted(EXPECTED)
    assert all(p.read_text(encoding="utf-8").splitlines()[0].startswith("# snippet") and "Expected:" in p.read_text(encoding="utf-8").splitlines()[0] for p in corpus())


@pytest.mark.slow
def test_hostile_corpus_in_one_batch_earns_nothing_unearned(tmp_path):
    inbox, out = tmp_path / "inbox", tmp_path / "out"
    inbox.mkdir()
    reference = REFERENCE.read_text(encoding="utf-8")
    for path in corpus():
        (inbox / path.name).write_text(reference + "\n\n" + path.read_text(encoding="utf-8"), encoding="utf-8")
    (inbox / "correct.py").write_text(reference, encoding="utf-8")

    batch = grade_batch(inbox, out, jobs=2, options=GradeOptions(seed=1, parts=PARTS, budget=BUDGET))

    results = {r.submission: r for r in batch.submissions}
    assert set(results) == set(EXPECTED) | {"correct"}
    assert {p.part: p.score for p in results["correct"].parts} == FULL and not results["correct"].flags  # the neighbours' attacks cost it nothing
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
    # nothing a student wrote became a link or an image in Markdown feedback (a fenced block is inert)
    for page in out.rglob("feedback.md"):
        unfenced = re.sub(r"(`{3,})text\n.*?\n\1\n", "", page.read_text(encoding="utf-8"), flags=re.DOTALL)
        assert not re.search(r"\]\((?:http|javascript)", unfenced), page


class _Answers(torch.Tensor):
    """A subclass whose own __torch_dispatch__ answers every operator (here with torch's softmax)."""

    @classmethod
    def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
        return torch.softmax(torch.ones(2, 3), -1)


def test_a_tensor_subclass_dispatch_is_reported_and_fails_a_rule():
    """What a subclass's __torch_dispatch__ runs is not traced (the mode is off while it runs):
    that it ran is reported, and a rule cannot be checked on such a call."""
    with OpTracer() as tracer:
        torch.zeros(2, 3).as_subclass(_Answers).exp()
    report = tracer.report()
    assert "aten._softmax.default" not in report["aten"] and report["subclassed"]
    facts = analyze(((1, "def masked_softmax(scores, mask=None):\n    return scores.exp()\n"),), (), current().library_names(), own={"attention"})
    verdict = judge(SOFTMAX_BY_HAND, {**report, "probe": probe_tracer()}, facts, "A")
    assert not verdict.passed and verdict.key == "rule_subclassed" and [f.code for f in verdict.flags] == [EVASION]


def test_plain_tensors_parameters_and_autograd_functions_are_no_subclass():
    """torch's own calls list Tensor itself among the types (an autograd Function's detach): no subclass."""

    class Double(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            return grad * 2

    weight = torch.nn.Parameter(torch.ones(3))
    with OpTracer() as tracer:
        Double.apply(weight).sum().backward()
        torch.nn.functional.linear(torch.ones(2, 3), weight[None]).softmax(-1)
    assert not tracer.report()["subclassed"]


@pytest.mark.parametrize("name, tensors, options", [
    # small inputs whose mask broadcasts the weights to 33.5 million numbers (the inputs hold 131,328)
    ("masked_softmax", [torch.zeros(256, 1), torch.ones(512, 1, 256, dtype=torch.bool)], {}),
    ("scaled_dot_product_attention", [torch.zeros(1, 256, 1), torch.zeros(1, 256, 1), torch.zeros(1, 256, 1), torch.ones(512, 1, 1, dtype=torch.bool)], {}),
    ("MultiHeadAttention", [torch.zeros(1, 256, 2), None, None, torch.ones(512, 1, 1, 1, dtype=torch.bool), *[torch.zeros(2, 2), torch.zeros(2)] * 4],
     {"num_heads": 1, "dropout": 0.0, "training": False, "seed": 0}),
])
def test_a_mask_cannot_make_the_grader_compute_huge_weights(name, tensors, options):
    """A stand-in's inputs are bounded, and so must be what their mask broadcasts them to: the
    trusted answer is computed in the grader's process (mask_broadcast_to_grader)."""
    if name == "MultiHeadAttention":
        tensors[1] = tensors[2] = tensors[0]
    with pytest.raises(StandInRefused, match="attention weights would hold"):
        trusted_answer({"kind": "forward", "name": name, "tensors": tensors, "options": options})


def test_right_sized_stand_in_calls_are_answered():
    scores, mask = torch.zeros(2, 3, 4, 5), torch.ones(4, 5, dtype=torch.bool).tril()
    weights = trusted_answer({"kind": "forward", "name": "masked_softmax", "tensors": [scores, mask], "options": {}})
    assert weights.shape == (2, 3, 4, 5)
    q = torch.zeros(2, 3, 4, 6)
    output, weights = trusted_answer({"kind": "forward", "name": "scaled_dot_product_attention", "tensors": [q, q, q, torch.ones(2, 1, 4, 4, dtype=torch.bool)], "options": {}})
    assert output.shape == (2, 3, 4, 6) and weights.shape == (2, 3, 4, 4)


def test_a_property_of_the_submissions_class_does_not_hide_the_stand_ins_attributes():
    """The stand-in class keeps the submission's own extra methods and properties, but not one
    named like what the stand-in's own code uses: a read-only `num_heads` property made the
    stand-in's __init__ fail (`self.num_heads = ...`), and D lost 11 of 12 points for C's bug
    (honest_num_heads_property)."""

    class StandIn(torch.nn.Module):
        def __init__(self, embed_dim: int, num_heads: int):
            super().__init__()
            self.embed_dim, self.num_heads = embed_dim, num_heads
            self.W_q = torch.nn.Linear(embed_dim, embed_dim)

        def forward(self, x):
            return [layer(x) for layer in (self.W_q,)][0] * self.num_heads

    class Own(torch.nn.Module):
        def __init__(self, embed_dim: int, num_heads: int):
            super().__init__()
            self._heads = num_heads
            self.layers = torch.nn.ModuleList([torch.nn.Linear(embed_dim, embed_dim)])

        @property
        def num_heads(self) -> int:
            return self._heads

        @property
        def W_q(self):
            return self.layers[0]

        def describe(self) -> str:
            return f"{self.num_heads} heads"

    fitted = standins.fitted(StandIn, Own, "MultiHeadAttention")
    layer = fitted(4, 2)
    assert layer.num_heads == 2 and isinstance(layer.W_q, torch.nn.Linear) and layer(torch.ones(1, 4)).shape == (1, 4)
    assert layer.describe() == "2 heads"  # a helper of its own is still there


JSON = "import json\nimport torch\n_f = print\n"


@pytest.mark.parametrize("source, patched", [
    # an instance's __class__ is its library class (patch_through_instance_class: A 32/32 before)
    (JSON + "_encoder = json.JSONEncoder().__class__\n_encoder.iterencode = _f\n", True),
    (JSON + "_e = json.JSONEncoder()\n_e.__class__.iterencode = _f\n", True),
    (JSON + "setattr(json.JSONEncoder().__class__, 'iterencode', _f)\n", True),
    (JSON + "def attention_scores(q, k):\n    q.__class__.exp = _f\n", True),
    (JSON + "_w = torch.nn.Linear(2, 2).weight\n_w.__class__.detach = _f\n", True),
    (JSON + "def _p(self):\n    self.__class__.iterencode = _f\n_p(json.JSONEncoder())\n", True),  # self given a library's instance
    # a capitalised call of the submission's own code is no new object: it may return what it is given
    (JSON + "def Keep(x):\n    return x\n_e = Keep(json.JSONEncoder)\n_e.iterencode = _f\n", True),
    (JSON + "Keep = lambda x: x\nKeep(json).dumps = _f\n", True),
    (JSON + "class Box:\n    def __new__(cls, x):\n        return x\nBox(json).dumps = _f\n", True),
    (JSON + "import typing\nSame = typing.NewType('Same', object)\nSame(json).dumps = _f\n", True),
    (JSON + "class Maker:\n    def Wrap(self, x):\n        return x\nMaker().Wrap(json).dumps = _f\n", True),
    # ... and a class of the submission's own, reached the same way, stays no patch
    ("class Config:\n    pass\n_c = Config()\n_c.dropout = 0.1\n_c.count = 2\n", False),
    ("import torch\n_l = torch.nn.Linear(2, 2)\n_l.tag = 'x'\ndef Make():\n    return Config()\nclass Config:\n    pass\nMake().cache = {}\n", False),
    ("class Counter:\n    count = 0\n    def bump(self):\n        self.__class__.count += 1\n", False),
    ("class Tagged:\n    pass\n_t = Tagged()\n_t.__class__.label = 'x'\n", False),
    ("import torch\nclass Block(torch.nn.Module):\n    def forward(self, x):\n        self.__class__.calls = getattr(self.__class__, 'calls', 0) + 1\n        return x\n", False),
])
def test_a_patch_through_an_instances_class_or_an_own_capitalised_call_is_found(source, patched):
    facts = analyze(((1, source),), (), current().library_names(), own={"attention"})
    assert any(f.code == LIBRARY_PATCH for f in facts.findings) == patched, facts.findings


def test_the_stand_ins_walk_does_not_read_a_large_table_item_by_item():
    """rebind walked every item of every list it met (an atom cost no visit of its budget): a
    module-level table of 3 million numbers cost ~1 s in every request with stand-ins, and an
    honest submission's carried-forward checks timed out (honest_big_module_table: A 15, D 8).
    A container larger than the items left is not walked; an alias elsewhere is still found."""

    class Table(list):
        read = 0

        def __iter__(self):
            Table.read += 1
            return super().__iter__()

    def own() -> None: ...

    def stand_in() -> None: ...

    table = Table([0.0] * (standins.MAX_REBIND_ITEMS + 1))
    module = {"TABLE": table, "ALIASES": {"softmax": own}, "LIST": [own]}
    restore = standins.rebind([module], {id(own): stand_in}, lambda obj: False)
    assert Table.read == 0 and module["ALIASES"]["softmax"] is stand_in and module["LIST"][0] is stand_in
    restore()
    assert module["ALIASES"]["softmax"] is own and module["LIST"][0] is own


def test_a_walk_stopped_by_the_submission_puts_back_what_it_changed():
    """An object of the submission's own class that raises SystemExit when the walk reads its
    __dict__ stopped it half-way, and what it had pointed at stand-ins stayed so for every later
    request (rebind_walk_exits)."""

    class Trap:
        def __getattribute__(self, name):
            if name == "__dict__":
                raise SystemExit(4)
            return object.__getattribute__(self, name)

    def own() -> None: ...

    def stand_in() -> None: ...

    module = {"ALIASES": {"split": own}, "LATER": [Trap(), 1, 2, 3]}
    with pytest.raises(SystemExit):
        standins.rebind([module], {id(own): stand_in}, lambda obj: obj is Trap)
    assert module["ALIASES"]["split"] is own


def test_a_thread_a_notebook_cell_started_before_grading_is_not_the_kernels():
    """In nbgrader the student's cells run in the kernel before the grader's Dispatcher is made:
    every thread alive then was taken for the kernel's own, so a logging QueueListener started at
    import that computed torch's softmax for masked_softmax scored A 32/32 in-process (29 in a
    worker). Only the kernel's machinery (and the calling thread) is ambient now."""
    import logging.handlers
    import queue

    from autograder.grading.worker.dispatcher import Dispatcher, kernel_threads, ran_elsewhere, threads_seen

    earlier = threads_seen()[0]  # threads earlier tests left in this process (the full suite has some)
    listener = logging.handlers.QueueListener(queue.Queue())
    listener.start()
    try:
        dispatcher = Dispatcher({})
        ident = listener._thread.ident  # type: ignore[attr-defined]
        assert ident not in dispatcher._ambient and ident not in kernel_threads()
        assert ran_elsewhere(threads_seen(), threads_seen(), dispatcher._ambient | earlier)
    finally:
        listener.stop()
    assert not ran_elsewhere(threads_seen(), threads_seen(), Dispatcher({})._ambient | earlier)


def test_a_notebooks_progress_bar_costs_no_point_in_process():
    """A tqdm bar in a cell starts tqdm's monitor thread, which lives on: in-process (nbgrader) the
    "built from your functions" rule then said "code ran in another thread" and a correct notebook
    lost B.1's point (found through test order: tests/test_cli.py draws a bar first). That thread,
    as tqdm made it, is ambient; a thread of a subclass of it, or with its own target, is not."""
    import io
    import threading

    from tqdm import tqdm
    from tqdm._monitor import TMonitor

    from autograder.grading.inprocess import grade_part
    from autograder.grading.worker.dispatcher import kernel_threads

    with tqdm(total=2, file=io.StringIO(), mininterval=0) as bar:
        bar.update(2)
    monitor = next((t for t in threading.enumerate() if type(t) is TMonitor), None)
    assert monitor is not None and monitor.ident in kernel_threads()

    class Mine(TMonitor):
        def run(self):  # the student's code, in a thread that looks like tqdm's
            self.was_killed.wait()

    mine = Mine(tqdm, 1000)  # TMonitor starts itself
    try:
        assert mine.ident not in kernel_threads()
    finally:
        mine.exit()
    namespace: dict = {"__name__": "attention"}
    exec(compile(REFERENCE.read_text(encoding="utf-8"), "attention.py", "exec"), namespace)  # noqa: S102 - the student's side, in process
    assert grade_part("B", namespace, verbose=False) == 10
