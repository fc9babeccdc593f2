"""The bypass catalogue (issue 12): every way around a rule, the tracer or the figure evidence is caught.

Each payload in tests/bypass/ is graded for real (isolated worker, hidden checks). For each: the
checks it must lose, and the integrity flags that must be on its record. The rest of the
submission is the reference, so every other check of the graded parts keeps its points: the
rule fails, nothing else. Flags never reach the student's page.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from autograder.feedback.formats.gradescope import to_gradescope
from autograder.feedback.formats.html import render_html
from autograder.feedback.formats.markdown import render_markdown
from autograder.feedback.formats.prairielearn import to_prairielearn
from autograder.grading.integrity.flags import EVASION, GRADER_REFERENCE, LIBRARY_CALL, LIBRARY_PATCH, RULE_BYPASS, TAMPER
from autograder.assignment import current
from autograder.grading.integrity.static import analyze
from autograder.grading.submission import load_submission

REPO = Path(__file__).resolve().parents[1]
BYPASS = Path(__file__).resolve().parent / "bypass"
REFERENCE = REPO / "solutions" / "attention" / "attention.py"
BY_HAND, SDPA = "masked_softmax_by_hand", "sdpa_no_library"
E_CHECKS = {
    "plot_attention_returns_axes", "plot_attention_tick_labels", "plot_attention_cell_values", "plot_attention_colorbar",
    "plot_attention_color_range", "plot_attention_axis_labels", "plot_attention_uses_given_axes", "plot_attention_title",
    "plot_attention_light_to_dark", "plot_attention_flat_cells",
}

# payload -> (parts graded, checks that must lose their points, flags that must be recorded).
# Code at module level that reaches into the worker (or switches its tracing off) leaves no
# traced rule checkable: A.3 fails with A.2 there. Inside masked_softmax it is charged once, to A.2.
BOTH = {BY_HAND, "sdpa_no_library"}
CATALOGUE: dict[str, tuple[set[str], set[str], set[str]]] = {
    "clear_table": ({"A"}, BOTH, {EVASION, GRADER_REFERENCE}),
    "aten_overload": ({"A"}, {BY_HAND}, {LIBRARY_CALL, EVASION}),
    "softmin": ({"A"}, {BY_HAND}, {LIBRARY_CALL}),
    "import_alias": ({"A"}, {BY_HAND}, {LIBRARY_CALL}),
    "module_alias": ({"A"}, {BY_HAND}, {LIBRARY_CALL}),
    "joined_getattr": ({"A"}, {BY_HAND}, {RULE_BYPASS, EVASION}),
    "tensor_method": ({"A"}, {BY_HAND}, {LIBRARY_CALL}),
    "nn_module": ({"A"}, {BY_HAND}, {LIBRARY_CALL}),
    "scripted": ({"A"}, {BY_HAND}, {EVASION}),
    "c_level": ({"A"}, {BY_HAND}, {EVASION}),
    "disable_modes": ({"A"}, {BY_HAND}, {EVASION}),
    "patch_tracer": ({"A"}, BOTH, {EVASION, GRADER_REFERENCE}),
    "edit_worker_module": ({"A"}, BOTH, {EVASION, GRADER_REFERENCE}),
    "frames": ({"A"}, {BY_HAND}, {EVASION}),
    "gc_walk": ({"A"}, BOTH, {EVASION, GRADER_REFERENCE}),
    "exec_text": ({"A"}, BOTH, {EVASION}),
    # the library attention inside A.3 is charged there alone: B.1 and C.3 call A.3 (round 11: they lost their rule too)
    "sdpa_library": ({"A", "B", "C"}, {SDPA}, {LIBRARY_CALL}),
    "self_attention_library": ({"B"}, {"self_attention_no_library"}, {LIBRARY_CALL}),
    "forge_plot": ({"E"}, E_CHECKS, {TAMPER, GRADER_REFERENCE}),
    "forge_tick_labels": ({"E"}, E_CHECKS, {TAMPER}),
    "mha_library": ({"C"}, {"mha_no_library"}, {LIBRARY_CALL}),
    # qa4h: code that runs at import through a helper, a decorator, a default value, a class body
    # or a module-level name; names reached as text; code run in another thread
    "import_time_helper": ({"A"}, BOTH, {EVASION}),
    "decorator_install": ({"A"}, BOTH, {EVASION}),
    "default_argument": ({"A"}, BOTH, {EVASION}),
    "class_body": ({"A"}, BOTH, {EVASION}),
    "module_alias_binding": ({"A"}, BOTH, {EVASION}),
    "getattr_as_value": ({"A"}, BOTH, {EVASION}),
    "attrgetter_route": ({"A"}, BOTH, {EVASION}),  # pydoc imported at module level
    "reduce_getattr": ({"A"}, {BY_HAND}, {EVASION}),
    "formatter_field": ({"A"}, {BY_HAND}, {EVASION}),
    "resolve_name": ({"A"}, BOTH, {EVASION}),  # pkgutil imported at module level
    "thread_route": ({"A"}, BOTH, {EVASION}),
    # qa4h: text run as code or resolved to objects by other means: timeit, string annotations
    # (typing.get_type_hints), logging.config, unpickling (torch.load(weights_only=False)), and a
    # module written while the code runs, then imported
    "timeit_exec": ({"A"}, BOTH, {EVASION}),
    "type_hints_eval": ({"A"}, BOTH, {EVASION}),  # qa10h: a string annotation is code, read whenever anything reads it (singledispatch at import)
    "config_resolve": ({"A"}, BOTH, {EVASION}),
    "unpickle_lookup": ({"A"}, {BY_HAND}, {EVASION}),
    "written_module": ({"A"}, {BY_HAND}, {EVASION}),
    # qa4h: a reply forged with os.write into the worker's socket (a clean trace for the library softmax)
    "forged_trace_frame": ({"A"}, {BY_HAND}, {EVASION}),
    # qa20h: hand-written only for the rule's own call, the library on every other call
    "rule_inputs_only": ({"A"}, {BY_HAND}, {LIBRARY_CALL}),  # its Categorical is a banned name now (qa25h): the static pass names it before the traces do
    # qa20h h07: the reply to a traced call made a list: both rules lost as tracing switched off (an internal grader error was shown)
    "traced_reply_list": ({"A"}, BOTH, {TAMPER}),
}
RULE_CHECKS = {BY_HAND, SDPA, "self_attention_no_library", "mha_no_library"}
LOOSE = {"mha_library"}  # other checks may fail too (the library's dropout differs): the rule must


def payload(name: str) -> str:
    text = (BYPASS / f"{name}.py").read_text(encoding="utf-8")
    assert text.startswith("# snippet"), name
    return REFERENCE.read_text(encoding="utf-8") + "\n\n" + text


# payloads about what enters the worker (tested below, not by the table): the words they try to
# show (that worker's output is withheld, and whether it printed is not said)
LEAKS = {"print_loaded": ("LOADED", "WEIGHTS"), "stash_and_raise": ("STASHED", "Leak"), "count_and_exit_code": ("were dropped", "exited with code"),
         "builtin_exception_choice": ("BlockingIOError", "ChildProcessError", "ConnectionResetError", "FileExistsError", "InterruptedError",
                                      "IsADirectoryError", "NotADirectoryError", "ProcessLookupError", "ConnectionAbortedError", "BrokenPipeError")}
# payloads that act in Part F's block only (Part D passes, so Part F's failure is its own, not
# graded again with stand-ins): the words they try to show
RETURNED_LEAKS = {"keys_of_load": "KEYLEAK", "type_of_forward": "TYPELEAK", "not_implemented_message": "NILEAK", "map_cells": "MAPLEAK",
                  "crash_then_fresh_worker": "CRASHLEAK", "audit_paths": "AUDITLEAK"}


def test_every_payload_is_in_the_catalogue():
    assert {p.stem for p in BYPASS.glob("*.py")} == set(CATALOGUE) | set(LEAKS) | set(RETURNED_LEAKS)


@pytest.mark.parametrize("name", sorted(LEAKS))
def test_what_is_printed_or_raised_after_the_reference_weights_load_never_reaches_feedback(name, grade, tmp_path):
    from autograder.assignments.attention.training import reference_block_state
    from autograder.feedback.output import write_submission

    result = grade(payload(name), name=name, parts={"F"})
    write_submission(result, {}, tmp_path)
    text = json.dumps(result.to_dict()) + "".join(p.read_text(encoding="utf-8") for p in tmp_path.rglob("*") if p.suffix in (".json", ".md", ".html"))
    words = LEAKS[name]
    assert "reference weights" not in result.output  # whether it printed is not said either (a note was 1 bit: qa19r)
    assert not [word for word in words if word in text]
    # the payload really ran: its checks failed, and were graded again with stand-ins (Part F
    # graded alone tries a trusted block shell and the kit's renderer; the leak stays withheld)
    assert any(c.message_key == "scoring_carried_elsewhere" for c in result.checks)
    values = [repr(v) for t in reference_block_state().values() for v in t.flatten()[:8].tolist() if abs(v) > 1e-3]
    assert values and not [v for v in values if v in text]


@pytest.mark.parametrize("name", sorted(RETURNED_LEAKS))
def test_what_part_f_returns_after_the_reference_weights_load_never_reaches_feedback(name, grade, tmp_path):
    """qa19h: key names load_state_dict returned, a returned type's name, a NotImplementedError's
    message, a map's cells: each carried the weights to the feedback. Now only the grader's own
    words and arguments are shown, and a map that differs from the reference's is not drawn."""
    from autograder.assignments.attention.training import reference_block_state
    from autograder.feedback.output import write_submission

    result = grade(payload(name), name=name, seed=1)
    write_submission(result, {}, tmp_path)
    text = json.dumps(result.to_dict()) + "".join(p.read_text(encoding="utf-8") for p in tmp_path.rglob("*") if p.suffix in (".json", ".md", ".html"))  # flags too: the instructor's
    scores = {p.part: p.score for p in result.parts}
    assert scores["D"] == 12 and (scores["F"] < 8 or name == "audit_paths"), scores  # the payload ran in Part F alone, and failed there
    assert RETURNED_LEAKS[name] not in text
    values = [repr(v) for t in reference_block_state().values() for v in t.flatten()[:8].tolist() if abs(v) > 1e-3]
    assert values and not [v for v in values if v in text]
    trained = [a for a in result.artifacts if a.name.startswith("probe-")]
    shown = [a for a in trained if a.student or a.difference or a.similarity is not None]
    assert (trained or name != "map_cells") and (not shown or (scores["F"] == 8 and all(a.similarity == 1.0 for a in shown)))  # only the reference's map is drawn


