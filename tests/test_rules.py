"""The "softmax by hand" allow-list (issue 12): honest hand-written softmaxes in many styles pass it;
every library softmax, however it is reached, does not. Traced here with the worker's own tracer."""
from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as F

from autograder.assignments.attention.rules import SOFTMAX_BY_HAND
from autograder.grading.integrity.rules import _banned_ops
from autograder.grading.worker.dispatcher import OpTracer, probe_tracer

NEG = float("-inf")


def _stable(s, m):
    s = s.masked_fill(~m, NEG)
    mx = s.max(dim=-1, keepdim=True).values
    mx = torch.where(torch.isinf(mx), torch.zeros_like(mx), mx)
    e = torch.exp(s - mx)
    return e / e.sum(-1, keepdim=True).clamp_min(1e-30)


def _logsumexp(s, m):
    s = torch.where(m, s, torch.tensor(NEG, dtype=s.dtype))
    lse = torch.logsumexp(s, dim=-1, keepdim=True)
    return torch.exp(s - lse).nan_to_num(0.0)


def _multiply_mask(s, m):
    e = torch.exp(s - s.amax(-1, keepdim=True)) * m.float().type_as(s)
    total = e.sum(-1, keepdim=True)
    return e / torch.where(total == 0, torch.ones_like(total), total)


def _large_negative(s, m):
    filled = s.clone()
    filled[~m] = -1e9
    e = (filled - filled.max(-1, keepdim=True)[0]).exp()
    out = e / e.sum(dim=-1, keepdim=True)
    return out * m.any(-1, keepdim=True).to(out.dtype)


def _numpy(s, m):
    import numpy as np

    a = np.where(m.numpy(), s.numpy(), -np.inf)
    a = np.exp(a - np.nan_to_num(a.max(-1, keepdims=True), neginf=0.0))
    return torch.from_numpy(a / np.maximum(a.sum(-1, keepdims=True), 1e-30))


def _unbind_rows(s, m):
    rows = [torch.exp(r - r.max()) * k for r, k in zip(s.reshape(-1, s.shape[-1]).unbind(0), m.reshape(-1, m.shape[-1]).unbind(0))]
    stacked = torch.stack(rows).reshape(s.shape)
    return stacked / stacked.sum(-1, keepdim=True).clamp(min=math.ulp(1.0))


HONEST = [_stable, _logsumexp, _multiply_mask, _large_negative, _numpy, _unbind_rows]
LIBRARY = {
    "torch.softmax": lambda s, m: torch.softmax(s.masked_fill(~m, NEG), -1),
    "F.softmin": lambda s, m: F.softmin(-s.masked_fill(~m, NEG), -1),
    "aten._softmax": lambda s, m: torch.ops.aten._softmax.default(s.masked_fill(~m, NEG), -1, False),
    "log_softmax.exp": lambda s, m: F.log_softmax(s.masked_fill(~m, NEG), -1).exp(),
    "special.softmax": lambda s, m: torch.special.softmax(s.masked_fill(~m, NEG), -1),
    "nn.Softmax": lambda s, m: torch.nn.Softmax(-1)(s.masked_fill(~m, NEG)),
    "Categorical.probs": lambda s, m: torch.distributions.Categorical(logits=s.masked_fill(~m, NEG)).probs,
    "gumbel_softmax": lambda s, m: F.gumbel_softmax(s.masked_fill(~m, NEG) * 1e6, tau=1e6),
    "sdpa": lambda s, m: F.scaled_dot_product_attention(s, *[torch.eye(5, dtype=s.dtype).expand(2, 5, 5)] * 2, attn_mask=m),
}


def traced(function) -> list[str]:
    scores = torch.randn(2, 4, 5, dtype=torch.float64)
    mask = torch.rand(2, 4, 5) < 0.6
    mask[..., 0] = True
    with OpTracer() as tracer:
        function(scores, mask)
    return tracer.report()["aten"]


@pytest.mark.parametrize("function", HONEST, ids=lambda f: f.__name__)
def test_hand_written_softmaxes_pass_the_allow_list(function):
    assert _banned_ops(SOFTMAX_BY_HAND, traced(function)) == []


@pytest.mark.parametrize("name", sorted(LIBRARY))
def test_library_softmaxes_fail_the_allow_list(name):
    assert _banned_ops(SOFTMAX_BY_HAND, traced(LIBRARY[name])), name


def test_the_tripwire_sees_a_known_softmax():
    probe = probe_tracer()
    assert "softmax" in probe["ops"] and "aten._softmax.default" in probe["aten"] and "rgb_to_hsv" in probe["ops"]
    assert probe["unprofiled"] is False


