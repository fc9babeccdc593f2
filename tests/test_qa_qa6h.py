"""qa6h's hostile corpus (tests/qa/qa6h/): new routes around the traced rules and the secrecy of
Part F's weights, markup in the feedback, broken archives and notebooks.

Every file there is graded in ONE batch (`grade_batch`, two grader processes, Parts A, B, C and F)
with a copy of the reference. A file whose first line is `# snippet` is appended to the reference
(tests/batches.py's convention), so what it does not break must keep its points. Three zips are
built here from the reference (a zip is binary: its case is described below). For each: its score
per part, the integrity flags it must raise (exactly), a phrase its feedback must hold, and for
all: no image of the results holds the Part F reference weights' bytes, no Markdown feedback holds
a link or image made by the student.
"""
from __future__ import annotations

import io
import re
import zipfile
from pathlib import Path

import numpy as np
import pytest
import torch

from autograder.grading.batch import grade_batch
from autograder.grading.session import GradeOptions

REPO = Path(__file__).resolve().parents[1]
CORPUS = REPO / "tests" / "qa" / "qa6h"
REFERENCE = REPO / "solutions" / "attention" / "attention.py"
PARTS = frozenset({"A", "B", "C", "F"})
FULL = {"A": 32, "B": 10, "C": 28, "F": 8}
NOT_GRADED = {"A": 0, "B": 0, "C": 0, "F": 0}
HIDDEN = "cannot be checked"


def scores(**changed: float) -> dict[str, float]:
    return {**FULL, **changed}


RULES_UNCHECKED = scores(A=29, B=9, C=27)
# Flags a submission may raise or not, by where the checkout lives: traceback.extract_stack reads the
# grader's source files through linecache (file_access) only where the worker can see them (a
# checkout under /tmp is hidden from it: CI's clean clone got no flag, /work/main got one).
MAY_RAISE = {"traced_call_detected": {"file_access"}, "traced_modules_detected": {"file_access"}}
# name -> (score per part, flag codes, a phrase the result holds or "")
EXPECTED: dict[str, tuple[dict[str, float], set[str], str]] = {
    # a. the worker's reply rewritten by a patched library or a trace hook: the trace scrubbed of the
    # library softmax. Every traced rule "cannot be checked" (A.2 by hand 2, A.3 1, B.1 1, C.3 1)
    "json_trace_scrub": (RULES_UNCHECKED, {"library_call", "library_patch"}, HIDDEN),  # rule_bypass: what masked_softmax's other calls ran (qa20h)
    "json_encoder_alias_scrub": (RULES_UNCHECKED, {"library_call", "library_patch"}, HIDDEN),  # rule_bypass: what masked_softmax's other calls ran (qa20h)
    "socket_sendall_scrub": (RULES_UNCHECKED, {"library_call", "library_patch", "network"}, HIDDEN),  # rule_bypass: as above
    "patch_from_other_function": (RULES_UNCHECKED, {"library_call", "library_patch"}, HIDDEN),  # library_call: its Categorical is a banned name (qa25h; rule_bypass before: what masked_softmax's other calls ran, qa20h)
    "settrace_from_other_function": (RULES_UNCHECKED, {"evasion", "library_call"}, HIDDEN),
    # b. the traced call told apart (traceback.extract_stack): every call runs under the trace, so
    # the zeros meant for the traced call are every value A.2, B.1 and C.3 return (before qa16: A 30, B 9, C 27)
    "traced_call_detected": (scores(A=18), {"library_call"}, "masked_softmax uses torch.distributions.Categorical"),  # its Categorical is a banned name (qa25h; evasion before: its spy's own __torch_function__ ran in the traced call)
    "traced_modules_detected": (scores(B=1, C=8), {"evasion"}, "cannot be checked for this rule"),  # its spy's own __torch_function__ ran in the traced call
    "half_precision_garbage": (scores(A=31), set(), "attention_scores on torch.float16"),  # A.1 keeps float16: its values too
    "three_dims_consistent": (scores(A=23.5), set(), "scaled_dot_product_attention with q, k, v (B, L, d) and a (B, Lq, Lk) mask"),  # A.3's mask edges try 3-D inputs; its values (4-D) pay half, and the gradients of 4-D inputs, where it is right (qa50s)
    # c. what the grader shows: Part F's figures drawn where the reference weights are loaded, markup
    "weights_in_figure": (scores(), set(), ""),
    "markup_injection": (scores(A=28), set(), "causal_mask raised ValueError"),
    "exception_named_markup": (scores(A=28), set(), "causal_mask raised"),
    "behaves_when_graded": (scores(), set(), ""),
    "stdout_utf8_wrapper": (scores(), set(), "注意力机制"),  # honest: sys.stdout rewrapped is no library patch
    # d. broken input: refused with a reason, the batch goes on
    "deep_notebook": (NOT_GRADED, set(), "is not a valid Jupyter notebook (RecursionError)"),
    "odd_cells": (NOT_GRADED, set(), "has a source that is not text"),
    "encrypted_entry": (NOT_GRADED, set(), "is encrypted"),
    "unknown_compression": (NOT_GRADED, set(), "compression method is not supported"),
    "bad_crc": (NOT_GRADED, set(), "Bad CRC-32"),
}
# zips: the reference packed, then its headers changed (the encryption bit; compression method 99; the CRC)
ZIPS = {"encrypted_entry": (6, 8, 1), "unknown_compression": (8, 10, 99), "bad_crc": (14, 16, 0xFF)}