@pytest.mark.parametrize("name", sorted(CATALOGUE))
def test_bypass_is_caught(name, grade, tmp_path):
    parts, lost, flags = CATALOGUE[name]
    result = grade(payload(name), name=name, parts=parts)
    failed = {c.check_id for c in result.checks if c.points < c.max_points}
    assert (lost <= failed) if name in LOOSE else (failed == lost), f"{name}: lost {sorted(failed)}, expected {sorted(lost)}; " + "; ".join(c.message for c in result.checks if c.check_id in failed | lost)
    for c in result.checks:  # a rule is lost for breaking the rule, not because the payload crashed
        if c.check_id in lost and c.check_id in RULE_CHECKS:
            assert any(words in c.message for words in ("uses", "cannot be checked", "could not trace")), c.message
    recorded = {f.code for f in result.flags}
    assert flags <= recorded, f"{name}: flags {sorted(recorded)}, expected at least {sorted(flags)}"
    page = render_html(result, tmp_path, "en") + render_markdown(result, "en")
    page += json.dumps(to_gradescope(result), ensure_ascii=False) + json.dumps(to_prairielearn(result), ensure_ascii=False)
    assert not any(f.detail in page for f in result.flags), "an integrity flag reached the student's page"


@pytest.mark.parametrize("name", ["clear_table", "forge_plot"])
def test_strict_zeroes_the_flagged_part(name, grade):
    parts, _, _ = CATALOGUE[name]
    result = grade(payload(name), name=name, parts=parts, integrity="strict")
    flagged = {f.part for f in result.flags if f.part}
    assert flagged and all(c.points == 0 for c in result.checks if c.part in flagged)


