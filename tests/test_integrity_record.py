"""Integrity flags on the record (issue 12): in attnkit.json, grades.csv and the dashboard; never on the student's page."""
from __future__ import annotations

import csv
import io
import re
from dataclasses import replace
from pathlib import Path

import pytest

from autograder.feedback.formats.csvfile import grades_csv
from autograder.feedback.formats.dashboard import render_dashboard
from autograder.feedback.formats.html import render_html
from autograder.feedback.formats.gradescope import to_gradescope
from autograder.feedback.formats.markdown import render_markdown
from autograder.grading.integrity.flags import EVASION, FAKE_RESULTS, FILE_ACCESS, LIBRARY_PATCH, NETWORK, PROCESS, SIGNAL, Flag
from autograder.grading.integrity.record import event_flags, source_flags, strict
from autograder.grading.integrity.static import analyze
from autograder.grading.integrity.similarity import Pair
from autograder.feedback.results import BatchResult, SubmissionResult
from sample_results import correct_result

FLAG = Flag(EVASION, "in masked_softmax: sys._getframe (line 12)", "A")


def flagged() -> SubmissionResult:
    return replace(correct_result(), flags=(FLAG,))


def test_flags_survive_the_json_round_trip() -> None:
    result = flagged()
    assert SubmissionResult.from_dict(result.to_dict()).flags == (FLAG,)


def test_flags_are_in_grades_csv_and_on_the_dashboard_only(tmp_path: Path) -> None:
    result = flagged()
    row = next(csv.DictReader(io.StringIO(grades_csv(BatchResult((result,))))))
    assert row["integrity_flags"] == "evasion(A)"
    assert row["score"] == str(int(result.score)) == str(int(correct_result().score))  # a flag alone changes no score
    dashboard = render_dashboard(BatchResult((result,)))
    assert "sys._getframe (line 12)" in dashboard  # the integrity section
    assert re.search(r"<td>evasion</td></tr>", dashboard)  # the flags column of the all-submissions table
    student_pages = render_html(result, tmp_path) + render_markdown(result)
    assert "sys._getframe" not in student_pages and EVASION not in student_pages


def test_similar_pairs_show_side_by_side_above_the_threshold_only() -> None:
    pairs = [Pair("alice", "bob", 0.91, ("def f(x):\n    return x",), ("def g(y):\n    return y",)), Pair("carol", "dave", 0.2)]
    page = render_dashboard(BatchResult((correct_result(),)), similar=pairs)
    assert "def g(y):" in page and "0.91" in page and "carol" not in page


def test_strict_zeroes_the_flagged_part_only() -> None:
    result = correct_result()
    checks = strict(result.checks, (FLAG,))
    assert all(c.points == 0 for c in checks if c.part == "A")
    assert [c.points for c in checks if c.part != "A"] == [c.points for c in result.checks if c.part != "A"]
    assert any(c.points for c in checks)


def test_a_zeroed_check_fails_and_says_why_without_the_flag() -> None:
    """qa33p: the zeroed checks read "✅ passed (0/2)" (Gradescope's status `passed`) in English only."""
    result = replace(correct_result(), checks=strict(correct_result().checks, (FLAG,)), flags=(FLAG,))
    zeroed = [c for c in result.checks if c.part == "A"]
    assert zeroed and all(not c.passed and c.message_key == "integrity_zeroed" for c in zeroed)
    for lang, said in (("en", "set to 0: this part carries an integrity flag"), ("zh", "记为 0 分：这一部分带有诚信标记")):
        page = render_markdown(result, lang)
        assert said in page and FLAG.detail not in page and not re.search(r"✅.*\(0 / ", page), lang
    gradescope = to_gradescope(result)
    assert {t["status"] for t in gradescope["tests"] if t["name"].startswith("A.")} == {"failed"}


HOSTILE_FLAGS = {  # tests/hostile payloads -> the flag the static pass puts on their record
    "network": NETWORK, "kill_parent": SIGNAL, "sigterm_ignored": SIGNAL, "snoop": FILE_ACCESS, "huge_file": FILE_ACCESS,
    "fake_results": FAKE_RESULTS, "fork_swarm": PROCESS, "daemon": PROCESS, "patch_comparisons": LIBRARY_PATCH,
}


def test_hostile_payloads_carry_their_flags() -> None:
    hostile = Path(__file__).resolve().parent / "hostile"
    for name, code in HOSTILE_FLAGS.items():
        flags = source_flags(analyze([(1, (hostile / f"{name}.py").read_text(encoding="utf-8"))]))
        assert code in {f.code for f in flags}, (name, flags)


