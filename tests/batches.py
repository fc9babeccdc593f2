"""Hostile and broken submissions written into an inbox: the one home of the long batches' mix.

Used by the hostile catalogue (tests/test_hostile.py), the kill/resume test (tests/test_resume.py)
and the soak run (bench/soak.py imports it as `tests.batches`: the payloads are test data).
A kind is either a payload of tests/hostile (its file name without `.py`) or one of BROKEN.
"""
from __future__ import annotations

import json
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
REFERENCE = REPO / "solutions" / "attention" / "attention.py"
HOSTILE = REPO / "tests" / "hostile"
EXAMPLES = REPO / "examples" / "submissions"
# Submissions that are not the catalogue's code: undecodable, unparsable, escaping, empty, a
# notebook whose cell metadata is malformed, an import that raises, and two entries (a file and a
# zip) that would land in one output folder.
BROKEN = ("garbage", "broken_notebook", "zip_escape", "empty", "tags_seven", "raise_at_import", "name_clash")


def payload(name: str, **fill: object) -> str:
    """The submission text of tests/hostile/<name>.py; a `# snippet` is appended to the reference.

    `fill` replaces the `@@KEY@@` placeholders (ports, paths); one left unfilled is an error.
    """
    text = (HOSTILE / f"{name}.py").read_text(encoding="utf-8")
    for key, value in fill.items():
        text = text.replace(f"@@{key}@@", str(value))
    if "@@" in text:
        raise ValueError(f"tests/hostile/{name}.py: a placeholder was not filled in")
    return REFERENCE.read_text(encoding="utf-8") + "\n\n" + text if text.startswith("# snippet") else text


def notebook(source: str, metadata: dict[str, object]) -> str:
    """A one-cell notebook holding `source`, its cell carrying `metadata`."""
    cell = {"cell_type": "code", "source": source, "metadata": metadata, "outputs": [], "execution_count": None}
    return json.dumps({"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5})


def write_case(inbox: Path, stem: str, kind: str, **fill: object) -> list[str]:
    """Write submission `stem` of this kind into inbox; returns the entry names it made."""
    reference = REFERENCE.read_text(encoding="utf-8")
    if kind not in BROKEN:
        (inbox / f"{stem}.py").write_text(payload(kind, **fill), encoding="utf-8")
    elif kind == "garbage":
        (inbox / f"{stem}.py").write_bytes(bytes(range(256)) * 8)
    elif kind == "broken_notebook":
        (inbox / f"{stem}.ipynb").write_text("{not json", encoding="utf-8")
    elif kind == "zip_escape":
        with zipfile.ZipFile(inbox / f"{stem}.zip", "w") as zipped:
            zipped.writestr("../attention.py", "x = 1\n")
    elif kind == "empty":
        (inbox / f"{stem}.py").write_text("", encoding="utf-8")
    elif kind == "tags_seven":
        (inbox / f"{stem}.ipynb").write_text(notebook(reference, {"tags": 7}), encoding="utf-8")
    elif kind == "raise_at_import":
        (inbox / f"{stem}.py").write_text(reference.replace("class SelfAttention", "raise RuntimeError('stop')\nclass SelfAttention", 1), encoding="utf-8")
    else:  # name_clash: a file and a zip of the same stem, one folder name
        (inbox / f"{stem}.py").write_text(reference, encoding="utf-8")
        with zipfile.ZipFile(inbox / f"{stem}.zip", "w") as zipped:
            zipped.writestr("attention.py", reference)
        return [f"{stem}.py", f"{stem}.zip"]
    suffix = {"broken_notebook": ".ipynb", "tags_seven": ".ipynb", "zip_escape": ".zip"}.get(kind, ".py")
    return [f"{stem}{suffix}"]