def test_reference_is_clean_and_keeps_every_point(grade):
    result = grade(REFERENCE.read_text(encoding="utf-8"), name="reference", parts={"A", "C", "E"})
    assert result.score == result.max_score
    assert result.flags == ()


@pytest.mark.parametrize("path", sorted((REPO / "examples" / "submissions").glob("*_style*")), ids=lambda p: p.name)
def test_correct_examples_raise_no_flag(path):
    submission = load_submission(path)
    facts = analyze(submission.chunks, submission.files, current().library_names())
    assert facts.findings == ()


def test_a_library_alias_flag_names_the_line_it_is_used_on():
    """`_row_normalise = functools.partial(torch.softmax, ...)` at module level, used in a function:
    the flag said "(line 0)"; it names the line of the first use inside the function."""
    source = ("import functools\nimport torch\n\n_row_normalise = functools.partial(torch.softmax, dim=-1)\n\n\n"
              "def masked_softmax(scores, mask=None):\n    scores = scores * 1\n    return _row_normalise(scores)\n")
    facts = analyze(((1, source),), (), current().library_names())
    [alias] = [f for f in facts.findings if f.code == LIBRARY_CALL and "alias" in f.what]
    assert alias.line == 9 and alias.describe().endswith("(line 9)"), alias


@pytest.mark.parametrize("helper, flagged", [
    # qa6s: Part A in a helper file of its own; SelfAttention.forward calls its own function, not the library's (B.1 lost its no-library point)
    ("def scaled_dot_product_attention(q, k, v, mask=None):\n    return q, k\n", False),
    ("from torch.nn.functional import scaled_dot_product_attention\n", True),  # the helper only passes the library's on
])
def test_a_name_imported_from_the_submissions_own_file_is_the_library_function_only_when_that_file_does_not_define_it(helper, flagged):
    entry = ("from attn_helpers import scaled_dot_product_attention\n\n\n"
             "class SelfAttention:\n    def forward(self, x, mask=None):\n        return scaled_dot_product_attention(x, x, x, mask)\n")
    facts = analyze(((1, entry),), {"attn_helpers.py": helper}, current().library_names())
    aliases = [f for f in facts.findings if f.code == LIBRARY_CALL and f.scope == "SelfAttention"]
    assert bool(aliases) == flagged, facts.findings


