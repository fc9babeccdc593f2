"""The "by hand" / "not the library" rules, judged in the grader from two kinds of evidence.

1. The trace (autograder.grading.worker.dispatcher.OpTracer): every torch function name, every aten
   operator and every other library's Python function the call ran, recorded in the student's
   process. It judges nothing there: the lists below live here, where student code cannot change
   them. A tripwire call traced after the student's call must show a known softmax and a known
   library function, or the tracing was switched off.
2. The static pass (autograder.grading.integrity.static): the submitted source, read here.

A rule passes only when both are clean. When they disagree the rule fails, and the reason and a
flag are recorded. Which function may not call which library function is the assignment's (its
manifest's `rules` file: its Rules, and LIBRARY_NAMES, the names the static pass looks for); this
module is the machinery. A rule may be an allow-list (`elementary_only`: every aten operator it
runs must be elementary, pointwise, a reduction, or in ELEMENTARY_OPS), so a softmin, a
torch.ops.aten._softmax and any alias still to come fail a "write the softmax yourself" rule.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from autograder.grading.integrity.flags import EVASION, LIBRARY_CALL, RESOURCE_LIMIT, RULE_BYPASS, TAMPER, Flag
from autograder.grading.integrity.static import SourceFacts

# Shape, copy and creation operators a hand-written softmax may run besides pointwise operators
# and reductions (those are recognised by torch's own operator tags).
ELEMENTARY_OPS = frozenset({
    "_to_copy", "to", "detach", "alias", "clone", "copy_", "contiguous", "lift_fresh", "lift_fresh_copy", "_local_scalar_dense",
    "view", "_unsafe_view", "reshape", "_reshape_alias", "expand", "expand_as", "unsqueeze", "squeeze", "transpose", "permute",
    "t", "select", "slice", "index", "unbind", "split", "split_with_sizes", "chunk", "narrow", "movedim", "flatten", "unflatten",
    "as_strided", "stack", "cat", "broadcast_tensors", "index_put", "index_put_", "index_select", "gather",
    "empty", "empty_like", "empty_strided", "zeros", "zeros_like", "ones", "ones_like", "full", "full_like", "scalar_tensor",
    "new_zeros", "new_ones", "new_full", "new_empty", "new_empty_strided", "fill_", "zero_", "fill", "arange", "tril", "triu",
    "is_nonzero", "item", "count_nonzero", "cumsum", "_assert_async", "masked_fill_", "masked_fill", "where",  # masked_fill.Tensor: a tensor fill value
    "repeat", "repeat_interleave", "unsqueeze_", "squeeze_", "transpose_", "t_",  # mask.repeat(...) / .tile(...), in-place views
    "cumprod", "cummax", "cummin", "logcumsumexp",  # running sums, products and extremes, as cumsum: a normaliser's last entry
    "sort", "topk", "kthvalue", "mm", "bmm", "mv", "dot", "matmul",  # a row's max by sort or topk(1), its sum as e @ ones (no softmax in them)
})
ELEMENTARY_TAGS = ("pointwise", "reduction")
PROBE_FUNCTION, PROBE_OP, PROBE_LIBRARY = "softmax", "aten._softmax.default", "rgb_to_hsv"  # what probe_tracer() must show
# what the worker reports of code that ran where its trace does not look (the trace's key -> said)
UNTRACED_PLACES = {
    "elsewhere": "code ran in another thread or process",
    "subclassed": "an argument's own __torch_function__ or __torch_dispatch__ ran (a tensor subclass's, or any object's)",
}


def packet(op: str) -> str:
    """`_softmax` for `aten._softmax.default`."""
    parts = op.split(".")
    return parts[1] if len(parts) >= 2 else op


def is_elementary(op: str) -> bool:
    """Whether an aten operator (by name) is elementary: looked up in the grader's own torch."""
    import torch

    parts = op.split(".")
    if len(parts) != 3 or parts[0] != "aten" or not all(p.isidentifier() for p in parts[1:]):
        return False
    if parts[1] in ELEMENTARY_OPS:
        return True
    try:
        overload = getattr(getattr(torch.ops.aten, parts[1]), parts[2])
    except (AttributeError, RuntimeError):
        return False
    return any(getattr(torch.Tag, tag) in overload.tags for tag in ELEMENTARY_TAGS)


@dataclass(frozen=True)
class Rule:
    """A rule about how a task is written: which functions reach it, what it may not use."""

    task: str
    where: str  # the student's name for it
    roots: frozenset[str]  # the top-level definitions whose code the rule covers
    banned: frozenset[str]  # torch function names (trace) and library names (source)
    banned_ops: frozenset[str] = frozenset()  # aten operators banned by name: those whose packet contains one of these ("softmax")
    elementary_only: bool = False  # every aten operator must be elementary
    advice: str = ""
    source_banned: frozenset[str] = frozenset()  # more library names banned in the source (judged by the static pass only)
    charged_elsewhere: frozenset[str] = frozenset()  # definitions whose own rule charges their library calls


@dataclass(frozen=True)
class Verdict:
    passed: bool
    message: str = ""
    flags: tuple[Flag, ...] = field(default_factory=tuple)
    used: str = ""  # the library functions or operators used (the message is then "{where} uses {used}: {advice}")
    key: str = ""  # the message's key in the assignment's texts (MESSAGES), and its values
    values: dict = field(default_factory=dict)


def _banned_ops(rule: Rule, aten: list[str]) -> list[str]:
    used = []
    for op in aten:
        if any(word in packet(op) for word in rule.banned_ops):
            used.append(op)
        elif rule.elementary_only and not is_elementary(op):
            used.append(op)
    return used


