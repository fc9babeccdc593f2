"""torch.autograd.gradcheck on student code that lives in a worker.

A custom autograd Function whose forward calls the student's function through the proxy and
whose backward asks the worker for the vector-Jacobian product. gradcheck itself runs here, in
the grader, so its verdict cannot be patched by the submission.
"""
from __future__ import annotations

from typing import Any

import torch

from autograder.grading.worker.api import StudentAPI
from autograder.grading.checks.plugin import CheckFailure
from autograder.assignments.attention.checks.support import expect_tensor

# torch's fast gradcheck compares u·J·v for random u, v instead of the whole Jacobian: a few worker
# round trips instead of one per input element (10x less time); the same bugs fail (measured on
# detached normalisers and half-detached outputs).
FAST_MODE = True


class _Remote(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, student: Any, name: str, kwargs: dict, extra: tuple, *inputs: torch.Tensor) -> torch.Tensor:
        ctx.student, ctx.name, ctx.kwargs, ctx.extra = student, name, kwargs, extra
        ctx.save_for_backward(*inputs)
        output = student.call(name, *[i.detach() for i in inputs], *extra, **kwargs)
        if isinstance(output, tuple):
            output = output[0]
        if not isinstance(output, torch.Tensor):
            raise CheckFailure.keyed("not_a_tensor", where=name, kind=type(output).__name__)
        if output.shape != inputs[0].shape:  # gradcheck draws a float64 vector of the output's size: 2 GB for a 250 MB reply (qa25h)
            expect_tensor(output, name, tuple(inputs[0].shape))
        return output

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> tuple:
        inputs = [i.detach() for i in ctx.saved_tensors]
        arguments = [*inputs, *ctx.extra]  # the extra arguments follow, positionally, as in forward
        result = ctx.student.vjp(ctx.name, arguments, [grad.contiguous()], wrt=list(range(len(inputs))), where=f"{ctx.name} backward", **ctx.kwargs)
        grads = [g if isinstance(g, torch.Tensor) else torch.zeros_like(i) for g, i in zip(result["grads"], inputs)]
        return (None, None, None, None, *grads)


def remote_gradcheck(student: StudentAPI, name: str, inputs: list[torch.Tensor], extra: tuple[Any, ...] = (), **kwargs: Any) -> None:
    """Raise CheckFailure unless the student's analytic gradients match finite differences with
    respect to `inputs`; `extra` arguments (a mask) follow them positionally, as the contract's
    signature orders them, so a renamed parameter is called as any other check calls it. The
    output must have the first input's shape (a softmax's)."""
    leaves = [i.detach().to(torch.float64).requires_grad_(True) for i in inputs]
    try:
        ok = torch.autograd.gradcheck(lambda *xs: _Remote.apply(student, name, kwargs, extra, *xs), leaves, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=False, fast_mode=FAST_MODE)
    except RuntimeError as error:
        raise CheckFailure.keyed("gradients_failed", where=name, text=str(error)[:200]) from None
    if not ok:
        raise CheckFailure.keyed("gradcheck_failed", where=name)