def test_limits_hit_are_flagged_from_events_and_messages() -> None:
    texts = ["timed out after 10 s in causal_mask", "causal_mask went over the 2 GiB memory limit", "part of your file could not run"]
    assert [f.detail for f in event_flags(texts + texts[:1])] == texts[:2]


def test_the_worker_reports_what_student_code_did_and_scores_stay(grade, reference_source) -> None:
    snippet = (
        "\nimport socket\n"
        "def causal_mask(size_q, size_k=None, device=None):\n"
        "    for attempt in (lambda: open('/etc/hostname').read(), lambda: socket.create_connection(('127.0.0.1', 9), 0.2)):\n"
        "        try:\n"
        "            attempt()\n"
        "        except OSError:\n"
        "            pass\n"
        "    return torch.ones(size_q, size_k or size_q, dtype=torch.bool, device=device).tril()\n"
    )
    result = grade(reference_source + snippet, name="curious", parts={"A"})
    reference = grade(reference_source, name="reference", parts={"A"})
    seen = {f.code: f.detail for f in result.flags if f.detail.startswith("seen running")}
    assert "/etc/hostname" in seen[FILE_ACCESS] and "127.0.0.1" in seen[NETWORK]
    assert result.score == reference.score and reference.flags == ()


@pytest.mark.slow  # grades the demo's 13 submissions (about 90 s on two busy cores)
def test_the_demo_dashboard_shows_the_integrity_flags_and_the_similarity_table(tmp_path, capsys) -> None:
    """`make demo` (attnkit demo) grades examples/submissions; one of them copies another and calls
    the library softmax under another name, so the class dashboard has a flag in its integrity
    column and section, and pairs in its similarity table, with their passages side by side."""
    from autograder.cli import main
    from autograder.feedback.i18n import t

    assert main(["demo", "--out", str(tmp_path), "--seed", "3"]) == 0
    capsys.readouterr()
    dashboard = (tmp_path / "results" / "index.html").read_text(encoding="utf-8")
    integrity = dashboard[dashboard.index(t("dash.integrity")):dashboard.index(t("dash.similar"))]
    assert "copied_with_library_softmax" in integrity and "library_call" in integrity
    assert t("dash.no_flags") not in integrity
    similar = dashboard[dashboard.index(t("dash.similar")):]
    assert t("dash.no_similar") not in similar
    assert re.search(r"<td>\s*0\.9\d", similar) or re.search(r"0\.9\d", similar)  # a pair above the threshold
    assert "def masked_softmax" in similar  # the matching passages, side by side
    assert t("dash.flags") in dashboard  # the column of every submission's flags
    rows = list(csv.DictReader(io.StringIO((tmp_path / "results" / "grades.csv").read_text(encoding="utf-8"))))
    flagged_rows = {row["submission"]: row["integrity_flags"] for row in rows if row["integrity_flags"]}
    assert flagged_rows == {"copied_with_library_softmax": "library_call(A)"}  # code(part)


def test_a_source_flag_inside_a_function_touches_the_part_the_manifest_names_it_in() -> None:
    source = "import subprocess\n\ndef masked_softmax(s, m=None):\n    subprocess.run(['ls'])\n\nclass MultiHeadAttention:\n    def f(self):\n        return open('/etc/passwd')\n\ndef helper():\n    return open('/etc/hosts')\n"
    found = [(flag.code, flag.detail.split(":")[0], flag.part) for flag in source_flags(analyze([(1, source)]))]
    # a process runs code outside the trace: it is an evasion too (qa4h)
    assert found == [(PROCESS, "at module level", ""), (EVASION, "at module level", ""), (PROCESS, "in masked_softmax", "A"), (EVASION, "in masked_softmax", "A"), (FILE_ACCESS, "in MultiHeadAttention", "C"), (FILE_ACCESS, "in helper", "")]


def test_remove_is_file_access_only_on_the_os_module() -> None:
    """qa7e b13: `cbar.remove()` (a Colorbar taken off its figure; list.remove, set.remove, any
    Artist's remove) was recorded as file access in plot_attention, an integrity flag on an honest
    submission; os.remove (under any name it is imported as) still is one."""
    honest = "def plot_attention(w, q, k, ax=None, title=None):\n    cbar = ax.figure.colorbar(ax.images[0], ax=ax)\n    cbar.remove()\n    q = list(q)\n    q.remove(q[0])\n    return ax\n"
    assert [flag.code for flag in source_flags(analyze([(1, honest)]))] == []
    for removes in ("import os\nos.remove('x')\n", "import os as o\no.remove('x')\n", "from os import remove\nremove('x')\n"):
        assert FILE_ACCESS in [flag.code for flag in source_flags(analyze([(1, removes)]))], removes


