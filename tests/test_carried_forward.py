"""Error carried forward: each planted bug costs points only in its own task.

A check of a later task that fails with the submission's own earlier functions runs again with
trusted stand-ins for them (proxies in the worker that call back to the grader, where the
reference computes). Every catalogue mutant (autograder/assignments/attention/mutants.py) alone, and pairs of mutants in
different parts, must lose points only in their own tasks, each named in its own part.

Only the parts whose checks can call the mutated code are graded (the mutant's part and the
parts that lean on it, autograder.assignments.attention.checks.carried.EARLIER); the others cannot change. Part F
included: a wrong block is graded there as a trusted shell around the student's own attention.
"""
from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

import pytest

from autograder.assignments.attention.mutants import MERGE_LINE, MUTANTS, SCORES_LINE, SPLIT_LINE
from autograder.authoring.examples import Mutant, MutantError, apply
from autograder.assignments.attention.mistakes import MISTAKES
from autograder.feedback.messages import ENGINE_MESSAGES
from autograder.feedback.results import SubmissionResult
from autograder.grading.worker.protocol import decode_value, encode_value
from autograder.assignments.attention.checks.carried import EARLIER, STAND_INS


def task_of(key: str) -> str:
    return MISTAKES[key].task


def parts_to_grade(keys: list[str]) -> set[str]:
    """The mutants' parts and every part with a task that leans on one of their tasks."""
    tasks = {task_of(k) for k in keys}
    parts = {t.split(".")[0] for t in tasks}
    return parts | {later.split(".")[0] for later, earlier in EARLIER.items() if tasks & set(earlier)}


def pairs() -> list[tuple[str, str]]:
    """Pairs of mutants from different parts that can be planted together; every mutant is in
    one, and partners are spread over the other parts (least used first)."""
    keys = sorted(MUTANTS, key=lambda k: (task_of(k), k))
    used = {k: 0 for k in keys}
    chosen: list[tuple[str, str]] = []
    for index, first in enumerate(keys):
        if used[first]:
            continue
        half = len(keys) // 2
        others = keys[index + half:] + keys[:index + half]  # start half way round: another part
        candidates = [k for k in others if k != first and MUTANTS[k].part != MUTANTS[first].part]
        for second in sorted(candidates, key=lambda k: used[k]):
            if combinable(first, second):
                chosen.append((first, second))
                used[first] += 1
                used[second] += 1
                break
    return chosen


def combinable(first: str, second: str) -> bool:
    from conftest import REFERENCE

    try:
        apply(apply(REFERENCE.read_text(encoding="utf-8"), MUTANTS[first]), MUTANTS[second])
    except MutantError:
        return False
    return True


def losses(result: SubmissionResult) -> list[str]:
    return [f"{c.task} {c.check_id}: {c.message}" for c in result.checks if c.points < c.max_points]


def expect_only_own_tasks(result: SubmissionResult, keys: list[str]) -> None:
    own = {task_of(k) for k in keys}
    elsewhere = [line for line in losses(result) if line.split()[0] not in own]
    assert not elsewhere, f"{keys}: points lost outside {sorted(own)}: {elsewhere}"
    for key in keys:
        named = [c.check_id for c in result.checks if c.task == task_of(key) and not c.passed and c.mistake == key]
        assert named, f"{key} is not named in {task_of(key)}; losses: {losses(result)}"


@pytest.mark.parametrize("key", sorted(MUTANTS))
def test_a_mutant_loses_points_only_in_its_own_task(key, grade, reference_source):
    mutant: Mutant = MUTANTS[key]
    result = grade(apply(reference_source, mutant), name=key, parts=parts_to_grade([key]))
    expect_only_own_tasks(result, [key])


# Two bugs in two tasks of one part: the later task leans on the earlier one.
SAME_PART_PAIRS = [("scores_no_scaling", "mask_inverted"), ("split_no_transpose", "merge_no_transpose"), ("merge_no_transpose", "mha_no_output_projection")]


@pytest.mark.parametrize("first,second", pairs() + SAME_PART_PAIRS, ids=lambda k: k)
def test_two_mutants_in_two_parts_are_each_charged_in_their_own_task(first, second, grade, reference_source):
    source = apply(apply(reference_source, MUTANTS[first]), MUTANTS[second])
    result = grade(source, name=f"{first}+{second}", parts=parts_to_grade([first, second]))
    expect_only_own_tasks(result, [first, second])


# Bugs that keep every value right but stop the gradient (qa2 followup c27, c28, c30, c31): later
# tasks differentiate through the function, fail, and pass with stand-ins, so each task has a
# gradient check of its own where the bug is charged.
STOPPED_GRADIENTS = {  # task -> (its gradient check, the reference line, the line with the bug)
    "A.1": ("attention_scores_gradients", SCORES_LINE, "return (q @ k.transpose(-2, -1) / math.sqrt(d)).detach()"),
    "A.3": ("sdpa_gradients", "output = weights @ v  # (..., Lq, dv)", "output = weights.detach() @ v"),
    "C.1": ("split_heads_gradients", SPLIT_LINE, "return x.detach().reshape(B, S, num_heads, E // num_heads).transpose(1, 2)"),
    "C.2": ("merge_heads_gradients", MERGE_LINE, "return x.detach().transpose(1, 2).reshape(B, S, H * Dh)"),  # not through numpy: no bfloat16 there
}


@pytest.mark.parametrize("task", sorted(STOPPED_GRADIENTS))
def test_a_stopped_gradient_is_charged_in_its_own_tasks_gradient_check_only(task, grade, reference_source):
    check, old, new = STOPPED_GRADIENTS[task]
    source = apply(reference_source, Mutant(check, task[0], ((old, new),)))
    parts = {task[0]} | {later.split(".")[0] for later, earlier in EARLIER.items() if task in earlier}
    result = grade(source, name=check, parts=parts)
    # A.3's check weighs the returned weights too: their gradient still reaches q and k, wrongly
    key = "wrong_values" if task == "A.3" else "no_gradient"
    assert [(c.task, c.check_id, c.message_key) for c in result.checks if c.points < c.max_points] == [(task, check, key)], losses(result)
    carried = [c.message for c in result.checks if c.message_key == "scoring_carried"]
    assert carried and all(c.endswith(f"charged in {task}") for c in carried), carried


def test_every_mutant_is_in_a_pair():
    covered = {k for pair in pairs() for k in pair}
    assert covered == set(MUTANTS), f"in no pair: {sorted(set(MUTANTS) - covered)}"


def test_a_later_check_passed_with_stand_ins_says_where_the_mistake_is_charged(grade, reference_source):
    result = grade(apply(reference_source, MUTANTS["scores_no_scaling"]), parts={"A", "B"})
    b_checks = [c for c in result.checks if c.part == "B"]
    carried = [c for c in b_checks if c.message]
    assert carried and all(c.passed for c in b_checks)
    assert all(c.message == "correct given your Part A; that mistake is charged in A.1" for c in carried), [c.message for c in carried]
    from autograder.feedback.formats.view import message_text

    assert {message_text(c, "zh") for c in carried} == {"在你的第 A 部分的基础上是正确的；那个错误已在 A.1 中扣分"}
    gated = [c for c in result.checks if c.message_key == "scoring_gated"]
    assert gated and all(c.points == 0 and c.task in ("A.1", "A.3") for c in gated)
    assert "“attention_scores：数值等于 q·kᵀ/√d”" in message_text(next(c for c in gated if c.task == "A.1"), "zh")