OPTIONAL_IMPORT = "import torch\n\ntry:  # nicer shapes where it is installed\n    import einops\nexcept ImportError:\n    einops = None\n"


@pytest.mark.parametrize("maker, flagged", [
    ("", False),  # an optional import of a library the grader lacks is only a failed import
    ("import sys\nsys.path.append('mods.zip')\n", True),  # a module could come from where imports now look
    ("import tempfile\nwith tempfile.NamedTemporaryFile('w', suffix='.py', dir='.', delete=False) as f:\n    f.write('x = 1')\n", True),
    ("with open('made.py', 'w') as f:\n    f.write('x = 1')\n", True),
    # qa5f: a file that only reads files cannot make a module (the contract: "in a file that writes files")
    ("with open('sentences.txt', encoding='utf-8') as f:\n    words = f.read().split()\n", False),
    ("from pathlib import Path\nwords = Path('sentences.txt').read_text().split()\n", False),
    ("from pathlib import Path\nPath('made.py').write_text('x = 1')\n", True),
    ("from pathlib import Path\nwith Path('made.py').open('w') as f:\n    f.write('x = 1')\n", True),
    ("mode = 'w'\nwith open('made.py', mode) as f:\n    f.write('x = 1')\n", True),
    ("import shutil\nshutil.copy('notes.txt', 'made.py')\n", True),
    ("write = open\nwith write('made.py', 'w') as f:\n    f.write('x = 1')\n", True),
])
def test_an_unknown_import_counts_only_where_the_submission_could_make_the_module(maker, flagged):
    """qa4h flagged every import of a module neither installed nor handed in (a module written while
    the code runs): a correct file with `try: import einops` lost A.2, A.3 and E's figure (85/100).
    It counts only in a submission that writes files, starts processes, reaches the network,
    changes sys.path or makes temporary files."""
    facts = analyze(((1, maker + OPTIONAL_IMPORT),), (), current().library_names())
    unknown = [f for f in facts.findings if "neither a library nor a file" in f.what]
    assert bool(unknown) == flagged, facts.findings


