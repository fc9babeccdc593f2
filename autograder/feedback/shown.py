"""Text that a student chose, made safe to show: one rule for every output.

A student chooses the names of the files handed in and what the code prints or raises. Shown to an
instructor (a terminal, feedback.md, a feedback page, the dashboard, grades.csv), a control or
format character must neither act (a terminal escape that clears the screen, a carriage return over
a forged score, a right-to-left override that shows the rest of a name backwards)
nor vanish: `shown` writes each one as its escape (`\\x1b`, `\\u202e`). A results folder name is the
submission's id in every output: `clean_name` replaces those characters with `_` (a backslash does
not belong in a folder name), and keeps the id off what a shell or a spreadsheet reads specially.
"""
from __future__ import annotations

import hashlib
import re
import unicodedata
from typing import TypeVar, cast

Tree = TypeVar("Tree")

UNSAFE_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})  # controls, format (bidi, zero-width), surrogates, line breaks
_MAYBE_UNSAFE = re.compile(r"[^\x20-\x7e]")  # printable ASCII is always safe: only the rest is looked up, one by one
SPECIAL_STARTS = ("-", "=", "+", "@", ".")  # an option to a shell command; a formula in a spreadsheet; a hidden folder
NAME_MAX_BYTES = 100  # a longer name is cut and given a digest of the whole: unique, and a folder name fits


def unsafe(ch: str) -> bool:
    return unicodedata.category(ch) in UNSAFE_CATEGORIES


def _escape(ch: str) -> str:
    return ch.encode("unicode_escape", "backslashreplace").decode("ascii")


def shown(text: str, keep: str = "") -> str:
    """`text` with each control or format character, but those in `keep` (e.g. "\\n\\t" for a
    block of printed output), written as its escape: `\\x1b`, `\\u202e`."""
    return _MAYBE_UNSAFE.sub(lambda m: _escape(m.group()) if m.group() not in keep and unsafe(m.group()) else m.group(), text)


def clean_name(name: str) -> str:
    """A submission's name as its id and results folder: control and format characters as `_`,
    no blank at either end, no `-`, `=`, `+`, `@` or `.` first, at most NAME_MAX_BYTES bytes (a long
    name keeps its start and gets `~` and a digest of the whole). An ordinary name stays itself."""
    cleaned = "".join("_" if unsafe(ch) else ch for ch in name).strip()
    if cleaned.startswith(SPECIAL_STARTS):
        cleaned = "_" + cleaned[1:]
    if len(cleaned.encode("utf-8")) > NAME_MAX_BYTES:
        digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:8]
        cut = cleaned.encode("utf-8")[: NAME_MAX_BYTES - len(digest) - 1].decode("utf-8", "ignore")
        cleaned = f"{cut}~{digest}"
    return cleaned or "_"


def name_key(name: str) -> str:
    """What two names must differ in to be two folders on every file system: not case only
    (macOS, Windows), not Unicode normalization only (macOS)."""
    return unicodedata.normalize("NFC", name).casefold()


def shown_tree(value: Tree) -> Tree:
    """A JSON document that a platform shows (Gradescope's results.json, PrairieLearn's results)
    with shown() applied to every text in it, newlines and tabs kept."""
    if isinstance(value, str):
        return cast(Tree, shown(value, keep="\n\t"))
    if isinstance(value, dict):
        return cast(Tree, {key: shown_tree(item) for key, item in value.items()})
    if isinstance(value, (list, tuple)):
        return cast(Tree, [shown_tree(item) for item in value])
    return value