def test_stand_ins_are_proxies_and_refuse_what_is_not_in_use(factory, tmp_path):
    """The worker gets no reference code: a stand-in's value comes from the grader's answer, a
    name outside the stand-in set is refused, and a call outside a carried-forward run fails."""
    import torch

    from autograder.assignments.attention.checks.carried import trusted_answer
    from autograder.grading.worker.client import Student, StudentException
    from autograder.grading.worker.standins import StandInRefused

    source = "import torch\n\ndef attention_scores(q, k):\n    return q\n\ndef use(q, k):\n    return attention_scores(q, k)\n\nkept = []\n\ndef keep():\n    kept.append(attention_scores)\n\ndef call_kept(q, k):\n    return kept[0](q, k)\n"
    asked: list[dict] = []

    def answer(callback):
        asked.append(callback)
        return trusted_answer(callback)

    student = Student(factory, [(1, source)])
    q, k = torch.randn(2, 3, 4, dtype=torch.float64), torch.randn(2, 5, 4, dtype=torch.float64)
    try:
        assert torch.equal(student.call("use", q, k), q)  # the student's own function
        with student.stand_ins(["attention_scores"], answer):
            got = student.call("use", q, k)
            student.call("keep")
        assert torch.allclose(got, q @ k.transpose(-2, -1) / 2.0)
        assert [c["name"] for c in asked] == ["attention_scores"] and asked[0]["kind"] == "forward"
        with pytest.raises(StudentException, match="not in use"):
            student.call("call_kept", q, k)  # a stand-in kept for later answers nothing
        with student.stand_ins(["masked_softmax"], answer), pytest.raises(StudentException, match="not in use"):
            student.call("call_kept", q, k)  # another run's stand-in set
    finally:
        student.close()
    with pytest.raises(StandInRefused):
        trusted_answer({"kind": "forward", "name": "plot_attention", "tensors": [], "options": {}})
    with pytest.raises(StandInRefused, match="too large"):
        trusted_answer({"kind": "forward", "name": "merge_heads", "tensors": [torch.zeros(1 << 23)], "options": {}})
    with pytest.raises(StandInRefused, match="floating-point"):
        trusted_answer({"kind": "forward", "name": "merge_heads", "tensors": [torch.zeros(2, 2, 2, 2, dtype=torch.int64)], "options": {}})
    blobs: list[bytes] = []
    assert decode_value(encode_value(trusted_answer({"kind": "forward", "name": "causal_mask", "tensors": [], "options": {"size_q": 2, "size_k": 3}}), blobs), blobs).dtype == torch.bool


def test_a_stand_in_takes_the_calls_written_for_the_submissions_own_signature():
    """The submission's code calls its own signature: parameters named otherwise, and further ones
    held at their defaults, reach the stand-in (qa4s: `masked_softmax(scores, mask=None, dim=-1)`
    called with dim=-1 made A.3 and C.3 lose 10 points for A.2's bug: the stand-in took no `dim`).
    A further argument away from its default is refused, saying which, unless the submission's own
    code answers the same without it (qa40s d38: `scale=1/√Dh`, what its default None does)."""
    import torch
    import torch.nn as nn

    from autograder.grading.worker.standins import StandInError, fitted

    def trusted(scores, mask=None):
        return ("trusted", scores, mask)

    def own(logits, attn_mask=None, dim=-1):
        return ("own", logits, attn_mask, dim)  # another dim, another answer

    fit = fitted(trusted, own, "masked_softmax")
    assert fit(1, attn_mask=2, dim=-1) == fit(1, 2) == ("trusted", 1, 2)
    assert fit(logits=1) == ("trusted", 1, None)
    with pytest.raises(StandInError, match="masked_softmax .*dim=int"):
        fit(1, 2, dim=0)
    assert fitted(trusted, lambda scores, mask=None: None, "masked_softmax") is trusted  # same signature: as it is
    assert fitted(trusted, None, "masked_softmax") is trusted

    class Trusted(nn.Module):
        def __init__(self, dim, heads):
            super().__init__()
            self.dim, self.heads = dim, heads

        def forward(self, x, mask=None):
            return x, mask

    class Own(nn.Module):
        def __init__(self, dim, heads, causal=False):
            super().__init__()
            self.head_size = dim // heads

        def forward(self, x, mask=None, need_weights=True, scale=None):
            scale = self.head_size ** -0.5 if scale is None else scale
            return x * scale, (x if need_weights else None)

    Fit = fitted(Trusted, Own, "MultiHeadAttention")
    module = Fit(4, 2, causal=False)
    assert isinstance(module, Trusted) and Fit.__name__ == "Trusted" and (module.dim, module.heads) == (4, 2)
    x = torch.ones(3)
    assert module(x, mask=2, need_weights=True) == (x, 2)
    assert module(x, mask=2, scale=2 ** -0.5) == (x, 2)  # its own object, made with (4, 2), answers the same without it
    with pytest.raises(StandInError, match="need_weights"):
        module(x, need_weights=False)
    with pytest.raises(StandInError, match="scale=float"):
        module(x, scale=0.25)


NAMED_RESULTS = Path(__file__).resolve().parent / "qa" / "qa6s" / "c07_namedtuple_returns.py"


@pytest.mark.parametrize("bug,old,new", [
    ("A.3", "weights = masked_softmax(attention_scores(q, k), mask)\n    return AttentionResult(",
     "weights = masked_softmax(attention_scores(q, k), None)\n    return AttentionResult("),
    ("C.3", "return AttentionResult(self.W_o(merge_heads(self.dropout(weights) @ v)), weights)",
     "return AttentionResult(merge_heads(self.dropout(weights) @ v), weights)"),
])
def test_a_stand_in_returns_the_named_tuple_the_submissions_own_function_returns(bug, old, new, grade):
    """The contract asks for the pair (output, weights): a typing.NamedTuple is one, and the later
    code may read `res.output` of it (qa6s c07). A stand-in returned a plain tuple, so with A.3's
    mask ignored B.1 lost 2 points too (AttributeError: 'tuple' object has no attribute 'output')."""
    source = NAMED_RESULTS.read_text(encoding="utf-8").replace(old, new)
    source = source.replace("output, weights = self.attn(x, mask=mask)\n        return AttentionResult(self.norm(x + self.dropout(output)), weights)",
                            "res = self.attn(x, mask=mask)\n        return AttentionResult(self.norm(x + self.dropout(res.output)), res.weights)")
    assert source.count("res.output") == 2 and new in source
    parts = {bug[0]} | {later.split(".")[0] for later, earlier in EARLIER.items() if bug in earlier}
    result = grade(source, name="named_results", parts=parts)
    assert {c.task for c in result.checks if c.points < c.max_points} == {bug}, losses(result)


DROPOUT_IN_A3 = Path(__file__).resolve().parent / "qa" / "qa7s" / "c20_sdpa_takes_dropout.py"


def dropout_in_a3(style: str) -> str:
    source = DROPOUT_IN_A3.read_text(encoding="utf-8")
    if style == "dropped weights":  # The Annotated Transformer: A.3 returns the weights after dropout, and so does C.3 (C.3's bug)
        source = source.replace("return used @ v, weights", "return used @ v, used")
        assert "return used @ v, used" in source
    if style == "probability":
        source = source.replace("mask=None, dropout=None):", "mask=None, dropout_p=0.0):").replace(
            "used = weights if dropout is None else dropout(weights)",
            "used = torch.nn.functional.dropout(weights, dropout_p) if dropout_p > 0 else weights").replace(
            "dropout=self.dropout)", "dropout_p=self.dropout.p if self.training else 0.0)")
        assert "dropout_p=self.dropout.p" in source
    return source


@pytest.mark.parametrize("style", ["module", "probability", "dropped weights"])
def test_a_stand_in_takes_the_dropout_the_submissions_own_attention_takes(style, grade):
    """An A.3 that takes the dropout of the weights, passed by C.3 as The Annotated Transformer
    does (`dropout=self.dropout`) or as F.scaled_dot_product_attention does (`dropout_p=0.1`):
    with a bug in A.3, C.3 re-graded with the stand-in lost 20 points (C 8/28; 26/28 for
    `dropout_p`), because the stand-in refused the argument. It now applies the dropout to the
    weights that multiply V and returns the weights as the submission's own A.3 does: from before
    dropout, or after it (The Annotated Transformer: C.3's mistake, charged there alone)."""
    source = dropout_in_a3(style).replace("weights = masked_softmax(attention_scores(q, k), mask)",
                                          "weights = masked_softmax(attention_scores(q, k) * 2, mask)")  # A.3's bug: scores scaled twice over
    assert "* 2, mask" in source
    result = grade(source, name=f"dropout_in_a3_{style.replace(' ', '_')}", parts={"A", "B", "C", "D"})
    train = next(c for c in result.checks if c.check_id == "mha_train_dropout")
    if style == "dropped weights":
        assert {c.task for c in result.checks if c.points < c.max_points} == {"A.3", "C.3"}, losses(result)
        assert [c.check_id for c in result.checks if c.task == "C.3" and not c.passed] == ["mha_train_dropout"], losses(result)
        assert train.mistake == "mha_weights_after_dropout"
    else:
        assert {c.task for c in result.checks if c.points < c.max_points} == {"A.3"}, losses(result)
        assert "charged in A.3" in train.message


