"""qa9h's hostile corpus (tests/qa/qa9h/): attacks on round 10's machinery and routes no earlier
corpus tried.

dispatch_subclass_softmax scored A 29/32 with A.2's "written by hand" check passed: its
masked_softmax had a tensor subclass's own __torch_dispatch__ compute torch's softmax. Torch hands
an operator to such a subclass from inside the worker's dispatch mode, with that mode switched off,
so the trace saw only `exp`. The worker now reports that a subclass's __torch_dispatch__ ran during
a traced call (`subclassed`), and a rule cannot be checked then (as for another thread).
"""
from __future__ import annotations

import pytest
import torch

from autograder.assignments.attention.checks.carried import trusted_answer
from autograder.grading.integrity.flags import EVASION, LIBRARY_PATCH
from autograder.grading.integrity.rules import judge
from autograder.grading.integrity.static import analyze
from autograder.assignment import current
from autograder.assignments.attention.rules import SOFTMAX_BY_HAND
from autograder.grading.worker.dispatcher import OpTracer, probe_tracer
from autograder.grading.worker import standins
from autograder.grading.worker.standins import StandInRefused


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
    # ... and a class of the submission's own, reached the same way, stays no patch
    ("class Counter:\n    count = 0\n    def bump(self):\n        self.__class__.count += 1\n", False),
    ("class Tagged:\n    pass\n_t = Tagged()\n_t.__class__.label = 'x'\n", False),
    ("import torch\nclass Block(torch.nn.Module):\n    def forward(self, x):\n        self.__class__.calls = getattr(self.__class__, 'calls', 0) + 1\n        return x\n", False),
])
def test_a_patch_through_an_instances_class_is_found(source, patched):
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