LIBRARY_MODULE = """import numpy as np


def softmax(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)
"""


def _numpy_through(softmax):
    """A file's masked_softmax that hands the values to a numpy softmax (as scipy.special.softmax is)."""
    def masked_softmax(s, m):
        return torch.from_numpy(softmax(s.masked_fill(~m, -1e30).numpy(), axis=-1)) * m.any(-1, keepdim=True)
    return masked_softmax


def test_a_library_softmax_in_numpy_is_seen_however_it_was_reached(tmp_path, monkeypatch):
    """qa41h b06, b13: scipy.special.softmax carried out of an exception group, or looked up by a
    text-built name, calls no torch function: the profile sees the library's Python function by
    name. The submission's own function of that name (its globals are `own`) is not noted."""
    import importlib

    from autograder.grading.integrity.rules import judge
    from autograder.grading.integrity.static import analyze

    (tmp_path / "numlib.py").write_text(LIBRARY_MODULE, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    library = importlib.import_module("numlib")
    own: dict = {}
    exec(LIBRARY_MODULE, own)  # the same code, as the submission's own
    scores = torch.randn(2, 4, 5, dtype=torch.float64)
    mask = torch.rand(2, 4, 5) < 0.6
    reports = {}
    for name, softmax in (("library", library.softmax), ("own", own["softmax"])):
        with OpTracer([own]) as tracer:
            _numpy_through(softmax)(scores, mask)
        reports[name] = tracer.report()
    assert "softmax" in reports["library"]["ops"] and "softmax" not in reports["own"]["ops"]
    facts = analyze(((1, "def masked_softmax(scores, mask=None):\n    return scores\n"),), (), frozenset({"softmax"}))
    verdicts = {name: judge(SOFTMAX_BY_HAND, {**report, "probe": probe_tracer()}, facts, "A") for name, report in reports.items()}
    assert not verdicts["library"].passed and verdicts["library"].used == "softmax" and verdicts["own"].passed


def test_a_profile_put_in_the_traces_place_is_seen_whatever_it_says_of_itself():
    """qa42h F1, F3: a C profiler (_lsprof) whose object says it equals anything, enabled during the
    call, or a profile of the file's on before the call, which the trace must never call."""
    import _lsprof
    import sys

    class Liar(_lsprof.Profiler):
        def __eq__(self, other):
            return True

        def __ne__(self, other):
            return False

        __hash__ = object.__hash__

    called, inside = [], []
    for when in ("during", "before"):
        liar = Liar()
        if when == "before":
            sys.setprofile(lambda *event: inside and called.append(event))
        try:
            with OpTracer() as tracer:
                inside.append(True)
                if when == "during":
                    liar.enable()
                torch.zeros(2).exp()
                inside.clear()
        finally:
            liar.disable()
            sys.setprofile(None)
        assert tracer.report()["unprofiled"] is True, when
    assert called == []  # the file's profile never ran under the trace


def test_what_the_other_calls_could_not_see_makes_the_rule_unchecked():
    """qa42h F4: a file that switches the profile off in every call of masked_softmax but the rule's
    own (which it tells apart by their order) is not checked; nor is one whose other calls ran a
    thread or a tensor subclass of its own."""
    from autograder.grading.integrity.rules import PROBE_FUNCTION, PROBE_LIBRARY, PROBE_OP, judge
    from autograder.grading.integrity.static import analyze

    facts = analyze(((1, "def masked_softmax(scores, mask=None):\n    return scores\n"),), (), frozenset({"softmax"}))
    own = {"ops": ["exp"], "aten": ["aten.exp.default"], "probe": {"ops": [PROBE_FUNCTION, PROBE_LIBRARY], "aten": [PROBE_OP]}, "unprofiled": False}
    assert judge(SOFTMAX_BY_HAND, {**own, "other_calls": {"ops": [], "aten": [], "untraced": []}}, facts, "A").passed
    keys = {"unprofiled": "rule_untraced", "elsewhere": "rule_elsewhere", "subclassed": "rule_subclassed"}
    for untraced, key in keys.items():
        verdict = judge(SOFTMAX_BY_HAND, {**own, "other_calls": {"ops": [], "aten": [], "untraced": [untraced]}}, facts, "A")
        assert not verdict.passed and verdict.key == key, untraced


def test_the_workers_audit_hook_runs_no_code_of_the_submissions():
    """qa42h F2: the hook read an event's argument with str(), which ran a str subclass's own
    __str__ (a library softmax there ran where no profile looks)."""
    from autograder.grading.worker.dispatcher import _plain

    ran = []

    class Path(str):
        def __str__(self):
            ran.append("__str__")
            return "elsewhere"

    class Family(int):
        def __repr__(self):
            ran.append("__repr__")
            return "0"

    class Sneaky:
        @property
        def __class__(self):
            ran.append("__class__")
            return str

    assert (_plain(Path("/tmp/x")), _plain(Family(1)), _plain((Path("h"), Family(80))), _plain(Sneaky()), _plain(b"\xff")) == (
        "/tmp/x", "1", "(h, 80)", "<Sneaky>", "\ufffd")
    assert ran == []


def test_a_call_that_switches_the_profile_off_is_untraced():
    """A call that puts another profile (or none) in the trace's place cannot be checked (the
    source that does so is also an evasion: sys.setprofile)."""
    import sys

    from autograder.grading.integrity.rules import judge
    from autograder.grading.integrity.static import analyze

    with OpTracer() as tracer:
        sys.setprofile(None)
    report = tracer.report()
    assert report["unprofiled"] is True and sys.getprofile() is None
    facts = analyze(((1, "def masked_softmax(scores, mask=None):\n    return scores\n"),), (), frozenset({"softmax"}))
    assert judge(SOFTMAX_BY_HAND, {**report, "probe": probe_tracer()}, facts, "A").key == "rule_untraced"


def test_a_rule_reads_what_the_other_calls_of_its_function_ran():
    """qa20h h01, h13: a file that knows the inputs of the rule's own call is hand-written there
    alone; every call is traced, and what the others ran that the rule bans by name counts."""
    from autograder.assignment import current
    from autograder.assignments.attention.rules import SDPA_OWN
    from autograder.grading.integrity.rules import PROBE_FUNCTION, PROBE_LIBRARY, PROBE_OP, judge
    from autograder.grading.integrity.static import analyze

    facts = analyze(((1, "def scaled_dot_product_attention(q, k, v, mask=None):\n    return q, q\n"),), (), current().library_names())
    own = {"ops": ["matmul", "exp"], "aten": ["aten.mm.default", "aten.exp.default"], "probe": {"ops": [PROBE_FUNCTION, PROBE_LIBRARY], "aten": [PROBE_OP]}, "unprofiled": False}
    assert judge(SDPA_OWN, own, facts, "A").passed
    elementary = {"ops": ["cumsum"], "aten": ["aten.nonzero.default"]}  # not elementary, but the allow-list is the own call's alone
    assert judge(SDPA_OWN, {**own, "other_calls": elementary}, facts, "A").passed
    library = {"ops": [], "aten": ["aten._scaled_dot_product_flash_attention_for_cpu.default"]}
    verdict = judge(SDPA_OWN, {**own, "other_calls": library}, facts, "A")
    assert not verdict.passed and "_scaled_dot_product_flash_attention_for_cpu" in verdict.used


def test_a_rule_broken_only_in_the_other_calls_is_not_graded_again_with_stand_ins():
    """qa20 review: a rule check that fails runs again with trusted stand-ins for the earlier
    tasks, and that run reads only the calls made with them: B.1's rule, broken only where the
    rule's own call is not, passed then. Its own call clean and its other calls not, the file
    told the calls apart itself: the failure is this task's, not carried."""
    from types import SimpleNamespace

    import pytest as _pytest

    from autograder.assignments.attention.checks.support import expect_rule
    from autograder.assignments.attention.rules import SELF_ATTENTION_OWN
    from autograder.grading.checks.plugin import CheckFailure
    from autograder.grading.integrity.rules import PROBE_FUNCTION, PROBE_LIBRARY, PROBE_OP

    own = {"ops": ["matmul"], "aten": ["aten.mm.default"], "probe": {"ops": [PROBE_FUNCTION, PROBE_LIBRARY], "aten": [PROBE_OP]}, "unprofiled": False}
    source = "class SelfAttention:\n    def forward(self, x, mask=None):\n        return x, x\n"
    for others, library_in_own, carried in ((["aten._scaled_dot_product_flash_attention_for_cpu.default"], False, False),
                                            (["aten._scaled_dot_product_flash_attention_for_cpu.default"], True, True)):
        traced = {**own, "aten": own["aten"] + (others if library_in_own else [])}
        student = SimpleNamespace(chunks=[(1, source)], files={}, other_calls=lambda name, seen=others: {"ops": [], "aten": seen})
        with _pytest.raises(CheckFailure) as raised:
            expect_rule(student, SELF_ATTENTION_OWN, traced)
        assert raised.value.carry == carried