def test_weights_returned_after_dropout_through_a3_are_charged_in_c3_alone(grade):
    """The same without A.3's bug: C.3's re-grade with stand-ins must not excuse the weights after
    dropout that the submission's own A.3 hands back."""
    result = grade(dropout_in_a3("dropped weights"), name="dropout_in_a3_dropped_alone", parts={"A", "C"})
    assert [(c.task, c.check_id) for c in result.checks if c.points < c.max_points] == [("C.3", "mha_train_dropout")], losses(result)


@pytest.mark.timing
def test_a_task_that_hangs_is_charged_alone(grade):
    """An A.2 that never returns: each later check that hung in it runs again with the trusted
    stand-ins. The hang was remembered by the name called alone, so the re-run was refused as "not
    called again" and A.3, B.1, C.3, D.1 and Part F lost their points too (86 -> 32 of 100)."""
    from conftest import REFERENCE
    from autograder.grading.worker.client import Budget

    source = REFERENCE.read_text(encoding="utf-8")
    start = source.index("### BEGIN SOLUTION", source.index("def masked_softmax"))
    source = source[:start] + "### BEGIN SOLUTION\n    while True:\n        pass\n" + source[start + len("### BEGIN SOLUTION\n"):]
    result = grade(source, name="a2_hangs", parts={"A", "B"}, budget=Budget(call_seconds=5, import_seconds=30, total_seconds=300))
    assert {c.task for c in result.checks if c.points < c.max_points} == {"A.2"}, losses(result)
    assert "timed out after 5 s in masked_softmax" in next(c.message for c in result.checks if c.task == "A.2")


def test_a_further_argument_is_taken_only_as_the_stand_in_says():
    """`takes(name, value, others)` gives the stand-in's own keywords for a further argument (others:
    the call's other further arguments); anything it does not take is refused as before."""
    from autograder.grading.worker.standins import StandInError, fitted

    def trusted(q, k, v, mask=None, *, _dropout=None):
        return (q, mask, _dropout)

    trusted.takes = lambda name, value, others: {"_dropout": value} if name == "drop" and callable(value) else None  # type: ignore[attr-defined]

    def own(q, k, v, mask=None, drop=None, scale=None):
        raise AssertionError("never called")

    fit = fitted(trusted, own, "scaled_dot_product_attention")
    assert fit(1, 2, 3, 4, drop=None) == (1, 4, None)
    assert fit(1, 2, 3, 4, drop=abs) == (1, 4, abs)
    with pytest.raises(StandInError, match="drop=float"):
        fit(1, 2, 3, drop=0.5)
    with pytest.raises(StandInError, match="scale=float"):
        fit(1, 2, 3, drop=abs, scale=0.5)
    assert fitted(trusted, lambda q, k, v, mask=None: None, "scaled_dot_product_attention") is trusted  # the contract's signature


class Pair(NamedTuple):
    output: int
    weights: int


def test_named_results_are_read_from_the_submissions_code():
    """From the return annotation (a string under `from __future__ import annotations`, as here),
    or the one named tuple class among the module-level names the function uses."""
    from autograder.grading.worker.standins import fitted

    def trusted(q, k):
        return (q, k)

    def annotated(q, k) -> Pair:
        raise AssertionError("never called")

    def built(q, k):
        return Pair(q, k)

    def plain(q, k):
        return (q, k)

    for own in (annotated, built):
        assert type(fitted(trusted, own, "f")(1, 2)) is Pair and fitted(trusted, own, "f")(1, 2) == (1, 2)
    assert type(fitted(trusted, plain, "f")(1, 2)) is tuple
    assert type(fitted(lambda q, k: (q, k, q), built, "f")(1, 2)) is tuple  # fields and values disagree: as it is


def test_a_stand_in_replaces_the_aliases_of_the_submissions_function_too(factory):
    """`softmax = masked_softmax` at module level, and the later code calls `softmax`: the alias is
    replaced with the name (qa4s b57: A.3 and C.3 lost 10 points for an A.2 bug), and both are
    the submission's own again after the run."""
    import torch

    from autograder.assignments.attention.checks.carried import trusted_answer
    from autograder.grading.worker.client import Student

    source = "def attention_scores(q, k):\n    return q\n\nscores = attention_scores\n\ndef use(q, k):\n    return scores(q, k)\n"
    student = Student(factory, [(1, source)])
    q, k = torch.randn(2, 3, 4, dtype=torch.float64), torch.randn(2, 5, 4, dtype=torch.float64)
    try:
        with student.stand_ins(["attention_scores"], trusted_answer):
            assert torch.allclose(student.call("use", q, k), q @ k.transpose(-2, -1) / 2.0)
        assert torch.equal(student.call("use", q, k), q)
    finally:
        student.close()


CAPTURED = """
import functools
import types

VOCABULARY = [f"word{i}" for i in range(30000)]  # walked past: words hold no function
SENTENCES = [["the", "king", f"word{i}"] for i in range(30000)]  # walked last: the largest container

def attention_scores(q, k):
    return q

def by_default(q, k, scores=attention_scores):
    return scores(q, k)

def by_keyword_default(q, k, *, scores=attention_scores):
    return scores(q, k)

def _closure(scores):
    def inner(q, k):
        return scores(q, k)
    return inner

by_closure = _closure(attention_scores)
by_partial = functools.partial(lambda q, k, scores: scores(q, k), scores=attention_scores)
by_lambda_default = lambda q, k, scores=attention_scores: scores(q, k)
TABLE = {"scores": attention_scores}
PIPELINE = (attention_scores,)

def by_dict(q, k):
    return TABLE["scores"](q, k)

def by_tuple(q, k):
    return PIPELINE[0](q, k)

class Holder:
    scores = staticmethod(attention_scores)
    plain = attention_scores

    def __init__(self):
        super().__init__()
        self.kept = attention_scores

def by_class_attribute(q, k):
    return Holder.scores(q, k)

def by_plain_class_attribute(q, k):
    return Holder.plain(q, k)

made = Holder()

def by_object_attribute(q, k):
    return made.kept(q, k)

def by_new_object(q, k):
    return Holder().scores(q, k)

ops = types.SimpleNamespace(scores=attention_scores)

class Unreadable:
    def __getattribute__(self, name):
        raise RuntimeError("an object that refuses to be read is left as it is")

unreadable = Unreadable()

def by_namespace(q, k):
    return ops.scores(q, k)
"""
CAPTURES = (
    "by_default", "by_keyword_default", "by_closure", "by_partial", "by_lambda_default", "by_dict", "by_tuple",
    "by_class_attribute", "by_plain_class_attribute", "by_object_attribute", "by_new_object", "by_namespace",
)


def test_a_stand_in_replaces_the_submissions_function_wherever_its_code_captured_it(factory):
    """The later code may hold the earlier function without a global lookup: a default value
    (`def sdpa(q, k, v, mask=None, softmax=masked_softmax)`), a keyword-only default, a closure, a
    functools.partial, a lambda's default, a dict or a tuple, a class attribute (staticmethod or
    plain), an attribute of an object made at import or of a SimpleNamespace. Each reaches the stand-in (an A.2 bug was
    charged again in A.3 for qa5f's default_softmax_argument with a bug), and each is the
    submission's own again after the run."""
    import torch

    from autograder.assignments.attention.checks.carried import trusted_answer
    from autograder.grading.worker.client import Student

    student = Student(factory, [(1, CAPTURED)])
    q, k = torch.randn(2, 3, 4, dtype=torch.float64), torch.randn(2, 5, 4, dtype=torch.float64)
    try:
        with student.stand_ins(["attention_scores"], trusted_answer):
            trusted = q @ k.transpose(-2, -1) / 2.0
            wrong = [name for name in CAPTURES if student.call(name, q, k).shape != trusted.shape or not torch.allclose(student.call(name, q, k), trusted)]
        assert not wrong, f"the submission's own function ran through {wrong}"
        kept = [name for name in CAPTURES if not torch.equal(student.call(name, q, k), q)]
        assert not kept, f"not the submission's own again after the run: {kept}"
    finally:
        student.close()