def judge(rule: Rule, traced: dict, facts: SourceFacts, part: str) -> Verdict:
    """Both kinds of evidence must be clean; otherwise the first reason, with its flags."""
    functions = [str(n) for n in traced.get("ops", []) if isinstance(n, str)]
    aten = [str(n) for n in traced.get("aten", []) if isinstance(n, str)]
    probe = traced.get("probe") if isinstance(traced.get("probe"), dict) else {}
    trace_names = sorted(set(functions) & rule.banned)
    trace_ops = _banned_ops(rule, aten)
    # the other calls of what the rule covers (every call is traced: a file that knows the rule's
    # inputs wrote its softmax by hand for them alone, qa20h h01): what they ran that the rule bans
    # by name (the allow-list of elementary operators is the rule's own call's alone)
    others = traced.get("other_calls") if isinstance(traced.get("other_calls"), dict) else {}
    trace_names += sorted({str(n) for n in others.get("ops", []) if isinstance(n, str)} & rule.banned - set(trace_names))
    trace_ops += sorted({str(op) for op in others.get("aten", []) if isinstance(op, str) and any(word in packet(op) for word in rule.banned_ops)} - set(trace_ops))
    source_uses = facts.library_uses(set(rule.roots), rule.banned | rule.source_banned, rule.charged_elsewhere)
    untrusted = facts.untrusted(set(rule.roots), rule.charged_elsewhere)
    untraced = {str(key) for key in others.get("untraced", []) if isinstance(key, str)}  # what the other calls could not see (qa42h F4)
    probed = probe.get("ops", [])
    tripped = (PROBE_FUNCTION not in probed or PROBE_LIBRARY not in probed or PROBE_OP not in probe.get("aten", [])
               or traced.get("unprofiled") is not False or "unprofiled" in untraced)
    if trace_names or trace_ops:
        used = ", ".join(trace_names + trace_ops)
        flags = [Flag(LIBRARY_CALL, f"{rule.where}: {_list(source_uses)}", part)] if source_uses else [Flag(RULE_BYPASS, f"{rule.where}: the trace saw {used}, which the source does not name", part)]
        if untrusted:
            flags.append(Flag(untrusted[0].code, f"{rule.where}: {_list(untrusted)}", part))
        return Verdict(False, f"{rule.where} uses {used}: {rule.advice}", tuple(flags), used)
    if source_uses:
        used = _list(source_uses)
        flag = Flag(LIBRARY_CALL, f"{rule.where}: the source uses {used}; the trace did not see it on the inputs tried", part)
        return Verdict(False, f"{rule.where} uses {used}: {rule.advice}", (flag,), used)
    if hidden := next((key for key in UNTRACED_PLACES if traced.get(key) or key in untraced), None):
        said = UNTRACED_PLACES[hidden]
        flag = Flag(EVASION, f"{rule.where}: {said} during the traced call", part)
        return Verdict(False, f"{rule.where} cannot be checked for this rule: {said} during the call, where the grader cannot trace it",
                       (flag,), key=f"rule_{hidden}", values={"where": rule.where})
    if tripped:
        flag = Flag(TAMPER, f"{rule.where}: the tracer's tripwire did not see a known softmax (the worker's tracing was patched or switched off)", part)
        return Verdict(False, f"the grader could not trace {rule.where}: code in your file switched its tracing off", (flag,), key="rule_untraced", values={"where": rule.where})
    if facts.unread:
        unread = _unread(facts)
        flag = Flag(RESOURCE_LIMIT, f"{rule.where}: {unread}", part)
        return Verdict(False, f"{rule.where} cannot be checked for this rule: {unread}, so it cannot tell what the code calls (see the limits in the README)",
                       (flag,), key="rule_unread", values={"where": rule.where, "seconds": f"{facts.unread:g}"})
    if untrusted:
        flag = Flag(untrusted[0].code, f"{rule.where}: {_list(untrusted)}", part)
        values = {"where": rule.where, "found": _list(untrusted)}
        return Verdict(False, f"{rule.where} cannot be checked for this rule: your file uses {values['found']}, which can hide library calls (see the rules in the README)", (flag,), key="rule_unchecked", values=values)
    return Verdict(True)


def _list(findings: list) -> str:
    shown = [f.describe() for f in findings[:3]]
    more = f" and {len(findings) - 3} more" if len(findings) > 3 else ""
    return ", ".join(shown) + more


def _unread(facts: SourceFacts) -> str:
    return f"the grader could not read your file within {facts.unread:g} s of CPU"


def figure_verdict(facts: SourceFacts, where: str, part: str) -> Verdict:
    """The worker's description of a figure drawn by `where` (the student's function) is evidence
    only when nothing could have forged it."""
    if facts.unread:
        unread = _unread(facts)
        flag = Flag(RESOURCE_LIMIT, f"{where}: the figure's description cannot be trusted: {unread}", part)
        return Verdict(False, f"the figure cannot be graded: {unread}, so it cannot tell whether the code changes what the grader reads from the figure",
                       (flag,), key="figure_unread", values={"seconds": f"{facts.unread:g}"})
    untrusted = facts.untrusted({where})
    if not untrusted:
        return Verdict(True)
    flag = Flag(TAMPER, f"{where}: the figure's description cannot be trusted: {_list(untrusted)}", part)
    found = _list(untrusted)
    return Verdict(False, f"the figure cannot be graded: your file uses {found}, which can change what the grader reads from it", (flag,), key="figure_untrusted", values={"found": found})
