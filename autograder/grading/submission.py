"""Reading a submission (.py, .ipynb, folder or .zip) into source text for the worker.

Nothing here runs student code: it only reads files, with limits. A zip is read in memory and
never extracted; symlinks are never followed; sizes are bounded even when an archive lies.
"""
from __future__ import annotations

import io
import json
import lzma
import re
import stat
import tokenize
import zipfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from autograder.assignment import current
from autograder.errors import SubmissionError

MAX_FILE_BYTES = 2 << 20
MAX_TOTAL_BYTES = 8 << 20
MAX_FILES = 200
MAX_ZIP_BYTES = 32 << 20


def entry_names() -> tuple[str, str]:
    """The file a student submits, as a .py and as a notebook (the assignment's manifest)."""
    student_file = current().student_file
    return student_file, f"{PurePosixPath(student_file).stem}.ipynb"


ANSWER_TAGS = {"attnkit:answer", "attnkit:setup"}
MAGIC_LINE = re.compile(r"^\s*(%|!)")


@dataclass(frozen=True)
class Submission:
    """What the worker gets: the entry file's chunks (first line, text) and helper files."""

    name: str
    kind: str  # "py", "ipynb", "folder", "zip"
    filename: str
    chunks: tuple[tuple[int, str], ...]
    files: dict[str, str] = field(default_factory=dict)
    notes: tuple[str, ...] = ()


def submission_name(path: Path) -> str:
    name = path.name
    for suffix in (".py", ".ipynb", ".zip"):
        if name.endswith(suffix):
            return name[: -len(suffix)] or name
    return name


# Files and folders that a batch writes into its output folder beside the submissions' folders.
BATCH_FILES = ("grades.csv", "summary.md", "index.html")


def output_names(paths: list[Path]) -> dict[Path, str]:
    """The results folder of each submission under a batch's output folder: deterministic, and
    no two submissions and no batch file (BATCH_FILES) ever share a name.

    A submission's folder is its name without .py/.ipynb/.zip (alice.py -> alice/) unless that
    name is also another submission's, another entry's full name or a batch file; then it is the
    entry's full name (alice.py/ and alice.zip/; grades.csv.py/), and a full name that is itself
    a batch file gets ~2, ~3... Entries in one folder have distinct full names, so this ends.
    """
    stems = {path: submission_name(path) for path in paths}
    full_names = {path.name for path in paths}
    counts: dict[str, int] = {}
    for stem in stems.values():
        counts[stem] = counts.get(stem, 0) + 1
    names: dict[Path, str] = {}
    for path, stem in stems.items():
        if counts[stem] == 1 and stem not in BATCH_FILES and (stem == path.name or stem not in full_names):
            names[path] = stem
    used = set(names.values()) | set(BATCH_FILES)
    rest = [path for path in sorted(paths, key=lambda p: p.name) if path not in names]
    for path in rest:
        if path.name not in BATCH_FILES:
            names[path] = path.name
            used.add(path.name)
    for path in rest:
        if path not in names:
            number = 2
            while f"{path.name}~{number}" in used:
                number += 1
            names[path] = f"{path.name}~{number}"
            used.add(names[path])
    return names


def output_name(path: Path) -> str:
    """The results folder of a submission graded on its own (`attnkit grade`)."""
    return output_names([Path(path)])[Path(path)]


def decode_python(data: bytes, where: str) -> str:
    """Decode Python source honouring its coding declaration (PEP 263)."""
    if b"\x00" in data:
        raise SubmissionError(f"{where} is not a text file (it contains NUL bytes); submit your {entry_names()[0]}")
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        return data.decode(encoding)
    except (SyntaxError, LookupError, UnicodeDecodeError) as error:
        raise SubmissionError(f"{where} is not readable Python text ({error}); save it as UTF-8") from None


def notebook_chunks(data: bytes, where: str) -> tuple[tuple[int, str], ...]:
    """The answer cells of a notebook, magics and shell escapes dropped."""
    return _notebook(data, where)[0]