def test_a_stand_in_class_keeps_what_the_submissions_class_adds(factory):
    """The later code may call what its own class adds to the contract: a classmethod
    `MultiHeadAttention.from_config(cfg)` in the block's __init__, a helper, a property. The
    stand-in class keeps those (qa6s b12: an A.2 bug cost D.1 3 points, the stand-in having no
    from_config), and its own forward is the grader's."""
    import torch

    from autograder.assignments.attention.checks.carried import trusted_answer
    from autograder.grading.worker.client import Student

    source = (
        "import torch.nn as nn\n\nclass MultiHeadAttention(nn.Module):\n"
        "    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True):\n        super().__init__()\n\n"
        "    @classmethod\n    def from_config(cls, cfg):\n        return cls(cfg['embed_dim'], cfg['num_heads'])\n\n"
        "    def forward(self, query, key=None, value=None, mask=None):\n        return query, None\n\n"
        "def run(x):\n    return MultiHeadAttention.from_config({'embed_dim': 4, 'num_heads': 2})(x)[1]\n"
    )
    student = Student(factory, [(1, source)])
    try:
        with student.stand_ins(["MultiHeadAttention"], trusted_answer):
            weights = student.call("run", torch.randn(1, 3, 4))
        assert isinstance(weights, torch.Tensor) and weights.shape == (1, 2, 3, 3)
        assert student.call("run", torch.randn(1, 3, 4)) is None
    finally:
        student.close()


def test_the_worker_stand_ins_are_the_assignments_content_and_hold_no_reference_code(factory):
    """The stand-ins are a file of the assignment's folder (its manifest's `worker_standins`) that
    imports only torch and the engine's machinery; the template imports it before it forks, so a
    worker that cannot see the folder (nor the engine's) still has them."""
    import ast

    import torch

    from autograder.assignment import current
    from autograder.assignments.attention.checks.carried import trusted_answer
    from autograder.grading.session import hidden_paths
    from autograder.grading.worker.client import Student
    from autograder.grading.worker.sandbox import SandboxConfig

    path = Path(current().stand_ins_file)
    assert path.parent == current().folder and path.is_file()
    tree = ast.parse(path.read_text(encoding="utf-8"))
    imported = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    imported |= {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    assert imported == {"__future__", "functools", "typing", "torch", "torch.nn", "torch.nn.functional", "autograder.grading.worker.standins"}
    assert str(path.parent) in hidden_paths()
    source = "def causal_mask(size_q, size_k=None, device=None):\n    return None\n\ndef use(n):\n    return causal_mask(n)\n"
    student = Student(factory, [(1, source)], config=SandboxConfig(hidden=hidden_paths()))
    try:
        with student.stand_ins(["causal_mask"], trusted_answer):
            mask = student.call("use", 3)
    finally:
        student.close()
    assert torch.equal(mask, torch.ones(3, 3, dtype=torch.bool).tril())


def test_stand_in_gradients_come_from_the_grader(factory):
    """A module built on a stand-in still trains: its backward is a vector-Jacobian callback."""
    import torch

    from autograder.assignments.attention.checks.carried import trusted_answer
    from autograder.grading.worker.client import Student

    source = "import torch\n\ndef masked_softmax(scores, mask=None):\n    return scores * 0\n\ndef f(x):\n    return masked_softmax(x * 2.0)\n"
    kinds: list[str] = []

    def answer(callback):
        kinds.append(callback["kind"])
        return trusted_answer(callback)

    student = Student(factory, [(1, source)])
    x, grad = torch.randn(3, 4, dtype=torch.float64), torch.randn(3, 4, dtype=torch.float64)
    try:
        with student.stand_ins(["masked_softmax"], answer):
            result = student.vjp("f", [x], [grad], wrt=[0])
    finally:
        student.close()
    leaf = x.clone().requires_grad_(True)
    torch.autograd.backward(torch.softmax(leaf * 2.0, -1), grad)
    assert kinds == ["forward", "backward"]
    assert torch.allclose(result["grads"][0], leaf.grad)


NODE_HOOKS = """import torch

def ones_by_a_prehook(x):
    y = x * 2
    y.grad_fn.register_prehook(lambda grad_outputs: (torch.ones_like(grad_outputs[0]),))
    return y

def doubled_by_a_hook(x):
    y = x * 0
    y.grad_fn.register_hook(lambda grad_inputs, grad_outputs: (grad_outputs[0] * 2, None))
    return y

def noted(x):
    y = x * 3
    y.grad_fn.register_hook(lambda grad_inputs, grad_outputs: NOTES.append(float(grad_outputs[0].norm())))
    return y

NOTES = []
"""


@pytest.mark.parametrize("name", ["ones_by_a_prehook", "doubled_by_a_hook"])
def test_a_hook_on_a_node_of_the_graph_must_give_the_gradients_of_the_forward(factory, name):
    """No attribute of a tensor shows a hook on a grad_fn (round 39: a forward that computed
    nothing earned two gradient checks with one): the worker notes the Python that the autograd
    engine calls, and holds such a backward to a finite difference of its forward."""
    import torch

    from autograder.grading.worker.client import Student, StudentException

    student = Student(factory, [(1, NODE_HOOKS)])
    x = torch.randn(3, 4, dtype=torch.float64)
    try:
        with pytest.raises(StudentException, match="not those of your forward"):
            student.vjp(name, [x], [torch.randn(3, 4, dtype=torch.float64)], wrt=[0])
    finally:
        student.close()


def test_a_hook_on_a_node_that_changes_nothing_keeps_its_gradients(factory):
    import torch

    from autograder.grading.worker.client import Student

    student = Student(factory, [(1, NODE_HOOKS)])
    x, grad = torch.randn(3, 4, dtype=torch.float64), torch.randn(3, 4, dtype=torch.float64)
    try:
        result = student.vjp("noted", [x], [grad], wrt=[0])
    finally:
        student.close()
    assert torch.allclose(result["grads"][0], 3 * grad)


FORGER = '''import gc

_found = []

def _dispatcher():
    if not _found:
        _found.append(next(o for o in gc.get_objects() if type(o).__name__ == "Dispatcher"))
    return _found[0]

def forge(name):
    callback = {"kind": "forward", "name": name, "tensors": [], "options": {"size_q": 2, "size_k": 2}}
    reply = _dispatcher().channel({"status": "callback", "callback": callback})
    return reply.get("status") + ": " + str(reply.get("message", ""))

def flood(count):
    for _ in range(count):
        forge("causal_mask")
    return "done"
'''


def test_forged_callbacks_are_refused_and_a_flood_ends_the_worker(factory):
    """Student code can reach the worker's channel (it is the same process); the grader answers
    only the stand-ins of the run in progress, and stops a worker that keeps calling."""
    from autograder.assignments.attention.checks.carried import trusted_answer
    from autograder.grading.worker.client import Student, WorkerFailure
    from autograder.grading.worker.standins import MAX_CALLBACKS_PER_REQUEST

    student = Student(factory, [(1, FORGER)])
    try:
        assert student.call("forge", "causal_mask") == "refused: that trusted stand-in is not in use now"
        with student.stand_ins(["attention_scores"], trusted_answer):
            assert student.call("forge", "causal_mask") == "refused: that trusted stand-in is not in use now"
        assert student.call("flood", MAX_CALLBACKS_PER_REQUEST) == "done"  # refused, within bounds
        with pytest.raises(WorkerFailure, match="stand-ins"):
            student.call("flood", 3 * MAX_CALLBACKS_PER_REQUEST)
    finally:
        student.close()


def test_in_process_grading_carries_errors_forward_too(reference_source):
    """nbgrader's in-process path: the same stand-ins, answered by a direct call."""
    from autograder.grading.inprocess import grade_part

    namespace: dict = {"__name__": "attention"}
    exec(compile(apply(reference_source, MUTANTS["scores_no_scaling"]), "attention.py", "exec"), namespace)  # noqa: S102 - the student's side, in process
    assert grade_part("A", namespace, verbose=False) < 32
    assert grade_part("B", namespace, verbose=False) == 10


def test_in_process_grading_leaves_no_folder_behind(reference_source, tmp_path, monkeypatch):
    """Each grade_part call made a scratch folder for the student's files and left it in /tmp:
    a class of notebooks graded six parts each left thousands. It is removed when the part is done."""
    import tempfile

    from autograder.grading.inprocess import grade_part

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    namespace: dict = {"__name__": "attention"}
    exec(compile(reference_source, "attention.py", "exec"), namespace)  # noqa: S102 - the student's side, in process
    assert grade_part("B", namespace, verbose=False) == 10
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith("attnkit-")] == []  # torch may keep its own cache here