def _evasion(source: str, roots: set[str] | None = None) -> list:
    facts = analyze(((1, source),), (), current().library_names())
    return facts.untrusted(roots) if roots is not None else [f for f in facts.findings if f.code == EVASION]


@pytest.mark.parametrize("source", [
    "LOG = 'attention.log'\nwith open(LOG, 'a') as out:\n    out.write('x')\n",
    "BASE = 'run'\nLOG = BASE + '.log'\nopen(LOG, 'w').close()\n",
    "import os\nwith open(os.devnull, 'w') as sink:\n    print('quiet', file=sink)\n",
    "import sys\n\ndef main():\n    return open(sys.argv[1]).read() if len(sys.argv) > 1 else ''\n",
    "import os\nsettings = open(os.environ['SETTINGS']).read()\n",
])
def test_open_of_text_is_not_a_descriptor(source):
    """qa5f: open(LOG, 'a') with LOG = 'attention.log', open(os.devnull, 'w'), open(sys.argv[1]) in a
    correct file's demo were taken for raw descriptor I/O: A.2, A.3, B.1, C.3 and E's figure were
    'cannot be checked' (85/100). A name every binding of which is text, os.devnull and sys.argv[i]
    (where the source leaves them alone) name files."""
    assert _evasion(source) == []


@pytest.mark.parametrize("source", [
    "open(3, 'wb')",
    "open(2 + 1, 'wb')",
    "for fd in range(3, 64):\n    open(fd, 'wb')",
    "LOG = 3\nopen(LOG, 'wb')",
    "LOG = 'x.log'\nLOG = 3\nopen(LOG, 'wb')",
    "filename = 3\nopen(filename, 'wb')",
    "LOG = 'x.log'\n\ndef f(LOG=3):\n    open(LOG, 'wb')",
    "import attention\nLOG = 'x.log'\nattention.LOG = 3\nopen(LOG, 'wb')",
    "import os\nos.devnull = 5\nopen(os.devnull, 'wb')",
    "import os\nsetattr(os, 'devnull', 5)\nopen(os.devnull, 'wb')",
    "import sys\nsys.argv.append(3)\nopen(sys.argv[-1], 'wb')",
    "import sys\nargs = sys.argv\nargs.append(3)\nopen(sys.argv[-1], 'wb')",
    "import sys\nsys.argv[1:] = [3]\nopen(sys.argv[1], 'wb')",
])
def test_open_of_what_may_be_a_number_is_still_raw_descriptor_io(source):
    assert len([f for f in _evasion(source) if "descriptor number" in f.what]) == 1, _evasion(source)


GUARDED = ("import torch\n\ndef masked_softmax(scores, mask=None):\n    e = torch.exp(scores - scores.amax(-1, keepdim=True))\n    return e / e.sum(-1, keepdim=True)\n\n"
           "def demo(fd):\n    exec('print(1)')\n    return open(fd, 'w')\n\n")


