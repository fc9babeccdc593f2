"""Hidden checks of the dot assignment, Part A."""
from __future__ import annotations

import torch

from autograder.assignment import reference
from autograder.grading.checks.plugin import CheckFailure, check
from autograder.grading.worker.api import StudentAPI


def _expect_close(actual: object, expected: torch.Tensor, where: str) -> None:
    if not isinstance(actual, torch.Tensor):
        raise CheckFailure.keyed("not_a_tensor", where=where, kind=type(actual).__name__)
    if actual.shape != expected.shape or not torch.allclose(actual.double(), expected):
        raise CheckFailure.keyed("wrong_values", where=where)


@check("A.1", 2, "dot: values of two vectors")
def test_dot_vectors(student: StudentAPI, gen: torch.Generator) -> None:
    x, y = torch.randn(5, generator=gen, dtype=torch.float64), torch.randn(5, generator=gen, dtype=torch.float64)
    _expect_close(student.call("dot", x, y), reference().dot(x, y), "dot")


@check("A.1", 1, "dot: batched (..., n) inputs give (...)")
def test_dot_batched(student: StudentAPI, gen: torch.Generator) -> None:
    x, y = torch.randn(2, 3, 5, generator=gen, dtype=torch.float64), torch.randn(2, 3, 5, generator=gen, dtype=torch.float64)
    _expect_close(student.call("dot", x, y), reference().dot(x, y), "dot on (2, 3, 5) inputs")