def test_in_process_part_f_alone_pays_a_block_bug_through_the_students_attention(reference_source):
    """nbgrader grades Part F in a run of its own: F tries the student's own attention in a
    trusted block shell (nothing of the reference enters the namespace)."""
    from autograder.grading.inprocess import grade_part

    namespace: dict = {"__name__": "attention"}
    exec(compile(apply(reference_source, MUTANTS["block_pre_norm"]), "attention.py", "exec"), namespace)  # noqa: S102 - the student's side, in process
    assert grade_part("D", namespace, verbose=False) < 12
    assert grade_part("F", namespace, verbose=False) == 8
    assert namespace["AttentionBlock"].__module__ == "attention"  # the stand-in is gone again


def test_a_stand_in_block_loads_weights_and_matches_the_reference_with_gradients(factory):
    """AttentionBlock's stand-in has the contract's parameter names; values and parameter
    gradients come from the grader (ready for a part that leans on D.1)."""
    import torch

    from autograder.assignments.attention.checks.carried import trusted_answer
    from autograder.assignments.attention.checks.module_support import block_state, build_reference
    from autograder.grading.worker.client import Student

    gen = torch.Generator().manual_seed(3)
    state = block_state(gen, 6)
    x, grad = torch.randn(2, 4, 6, dtype=torch.float64, generator=gen), torch.randn(2, 4, 6, dtype=torch.float64, generator=gen)
    student = Student(factory, [(1, "class AttentionBlock:\n    pass\n")])
    try:
        with student.stand_ins(["AttentionBlock"], trusted_answer):
            handle = student.new("AttentionBlock", 6, 2)
            handle = student.method(handle, "double")
            assert student.load_state_dict(handle, state, strict=True) == {"missing": [], "unexpected": []}
            student.train(handle, False)
            output, weights = student.method(handle, "forward", x)
            result = student.vjp(handle, [x], [grad, None], wrt=[0], params=True)
    finally:
        student.close()
    module = build_reference("AttentionBlock", (6, 2), state)
    leaf = x.clone().requires_grad_(True)
    expected, expected_weights = module(leaf)
    torch.autograd.backward(expected, grad)
    assert torch.allclose(output, expected) and torch.allclose(weights, expected_weights)
    assert torch.allclose(result["grads"][0], leaf.grad)
    for name, parameter in module.named_parameters():
        assert torch.allclose(result["param_grads"][name], parameter.grad), name


SPY = '''

_calls = []
_Own = MultiHeadAttention


class MultiHeadAttention(_Own):  # the student's own attention, counting its calls
    def forward(self, *args, **kwargs):
        _calls.append(1)
        return super().forward(*args, **kwargs)


def attention_calls():
    return len(_calls)
'''


def test_a_block_shell_runs_the_students_own_attention_inside_a_trusted_block(factory, reference_source):
    """block_shell: the contract's layer names around the student's MultiHeadAttention, which runs
    in the worker; the residual, dropout and norm come from the grader; values and gradients match
    the reference block even though the student's own block is wrong."""
    import torch

    from autograder.assignments.attention.checks.carried import trusted_answer
    from autograder.assignments.attention.checks.module_support import block_state, build_reference
    from autograder.grading.worker.client import Student

    gen = torch.Generator().manual_seed(4)
    state = block_state(gen, 6)
    x, grad = torch.randn(2, 4, 6, dtype=torch.float64, generator=gen), torch.randn(2, 4, 6, dtype=torch.float64, generator=gen)
    source = apply(reference_source, MUTANTS["block_pre_norm"]) + SPY
    student = Student(factory, [(1, source)])
    asked: list[str] = []

    def answer(callback):
        asked.append(callback["name"])
        return trusted_answer(callback)

    try:
        with student.stand_ins(["block_shell"], answer):
            handle = student.new("AttentionBlock", 6, 2)
            handle = student.method(handle, "double")
            assert student.load_state_dict(handle, state, strict=True) == {"missing": [], "unexpected": []}
            student.train(handle, False)
            output, weights = student.method(handle, "forward", x)
            result = student.vjp(handle, [x], [grad, None], wrt=[0], params=True)
        assert student.call("attention_calls") >= 2
    finally:
        student.close()
    assert set(asked) == {"block_shell"}
    module = build_reference("AttentionBlock", (6, 2), state)
    leaf = x.clone().requires_grad_(True)
    expected, expected_weights = module(leaf)
    torch.autograd.backward(expected, grad)
    assert torch.allclose(output, expected) and torch.allclose(weights, expected_weights)
    assert torch.allclose(result["grads"][0], leaf.grad)
    for name, parameter in module.named_parameters():
        assert torch.allclose(result["param_grads"][name], parameter.grad), name


def test_part_f_stands_in_only_for_failed_tasks_and_needs_one_own_component():
    from autograder.assignments.attention.checks.carried import EARLIER, nothing_own, plans

    def names(task: str, failed: set[str], graded: set[str] | None = None) -> list[tuple[str, ...]]:
        return [plan.names for plan in plans(task, failed, set(EARLIER[task]) if graded is None else graded)]

    assert names("F.1", {"D.1"}) == [("block_shell",)]
    # a failed component F leans on is tried both ways, the student's own first
    assert names("F.1", {"A.1", "D.1"}) == [("attention_scores",), ("attention_scores", "block_shell")]
    assert names("F.1", {"C.3"}) == [("MultiHeadAttention",)]
    assert names("F.1", set()) == []  # nothing earlier failed: nothing to try
    assert nothing_own("F.3", {"C.3", "D.1"}) and names("F.3", {"C.3", "D.1"}) == [("MultiHeadAttention",), ("block_shell",)]
    assert names("F.2", {"C.3", "D.1"}) == [("MultiHeadAttention",), ("MultiHeadAttention", "AttentionBlock")]  # their plot_attention draws
    assert names("F.2", {"E.1"}) == [("plot_attention",)]
    assert names("F.2", {"D.1", "E.1"}) == [("block_shell",), ("plot_attention",)]
    assert nothing_own("F.2", {"D.1", "E.1"}) and not nothing_own("F.2", {"C.3", "D.1"})
    assert names("D.1", set()) == [tuple(n for t in EARLIER["D.1"] for n in STAND_INS[t])]  # B-D: every earlier function
    # Part F graded alone (nbgrader grades one part at a time): what was not graded is replaced,
    # except the components it leans on, tried both ways, the student's own first
    a_and_c = ("attention_scores", "masked_softmax", "scaled_dot_product_attention", "causal_mask", "split_heads", "merge_heads")
    assert names("F.1", set(), set()) == [a_and_c, (*a_and_c, "MultiHeadAttention"), (*a_and_c, "block_shell")]
    assert names("F.2", set(), set())[:2] == [(*a_and_c, "MultiHeadAttention"), (*a_and_c, "MultiHeadAttention", "AttentionBlock")]
    assert all("plot_attention" not in n or "AttentionBlock" not in n for n in names("F.2", set(), set()))


BLANK_PLOT = '''

_own_plot = plot_attention


def plot_attention(weights, *args, **kwargs):  # a Part E bug: draws zeros, not the weights
    return _own_plot(torch.as_tensor(weights) * 0, *args, **kwargs)
'''


def test_a_stub_plot_attention_is_not_called_a_mistake_in_f2s_note(grade, reference_source):
    """F.2 paid with the kit's renderer in place of a plot_attention still a stub: its note said
    "that mistake is charged in E.1" (qa39p). A stub holds no mistake: the note says it is not
    written yet, in both languages."""
    stub = "\n\ndef plot_attention(*args, **kwargs):\n    raise NotImplementedError(\"Task E.1: plot_attention is not implemented yet\")\n"
    result = grade(reference_source + stub, name="stub_plot", parts={"E", "F"})
    assert {p.part: p.score for p in result.parts} == {"E": 0, "F": 8}, losses(result)
    notes = {(c.message_key, c.message) for c in result.checks if c.task == "F.2"}
    assert notes == {("scoring_stubs", "correct with the kit's own plot_attention in place of yours, not written yet (graded in E.1)")}, notes
    assert "还没有实现" in ENGINE_MESSAGES["scoring_stubs"]["zh"]


def test_a_wrong_plot_attention_keeps_f2_when_the_block_is_right(grade, reference_source):
    """F.2 leans on D's block and E's plot_attention: with the kit's renderer standing in for a
    wrong plot_attention, the student's own block still makes the maps, so F.2 pays."""
    result = grade(reference_source + BLANK_PLOT, name="blank_plot", parts={"E", "F"})
    parts = {p.part: p for p in result.parts}
    assert parts["E"].score < parts["E"].max_score
    assert parts["F"].score == parts["F"].max_score, losses(result)
    notes = {c.message for c in result.checks if c.task == "F.2"}
    assert notes == {"correct given your Part E; that mistake is charged in E.1"}, notes