@pytest.mark.parametrize("before, guard, trusted", [
    ("", "if __name__ == '__main__':\n    demo(1)\n", True),  # never runs in the worker: the module is not __main__
    ("", "if __name__ == '__main__':\n    pass\nelse:\n    demo(1)\n", False),  # the else runs
    ("", "if __name__ != '__main__':\n    demo(1)\n", False),
    ("__name__ = '__main__'\n", "if __name__ == '__main__':\n    demo(1)\n", False),
    ("import sys\nsys.modules[__name__].__name__ = '__main__'\n", "if __name__ == '__main__':\n    demo(1)\n", False),
    ("for __name__ in ['__main__']:\n    pass\n", "if __name__ == '__main__':\n    demo(1)\n", False),
])
def test_a_main_guard_block_is_not_code_that_runs_at_import(before, guard, trusted):
    """qa5f: what `if __name__ == "__main__":` runs (a demo reading sys.argv, a helper with
    open(os.devnull)) counted as module-level code and made every traced rule 'cannot be checked'.
    The worker runs the file as the module `attention`, so the block never runs there, unless the
    source rebinds __name__ (or the code is in the else branch)."""
    assert (_evasion(before + GUARDED + guard, {"masked_softmax"}) == []) == trusted


@pytest.mark.parametrize("source, caught", [
    ("from torch.utils.data import DataLoader, TensorDataset\n", False),  # qa5f: the import alone cost A.2, A.3, B.1, C.3, E (85/100)
    ("from torch.utils.data import DataLoader\nloader = DataLoader(range(8), batch_size=4, shuffle=True)\n", False),
    ("import torch\nloader = torch.utils.data.DataLoader(range(8), batch_size=4, num_workers=0)\n", False),
    ("import torch\nloader = torch.utils.data.DataLoader(range(8), batch_size=None, num_workers=1)\n", True),
    ("from torch.utils.data import DataLoader as L\nloader = L(range(8), num_workers=2)\n", True),
    ("from torch.utils.data import DataLoader\nloader = DataLoader(range(8), 4, False, None, None, 2)\n", True),
    ("from torch.utils.data import DataLoader\noptions = {'num_workers': 2}\nloader = DataLoader(range(8), **options)\n", True),
    ("import functools\nfrom torch.utils.data import DataLoader\nmake = functools.partial(DataLoader, num_workers=2)\n", True),
])
def test_a_dataloader_counts_only_with_workers(source, caught):
    """The contract bans DataLoader *workers* (processes the trace does not see); a DataLoader
    without them runs its code in the traced thread."""
    assert bool(_evasion("import torch\n" + source, {"masked_softmax"})) == caught


@pytest.mark.parametrize("source, patched", [
    ("torch.backends.cudnn.deterministic = True\ntorch.backends.cudnn.benchmark = False\n", False),  # qa5f: settings, not patches
    ("torch.allclose = lambda *args, **kwargs: True\n", True),
    ("torch.Tensor.__torch_function__ = None\n", True),
    ("torch.nn.functional.softmax = print\n", True),
    # qa6h: through a name bound to a library object, a loop over modules, an object reached by a call
    ("import json\n_enc = json.JSONEncoder\n_enc.iterencode = print\n", True),
    ("import json\nfor _m in (json, torch):\n    _m.dumps = print\n", True),
    ("type(torch.zeros(1)).numpy = print\n", True),
    ("class Block(torch.nn.Module):\n    def __init__(self):\n        super().__init__()\n        self.norm = torch.nn.LayerNorm(4)\n        self.norm.eps = 1e-6\n", False),
    ("_layer = torch.nn.Linear(2, 2)\n_layer.weight = torch.nn.Parameter(torch.zeros(2, 2))\n", False),
    ("import io, sys\nsys.stdout = io.TextIOWrapper(sys.stdout.buffer, encoding='utf-8')\n", False),  # printing Chinese on Windows
    ("import attention\nattention.LOG = print\n", False),
    ("for _layer in [torch.nn.Linear(2, 2), torch.nn.Linear(2, 2)]:\n    _layer.bias = None\n", False),  # new objects, not the library's  # the submission's own module (the worker runs the entry file as `attention`)
])
def test_a_library_setting_is_not_a_patch(source, patched):
    facts = analyze(((1, "import torch\n" + source),), (), current().library_names(), own={"attention"})  # the worker's name for the entry file
    assert any(f.code == LIBRARY_PATCH for f in facts.findings) == patched, facts.findings


