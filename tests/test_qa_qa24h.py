"""qa24h, the red team's findings on the grader's own work (both fixed):

- A correct answer beside a 1.7 MB data file it never imports (`EMB_i = (...)`, one a line) got
  85/100: the static pass read every file, ran past its 30 s of CPU, and the rules and Part E's
  figure could not be checked. A file that nothing loads never runs: the static pass now reads the
  files the entry's import statements reach (and theirs, and any named like a library), and every
  file when a file it reads could load a module by other means (`__import__`, importlib, exec,
  open, pickle, sys, os, ...: static.DYNAMIC_*).
- A 2 MB answer held the batch's main process 12 s and 0.9 GB while it took the similarity
  fingerprint (a 6 MB zip: 38 s and 2.5 GB), every other result waiting: the fingerprint reads
  the first SIMILARITY_MAX_CHARS of an answer (the answer first, then its helpers).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from autograder.assignments.attention.rules import LIBRARY_NAMES
from autograder.grading.integrity import similarity
from autograder.grading.integrity.static import analyze
from autograder.settings import SIMILARITY_MAX_CHARS

REFERENCE = (Path(__file__).resolve().parents[1] / "solutions" / "attention" / "attention.py").read_text(encoding="utf-8")
PATCH = "import torch\ntorch.softmax = lambda *a, **k: 0\n"  # a library patched: a finding wherever it is read
ENTRY = "import torch\n\ndef masked_softmax(scores, mask=None):\n    e = scores.exp()\n    return e / e.sum(-1, keepdim=True)\n"


def helper_findings(entry: str, files: dict[str, str]) -> set[str]:
    return {f.scope.rstrip(":") for f in analyze([(1, entry)], files, LIBRARY_NAMES).findings if f.scope}


def test_a_helper_file_nothing_loads_is_not_read():
    assert helper_findings(ENTRY, {"data.py": PATCH}) == set()


@pytest.mark.parametrize("entry, files, read", [
    ("import data\n" + ENTRY, {"data.py": PATCH}, {"data.py"}),
    ("from . import data\n" + ENTRY, {"data.py": PATCH}, {"data.py"}),
    ("import pkg.sub\n" + ENTRY, {"pkg/__init__.py": "", "pkg/sub.py": "from . import deep\n", "pkg/deep.py": PATCH}, {"pkg/deep.py"}),
    (ENTRY, {"tqdm.py": PATCH}, {"tqdm.py"}),  # named like a library: library code may import it
    (ENTRY + "\nm = __import__('da' + 'ta')\n", {"data.py": PATCH}, {"data.py"}),  # loaded by other means: every file is read
    ("import helper\n" + ENTRY, {"helper.py": "import importlib\n", "data.py": PATCH}, {"helper.py", "data.py"}),
    ("import helper\n" + ENTRY, {"helper.py": "x = (\n", "data.py": PATCH}, {"data.py"}),  # a file that does not parse: every file is read
], ids=["import", "relative", "package", "library_name", "dunder_import", "importlib_in_a_helper", "unparsable"])
def test_a_helper_file_the_entry_may_load_is_read(entry, files, read):
    assert helper_findings(entry, files) == read


def test_a_correct_answer_beside_a_large_data_file_it_never_imports_is_read_in_full():
    data = "# generated embeddings\n" + "".join(f"EMB_{i} = ({i}, {i * 7 % 13}, {i * 3 % 11}, {i % 5})\n" for i in range(60_000))  # ~1.7 MB
    facts = analyze([(1, REFERENCE)], {"embeddings.py": data}, LIBRARY_NAMES)
    assert not facts.unread and len(data) > 1_500_000  # not past the static pass's bound: the rules can be checked


def test_the_similarity_fingerprint_reads_an_answers_first_characters_only():
    padded = REFERENCE + "".join(f"EMB_{i} = ({i}, {i % 7})\n" for i in range(120_000))
    taken = similarity._safe_fingerprint("a", padded, None)
    first = similarity._safe_fingerprint("a", padded[:SIMILARITY_MAX_CHARS], None)
    assert len(padded) > 10 * SIMILARITY_MAX_CHARS and np.array_equal(taken.hashes, first.hashes)