def test_a_check_whose_every_component_is_wrong_pays_nothing(grade, reference_source):
    """A wrong block and a wrong plot_attention: F.2 has nothing of the student's left (0, said
    so); F.1 and F.3 still pay through the student's own attention in a trusted block shell."""
    source = apply(reference_source, MUTANTS["block_pre_norm"]) + BLANK_PLOT
    result = grade(source, name="pre_norm_blank_plot", parts={"D", "E", "F"})
    f2 = [c for c in result.checks if c.task == "F.2"]
    assert f2 and all(c.points == 0 and c.message_key == "scoring_nothing_own" for c in f2), [c.message for c in f2]
    assert "AttentionBlock (D.1) / plot_attention (E.1)" in f2[0].message
    others = [c for c in result.checks if c.task in ("F.1", "F.3")]
    assert others and all(c.passed for c in others), losses(result)


UNLABELLED_PLOT = '''

_own_plot = plot_attention


def plot_attention(weights, *args, **kwargs):  # a Part E bug that leaves the drawn values right
    ax = _own_plot(weights, *args, **kwargs)
    ax.set_xlabel("")
    ax.set_ylabel("")
    return ax
'''


def test_part_f_pays_alike_in_a_full_run_and_graded_alone(grade, reference_source):
    """A pre-norm block (D.1) and heatmaps without axis labels (E.1): each mistake alone leaves
    F 8/8, and so does Part F graded on its own. Graded with D and E, F.2 replaced both the block
    and plot_attention because both lost points, found nothing of the student's left and paid
    0 of 2 (qa5x m10), though their plot_attention draws the trusted block's weights right."""
    source = apply(reference_source, MUTANTS["block_pre_norm"]) + UNLABELLED_PLOT
    full = grade(source, name="pre_norm_unlabelled", parts={"D", "E", "F"})
    alone = grade(source, name="pre_norm_unlabelled_alone", parts={"F"})
    parts = {p.part: p.score for p in full.parts}
    assert parts["D"] < 12 and parts["E"] < 10
    assert parts["F"] == {p.part: p.score for p in alone.parts}["F"] == 8, losses(full)
    notes = {c.message for c in full.checks if c.task == "F.2"}
    assert notes == {"correct given your Part D; that mistake is charged in D.1"}, notes


EXAMPLES = sorted(p for p in (Path(__file__).resolve().parents[1] / "examples" / "submissions").iterdir() if p.suffix in (".py", ".ipynb"))


# examples that break a rule with correct values (copied_with_library_softmax is also a near-copy
# of einsum_style, for the demo's similarity table): (the part, the one check that loses)
RULE_BREAKERS = {"copied_with_library_softmax": ("A", "masked_softmax_by_hand")}


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_a_demo_example_loses_points_only_in_its_own_part(path, grade):
    """`make demo`'s score table: a buggy example loses points in one part, the part of the mistake
    it is named for; an example in another correct style loses none."""
    result = grade(path, name=path.stem)
    lost = sorted(p.part for p in result.parts if p.score < p.max_score)
    if path.stem in RULE_BREAKERS:  # correct values, one rule broken: only that rule's check loses
        part, check_id = RULE_BREAKERS[path.stem]
        assert lost == [part] and [c.check_id for c in result.checks if not c.passed] == [check_id], losses(result)
        return
    if not path.stem.startswith("bug_"):
        assert not lost, f"{path.name} lost points in {lost}: {losses(result)}"
        return
    assert len(lost) == 1, f"{path.name} lost points in parts {lost}: {losses(result)}"
    named = {MISTAKES[c.mistake].task.split(".")[0] for c in result.checks if c.part == lost[0] and c.mistake in MISTAKES}
    assert lost[0] in named, f"{path.name} lost points in {lost[0]} without a mistake of that part named: {losses(result)}"


def test_a_module_stand_in_refuses_a_width_that_would_build_a_huge_reference_layer():
    """The MultiHeadAttention stand-in built (and cached for good, one per width) a reference
    layer as wide as its query: a 5000-wide one is 4 x 5000^2 parameters (400 MB) in the grader,
    from a callback of 5000 numbers. Refused before anything is built (qa4h)."""
    import torch

    from autograder.assignments.attention.checks.carried import PROJECTION_PARAMS, _mha_module, trusted_answer
    from autograder.grading.worker.standins import StandInRefused

    built = _mha_module.cache_info().currsize
    params = [torch.zeros(1)] * len(PROJECTION_PARAMS)
    callback = {"kind": "forward", "name": "MultiHeadAttention", "tensors": [torch.zeros(1, 1, 5000)] * 3 + [None, *params], "options": {"num_heads": 1, "dropout": 0.0, "training": False, "seed": 0}}
    with pytest.raises(StandInRefused, match="embedding size"):
        trusted_answer(callback)
    assert _mha_module.cache_info().currsize == built


def _module_callback(name: str, width: int, params_width: int, heads: int = 1) -> dict:
    """A forward callback of a module stand-in: an input `width` wide, parameters `params_width` wide."""
    import torch

    from autograder.assignments.attention.checks.carried import PROJECTION_PARAMS

    x = torch.zeros(1, 2, width)  # (B, S, E)
    projections = [torch.zeros(params_width, params_width) if kind.endswith("weight") else torch.zeros(params_width) for kind in PROJECTION_PARAMS]
    norm = [torch.ones(params_width), torch.zeros(params_width)]
    tensors = {"MultiHeadAttention": [x, x, x, None, *projections], "AttentionBlock": [x, None, *projections, *norm], "block_shell": [x, x, *norm]}[name]
    options = {"dropout": 0.0, "training": False, "seed": 0} | ({} if name == "block_shell" else {"num_heads": heads})
    return {"kind": "forward", "name": name, "tensors": tensors, "options": options}


@pytest.mark.parametrize("name", ["MultiHeadAttention", "AttentionBlock", "block_shell"])
def test_a_module_stand_in_refuses_small_weights_for_a_wide_input_before_building_a_layer(name, monkeypatch):
    """qa20h h04: a 4096-wide input with 8x8 weights had the grader build (and cache, 8 at a time)
    a 268 MB reference layer before the weights were found not to fit: 2.1 GB held for the rest
    of the batch. The parameters' shapes are checked first: refused, nothing built."""
    from autograder.assignments.attention.checks import carried
    from autograder.grading.worker.standins import StandInRefused

    def build(*args):
        raise AssertionError("a reference layer was built for a callback that must be refused")

    monkeypatch.setattr(carried, "reference", build)
    with pytest.raises(StandInRefused, match=r"has shape \(8,( 8)?\), where a layer of embedding size 4096"):
        carried.trusted_answer(_module_callback(name, 4096, 8, heads=8))


def test_a_module_stand_in_keeps_only_narrow_layers_for_reuse():
    """The checks build layers 6, 21 and 32 wide; a wider one (the student's code may ask for it)
    is built for its call, answered, and not kept."""
    from autograder.assignments.attention.checks.carried import CACHED_WIDTH, _mha_module, trusted_answer

    wide = CACHED_WIDTH + 16
    held = _mha_module.cache_info().currsize
    output, weights = trusted_answer(_module_callback("MultiHeadAttention", wide, wide, heads=4))
    assert output.shape == (1, 2, wide) and weights.shape == (1, 4, 2, 2)
    assert _mha_module.cache_info().currsize == held
    trusted_answer(_module_callback("MultiHeadAttention", 21, 21, heads=3))
    assert _mha_module(21, 3, 0.0, True) is _mha_module(21, 3, 0.0, True)  # a narrow one is kept


SHARED_CODE = '''
import functools

class Heads:
    def __init__(self, n):
        self.n = n

    def split(self, x):
        return _reshape(x, self.n)

    @staticmethod
    def merge(x):
        return x

def _reshape(x, n):
    return x

def split_heads(x, n):
    return Heads(n).split(x)

def alone(x):
    return x.split(2)  # an attribute named like no global of the file

class Attention:
    def forward(self, x):
        return _two(x)

_two = functools.partial(_reshape, n=2)

def by_default(x, f=_reshape):
    return f(x, 2)

def _closure():
    heads = Heads(2)
    def inner(x):
        return heads.split(x)
    return inner

inner = _closure()
_shared = Heads(2)

def through_an_object(x):
    return _shared.merge(x)
'''


