"""The dot assignment's hints, in tiers."""
from __future__ import annotations

from autograder.feedback.hints import Tiers

TASK_TIERS = {
    "A.1": Tiers(
        {"en": "A dot product multiplies matching entries and adds them up.", "zh": "点积把对应的元素相乘再相加。"},
        {"en": "Multiply x by y, then sum over the last axis.", "zh": "把 x 与 y 相乘，再沿最后一维求和。"},
        {"en": "return (x * y).sum(-1)", "zh": "return (x * y).sum(-1)"},
    ),
}