def test_a_computed_name_read_off_super_is_no_evasion() -> None:
    """qa7s c31: a block's `__getattr__` that delegates to its attention,
    `getattr(super().__getattr__("attn"), name)`, was an evasion flag on an honest submission;
    zero-argument super() is the method's own object, as self is. A computed name read off anything
    else still is one."""
    honest = (
        "import torch\n\nclass AttentionBlock(torch.nn.Module):\n    def __getattr__(self, name):\n"
        "        try:\n            return super().__getattr__(name)\n        except AttributeError:\n"
        "            return getattr(super().__getattr__('attn'), name)\n"
    )
    assert [flag.code for flag in source_flags(analyze([(1, honest)]))] == []
    for reaching in ("getattr(torch, name)", "getattr(super(type(torch), torch), name)", "getattr(__import__('torch'), name)"):
        source = f"import torch\n\ndef masked_softmax(s, m=None, name='softmax'):\n    return {reaching}(s, -1)\n"
        assert EVASION in [flag.code for flag in source_flags(analyze([(1, source)]))], reaching


def test_ownership_looks_at_each_value_a_bounded_number_of_times(monkeypatch):
    """qa17h: a chain of helpers, each returning the next one's result, dropped out of the own
    names one link per pass over every value (4,000 links: 250 s of static pass). A worklist looks
    again only at what mentions a name that dropped out: the work grows with the chain, not its square."""
    import ast

    from autograder.grading.integrity import syntax

    calls = 0
    makes_new = syntax.Ownership.makes_new

    def counted(self, node):
        nonlocal calls
        calls += 1
        return makes_new(self, node)

    monkeypatch.setattr(syntax.Ownership, "makes_new", counted)
    links = 400
    chain = "".join(f"def _h{i}(x):\n    return _h{i - 1}(x)\n" if i else "def _h0(x):\n    return getattr(x, 'y')\n" for i in range(links))
    found = syntax.ownership([ast.parse(chain)], frozenset({"torch"}))
    assert not {f"_h{i}()" for i in range(links)} & found.names  # a lookup may give a library's object: no link is own
    assert calls < 20 * links, calls


def test_text_names_look_at_each_binding_a_bounded_number_of_times(monkeypatch):
    """qa21h c06: `p24000 = p23999` ... `p0 = "run.log"` (last link first) turned text one name per
    pass over every binding: 24,000 links kept the static pass, which runs in the grader outside the
    worker's limits, past the batch's 330 s watchdog, and the whole batch stopped. Each binding is
    now looked at again only when a name it mentions turns text."""
    import ast

    from autograder.grading.integrity import syntax

    calls = 0
    looks = syntax.looks_like_path

    def counted(*args, **kwargs):
        nonlocal calls
        calls += 1
        return looks(*args, **kwargs)

    monkeypatch.setattr(syntax, "looks_like_path", counted)
    links = 400
    chain = "".join(f"p{i} = p{i - 1}\n" for i in range(links - 1, 0, -1)) + 'p0 = "run.log"\np_other = 3\np_other = p1\n'
    found = syntax.text_bound_names([ast.parse(chain)], frozenset())
    assert found == {"__file__", *(f"p{i}" for i in range(links))}  # every link is text; p_other is also a number
    assert calls < 10 * links, calls


def test_ownership_is_not_copied_for_each_link(monkeypatch):
    """A chain of helpers drops out of the own names one link per round: one Ownership copied per
    round cost O(names) a link (8,000 links: 44 s of static pass, 10 s with the one Ownership)."""
    import ast

    from autograder.grading.integrity import syntax

    made = 0

    class Counted(syntax.Ownership):
        def __post_init__(self):
            nonlocal made
            made += 1

    monkeypatch.setattr(syntax, "Ownership", Counted)
    links = 400
    chain = "".join(f"def _h{i}(x):\n    return _h{i - 1}(x)\n" if i else "def _h0(x):\n    return getattr(x, 'y')\n" for i in range(links))
    found = syntax.ownership([ast.parse(chain)], frozenset({"torch"}))
    assert not {f"_h{i}()" for i in range(links)} & found.names
    assert isinstance(found.names, frozenset) and made <= 3, made


def _chain_source(reference: str, links: int, tag: str) -> str:
    chain = "".join(f"def _{tag}{i}(x):\n    return _{tag}{i - 1}(x)\n" if i else f"def _{tag}0(x):\n    return x\n" for i in range(links))
    return reference.replace("\ndef causal_mask", "\n" + chain + "\n\ndef causal_mask")