def test_code_reach_reads_the_code_a_function_or_class_may_run():
    """What tells a later task that can run an earlier task's own code (a class both use) from one
    that repeats the mistake in code of its own (qa24s n04, qa5x m40): read, never run."""
    import torch

    from autograder.grading.worker.standins import code_reach

    space: dict = {"__name__": "submission"}
    exec(compile(SHARED_CODE, "submission.py", "exec"), space)

    def owned(obj):
        return getattr(obj, "__globals__", None) is space or (isinstance(obj, type) and obj.__module__ == "submission")

    def reach(name):
        return {code.co_qualname for code in code_reach([space[name]], owned)}

    heads = {"Heads.__init__", "Heads.split", "Heads.merge", "_reshape"}
    assert reach("split_heads") == {"split_heads"} | heads
    assert reach("alone") == {"alone"}
    assert reach("Attention") == {"Attention.forward", "_reshape"}  # through a functools.partial
    assert reach("by_default") == {"by_default", "_reshape"}  # a default value
    assert reach("inner") == {"_closure.<locals>.inner"} | heads  # a closure's object of its own class
    assert reach("through_an_object") == {"through_an_object"} | heads  # a module-level object
    assert code_reach([torch.nn.functional.softmax], owned) == set()  # the library's code is not the submission's


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_reference_multi_head_attention_is_torchs(seed):
    """C.3's check "vs torch.nn.MultiheadAttention" compares with the reference (so that an earlier
    task's mistake planted in it carries forward); that is torch's value because the two agree."""
    import torch

    from autograder.assignments.attention.checks.module_support import build_reference

    E, H, B, LQ, LK = 24, 4, 2, 5, 7
    gen = torch.Generator().manual_seed(seed)
    torch_mha = torch.nn.MultiheadAttention(E, H, batch_first=True, dtype=torch.float64).eval()
    with torch.no_grad():
        for parameter in torch_mha.parameters():
            parameter.copy_(torch.randn(parameter.shape, generator=gen, dtype=torch.float64))
    weight, bias = torch_mha.in_proj_weight.detach(), torch_mha.in_proj_bias.detach()
    state = {f"{name}.{kind}": packed[index * E:(index + 1) * E] for index, name in enumerate(("W_q", "W_k", "W_v")) for kind, packed in (("weight", weight), ("bias", bias))}
    state |= {"W_o.weight": torch_mha.out_proj.weight.detach(), "W_o.bias": torch_mha.out_proj.bias.detach()}
    query, key, value = (torch.randn(B, length, E, generator=gen, dtype=torch.float64) for length in (LQ, LK, LK))
    mask = torch.rand(LQ, LK, generator=gen) < 0.6
    mask[:, 0] = True  # every query attends somewhere
    with torch.no_grad():
        expected = torch_mha(query, key, value, attn_mask=~mask, need_weights=True, average_attn_weights=False)
        got = build_reference("MultiHeadAttention", (E, H), state)(query, key, value, mask)
    torch.testing.assert_close(got[0], expected[0], rtol=0, atol=1e-12)
    torch.testing.assert_close(got[1], expected[1], rtol=0, atol=1e-12)


SCALED_HELPER = "\n\ndef _scaled(s, n):\n    return 0.9 * s / math.sqrt(n)\n"
SCORES = "return q @ k.transpose(-2, -1) / math.sqrt(d)  # (..., Lq, Lk)"
MHA_SCORES = "weights = masked_softmax(attention_scores(q, k), mask)  # (B, H, Lq, Lk)"


def _with_helper(reference_source: str, scores: str, mha_scores: str) -> str:
    source = reference_source.replace(SCORES, scores).replace(MHA_SCORES, mha_scores)
    return source.replace("\ndef attention_scores(", SCALED_HELPER + "\n\ndef attention_scores(", 1)


def test_a_mistake_no_catalogue_names_in_a_helper_two_tasks_share_is_charged_once(grade, reference_source):
    """qa40s d21: `_scaled` (0.9·s/√n) makes A.1's scores and C.3's own: C.3's values are the
    reference's given the student's attention_scores, so the mistake is charged in A.1 alone;
    the same scaling written into C.3's own code, with A.1 right, is C.3's (and the reference's
    C.3 is built on the student's A.1 through the worker, gradients included)."""
    shared = grade(_with_helper(reference_source, "return _scaled(q @ k.transpose(-2, -1), d)",
                                "weights = masked_softmax(_scaled(q @ k.transpose(-2, -1), q.size(-1)), mask)"), parts="ABCD")
    assert {p.part: p.score for p in shared.parts} == {"A": 27, "B": 10, "C": 28, "D": 12}
    notes = {c.check_id: c.message_key for c in shared.checks if c.task == "C.3" and c.message_key}
    assert notes.get("mha_values") == "scoring_carried" and notes.get("mha_gradients") == "scoring_carried", notes
    alone = grade(_with_helper(reference_source, "return _scaled(q @ k.transpose(-2, -1), d)",
                               "weights = masked_softmax(_scaled(q @ k.transpose(-2, -1), q.size(-1)), mask)"), parts="C")
    assert {p.part: p.score for p in alone.parts} == {"C": 28}  # graded alone, as nbgrader does: A's values checks, run unscored, fail
    own = grade(_with_helper(reference_source, SCORES, "weights = masked_softmax(_scaled(q @ k.transpose(-2, -1), q.size(-1)), mask)"), parts="ABCD")
    assert {p.part: p.score for p in own.parts}["A"] == 32 and {p.part: p.score for p in own.parts}["C"] < 28
    twice = grade(reference_source.replace(SCORES, "return 0.9 * (q @ k.transpose(-2, -1)) / math.sqrt(d)")
                  .replace(MHA_SCORES, "weights = masked_softmax(0.9 * (q @ k.transpose(-2, -1)) / math.sqrt(q.size(-1)), mask)"), parts="ABCD")
    assert {p.part: p.score for p in twice.parts}["A"] == 27 and {p.part: p.score for p in twice.parts}["C"] < 28  # written again: charged again


SOFTMAX_BODY = '''    if mask is not None:
        scores = scores.masked_fill(mask.logical_not(), float("-inf"))  # (..., Lq, Lk)'''
SELF_ATTENTION_RETURN = "return scaled_dot_product_attention(q, k, v, mask)  # (B, S, D), (B, S, S)"


def test_an_earlier_function_that_gives_nothing_to_compute_carries_nothing_forward(grade, reference_source):
    """Hostile: masked_softmax returns zeros (A.2 lost), and B.1, given them, has nothing left to
    compute: zeros and masked_softmax's zeros. A reference built on that masked_softmax would
    agree; a function whose values barely vary is no basis (carried.LEAST_SPREAD): B.1 pays nothing."""
    source = reference_source.replace(SOFTMAX_BODY, "    return torch.zeros_like(scores)\n" + SOFTMAX_BODY, 1)
    source = source.replace(SELF_ATTENTION_RETURN, "return torch.zeros_like(v), masked_softmax(q @ k.transpose(-2, -1), mask)")
    result = grade(source, parts="AB")
    assert {p.part: p.score for p in result.parts}["B"] <= 2, [(c.check_id, c.points, c.message_key) for c in result.checks if c.task == "B.1"]
    assert not any(c.message_key.startswith("scoring_carried") for c in result.checks if c.task == "B.1")


REPAIRED = '''
import torch
import torch.nn as nn

def attention_scores(q, k):
    return q

def masked_softmax(scores, mask=None):
    return scores

def _proj(layer, x):
    return 0.5 * layer(x)

def _weights(q, k, mask=None):
    return q @ k.transpose(-2, -1)

class _Projecting:
    def _project(self, x):
        return x, x, x

class SelfAttention(nn.Module, _Projecting):
    def __init__(self, dim):
        super().__init__()
        self.W_q, self.W_k, self.W_v = nn.Linear(dim, dim), nn.Linear(dim, dim), nn.Linear(dim, dim)

    def forward(self, x, mask=None):
        q, k, v = self._project(x)
        return _weights(q, k, mask) @ v, _proj(self.W_q, x)

class MultiHeadAttention(_Projecting):
    def run(self, x):
        return _weights(x, x), _proj(self.W_q, x)

def plain(x):
    return x
'''


