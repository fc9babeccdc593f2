"""Submission names a student chose (control characters, terminal escapes, newlines, bidi marks,
leading dashes, formulas, very long names, names alike but for case or once cleaned) reach no
output as they are: every results folder, grades.csv, summary.md, the dashboard and the feedback
pages show a clean, unique id (feedback/shown.py), and the same one on every run."""
from __future__ import annotations

import csv
import io
import random
import unicodedata
from pathlib import Path

from autograder.feedback.output import ResultStore
from autograder.feedback.report import write_report
from autograder.feedback.shown import UNSAFE_CATEGORIES, name_key
from autograder.grading.session import GradeOptions, grade_submission
from autograder.grading.submission import output_names
from autograder.settings import OUT_FILES

HOSTILE_NAMES = (
    "evil\x1b]0;pwned\x07.py", "evil_]0;pwned_.py",  # alike once cleaned
    "bob\n: 4/4.ipynb", "bidi\u202egnp.py", "zero\u200bwidth.zip", "tab\there.py",
    "-rf.py", "_rf.py", "=HYPERLINK(1).py", "+1.py", "@sum.py", " padded .py", " .hidden.py",
    "Alice.py", "alice.py", "ALICE.zip",  # alike but for case
    "caf\u00e9.py", "cafe\u0301.py",  # alike but for Unicode normalization (macOS)
    "x" * 240 + ".py", "x" * 240 + ".zip", "长" * 80 + ".py",
    "grades.csv.py", "grades.csv", "plain.py", "folder",
    "similarity.json.py", "grades-canvas.csv.py", "grades-prairielearn.csv.ipynb",  # the report's other files (qa23h)
)


def _unsafe(text: str, keep: str = "") -> list[str]:
    return [ch for ch in text if ch not in keep and unicodedata.category(ch) in UNSAFE_CATEGORIES]


def test_output_names_are_clean_unique_and_the_same_on_every_run():
    paths = [Path("/inbox") / name for name in HOSTILE_NAMES]
    names = output_names(paths)
    for path, name in names.items():
        assert not _unsafe(name), (path.name, name)
        assert not name.startswith(("-", "=", "+", "@", " ", ".")) and name == name.strip(), (path.name, name)
        assert len(name.encode("utf-8")) <= 120, (path.name, name)
    keys = [name_key(name) for name in names.values()]
    assert len(set(keys)) == len(paths)  # unique even on a file system blind to case and normalization
    assert not set(keys) & {name_key(f) for f in OUT_FILES}
    assert {"similarity.json", "grades-canvas.csv", "grades-prairielearn.csv"} <= set(OUT_FILES)
    assert names[Path("/inbox/plain.py")] == "plain" and names[Path("/inbox/folder")] == "folder"  # ordinary names stay
    assert names[Path("/inbox/bidi\u202egnp.py")] == "bidi_gnp"
    assert names[Path("/inbox/-rf.py")] == "_rf.py" and names[Path("/inbox/_rf.py")] == "_rf.py~2"
    shuffled = list(paths)
    random.Random(1).shuffle(shuffled)
    assert output_names(shuffled) == names  # resume and every --shard name a submission alike


def test_every_output_shows_hostile_names_safely(factory, tmp_path):
    inbox, out = tmp_path / "inbox", tmp_path / "out"
    inbox.mkdir()
    unreadable = ("evil\x1b]0;pwned\x07.txt", "bidi\u202etxt.exe", "-rf.txt", "=HYPERLINK(1).txt", "Alice.txt", "alice.txt",
                  "x" * 240 + ".txt")
    for name in unreadable:  # not a kind that is graded: its name goes into the reason too
        (inbox / name).write_text("x")
    (inbox / "crash\u202egnp.py").write_text('raise ValueError("\\x1b[2J\\u202e=cmd|calc")\n')
    paths = sorted(inbox.iterdir())
    names = output_names(paths)
    store = ResultStore(out)
    for path in paths:
        result, images = grade_submission(path, factory, GradeOptions(seed=1, parts=frozenset("A")), names[path])
        store.write(result, images)
    write_report(out, "en")
    write_report(out, "zh")  # the Chinese pages too (the last one written is checked below with the rest)
    folders = sorted(p.name for p in out.iterdir() if p.is_dir())
    assert folders == sorted(names.values())
    texts = {p.relative_to(out).as_posix(): p.read_text(encoding="utf-8")
             for p in out.rglob("*") if (p.suffix in (".csv", ".md", ".html") or p.name == "results.json") and p.is_file()}
    assert len(texts) == 3 + 3 * len(paths)  # attnkit.json, the full model, keeps what was handed in as it was
    for where, text in texts.items():
        assert not _unsafe(text, keep="\n\t" if where.endswith((".md", ".html")) else "\n"), where
    rows = list(csv.DictReader(io.StringIO(texts["grades.csv"])))
    assert sorted(r["submission"] for r in rows) == sorted(names.values())  # the ids, as the folders
    for r in rows:
        assert not any(cell.startswith(("=", "+", "-", "@")) for cell in r.values()), r
    assert "evil\\x1b]0;pwned\\x07.txt" in texts["grades.csv"]  # the reason names the file readably
    crash = names[inbox / "crash\u202egnp.py"]
    feedback = texts[f"{crash}/feedback.md"]
    assert "\\x1b[2J\\u202e=cmd" in feedback  # what it raised, readably


def test_a_folder_given_as_dot_is_named_after_itself(tmp_path, monkeypatch):
    """`attnkit grade .` inside a student's folder writes out/<the folder's name>, not out/_."""
    folder = tmp_path / "alice_attention"
    folder.mkdir()
    monkeypatch.chdir(folder)
    assert output_names([Path(".")]) == {Path("."): "alice_attention"}