def _notebook(data: bytes, where: str) -> tuple[tuple[tuple[int, str], ...], tuple[str, ...]]:
    """(chunks, notes): the answer cells, and a note for each piece of metadata that was ignored."""
    try:
        notebook = json.loads(data.decode("utf-8"))
        cells = notebook["cells"]
        assert isinstance(cells, list)
    except (UnicodeDecodeError, ValueError, KeyError, TypeError, AssertionError, RecursionError) as error:
        raise SubmissionError(f"{where} is not a valid Jupyter notebook ({type(error).__name__}); re-save it from Jupyter") from None
    notes: list[str] = []
    code = [(number, c) for number, c in enumerate(cells, start=1) if isinstance(c, dict) and c.get("cell_type") == "code"]
    tagged = [(number, c) for number, c in code if _is_answer_cell(c, f"{where}: cell {number}", notes)]
    chunks = []
    line = 1
    for number, cell in tagged or code:
        source = cell.get("source", "")
        if isinstance(source, list) and all(isinstance(piece, str) for piece in source):
            text = "".join(source)
        elif isinstance(source, str):
            text = source
        else:
            raise SubmissionError(f"{where}: cell {number} has a source that is not text ({type(source).__name__}); re-save the notebook from Jupyter")
        kept = [ln for ln in text.splitlines() if not MAGIC_LINE.match(ln)]
        body = "\n".join(kept) + "\n"
        chunks.append((line, body))
        line += body.count("\n") + 1
    return tuple(chunks), tuple(notes)


def _is_answer_cell(cell: dict, where: str, notes: list[str]) -> bool:
    """Whether a cell is tagged as an answer cell; malformed metadata is ignored with a note."""
    metadata = cell.get("metadata") or {}
    if not isinstance(metadata, dict):
        notes.append(f"{where}: its metadata is {_shown(metadata)}, not an object; it was read as a cell without tags")
        return False
    tags = metadata.get("tags") or []
    if not isinstance(tags, list) or not all(isinstance(tag, str) for tag in tags):
        notes.append(f"{where}: its metadata \"tags\" is {_shown(tags)}, not a list of strings; it was read as a cell without tags")
        tags = []
    nbgrader = metadata.get("nbgrader") or {}
    if not isinstance(nbgrader, dict):
        notes.append(f"{where}: its metadata \"nbgrader\" is {_shown(nbgrader)}, not an object; it was read as a cell that is not an nbgrader solution")
        nbgrader = {}
    return bool(set(tags) & ANSWER_TAGS) or bool(nbgrader.get("solution"))


def _shown(value: object) -> str:
    return json.dumps(value, ensure_ascii=False)[:60]


def load_submission(path: Path) -> Submission:
    """Read any accepted kind of submission. Raises SubmissionError with the reason and the fix."""
    path = Path(path)
    if path.is_symlink():
        raise SubmissionError(f"{path} is a symbolic link; submit the file itself")
    if path.is_dir():
        return _from_files(path.name, "folder", _read_folder(path))
    if not path.is_file():
        raise SubmissionError(f"no submission at {path}")
    if path.suffix == ".zip":
        return _from_files(submission_name(path), "zip", _read_zip(path))
    if path.suffix not in (".py", ".ipynb"):
        raise SubmissionError(f"{path.name}: expected a .py file, an .ipynb notebook, a folder or a .zip")
    if path.stat().st_size > MAX_FILE_BYTES:
        raise SubmissionError(f"{path.name} is {path.stat().st_size} bytes, over the {MAX_FILE_BYTES >> 20} MiB limit")
    return _from_files(submission_name(path), path.suffix[1:], {path.name: path.read_bytes()}, entry=path.name)


