"""qa9h's hostile corpus (tests/qa/qa9h/): attacks on round 10's machinery and routes no earlier
corpus tried.

dispatch_subclass_softmax scored A 29/32 with A.2's "written by hand" check passed: its
masked_softmax had a tensor subclass's own __torch_dispatch__ compute torch's softmax. Torch hands
an operator to such a subclass from inside the worker's dispatch mode, with that mode switched off,
so the trace saw only `exp`. The worker now reports that a subclass's __torch_dispatch__ ran during
a traced call (`subclassed`), and a rule cannot be checked then (as for another thread).
"""
from __future__ import annotations

import torch

from autograder.grading.integrity.flags import EVASION
from autograder.grading.integrity.rules import judge
from autograder.grading.integrity.static import analyze
from autograder.assignment import current
from autograder.assignments.attention.rules import SOFTMAX_BY_HAND
from autograder.grading.worker.dispatcher import OpTracer, probe_tracer


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