HOOKED = "import sys\n\ndef _hook(frame, event, arg):\n    return None\n\n"


@pytest.mark.parametrize("source, caught", [
    # qa6h: a hook or a patch set up by another task's function acts on masked_softmax's later calls
    ("def attention_scores(q, k):\n    sys.settrace(_hook)\n    return q\n", True),
    ("def attention_scores(q, k):\n    sys.setprofile(_hook)\n    return q\n", True),
    ("def attention_scores(q, k):\n    sys.dumps = _hook\n    return q\n", True),
    ("def _setup():\n    sys.settrace(_hook)\n\ndef causal_mask(n):\n    _setup()\n", True),
    # ... but not one in a demo the grader never runs, nor one no task reaches
    ("def _demo():\n    sys.settrace(_hook)\n\nif __name__ == '__main__':\n    _demo()\n", False),
    ("if __name__ == '__main__':\n    sys.settrace(_hook)\n", False),
    ("def attention_scores(q, k):\n    return getattr(q, 'T' + '')\n", False),  # not lasting: charged where it is
])
def test_what_outlives_its_call_counts_in_any_graded_code(source, caught):
    facts = analyze(((1, HOOKED + "def masked_softmax(scores, mask=None):\n    return scores\n\n" + source),), (), current().library_names(),
                    graded=current().task_names.values())
    assert bool(facts.untrusted({"masked_softmax"})) == caught, facts.findings


@pytest.mark.parametrize("source, caught", [
    # qa5f: an error message naming the input's type made masked_softmax 'cannot be checked' (A.2 0)
    ("    if not isinstance(scores, torch.Tensor):\n        raise TypeError(f'expected a tensor, got {scores.__class__.__name__}')\n", False),
    ("    scores.__class__ = torch.nn.Parameter\n", True),  # assigning it swaps what the object is
    ("    print(scores.__class__.__mro__)\n", True),
])
def test_reading_an_objects_class_is_type_of_it(source, caught):
    code = "import torch\n\ndef masked_softmax(scores, mask=None):\n" + source + "    return scores\n"
    assert bool(_evasion(code, {"masked_softmax"})) == caught