def _read_folder(folder: Path) -> dict[str, bytes]:
    files: dict[str, bytes] = {}
    total = 0
    for item in sorted(folder.rglob("*")):
        relative = item.relative_to(folder).as_posix()
        if any(part.startswith(".") or part == "__pycache__" for part in relative.split("/")):
            continue
        if item.is_symlink():
            continue  # never followed: a link may point anywhere on the grader's machine
        if not item.is_file() or item.suffix not in (".py", ".ipynb"):
            continue
        total += item.stat().st_size
        if len(files) >= MAX_FILES or total > MAX_TOTAL_BYTES:
            raise SubmissionError(f"{folder.name}: more than {MAX_FILES} files or {MAX_TOTAL_BYTES >> 20} MiB of code")
        files[relative] = item.read_bytes()
    return files


def _read_zip(path: Path) -> dict[str, bytes]:
    files: dict[str, bytes] = {}
    total = 0
    try:
        archive = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError, ValueError, NotImplementedError) as error:
        raise SubmissionError(f"{path.name} is not a readable zip archive ({error})") from None
    with archive:
        members = archive.infolist()
        if len(members) > 10 * MAX_FILES:
            raise SubmissionError(f"{path.name} holds {len(members)} entries, more than {10 * MAX_FILES}")
        for info in members:
            name = PurePosixPath(info.filename.replace("\\", "/"))
            if name.is_absolute() or ".." in name.parts or re.match(r"^[A-Za-z]:", info.filename):
                raise SubmissionError(f"{path.name}: entry {info.filename!r} points outside the archive; zip your folder again without absolute paths or '..'")
            if stat.S_ISLNK(info.external_attr >> 16):
                raise SubmissionError(f"{path.name}: entry {info.filename!r} is a symbolic link; zip real files only")
            if info.is_dir() or name.suffix not in (".py", ".ipynb") or any(p.startswith(".") or p == "__MACOSX" for p in name.parts):
                continue
            try:
                with archive.open(info) as member:
                    data = member.read(MAX_FILE_BYTES + 1)  # bounded even if the header lies
            except (zipfile.BadZipFile, zlib.error, lzma.LZMAError, EOFError, OSError, RuntimeError, NotImplementedError) as error:
                raise SubmissionError(f"{path.name}: entry {info.filename!r} cannot be unpacked ({error}); zip your folder again") from None
            total += len(data)
            if len(data) > MAX_FILE_BYTES or total > MAX_ZIP_BYTES or len(files) >= MAX_FILES:
                raise SubmissionError(f"{path.name} unpacks to more than the limits ({MAX_FILE_BYTES >> 20} MiB a file, {MAX_ZIP_BYTES >> 20} MiB, {MAX_FILES} files)")
            files[name.as_posix()] = data
    return _strip_common_folder(files)


def _strip_common_folder(files: dict[str, bytes]) -> dict[str, bytes]:
    """A zip of a folder puts every file under one top folder: drop it."""
    tops = {name.split("/", 1)[0] for name in files}
    if len(tops) == 1 and all("/" in name for name in files):
        return {name.split("/", 1)[1]: data for name, data in files.items()}
    return files


def _from_files(name: str, kind: str, files: dict[str, bytes], entry: str | None = None) -> Submission:
    entry = entry or _find_entry(name, files)
    data = files[entry]
    notes: tuple[str, ...] = ()
    if entry.endswith(".ipynb"):
        chunks, notes = _notebook(data, entry)
        filename = entry_names()[0]
    else:
        chunks = ((1, decode_python(data, entry)),)
        filename = PurePosixPath(entry).name
    helpers = {}
    for other, content in files.items():
        if other != entry and other.endswith(".py"):
            try:
                helpers[other] = decode_python(content, other)
            except SubmissionError:
                continue
    return Submission(name=name, kind=kind, filename=filename, chunks=chunks, files=helpers, notes=notes)


def _find_entry(name: str, files: dict[str, bytes]) -> str:
    for wanted in entry_names():
        matches = [f for f in files if PurePosixPath(f).name == wanted]
        if matches:
            return min(matches, key=lambda f: f.count("/"))
    candidates = [f for f in files if "/" not in f]
    if len(candidates) == 1:
        return candidates[0]
    raise SubmissionError(f"{name}: found no {' or '.join(entry_names())} (files: {', '.join(sorted(files)) or 'none'})")