def test_a_helper_two_tasks_share_is_repaired_for_one_request_only(factory):
    """The worker lists the helpers of its own that two tasks' code may both run (a function, a
    mixin's method; never a dunder, nor what only one of them runs), and a repair replaces one
    for the requests of its block: the module it is given called on the tensor, the three
    projections of `self`, the weights of the trusted functions. It answers only calls laid out
    as those it learned from (the earlier task's). After the block the submission's own helper is back."""
    import torch

    from autograder.assignments.attention.checks.carried import repairs, trusted_answer
    from autograder.grading.worker.client import Student, StudentError

    student = Student(factory, [(1, REPAIRED)])
    x = torch.randn(1, 3, 4)
    try:
        sites = student.shared_helpers(["SelfAttention"], ["MultiHeadAttention"], [])
        assert {(s["name"], s.get("owner"), s["params"], s["method"]) for s in sites} == {
            ("_proj", None, 2, False), ("_weights", None, 3, False), ("_project", "_Projecting", 1, True)}
        kinds = {(r["name"], r["as"]) for r in repairs(sites)}
        assert ("_proj", "module") in kinds and ("_project", "projections") in kinds and ("_project", "module") not in kinds
        block = student.new("SelfAttention", 4)
        before = student.method(block, "forward", x)
        proj = next(s for s in sites if s["name"] == "_proj")
        with student.repairing([{**proj, "as": "module"}]):  # not learned from an earlier task's calls: answers none
            with pytest.raises(StudentError, match="other arguments than the earlier task gives it"):
                student.method(block, "forward", x)
        with student.repairing([{**proj, "as": "module"}], learn=True):
            repaired = student.method(block, "forward", x)
        assert torch.allclose(repaired[1], 2 * before[1])  # W_q(x), not half of it
        with student.repairing([{**proj, "as": "module"}]):  # laid out as learned: answered
            assert torch.equal(student.method(block, "forward", x)[1], repaired[1])
        weights = next(s for s in sites if s["name"] == "_weights")
        project = next(s for s in sites if s["name"] == "_project")
        with student.stand_ins(["attention_scores", "masked_softmax"], trusted_answer), student.repairing([{**weights, "as": "weights"}, {**project, "as": "projections"}], learn=True):
            output = student.method(block, "forward", x)[0]
        state = student.state_dict(block)
        q, k, v = (x @ state[f"{name}.weight"].T + state[f"{name}.bias"] for name in ("W_q", "W_k", "W_v"))
        torch.testing.assert_close(output, torch.softmax(q @ k.transpose(-2, -1) / 2.0, -1) @ v)
        assert torch.equal(student.method(block, "forward", x)[0], before[0])  # its own again
    finally:
        student.close()


ATTEND = '''

def _attend(q, k, v, mask=None, drop=None):
    weights = masked_softmax(attention_scores(q, k), mask)  # (..., Lq, Lk)
    used = weights if drop is None else drop(weights)
    return 0.9 * (used @ v), weights  # the mistake: 0.9
'''
A3_BODY = '''    scores = attention_scores(q, k)  # (..., Lq, Lk)
    weights = masked_softmax(scores, mask)  # (..., Lq, Lk)
    output = weights @ v  # (..., Lq, dv)
    return output, weights'''
MHA_BODY = '''        weights = masked_softmax(attention_scores(q, k), mask)  # (B, H, Lq, Lk)
        heads = self.dropout(weights) @ v  # (B, H, Lq, Dh)'''


def _attending(reference_source: str, mha_body: str) -> str:
    source = reference_source.replace(A3_BODY, "    return _attend(q, k, v, mask)", 1).replace(MHA_BODY, mha_body, 1)
    return source.replace("\ndef scaled_dot_product_attention(", ATTEND + "\n\ndef scaled_dot_product_attention(", 1)


def test_a_helper_a3_and_c3_share_is_repaired_and_its_mistake_charged_once(grade, reference_source):
    """A.3 and C.3 both call `_attend`, which scales the output by 0.9 (no catalogue mistake): C.3
    calls it directly, so no stand-in of A.3 replaces it there. Repaired (the weighted sum of the
    trusted scores and softmax, C.3's dropout on the weights), A.3 passes every values check and
    C.3 its own: charged once, in A.3, in a full run and with Part C graded alone. The same
    mistake written again in C.3's own code is C.3's; and a C.3 that hands its whole work to a
    helper B.1 shares earns nothing from a repair."""
    shared = _attending(reference_source, "        heads, weights = _attend(q, k, v, mask, self.dropout)  # (B, H, Lq, Dh), (B, H, Lq, Lk)")
    full = grade(shared, parts="ABCD")
    scores = {p.part: p.score for p in full.parts}
    assert scores["A"] < 32 and (scores["B"], scores["C"], scores["D"]) == (10, 28, 12), scores
    assert {c.message_key for c in full.checks if c.task == "C.3" and c.message_key} <= {"scoring_carried"}
    assert {p.part: p.score for p in grade(shared, parts="C").parts} == {"C": 28}
    again = _attending(reference_source, "        weights = masked_softmax(attention_scores(q, k), mask)  # (B, H, Lq, Lk)\n"
                                         "        heads = 0.9 * (self.dropout(weights) @ v)  # (B, H, Lq, Dh)")
    assert {p.part: p.score for p in grade(again, parts="AC").parts}["C"] < 28


WHOLE_WORK = '''

class _Attending:
    def _run(self, query, key=None, value=None, mask=None):
        raise NotImplementedError
'''


def test_a_shared_helper_that_does_a_tasks_whole_work_earns_nothing_when_repaired(grade, reference_source):
    """Nothing for nothing: B.1 and C.3 hand everything to a shared stub; no repair (a module
    call, projections, attention of what it is given) makes either right."""
    source = reference_source.replace("\nclass SelfAttention(nn.Module):", WHOLE_WORK + "\n\nclass SelfAttention(nn.Module, _Attending):", 1)
    source = source.replace("class MultiHeadAttention(nn.Module):", "class MultiHeadAttention(nn.Module, _Attending):", 1)
    source = source.replace("        return scaled_dot_product_attention(q, k, v, mask)  # (B, S, D), (B, S, S)", "        return self._run(x, x, x, mask)", 1)
    source = source.replace("        value = key if value is None else value\n", "        value = key if value is None else value\n        return self._run(query, key, value, mask)\n", 1)
    result = grade(source, parts="BC")
    assert [(c.check_id, c.points) for c in result.checks if c.task in ("B.1", "C.3") and c.points] == []


HANGS_WHEN_REPAIRED = '''

def _proj(layer, x):
    return torch.nn.functional.linear(x, layer.weight)  # the mistake: no bias


_OWN = _proj
'''


@pytest.mark.timing
def test_a_helper_that_hangs_when_repaired_costs_one_time_limit(grade, reference_source):
    """Hostile: B.1 and C.3 share `_proj`, and B.1 never returns once `_proj` is not its own. The
    first repaired run that hits a limit ends the repairs of B.1's helpers (each would cost one
    more time limit); C.3's values are its own, charged, and the grade ends."""
    from autograder.grading.worker.client import Budget

    source = reference_source.replace("\nclass SelfAttention(nn.Module):", HANGS_WHEN_REPAIRED + "\n\nclass SelfAttention(nn.Module):", 1)
    for name in ("q", "k", "v"):
        source = source.replace(f"        {name} = self.W_{name}(x)  # (B, S, D)", f"        {name} = _proj(self.W_{name}, x)  # (B, S, D)", 1)
    source = source.replace("        return scaled_dot_product_attention(q, k, v, mask)  # (B, S, D), (B, S, S)",
                            "        while _proj is not _OWN:\n            pass\n        return scaled_dot_product_attention(q, k, v, mask)  # (B, S, D), (B, S, S)", 1)
    source = source.replace("q = split_heads(self.W_q(query), self.num_heads)", "q = split_heads(_proj(self.W_q, query), self.num_heads)", 1)
    result = grade(source, name="hangs_when_repaired", parts={"B", "C"}, budget=Budget(call_seconds=3, import_seconds=30, total_seconds=300))
    scores = {p.part: p.score for p in result.parts}
    assert scores["B"] < 10 and scores["C"] < 28, scores
    assert not any(c.message_key.startswith("scoring_carried") for c in result.checks if c.task == "C.3")
    assert sum("timed out" in c.message for c in result.checks) <= 1, [c.message for c in result.checks if "timed out" in c.message]