def test_the_static_pass_stops_at_its_cpu_limit_and_says_so(monkeypatch, reference_source):
    """The static pass runs in the grader, outside the worker's limits: a 2 MiB file of tangled
    helpers held it for many minutes, a batch's pool with it. Past STATIC_PASS_CPU_SECONDS of CPU
    it stops; its facts say they are unread, the record gets a resource-limit flag, and the rules
    (and Part E's figure) cannot be checked. The timer and its handler are put back."""
    import signal

    from autograder.assignments.attention.rules import LIBRARY_NAMES, SOFTMAX_BY_HAND
    from autograder.grading.integrity import static
    from autograder.grading.integrity.flags import RESOURCE_LIMIT
    from autograder.grading.integrity.rules import figure_verdict, judge

    handler = signal.getsignal(signal.SIGPROF)
    monkeypatch.setattr(static, "STATIC_PASS_CPU_SECONDS", 0.2)
    facts = analyze([(1, _chain_source(reference_source, 3000, "slow"))], {}, LIBRARY_NAMES)
    assert facts.unread and not facts.findings
    assert signal.getitimer(signal.ITIMER_PROF) == (0.0, 0.0) and signal.getsignal(signal.SIGPROF) == handler
    assert [flag.code for flag in source_flags(facts)] == [RESOURCE_LIMIT]
    traced = {"probe": {"ops": ["rgb_to_hsv", "softmax"], "aten": ["aten._softmax.default"]}, "unprofiled": False}
    verdict = judge(SOFTMAX_BY_HAND, traced, facts, "A")
    assert not verdict.passed and verdict.key == "rule_unread" and "0.2 s of CPU" in verdict.message
    assert figure_verdict(facts, "plot_attention", "E").key == "figure_unread"
    for step in range(12):  # wherever the timer lands (in ast.parse's C code too: it raised SystemError there), the same
        monkeypatch.setattr(static, "STATIC_PASS_CPU_SECONDS", 0.005 + 0.025 * step)
        static._bounded.cache_clear()
        assert analyze([(1, _chain_source(reference_source, 3000, "slow"))], {}, LIBRARY_NAMES).unread
        assert signal.getitimer(signal.ITIMER_PROF) == (0.0, 0.0) and signal.getsignal(signal.SIGPROF) == handler
    monkeypatch.setattr(static, "STATIC_PASS_CPU_SECONDS", 30.0)
    whole = analyze([(1, reference_source)], {}, LIBRARY_NAMES)
    assert not whole.unread and whole.references and judge(SOFTMAX_BY_HAND, traced, whole, "A").passed
    assert signal.getitimer(signal.ITIMER_PROF) == (0.0, 0.0) and signal.getsignal(signal.SIGPROF) == handler


def test_a_file_past_the_static_limit_loses_the_rules_only(grade, monkeypatch, reference_source):
    """Graded whole: the values are right, so every value check pays; each rule's check and Part
    E's figure check say the file could not be read in time (en and zh texts exist for both)."""
    from autograder.assignments.attention.texts import MESSAGES
    from autograder.grading.integrity import static
    from autograder.grading.integrity.flags import RESOURCE_LIMIT

    monkeypatch.setattr(static, "STATIC_PASS_CPU_SECONDS", 0.2)
    result = grade(_chain_source(reference_source, 3000, "graded"), seed=3)
    failed = {c.check_id: c.message for c in result.checks if c.points < c.max_points}
    assert all("could not read your file within 0.2 s of CPU" in message for message in failed.values()), failed
    rules = {c.check_id for c in result.checks if c.check_id.endswith(("_by_hand", "_no_library"))}
    figure = {c.check_id for c in result.checks if c.part == "E" and c.check_id.startswith("plot_attention_")}
    assert {"masked_softmax_by_hand", "sdpa_no_library", "self_attention_no_library", "mha_no_library"} <= rules
    assert set(failed) == rules | figure, set(failed) ^ (rules | figure)
    assert RESOURCE_LIMIT in [flag.code for flag in result.flags]
    assert {"en", "zh"} <= set(MESSAGES["rule_unread"]) and {"en", "zh"} <= set(MESSAGES["figure_unread"])
    from autograder.settings import STATIC_PASS_CPU_SECONDS

    readme = (Path(__file__).resolve().parents[1] / "solutions" / "attention" / "README.md").read_text(encoding="utf-8")
    assert f"({STATIC_PASS_CPU_SECONDS:g} s of CPU" in readme  # the contract states the limit the grader applies


def test_a_submission_is_read_once(grade, monkeypatch, reference_source):
    """The checks ask for the facts with the names the grader calls, the record without: one pass
    serves both (two cost a second static pass a submission, and twice the limit on a hostile file)."""
    from autograder.grading.integrity import static

    passes = 0
    read = static._analyze

    def counted(*args):
        nonlocal passes
        passes += 1
        return read(*args)

    monkeypatch.setattr(static, "_analyze", counted)
    result = grade("# read once\n" + reference_source, seed=1)
    assert result.score == result.max_score and passes == 1, passes