def _zip(local: int, central: int, value: int) -> bytes:
    """The reference as attention.py in a zip, one header field of both headers changed (at its
    offset in the local and in the central header): OR-ed (a flag), set (a method) or XOR-ed (a CRC)."""
    packed = io.BytesIO()
    with zipfile.ZipFile(packed, "w") as archive:
        archive.writestr("attention.py", REFERENCE.read_text(encoding="utf-8"))
    data = bytearray(packed.getvalue())
    for header, offset in ((b"PK\x03\x04", local), (b"PK\x01\x02", central)):
        at = data.find(header) + offset
        if value == 1:
            data[at] |= 1
        elif value == 99:
            data[at:at + 2] = value.to_bytes(2, "little")
        else:
            data[at] ^= value
    return bytes(data)


def corpus() -> list[Path]:
    return sorted(p for p in CORPUS.iterdir() if p.suffix in (".py", ".ipynb"))


def test_corpus_is_complete():
    assert sorted([p.stem for p in corpus()] + list(ZIPS)) == sorted(EXPECTED)


def _weights_bytes() -> bytes:
    from autograder.assignments.attention.training import reference_block_state

    floats = torch.cat([t.detach().float().reshape(-1) for t in reference_block_state().values() if t.is_floating_point()])
    return floats[:12].numpy().view(np.uint8).tobytes()


@pytest.mark.slow
def test_hostile_corpus_in_one_batch_earns_nothing_unearned_and_leaks_nothing(tmp_path):
    from PIL import Image

    inbox, out = tmp_path / "inbox", tmp_path / "out"
    inbox.mkdir()
    reference = REFERENCE.read_text(encoding="utf-8")
    for path in corpus():
        text = path.read_text(encoding="utf-8")
        (inbox / path.name).write_text(reference + "\n\n" + text if text.startswith("# snippet") else text, encoding="utf-8")
    for name, spec in ZIPS.items():
        (inbox / f"{name}.zip").write_bytes(_zip(*spec))
    (inbox / "correct.py").write_text(reference, encoding="utf-8")

    batch = grade_batch(inbox, out, jobs=2, options=GradeOptions(seed=6, parts=PARTS))

    results = {r.submission: r for r in batch.submissions}
    assert set(results) == set(EXPECTED) | {"correct"}
    assert {p.part: p.score for p in results["correct"].parts} == FULL, [c.message for c in results["correct"].checks if not c.passed]
    wrong = []
    for name, (expected, flags, phrase) in EXPECTED.items():
        result = results[name]
        got = {p.part: p.score for p in result.parts} or NOT_GRADED
        if got != expected:
            wrong.append(f"{name}: {got}, expected {expected}; " + "; ".join(c.message[:160] for c in result.checks if c.points < c.max_points)[:800])
        if {f.code for f in result.flags} - MAY_RAISE.get(name, set()) != flags:
            wrong.append(f"{name}: flags {sorted({f.code for f in result.flags})}, expected {sorted(flags)}")
        said = "\n".join([result.grader_error, result.output, *result.events, *(c.message for c in result.checks)])
        if phrase and phrase not in said:
            wrong.append(f"{name}: {phrase!r} not in {said[:300]!r}")
        assert "internal grader error" not in result.grader_error, name
    assert not wrong, "\n".join(wrong)
    # nothing a student wrote became a link or an image in Markdown feedback (a fenced block is inert)
    for page in out.rglob("feedback.md"):
        unfenced = re.sub(r"(`{3,})text\n.*?\n\1\n", "", page.read_text(encoding="utf-8"), flags=re.DOTALL)
        assert not re.search(r"\]\((?:http|javascript)", unfenced), page
    # no image of any result holds the Part F reference weights' bytes (weights_in_figure pasted them in)
    needle = _weights_bytes()
    for image in out.rglob("*.png"):
        assert needle not in np.asarray(Image.open(image).convert("RGB")).tobytes(), image