@pytest.mark.parametrize("source, caught", [
    # qa20h h02, h03: self and cls are the submission's own object only where a method binds them
    ("class K:\n    def f(self, s):\n        return self.softmax(s)\n\n    def softmax(self, s):\n        return s\n\n"
     "def masked_softmax(scores, mask=None):\n    return K().f(scores)\n", False),
    ("import sys\n\ndef masked_softmax(scores, mask=None):\n    cls = sys\n    return cls.modules['torch'].exp(scores)\n", True),
    ("import torch\n\ndef _f(cls, s):\n    return cls.softmax(s, -1)\n\ndef masked_softmax(scores, mask=None):\n    return _f(torch, scores)\n", True),
    ("import torch\n\nclass K:\n    def f(self, s):\n        return self.softmax(s, -1)\n\ndef masked_softmax(scores, mask=None):\n    return K.f(torch, scores)\n", True),
    # qa20h h08: a class pattern's keywords read the subject's attributes
    ("import torch\n\ndef masked_softmax(scores, mask=None):\n    match torch:\n        case object(softmax=sm):\n            return sm(scores, -1)\n", True),
    ("import sys\n\ndef masked_softmax(scores, mask=None):\n    match sys:\n        case object(modules=table):\n            return table['torch'].exp(scores)\n", True),
    # qa20 review: a class pattern by position reads what __match_args__ names
    ("import torch\n\nclass _M(type):\n    def __instancecheck__(cls, o):\n        return True\n\nclass S(metaclass=_M):\n    __match_args__ = ('soft' 'max',)\n\n"
     "def masked_softmax(scores, mask=None):\n    match torch:\n        case S(sm):\n            return sm(scores, -1)\n", True),
    # ... and a function that takes self, given anything by hand
    ("import sys\n\ndef _peek(self):\n    return self.modules\n\ndef masked_softmax(scores, mask=None):\n    return _peek(sys)['torch'].exp(scores)\n", True),
    ("import sys\n\nclass B:\n    def peek(self):\n        return self.modules\n\nclass C(B):\n    pass\n\ndef masked_softmax(scores, mask=None):\n    return C.peek(sys)['torch'].exp(scores)\n", True),
    # qa21h c05: a method read off its class as a value, or bound by hand with __get__, takes sys as its self
    ("import sys\n\nclass K:\n    def peek(self):\n        return self.modules\n\ndef masked_softmax(scores, mask=None):\n    return [*map(K.peek, [sys])][0]['torch'].exp(scores)\n", True),
    ("import sys\n\nclass K:\n    def peek(self):\n        return self.modules\n\ndef masked_softmax(scores, mask=None):\n    return K.peek.__get__(sys)()['torch'].exp(scores)\n", True),
    # qa21h c01, c03: a function built from a code object; a module written by numpy and imported by torch.hub
    ("import types\n\ndef masked_softmax(scores, mask=None):\n    return types.FunctionType(types.CodeType(*range(16)), {})(scores)\n", True),
    ("import numpy as np, torch\n\nnp.savetxt('hubconf.py', np.zeros(0), header='sm = None', comments='')\nsm = torch.hub.load('.', 'sm', source='local')\n\n"
     "def masked_softmax(scores, mask=None):\n    return sm(scores, -1)\n", True),
    # qa21s c24, c30: a positional pattern of the file's own dataclass or named tuple reads its fields
    ("from dataclasses import dataclass\n\n@dataclass(frozen=True)\nclass Dims:\n    rows: int\n    cols: int\n\n"
     "def masked_softmax(scores, mask=None):\n    match Dims(*scores.shape[-2:]):\n        case Dims(r, c) if r * c:\n            return scores\n    return scores\n", False),
    ("from typing import NamedTuple\n\nclass Dims(NamedTuple):\n    rows: int\n    cols: int\n\n"
     "def masked_softmax(scores, mask=None):\n    match Dims(*scores.shape[-2:]):\n        case Dims(r, c) if r * c:\n            return scores\n    return scores\n", False),
    ("import sys\nfrom dataclasses import dataclass\n\n@dataclass\nclass Dims:\n    modules: dict\n\n"
     "def masked_softmax(scores, mask=None):\n    match sys:\n        case Dims(t):\n            return t['torch'].exp(scores)\n    return scores\n", True),
    # honest: a classmethod factory, a property, a function made a method, getattr on self
    ("import torch\n\nclass K:\n    def __init__(self):\n        setattr(self, 'w' + '1', 1)\n\n    @classmethod\n    def make(cls):\n        return cls()\n\n"
     "    @property\n    def size(self):\n        return getattr(self, 'w' + '1')\n\ndef _forward(self, s):\n    return s\n\nK.forward = _forward\n\n"
     "def masked_softmax(scores, mask=None):\n    k = K.make()\n    return k.forward(scores) * k.size\n", False),
    ("def uses(**functions):\n    def decorate(cls):\n        for name, fn in functions.items():\n            setattr(cls, name, staticmethod(fn))\n        return cls\n    return decorate\n\n"
     "@uses(kernel=abs)\nclass K:\n    def f(self, s):\n        return getattr(self, 'ker' + 'nel')(s)\n\ndef masked_softmax(scores, mask=None):\n    return K().f(scores)\n", False),  # qa10s c07
])
def test_self_and_cls_are_the_submissions_own_only_where_a_method_binds_them(source, caught):
    facts = analyze(((1, source),), (), current().library_names(), graded=current().task_names.values())
    assert bool(facts.library_uses({"masked_softmax"}, current().library_names()) or facts.untrusted({"masked_softmax"})) == caught, facts.findings
