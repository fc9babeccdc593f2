"""Reading a submission (.py, .ipynb, folder or .zip) into source text for the worker.

Nothing here runs student code: it only reads files, with limits. A zip is read in memory and
never extracted; symlinks are never followed; sizes are bounded even when an archive lies.
"""
from __future__ import annotations

import ast
import bisect
import builtins
import codecs
import collections
import contextlib
import functools
import hashlib
import io
import json
import lzma
import os
import re
import stat
import textwrap
import tokenize
import zipfile
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from autograder.assignment import current
from autograder.errors import AttnkitError, SubmissionError
from autograder.grading.chunks import DEFINITION_RE, Cells, string_rows
from autograder.grading.integrity.syntax import bindings
from autograder.paths import regular_files
from autograder.feedback.i18n import LANGS, t
from autograder.feedback.shown import clean_name, name_key
from autograder.settings import OUT_FILES  # names a submission folder may not take
from autograder.settings import SUBMISSION_MAX_FILE_BYTES as MAX_FILE_BYTES
from autograder.settings import SUBMISSION_MAX_FILES as MAX_FILES
from autograder.settings import NOTEBOOK_MAX_OWN_STATEMENTS as MAX_OWN_STATEMENTS
from autograder.settings import SUBMISSION_MAX_TOTAL_BYTES as MAX_TOTAL_BYTES
from autograder.settings import SUBMISSION_MAX_ZIP_BYTES as MAX_ZIP_BYTES
from autograder.settings import SUBMISSION_MAX_ZIP_ENTRIES as MAX_ZIP_ENTRIES

MAX_NAMES_SHOWN = 10  # files named in "found no attention.py": enough to see the misnamed one


GRADED_PUBLIC_CHECKS = '''"""The public checks, as a graded run's worker has them: each check does nothing (the grader
checks), and nothing else of the file is here (its own versions of the tasks are answers)."""


def __getattr__(name):
    if name.startswith("check_") or name == "use_cjk_font":
        return lambda *args, **kwargs: None
    raise AttributeError(f"{__name__} has no {name!r} in a graded run: only its checks, which do nothing there")
'''

def entry_names() -> tuple[str, ...]:
    """The file a student submits, as a .py and as a notebook, English or Chinese (the assignment's manifest)."""
    manifest = current()
    return manifest.student_file, manifest.notebook_name("en"), manifest.notebook_name("zh")


STUB_MARK = b"raise NotImplementedError"  # what a task the student has not written still holds
ANSWER_TAGS = {"attnkit:answer", "attnkit:setup"}
# IPython's own syntax, a line at a time: a magic or shell escape (`%timeit f(x)`, `!ls`), a help
# request (`torch.amax?`, `??plot`), a value taken from either (`t = %timeit -o f(x)`, `files = !ls`).
# Not IPython's TransformerManager: it tokenizes the whole cell again for each such line (42 s for
# one 451 KiB cell of 400 magics, measured), and a notebook is the student's to make that big.
MAGIC_LINE = re.compile(r"^(\s*)(?:%|!|\?{1,2}[\w.*]+\s*$|[\w.*]+\?{1,2}\s*$)")
MAGIC_VALUE = re.compile(r"^(\s*[\w.\[\]'\",][\w.\[\]'\", \t]*=\s*)[%!]")  # no two ways to match a space: linear on a line of 10^6 (qa49n)
TIME_MAGIC = re.compile(r"^(\s*)([\w.\[\]'\",][\w.\[\]'\", \t]*=\s*)?%time[ \t]+(.+)$")  # [x = ]%time <code>: IPython runs the code in the notebook's names (qa51h h07)
RUN_MAGIC = re.compile(r"^(\s*)%run\s+(?:-[A-Za-z]+\s+)*(?:\./)?([A-Za-z_]\w*)(?:\.py)?(?:\s.*)?$")  # %run [-i|-m...] helpers[.py] [its argv, a comment]: the helper file's names into the notebook (qa50h h08, h12)


@dataclass(frozen=True)
class Submission:
    """What the worker gets: the entry file's chunks (first line, text) and helper files."""

    name: str
    kind: str  # "py", "ipynb", "folder", "zip"
    filename: str
    chunks: tuple[tuple[int, str], ...]
    files: dict[str, str] = field(default_factory=dict)  # the student's own helper files: scanned, compared
    notes: tuple[str, ...] = ()
    kit: dict[str, str] = field(default_factory=dict)  # the kit's own files handed in unchanged, as the kit has them: run, never scanned
    cells: Cells = ()  # a notebook: where each chunk is in it (grading/chunks.py), for "cell 7, line 3"
    kernel: bool = False  # its code ran in a Jupyter kernel (a notebook, or a .py nbconvert wrote from one): `display` is there
    entry: str = ""  # the graded file's path in the hand-in (attention.zh.ipynb: the feedback's language)


def submission_name(path: Path) -> str:
    name = path.name or path.resolve().name  # `attnkit grade .`: the folder's own name
    for suffix in (".py", ".ipynb", ".zip"):
        if name.endswith(suffix):
            return name[: -len(suffix)] or name
    return name


# Files and folders that a batch writes into its output folder beside the submissions' folders.


def output_names(paths: list[Path]) -> dict[Path, str]:
    """The results folder of each submission under a batch's output folder, which is also its id in
    every output (grades.csv, the dashboard, feedback): deterministic, made of the names in the
    folder alone, shown safely (shown.clean_name), and no two submissions and no batch file
    (OUT_FILES) ever share one, not even in case only (name_key: a copy on macOS or Windows).

    A submission's folder is its cleaned name without .py/.ipynb/.zip (alice.py -> alice/) unless
    that name is also another submission's, another entry's full name or a batch file; then it is
    the entry's cleaned full name (alice.py/ and alice.zip/; grades.csv.py/), and a full name that
    is taken (a batch file; two names alike once cleaned) gets ~2, ~3..., in name order.
    """
    stems = {path: clean_name(submission_name(path)) for path in paths}
    fulls = {path: clean_name(path.name) for path in paths}
    stem_counts = collections.Counter(name_key(stem) for stem in stems.values())
    full_keys = collections.Counter(name_key(full) for full in fulls.values())
    batch_keys = {name_key(name) for name in OUT_FILES}
    names: dict[Path, str] = {}
    for path, stem in stems.items():
        key = name_key(stem)
        own = key == name_key(fulls[path])
        if stem_counts[key] == 1 and key not in batch_keys and full_keys[key] == int(own):
            names[path] = stem
    used = {name_key(name) for name in names.values()} | batch_keys
    rest = [path for path in sorted(paths, key=lambda p: p.name) if path not in names]
    for path in rest:
        if name_key(fulls[path]) not in used:
            names[path] = fulls[path]
            used.add(name_key(fulls[path]))
    for path in rest:
        if path not in names:
            number = 2
            while name_key(f"{fulls[path]}~{number}") in used:
                number += 1
            names[path] = f"{fulls[path]}~{number}"
            used.add(name_key(names[path]))
    return names


def submission_digest(path: Path) -> str:
    """sha256 of what was handed in: a file's bytes, or a folder's files (names and bytes); ""
    when it cannot be read or is larger than a submission may be (it is then never taken as done).
    Never raises: it runs before any error handling (qa31h: a folder 1,200 deep, a 64 GiB file or
    a FIFO stopped the whole batch)."""
    digest, total, limit = hashlib.sha256(), 0, 2 * MAX_ZIP_BYTES + MAX_TOTAL_BYTES
    try:
        if path.is_symlink():
            return ""
        files = regular_files(path) if path.is_dir() else [path] if path.is_file() else []
        for file in files:
            total += file.stat().st_size
            if total > limit:  # measured before reading: a file larger than memory is not read
                return ""
            with file.open("rb") as handle:
                data = handle.read(limit)
            name = os.fsencode(file.relative_to(path).as_posix()) if file != path else b""  # its bytes, UTF-8 or not
            digest.update(len(name).to_bytes(8, "big") + name + len(data).to_bytes(8, "big") + data)
    except (OSError, ValueError, MemoryError):
        return ""
    return digest.hexdigest() if files or path.is_dir() else ""


def output_name(path: Path) -> str:
    """The results folder of a submission graded on its own (`attnkit grade`)."""
    return output_names([Path(path)])[Path(path)]


def decode_python(data: bytes, where: str) -> str:
    """Decode Python source honouring its coding declaration (PEP 263)."""
    if b"\x00" in data:
        raise SubmissionError(t("submission.nul", file=where, student_file=current().student_file))
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        return declared_utf8(data.decode(encoding))
    except (SyntaxError, LookupError, UnicodeDecodeError) as error:
        raise SubmissionError(t("submission.encoding", file=where, error=error)) from None


COMMENT_OR_BLANK = re.compile(r"^[ \t\f]*(?:#|$)")  # tokenize.blank_re, for a line without its end
SOURCE_LINE = re.compile(r"([^\r\n]*)(?:\r\n|\r|\n|$)")  # a line as Python's tokenizer ends it: a lone CR too


def declared_utf8(text: str) -> str:
    """Python source held as text, its coding declaration (PEP 263: line 1 or 2) made to say UTF-8,
    the lines kept. The worker writes helper files in UTF-8, and Python decodes a file it imports by
    its declaration: a `# coding: utf-7` file was decoded twice, and `+AAo-` in what the static pass
    read as a comment became a newline, and code (qa29h r03). Lines end as Python's tokenizer ends
    them, a lone CR included (tokenize.detect_encoding ends them at LF alone: a CR before a
    declaration on line 2 hid it, qa30h r01)."""
    start = 0
    for _ in range(2):
        line = SOURCE_LINE.match(text, start)
        assert line is not None  # it matches anywhere
        cookie = tokenize.cookie_re.match(line.group(1))
        if cookie and _codec(cookie.group(1)) != "utf-8":
            return text[:start + cookie.start(1)] + "utf-8" + text[start + cookie.end(1):]
        if cookie or not COMMENT_OR_BLANK.match(line.group(1)) or line.end() == len(text):  # line 2 counts only below a comment or a blank line
            break
        start = line.end()
    return text


def _codec(name: str) -> str:
    try:
        return codecs.lookup(name).name
    except LookupError:
        return ""


def notebook_chunks(data: bytes, where: str) -> tuple[tuple[int, str], ...]:
    """The answer cells of a notebook, magics and shell escapes blanked."""
    return _notebook(data, where)[0]


def _notebook(data: bytes, where: str, scripts: dict[str, str] | None = None) -> tuple[tuple[tuple[int, str], ...], tuple[str, ...], Cells, dict[str, str]]:
    try:
        return _notebook_read(data, where, scripts or {})
    finally:
        _parsed.cache_clear()


def _notebook_read(data: bytes, where: str, scripts: dict[str, str]) -> tuple[tuple[tuple[int, str], ...], tuple[str, ...], Cells, dict[str, str]]:
    """(chunks, notes, cells, files): the answer cells, a note for each piece of metadata that was
    ignored, where each chunk is in the notebook (grading/chunks.py: "cell 7, line 3"), and the
    files its `%%writefile x.py` cells write (Jupyter writes them and runs none of their code).
    `scripts`: the Python files handed in beside it, by module name (what `%run x.py` runs).

    Read with json, not nbformat: a cold `import nbformat` costs as much as `import torch` here
    (1.05x; jsonschema compiles an rfc3987 grammar; bench/notebook_reader.py), a graded notebook
    needs only cells, sources and tags, each checked below. The released notebooks use nbformat.
    """
    try:
        notebook = json.loads(data.decode("utf-8-sig"))  # an editor may save a byte-order mark first
        version = notebook.get("nbformat")
    except (UnicodeDecodeError, ValueError, AttributeError, RecursionError) as error:
        raise SubmissionError(t("submission.notebook", file=where, error=type(error).__name__)) from None
    if isinstance(version, int) and not isinstance(version, bool) and version < 4:
        raise SubmissionError(t("submission.notebook_old", file=where, version=version))
    cells = notebook.get("cells")
    if not isinstance(cells, list):
        raise SubmissionError(t("submission.notebook", file=where, error="cells"))
    return _cells_read(cells, where, scripts)


def _cells_read(cells: list, where: str, scripts: dict[str, str], lines: list[int] | None = None) -> tuple[tuple[tuple[int, str], ...], tuple[str, ...], Cells, dict[str, str]]:
    """_notebook_read's work on a notebook's cells; `lines`: for the cells of a file nbconvert
    wrote (_export_read), the line of that file where each begins, which its notes name."""
    notes: list[str] = []
    code = [(number, c) for number, c in enumerate(cells, start=1) if isinstance(c, dict) and c.get("cell_type") == "code"]
    written = _written_files(code)
    # Run All writes attention.py and the cells that import attention then import it: the grader's
    # module of the notebook is attention, so that file's code is the notebook's own (qa50h h09)
    student_file = {number: body for number, (file, body) in written.items() if file == entry_names()[0]}
    imported = re.compile(rf"^[ \t]*(?:from[ \t]+|import[ \t]+(?:[\w.]+[ \t]*,[ \t]*)*){re.escape(PurePosixPath(entry_names()[0]).stem)}\b", re.MULTILINE)
    if not any(imported.search(_source_text(c) or "") for number, c in code if number not in written):
        student_file = {}  # a copy written for handing in, which no cell imports, is not run
    code = [(number, {**c, "source": "\n" * ((_source_text(c) or "").count("\n") - student_file[number].count("\n")) + student_file[number]} if number in student_file else c)
            for number, c in code if number not in written or number in student_file]
    written = {number: w for number, w in written.items() if number not in student_file}
    runs = _RunLines({**scripts, **{file.removesuffix(".py"): text for file, text in written.values()}})
    malformed: list[str] = []
    tagged = [(number, c) for number, c in code if _is_answer_cell(c, f"{where}: cell {number}", malformed)]
    notes.extend(malformed[:MAX_CELL_NOTES])  # one a cell: 85,000 cells of bad tags wrote 12 MB of feedback (qa26h n02)
    if len(malformed) > MAX_CELL_NOTES:
        notes.append(t("submission.metadata_more", file=where, count=str(len(malformed) - MAX_CELL_NOTES)))
    answers = [(number, _cell_code(cell, where, number, runs)) for number, cell in tagged]
    kit = _kit_cells(current().release_dir, tuple(current().notebook_name(lang) for lang in LANGS))
    own = []  # the student's cells: neither an answer cell nor one of the kit's, unchanged
    checks = [number for number, cell in code if _is_grade_cell(cell)]  # where nbgrader grades: after them, a definition changes nothing
    nbgrader_graded = bool(checks)
    not_own = {number for number, _ in tagged} | set(checks)  # sets: 110,000 tagged cells compared pairwise held the grader (qa23h)
    for number, cell in code:
        if number not in not_own:
            try:
                text = _cell_code(cell, where, number, runs)
            except SubmissionError:
                if tagged:  # a scratch cell the grader would not run
                    continue
                raise
            if _plain(text) not in kit:
                own.append((number, text))
            elif not nbgrader_graded:
                checks.append(number)  # the kit's check cells: a task's answer is what its check saw
    statements = sum(len(tree.body) for _, text in own if (tree := _parsed(text)))
    if statements > MAX_OWN_STATEMENTS:  # each is read by several steps below: 2.5 MB of `h = 1` lines held the grader 46 s (qa25h)
        notes.append(t("submission.own_cells_too_many", file=where, count=f"{statements:,}", limit=f"{MAX_OWN_STATEMENTS:,}"))
        own = []
    # a check cell the student edited (a line added) still checks its task where it stands
    checking = sorted([(number, _checked_code(_source_text(cells[number - 1]) or "", runs)) for number in checks]
                      + [(number, text) for number, text in own if "public_checks" in _needs(_parsed(text) or ast.Module([], []))])
    task_checks = _task_checks(checking)
    promoted = _untagged_answers(answers, own, task_checks)
    if promoted:
        setup = _kit_cells(current().release_dir, tuple(current().notebook_name(lang) for lang in LANGS), "attnkit:setup")
        own_setup = [cell for cell in own if cell not in promoted and _plain(cell[1]) in setup]  # the kit's setup cell, its tag lost too
        answers = sorted(answers + promoted + own_setup)
        own = [cell for cell in own if cell not in promoted and cell not in own_setup]
        if lines is None:  # an export has no tags to lose: its note says how its cells are read
            notes.append(t("submission.untagged_answer", file=where,
                           cells=", ".join(f"{number} ({', '.join(names)})" for number, names in _task_names_in(promoted).items())))
    answers, late = _without_late_answers(answers, task_checks, sorted(checks))
    if answers:  # a task left a stub, written in a cell of the student's below its check cell: not run either (qa21p)
        late |= _late_in_own(own, task_checks, _stubbed(answers))
    notes.extend(t("submission.answer_after_check", file=where, number=number, names=", ".join(names[:MAX_CELL_NOTES]), check=check) if lines is None
                 else t("submission.export_after_check", file=where, line=lines[number - 1], names=", ".join(names[:MAX_CELL_NOTES]), check=lines[check - 1])
                 for number, (names, check) in sorted(late.items())[:MAX_CELL_NOTES])
    graded = answers or own  # no answer cell, no task written: graded as every cell of the student's
    if answers:
        kept = _own_definitions(answers, own, sorted(checks), task_checks)
        graded = sorted(answers + [(number, body) for number, (body, _) in kept.items()])
        said = sorted(kept.items())[:MAX_CELL_NOTES]
        notes.extend(t("submission.untagged_definition", file=where, number=number, names=", ".join(names[:MAX_CELL_NOTES])) if lines is None
                     else t("submission.export_definition", file=where, line=lines[number - 1], names=", ".join(names[:MAX_CELL_NOTES]))
                     for number, (_, names) in said)
        if len(kept) > len(said):
            notes.append(t("submission.untagged_more", file=where, count=len(kept) - len(said)))
    notes.extend(_tasks_outside_code(cells, graded, where))
    chunks = []
    cells = []
    line = 1
    for number, body in graded:
        chunks.append((line, body))
        cells.append((line, number))
        line += body.count("\n") + 1
    return tuple(chunks), tuple(notes), tuple(cells), dict(written.values())


@functools.cache
def _kit_cells(release: Path, notebooks: tuple[str, ...], tag: str = "") -> frozenset[str]:
    """The code of the released notebooks' own cells (check cells, demos, Part F), those with no
    answer or setup tag, as _plain gives it; with `tag`, of the cells with that tag instead."""
    found = set()
    for name in notebooks:
        try:
            cells = json.loads((release / name).read_text(encoding="utf-8"))["cells"]
        except (OSError, ValueError, KeyError):
            continue
        for number, cell in enumerate(cells, start=1):
            if cell.get("cell_type") != "code":
                continue
            if (tag in ((cell.get("metadata") or {}).get("tags") or [])) if tag else not _is_answer_cell(cell, name, []):
                found.add(_plain(_cell_code(cell, name, number)))
    return frozenset(found)


WRITEFILE = re.compile(r"""\A\s*%%writefile\s+(["']?)(?:\.[/\\])?((?:[A-Za-z_]\w*[/\\])*[A-Za-z_]\w*\.py)\1\s*\n""")  # a cell that writes a helper file, beside the notebook or in a folder below it, quoted or not, with slashes or backslashes (not -a: appends)


def _written_files(code: list[tuple[int, dict]]) -> dict[int, tuple[str, str]]:
    """{cell number: (file name, text)} of the cells that write a Python file with %%writefile;
    the last cell writing a name wins, as in Run All."""
    found: dict[int, tuple[str, str]] = {}
    for number, cell in code:
        text = _source_text(cell) or ""
        match = WRITEFILE.match(text)
        if match:
            found[number] = (match.group(2).replace("\\", "/"), text[match.end():])
    return found


def _plain(code: str) -> str:
    """A cell's code for comparing with the kit's: line endings and trailing blanks ignored."""
    return "\n".join(line.rstrip() for line in code.replace("\r\n", "\n").splitlines()).strip()


def _cell_code(cell: dict, where: str, number: int, runs: _RunLines | None = None) -> str:
    """A code cell's source, magics and shell escapes blanked (the lines keep their numbers; %run of a helper file imports it)."""
    text = _source_text(cell)
    if text is None:
        raise SubmissionError(t("submission.cell_source", file=where, number=number, kind=type(cell.get("source")).__name__))
    return _checked_code(text, runs) + "\n"


# The cell magics whose body IPython runs as Python in the kernel's namespace; any other (%%script
# false, %%bash, %%html, %%markdown...) runs no Python there, or is not loaded, and %%timeit runs it
# inside a function of its own: Run All defines nothing in such a cell (qa41h F7: an old try kept
# under %%script false was graded; qa50h h10: a task written only under %%timeit).
KERNEL_CELL_MAGICS = frozenset({"time", "capture", "prun", "debug"})
CELL_MAGIC = re.compile(r"\A(?:[ \t]*\n)*%%(\w*)")


def _checked_code(text: str, runs: _RunLines | None = None) -> str:
    """A cell's code as IPython runs it, its lines kept: its pasted indentation and prompts
    removed, its magics and shell escapes blanked; a cell whose body is not run as Python in the
    kernel, all blank."""
    lines = PYTHON_LINE_END.split(text)  # Python ends a line at CR or LF only: a U+2028 in a comment is not code (qa50h h04)
    if len(lines) > 1 and not lines[-1]:
        lines.pop()  # the cell's last line end, as str.splitlines
    lines = _cleaned(lines)
    magic = CELL_MAGIC.match("\n".join(lines))
    if magic and magic.group(1) not in KERNEL_CELL_MAGICS:
        return "\n" * len(PYTHON_LINE_END.findall(text))
    runs = runs or NO_SCRIPTS
    blanked = [_magic_blanked(line, runs) for line in lines]
    changed = {row for row, (line, graded) in enumerate(zip(lines, blanked), start=1) if line != graded}
    for row in changed - _statement_rows("\n".join(lines)) if changed else ():  # `!= x` or `% n` that continues a statement is Python (qa50h h01)
        blanked[row - 1] = lines[row - 1]
    return "\n".join(blanked)


PYTHON_LINE_END = re.compile(r"\r\n|\r|\n")
CLASSIC_PROMPT, CLASSIC_FIRST = re.compile(r"^(>>>|\.\.\.)( |$)"), re.compile(r"^>>>( |$)")
IPYTHON_PROMPT = re.compile(r"^(((\[nav\]|\[ins\])? )?In \[\d+\]: |[ \t]*\.{3,}: ?)")


def _cleaned(lines: list[str]) -> list[str]:
    """A cell's lines after IPython's cleanup (IPython.core.inputtransformer2: leading_indent,
    classic_prompt, ipython_prompt), blank lines at its top kept: a cell pasted indented, or with
    `>>> ` or `In [3]: ` prompts, runs in Jupyter (qa50h h02, h03). IPython is not in the grading
    image, and its TransformerManager was measured unfit (qa49n): these are its rules."""
    start = next((row for row, line in enumerate(lines) if line.strip()), len(lines))
    if lines[start:] and lines[start][:1] in (" ", "\t"):
        lines = textwrap.dedent("\n".join(lines)).split("\n")
    for prompt, first in ((CLASSIC_PROMPT, CLASSIC_FIRST), (IPYTHON_PROMPT, IPYTHON_PROMPT)):
        code = lines[start:]  # its first line and the one after it, blank or not, say whether it holds prompts (qa51h h09)
        if code and (first.match(code[0]) or (len(code) > 1 and prompt.match(code[1]))):
            lines = [prompt.sub("", line, count=1) for line in lines]
    return lines


def _statement_rows(code: str) -> set[int]:
    """The rows (from 1) of a cell on which a statement begins, as IPython finds them
    (inputtransformer2.make_tokens_by_line): not a row inside brackets, after a backslash or inside
    a string; the tokenizer reads IPython's syntax as error tokens and goes on. Rows past an error
    it stops at count as beginnings."""
    rows, starting, depth, row = set(), True, 0, 0
    try:
        for token in tokenize.generate_tokens(io.StringIO(code).readline):
            row = token.end[0]
            if token.type in (tokenize.NL, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER):
                starting = starting or (token.type == tokenize.NL and depth == 0)
                continue
            if starting:
                rows.add(token.start[0])
            starting = token.type == tokenize.NEWLINE
            if token.type == tokenize.OP and token.string in "([{":
                depth += 1
            elif token.type == tokenize.OP and token.string in ")]}":
                depth = max(depth - 1, 0)
    except (tokenize.TokenError, SyntaxError):
        rows.update(range(row + 1, code.count("\n") + 2))
    return rows


def _source_text(cell: dict) -> str | None:
    """A cell's source as one string (nbformat allows a string or a list of lines); None when it is neither."""
    source = cell.get("source", "")
    if isinstance(source, list) and all(isinstance(piece, str) for piece in source):
        return "".join(source)
    return source if isinstance(source, str) else None


def _magic_blanked(line: str, runs: _RunLines) -> str:
    """A line of a cell as the grader runs it: a line of IPython's syntax does nothing (`pass`, or
    None for the value it gives: its indentation kept, so a loop around it stays a loop, qa49n), but
    `%run helpers.py` (a file of the student's beside the notebook) imports that file (`_RunLines`)."""
    if run := RUN_MAGIC.match(line):
        return run.group(1) + runs.line(run.group(2))
    if (timed := TIME_MAGIC.match(line)) and _parses(timed.group(3), "eval" if timed.group(2) else "exec"):
        return (timed.group(1) or "") + (timed.group(2) or "") + timed.group(3)
    if value := MAGIC_VALUE.match(line):
        return value.group(1) + "None"
    if magic := MAGIC_LINE.match(line):
        return magic.group(1) + "pass"
    return line


def _parses(code: str, mode: str) -> bool:
    try:
        ast.parse(code, mode=mode)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


MAX_RUN_IMPORTS = 20  # %run lines of a notebook that import each name of their file
MAX_RUN_NAMES = 500  # names each imports, of at most 100 characters


class _RunLines:
    """What each `%run helpers.py` line of a notebook becomes: `from helpers import *` (a file not
    handed in then says so), and an import of each name the file's top level binds: %run gives the
    notebook every name the script defines, where `import *` leaves out those with a leading
    underscore, or those its __all__ does not list (qa28s n10). Only so many lines and names: 10,000
    %run lines of a file of 50,000 names would make gigabytes of code."""

    def __init__(self, scripts: dict[str, str]):
        self.scripts = scripts  # module name -> the text of the Python file beside the notebook
        self.left = MAX_RUN_IMPORTS
        self.names: dict[str, str] = {}

    def line(self, module: str) -> str:
        star = f"from {module} import *"
        if module not in self.scripts or self.left <= 0:
            return star
        if module not in self.names:
            tree = _parsed(self.scripts[module])
            bound = sorted(name for name in _top_level_names(tree) if name.isidentifier() and not name.startswith("__") and len(name) <= 100) if tree else []
            self.names[module] = ", ".join(bound[:MAX_RUN_NAMES])
        self.left -= 1
        return star + (f"; from {module} import {self.names[module]}" if self.names[module] else "")


NO_SCRIPTS = _RunLines({})  # a cell read with no helper file beside it: every %run line is an import * (line() changes nothing then)


def _own_definitions(answers: list[tuple[int, str]], own: list[tuple[int, str]], checks: list[int], task_checks: dict[str, int]) -> dict[int, tuple[str, list[str]]]:
    """What the student's own cells (those without an answer tag) give the answer cells when the
    notebook runs top to bottom, as Run All and nbgrader run it: the top-level statements that bind
    a name the answer cells use and do not bind (a helper in a new cell) above the last check cell
    that uses it (a scratch cell below it that writes the helper again comes after the checks ran
    and changes nothing of what they saw), or define again below
    the answer cell and before the next check cell (`checks`: where the task was checked; nbgrader's
    grade cells in a notebook that has them), or for a task before its own check cell
    (`task_checks`: a draft in an earlier task's cell), as the solution written in a new cell
    below the task's stub; and the statements those need in turn. Nothing else of those cells runs (demos,
    prints, training need the kit's cells).
    {cell number: (its code with every other statement blanked, the names kept)}."""
    defined: dict[str, tuple[int, int]] = {}  # a function or class an answer cell defines at its top level: (that cell, the next check cell)
    used: dict[str, int] = {}  # a name the answer cells use: the last check cell that saw it used
    bound: set[str] = set()
    for number, text in answers:
        tree = _parsed(text)
        if tree:
            later = bisect.bisect_right(checks, number)  # checks is sorted: not a scan per answer cell
            until = checks[later] if later < len(checks) else ANYWHERE[1]
            defined.update((node.name, (number, max(until, task_checks.get(node.name, 0))))  # a task: up to its own check
                           for node in tree.body if isinstance(node, _DEFINITIONS))
            used.update((name, max(until, used.get(name, 0))) for name in _needs(tree))
            bound |= _bound(tree)
    binding: dict[str, dict[int, list[ast.stmt]]] = collections.defaultdict(dict)  # name -> {own cell: its statements that bind it}, cells in order
    for number, text in own:
        for node in (tree.body if (tree := _parsed(text)) else ()):
            for name in _top_level_names(ast.Module([node], [])):
                binding[name].setdefault(number, []).append(node)
    cells = {name: sorted(found) for name, found in binding.items()}  # the cells that bind each name, in order
    kept: dict[int, dict[ast.stmt, None]] = collections.defaultdict(dict)  # in the order taken; a statement once
    # (name, (only from the cells between these two)): a helper as the checks that use it saw it, not
    # as a scratch cell below the last of them wrote it again
    todo = [(name, (ANYWHERE[0], until)) for name, until in used.items() if name not in bound and name not in dir(builtins)]
    todo += list(defined.items())
    taken: dict[str, int] = {}  # name -> every cell above this one was taken for it (from the top: the widest range so far)
    while todo:  # each statement looked at once per range that reaches it first: a chain of helpers costs its length, not its square
        name, (below, until) = todo.pop()
        start = below + 1
        if below == ANYWHERE[0]:  # from the top: what an earlier, wider range took is taken
            start = max(start, taken.get(name, start))
            if until <= start:
                continue
            taken[name] = until
        found = cells.get(name, [])
        for number in found[bisect.bisect_left(found, start):bisect.bisect_left(found, until)]:
            for node in binding[name][number]:
                if node not in kept[number]:
                    kept[number][node] = None
                    todo.extend((needed, (ANYWHERE[0], until)) for needed in _needs(node) - bound - set(dir(builtins)))
    texts = dict(own)
    return {number: (_only(texts[number], list(nodes)), sorted(set().union(*(_top_level_names(ast.Module([n], [])) for n in nodes))))
            for number, nodes in sorted(kept.items()) if nodes}


def _task_checks(checks: list[tuple[int, str]]) -> dict[str, int]:
    """{task name: the cell of its check}: the first check cell (`checks`: (number, code)) that
    uses the task or a later one (a task whose check cell was deleted is checked by the next
    task's, as Run All leaves it when that one runs); a task no check cell names is left out."""
    order = list(dict.fromkeys(current().task_names.values()))
    uses = [(number, _needs(tree) if (tree := _parsed(text)) else set()) for number, text in checks]
    found = {name: next((number for number, used in uses if used & set(order[i:])), None) for i, name in enumerate(order)}
    return {name: number for name, number in found.items() if number is not None}


def _names_defined(text: str) -> set[str]:
    tree = _parsed(text)
    return {name for node in (tree.body if tree else []) for name in _statement_names(node)}


def _stubbed(answers: list[tuple[int, str]]) -> set[str]:
    """The tasks whose answer cell still holds the stub."""
    tasks = set(current().task_names.values())
    found = set()
    for _, text in answers:
        tree = _parsed(text)
        if tree is None:
            continue
        segment = _segments(text)
        for node in tree.body:
            if STUB_MARK in segment(node):
                found |= _statement_names(node) & tasks
    return found


_LINE_END = re.compile(rb"\r\n|\r|\n")  # the line ends of Python's tokenizer (not str.splitlines')


def _segments(text: str) -> Callable[[ast.stmt], bytes]:
    """ast.get_source_segment for the statements of one text that parses, in UTF-8 (ast's columns
    count its bytes): the text encoded and its lines found once. The library splits the whole text
    again for each statement (an answer cell of 8,000 statements held the grader 107 s, and the
    batch's main process as long again: qa26h n01), and a line's characters counted again for each
    statement on it cost as much on one long line (20,000 statements on a line: 8 s; qa28h s01)."""
    data = text.encode()
    starts = [0, *(match.end() for match in _LINE_END.finditer(data))]

    def segment(node: ast.stmt) -> bytes:
        if node.end_lineno is None or node.end_col_offset is None:
            return b""
        return data[starts[node.lineno - 1] + node.col_offset:starts[node.end_lineno - 1] + node.end_col_offset]

    return segment


def _late_in_own(own: list[tuple[int, str]], task_checks: dict[str, int], stubbed: set[str]) -> dict[int, tuple[list[str], int]]:
    """{cell number: (the stubbed tasks it defines below their check cells, the first such check
    cell)}; a task written in its answer cell and again below (a scratch experiment) is not named."""
    defines = {number: _names_defined(text) & stubbed for number, text in own}
    written = {name for number, names in defines.items() for name in names if number < task_checks.get(name, 0)}  # above the check: graded
    late = {}
    for number, names_here in defines.items():
        below = [name for name in sorted(names_here - written) if 0 < task_checks.get(name, 0) < number]
        if below:
            late[number] = (below, task_checks[below[0]])
    return late


def _without_late_answers(answers: list[tuple[int, str]], task_checks: dict[str, int], checks: list[int]) -> tuple[list[tuple[int, str]], dict[int, tuple[list[str], int]]]:
    """The answer cells without the statements that bind a task again below that task's check
    cell (`task_checks`): a task is graded as its check cell saw it (the contract), so a later
    task's cell that writes it again (an unscaled MultiHeadAttention in the block's cell, an
    import of the library's class under the task's name) changes neither that task nor the tasks
    that use it, and a draft of a task in an earlier task's cell is replaced by the task's own
    cell above its check, as Run All replaces it. A task first written below its check cell
    counts up to the next check cell (`checks`). Also {cell number: (the names left out, the check cell)}."""
    tasks = set(current().task_names.values())
    checked: dict[str, int] = {}  # task name -> the check cell that saw it
    kept, late = [], {}
    for number, text in answers:
        tree = _parsed(text)
        nodes = list(tree.body) if tree else []
        bound = [_statement_names(node) for node in nodes]
        again = [node for node, names in zip(nodes, bound) if any(checked.get(name, ANYWHERE[1]) < number for name in names)]
        for name in sorted(set().union(*bound) & tasks - set(checked)):
            own = task_checks.get(name, 0)  # none: a notebook whose check cells name no task (nbgrader's grade cells)
            checked[name] = own if own > number else next((check for check in checks if check > number), ANYWHERE[1])
        if again:
            late_ones = set(map(id, again))  # a set: a list's `in` made a cell of N late statements N² (qa27h n01)
            kept.append((number, _only(text, [node for node in nodes if id(node) not in late_ones])))
            names = [name for node, its in zip(nodes, bound) if id(node) in late_ones for name in sorted(its) if checked.get(name, ANYWHERE[1]) < number]
            late[number] = (list(dict.fromkeys(names)), checked[names[0]])
        else:
            kept.append((number, text))
    return kept, late


def _statement_names(node: ast.AST) -> set[str]:
    """The names a top-level statement binds in the module: a definition, an import, an
    assignment, and those under its if/for/while/with/try (not inside a function or class)."""
    names = _top_level_names(ast.Module([node], [])) if isinstance(node, ast.stmt) else set()
    if not isinstance(node, _DEFINITIONS):
        for field in ("body", "orelse", "finalbody", "handlers"):
            for child in getattr(node, field, None) or ():
                names |= _statement_names(child)
    return names


def _untagged_answers(answers: list[tuple[int, str]], own: list[tuple[int, str]], task_checks: dict[str, int]) -> list[tuple[int, str]]:
    """The student's own cells that are where a task is written, since no answer cell writes it:
    its tagged stub cell was deleted and the code written in a new cell, or the notebook lost its
    tags (an editor or a copy into a fresh notebook that drops cell metadata). A task's answer
    cell is the last cell that binds its name at its top level above its check cell (a draft in
    an earlier task's cell is replaced there, as Run All replaces it), or the first such cell
    when none is above; those cells are graded whole as tagged ones are, and the student's other
    cells as beside tagged answer cells: only the definitions the answers take from them (a
    Colab cell that mounts a drive is not run)."""
    tasks = set(current().task_names.values())
    written = set().union(*(_task_names_in(answers).values()))
    binding = _task_names_in(own, tasks)
    taken = set()
    for name in sorted(tasks - written):
        cells = [number for number, names in binding.items() if name in names]
        above = [number for number in cells if number < task_checks.get(name, 0)]
        taken.update(above[-1:] if above else cells[:1])
    return [(number, text) for number, text in own if number in taken]


def _tasks_outside_code(notebook_cells: list, graded: list[tuple[int, str]], where: str) -> list[str]:
    """A note for each task that no graded cell defines but a markdown or raw cell does (a code
    cell turned into markdown by a key pressed in Jupyter's command mode): it never runs there."""
    tasks = set(current().task_names.values())
    missing = tasks - set().union(*_task_names_in(graded, tasks).values())
    notes = []
    for number, cell in enumerate(notebook_cells, start=1):
        if not missing or not isinstance(cell, dict) or cell.get("cell_type") not in ("markdown", "raw"):
            continue
        text = _source_text(cell) or ""
        # [ \t\f], not \s: a \s* at each line start ran over every newline after it (a markdown cell of
        # 48,000 newlines took 80 s of the grader's CPU, a batch's stall watchdog stopped the batch: qa23h)
        found = sorted(name for name in missing if re.search(rf"^[ \t\f]*(?:def|class)[ \t\f]+{re.escape(name)}\b", text, re.MULTILINE))
        if found:
            notes.append(t("submission.task_in_text_cell", file=where, number=number, kind=cell["cell_type"], names=", ".join(found)))
            missing -= set(found)
    return notes


def _task_names_in(cells: list[tuple[int, str]], tasks: set[str] | None = None) -> dict[int, list[str]]:
    """{cell number: the task names its top level binds}, for the cells that bind any."""
    tasks = tasks if tasks is not None else set(current().task_names.values())
    found = {}
    for number, text in cells:
        tree = _parsed(text)
        # a cell that does not parse still says what it defines: graded whole, its syntax error is said
        bound = _top_level_names(tree) if tree else set(DEFINITION_RE.findall(text))
        names = sorted(bound & tasks)
        if names:
            found[number] = names
    return found


def _needs(node: ast.AST) -> set[str]:
    """The names a piece of code reads and does not bind itself."""
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)} - _bound(node)


def _bound(node: ast.AST) -> set[str]:
    """Every name a piece of code binds anywhere: assignments, definitions, parameters, imports."""
    assigned, other = bindings([node])
    return {name for name, _ in assigned} | other


def _only(text: str, nodes: list[ast.stmt]) -> str:
    """A cell's code with every line outside these statements (decorators included) blanked, so
    that its lines keep their numbers."""
    lines = text.split("\n")
    keep = {line for node in nodes
            for line in range(min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))]), (node.end_lineno or node.lineno) + 1)}
    return "\n".join(line if number in keep else "" for number, line in enumerate(lines, start=1))


ANYWHERE = (0, 1 << 62)  # a range of cell numbers holding every cell
MAX_CELL_NOTES = 8  # notes on the student's own cells, and names in each: the feedback stays readable
_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


@functools.cache  # emptied after each notebook (_notebook): a cell is read by many steps
def _parsed(text: str) -> ast.Module | None:
    try:
        return ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _top_level_names(tree: ast.Module) -> set[str]:
    """The names a module binds at its top level: definitions, imports, assignments."""
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(n.id for target in targets for n in ast.walk(target) if isinstance(n, ast.Name))
    return names


def _is_grade_cell(cell: dict) -> bool:
    """Whether a cell is one of nbgrader's autograded test cells (graded, not a solution)."""
    metadata = cell.get("metadata")
    nbgrader = metadata.get("nbgrader") if isinstance(metadata, dict) else None
    return isinstance(nbgrader, dict) and bool(nbgrader.get("grade")) and not nbgrader.get("solution")


def _is_answer_cell(cell: dict, where: str, notes: list[str]) -> bool:
    """Whether a cell is tagged as an answer cell; malformed metadata is ignored with a note."""
    metadata = cell.get("metadata") or {}
    if not isinstance(metadata, dict):
        notes.append(t("submission.metadata", file=where, value=_shown(metadata)))
        return False
    tags = metadata.get("tags") or []
    if not isinstance(tags, list) or not all(isinstance(tag, str) for tag in tags):
        notes.append(t("submission.tags", file=where, value=_shown(tags)))
        tags = []
    nbgrader = metadata.get("nbgrader") or {}
    if not isinstance(nbgrader, dict):
        notes.append(t("submission.nbgrader", file=where, value=_shown(nbgrader)))
        nbgrader = {}
    return bool(set(tags) & ANSWER_TAGS) or bool(nbgrader.get("solution"))


def _shown(value: object) -> str:
    return json.dumps(value, ensure_ascii=False)[:60]


def load_submission(path: Path) -> Submission:
    """Read any accepted kind of submission. Raises SubmissionError with the reason and the fix."""
    path = Path(path)
    if path.is_symlink():
        raise SubmissionError(t("submission.symlink", file=path))
    if path.is_dir():
        return _from_files(path.name, "folder", *_read_folder(path))
    if not path.is_file():
        raise SubmissionError(t("submission.not_a_file" if path.exists() else "submission.missing", file=path))
    if path.suffix == ".zip":
        return _from_files(submission_name(path), "zip", *_read_zip(path))
    if path.suffix not in (".py", ".ipynb"):
        raise SubmissionError(t("submission.kind", file=path.name))
    if path.stat().st_size > _max_bytes(path.name):
        key = "submission.notebook_too_big" if path.suffix == ".ipynb" else "submission.too_big"
        raise SubmissionError(t(key, file=path.name, size=path.stat().st_size, limit=_max_bytes(path.name) >> 20))
    return _from_files(submission_name(path), path.suffix[1:], {path.name: path.read_bytes()}, entry=path.name)


ZH_FILE = re.compile(r"\.zh(?:\s*\(\d+\)|[-_]\d+)?\.(?:ipynb|py)$")  # attention.zh.ipynb, and as an LMS or a browser renames a copy: "attention.zh (2).ipynb", "attention.zh-3.ipynb" (qa49n n10)


@functools.cache
def file_language(path: str) -> str:
    """zh for a *.zh.ipynb or *.zh.py file (a copy's number after .zh too), or a folder or zip whose
    graded file is one (Gradescope grades its folder: a hand-in of attention.zh.ipynb got English
    feedback, qa33p), else en."""
    name = Path(path).name
    if (Path(path).is_dir() or name.endswith(".zip")) and not ZH_FILE.search(name):
        try:
            name = load_submission(Path(path)).entry
        except (AttnkitError, OSError):
            return "en"  # the grading says why
    return "zh" if ZH_FILE.search(name) else "en"


def _max_bytes(name: str) -> int:
    """The size a handed-in file may have: a notebook carries its outputs (images) besides the code,
    so it may take what a whole folder may, as it does when handed in inside one."""
    return MAX_TOTAL_BYTES if name.endswith(".ipynb") else MAX_FILE_BYTES


def _read_folder(folder: Path) -> tuple[dict[str, bytes], list[str]]:
    """The .py and .ipynb files of a folder, and the names of the other files (never read)."""
    files: dict[str, bytes] = {}
    others: list[str] = []
    total = 0
    try:
        items = regular_files(folder)  # links never followed: a link may point anywhere on the grader's machine
    except OSError as error:  # a path longer than the system allows, a folder that cannot be listed
        raise SubmissionError(t("submission.folder_unreadable", file=folder.name, error=error.strerror or error)) from None
    for item in items:
        relative = item.relative_to(folder).as_posix()
        if any(part.startswith(".") or part == "__pycache__" for part in relative.split("/")):
            continue
        if item.suffix not in (".py", ".ipynb"):
            others.append(relative)
            continue
        size = item.stat().st_size
        if item.suffix == ".ipynb" and size > _max_bytes(item.name):  # its outputs, not code: say so
            raise SubmissionError(t("submission.notebook_too_big", file=relative, size=size, limit=_max_bytes(item.name) >> 20))
        total += size
        if len(files) >= MAX_FILES or total > MAX_TOTAL_BYTES:
            raise SubmissionError(t("submission.folder_too_big", file=folder.name, count=MAX_FILES, limit=MAX_TOTAL_BYTES >> 20))
        files[relative] = item.read_bytes()
    return files, others


def _read_zip(path: Path) -> tuple[dict[str, bytes], list[str]]:
    """The .py and .ipynb entries of a zip, and the names of the other files (never read)."""
    files: dict[str, bytes] = {}
    others: list[str] = []
    total = 0
    try:
        archive = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError, ValueError, NotImplementedError) as error:
        raise SubmissionError(t("submission.bad_zip", file=path.name, error=error)) from None
    with archive:
        members = archive.infolist()
        if len(members) > MAX_ZIP_ENTRIES:
            raise SubmissionError(t("submission.zip_entries", file=path.name, count=len(members), limit=MAX_ZIP_ENTRIES))
        for info in members:
            name = PurePosixPath(info.filename.replace("\\", "/"))
            if name.is_absolute() or ".." in name.parts or re.match(r"^[A-Za-z]:", info.filename):
                raise SubmissionError(t("submission.zip_escape", file=path.name, entry=repr(info.filename)))
            if stat.S_ISLNK(info.external_attr >> 16):
                raise SubmissionError(t("submission.zip_symlink", file=path.name, entry=repr(info.filename)))
            if info.is_dir() or any(p.startswith(".") or p == "__MACOSX" for p in name.parts):
                continue
            if name.suffix not in (".py", ".ipynb"):
                others.append(name.as_posix())
                continue
            try:
                with archive.open(info) as member:
                    data = member.read(_max_bytes(name.name) + 1)  # bounded even if the header lies
            except (zipfile.BadZipFile, zlib.error, lzma.LZMAError, EOFError, OSError, RuntimeError, NotImplementedError) as error:
                raise SubmissionError(t("submission.zip_entry", file=path.name, entry=repr(info.filename), error=error)) from None
            if name.as_posix() in files:  # the same name twice: which one is the work cannot be told
                raise SubmissionError(t("submission.zip_same_name", file=path.name, entry=repr(info.filename)))
            total += len(data)
            if len(data) > _max_bytes(name.name) or total > MAX_ZIP_BYTES or len(files) >= MAX_FILES:
                raise SubmissionError(t("submission.zip_bomb", file=path.name, file_limit=MAX_FILE_BYTES >> 20, limit=MAX_ZIP_BYTES >> 20, count=MAX_FILES))
            files[name.as_posix()] = data
    return _strip_common_folder(files), others


def _strip_common_folder(files: dict[str, bytes]) -> dict[str, bytes]:
    """A zip of a folder puts every file under one top folder: drop it."""
    tops = {name.split("/", 1)[0] for name in files}
    if len(tops) == 1 and all("/" in name for name in files):
        return {name.split("/", 1)[1]: data for name, data in files.items()}
    return files


def _from_files(name: str, kind: str, files: dict[str, bytes], others: Sequence[str] = (), entry: str | None = None) -> Submission:
    """The submission from its graded files; `others` names the files handed in but not read."""
    entry = entry or _find_entry(name, files, others)
    data = files[entry]
    notes: tuple[str, ...] = ()
    cells: Cells = ()
    written: dict[str, str] = {}
    if entry.endswith(".ipynb"):
        chunks, notes, cells, written = _notebook(data, entry, _scripts_beside(entry, files))
        filename = entry_names()[0]
    else:
        text = decode_python(data, entry)
        chunks = ((1, text),)
        filename = PurePosixPath(entry).name
        if not any(line.strip() and not line.lstrip().startswith("#") for line in text.splitlines()):
            notes = (t("submission.empty", file=entry, student_file=current().student_file),)  # graded (0), and told why
        elif _exported(entry, data):  # graded as the notebook it was written from
            chunks, notes, written = _export_read(text, entry, _scripts_beside(entry, files))
    passed_over = sorted(f for f in files if PurePosixPath(f).name in entry_names() and f != entry)
    if passed_over and PurePosixPath(entry).name not in entry_names():
        notes = (t("submission.graded_copy", file=entry, others=", ".join(passed_over)), *notes)
    elif exports := [f for f in passed_over if _exported(f, files[f])]:
        notes = (t("submission.export_not_graded", file=entry, others=", ".join(exports)), *notes)
    helpers = {}
    kit = {}
    kit_files = current().kit_files()
    checks_name = PurePosixPath(current().public_checks).name
    for other, content in _worker_paths(files, entry):
        if PurePosixPath(other).name == checks_name:
            # its public checks, as released, from an earlier release or changed: they hold working
            # versions of the tasks (their oracles), so the worker gets checks that do nothing and
            # nothing else to import (qa20h h10 took six tasks' answers from them: 95/100); not scanned
            kit[other] = GRADED_PUBLIC_CHECKS
            continue
        if PurePosixPath(other).name in entry_names() and _exported(other, content):
            continue  # the graded notebook's own copy, nbconvert's: its code is the notebook's, its kit cells' imports not the student's
        if other in kit_files and _same_text(content, kit_files[other]):
            kit[other] = decode_python(kit_files[other], other)  # the kit's, not the student's work: not scanned
            continue
        try:
            helpers[other] = decode_python(content, other)
        except SubmissionError:
            continue
    for file, text in written.items():  # what the notebook's %%writefile cells write beside it (Run All writes it over a copy handed in)
        if PurePosixPath(file).name == checks_name:  # its public checks, written out by a cell: the stub too (qa32h L3)
            kit[file] = GRADED_PUBLIC_CHECKS
            helpers.pop(file, None)
        elif file not in entry_names() and file not in kit_files:
            helpers[file] = declared_utf8(text)
            kit.pop(file, None)
    return Submission(name=name, kind=kind, filename=filename, chunks=chunks, files=helpers, notes=notes, kit=kit, cells=cells, entry=entry,
                      kernel=entry.endswith(".ipynb") or _exported(entry, data))


def _worker_paths(files: dict[str, bytes], entry: str) -> list[tuple[str, bytes]]:
    """(path in the worker, bytes) of each handed-in .py file in the entry's folder but the entry:
    beside the entry, where the worker puts it, and where it was handed in. Python puts a script's
    folder on sys.path and Jupyter runs a notebook in its own, so `import softmax_utils` in
    hw/attention.py finds hw/softmax_utils.py (qa30h r06); an editor that runs it from the
    project's top (PyCharm) finds it as `hw.softmax_utils` too (qa31h h02). A file outside that
    folder can be imported by neither: it is left out (qa32h: an old try at the top, read as a
    helper, was charged for its F.softmax; a top-level utils/ shadowed hw/utils.py)."""
    folder = PurePosixPath(entry).parent
    inside = {path: data for path, data in files.items() if path != entry and path.endswith(".py") and PurePosixPath(path).is_relative_to(folder)}
    if folder == PurePosixPath("."):
        return list(inside.items())
    beside = {PurePosixPath(path).relative_to(folder).as_posix(): data for path, data in inside.items()}
    beside.pop("__init__.py", None)  # the entry's folder as a package is hw/__init__.py, kept below
    return [*beside.items(), *inside.items()]


def _scripts_beside(entry: str, files: dict[str, bytes]) -> dict[str, str]:
    """The Python files handed in in the notebook's folder, by module name (what its %run lines run)."""
    folder, found = PurePosixPath(entry).parent, {}
    for file, content in files.items():
        path = PurePosixPath(file)
        if path.suffix == ".py" and path.parent == folder:
            with contextlib.suppress(SubmissionError):
                found[path.stem] = decode_python(content, file)
    return found


def _same_text(handed_in: bytes, kit: bytes) -> bool:
    """Whether a handed-in file is the kit's copy of it, byte for byte but for line endings
    (a copy made on Windows, or through git's autocrlf). A modified copy is the student's."""
    return handed_in.replace(b"\r\n", b"\n") == kit.replace(b"\r\n", b"\n")


def _writes_every_task(data: bytes) -> bool:
    """Whether a notebook defines every task of the assignment: a copy of its notebook, not a scratch one."""
    return all(re.search(rb"(?:def|class)\s+" + re.escape(task.encode()) + rb"\b", data) for task in current().task_names.values())


NBCONVERT_CELL = re.compile(rb"^# In\[[ \d]*\]:[ \t]*\r?$", re.MULTILINE)  # a cell's mark in what `jupyter nbconvert --to script` writes


def _exported(path: str, data: bytes) -> bool:
    """Whether a handed-in file is a .py written from a notebook by `jupyter nbconvert --to script`:
    run in the release folder, it writes attention.py over the stub file, with the notebook's magics
    as get_ipython() calls and its check cells' `import public_checks` (qa49p: 0/100 beside the
    finished notebook it came from)."""
    return path.endswith(".py") and NBCONVERT_CELL.search(data) is not None


NBCONVERT_MARK = re.compile(r"^# In\[[ \d]*\]:[ \t]*\r?$", re.MULTILINE)  # NBCONVERT_CELL, in text
IPYTHON_CALLS = frozenset({"run_line_magic", "run_cell_magic", "system", "getoutput"})  # what nbconvert writes IPython's syntax as


def _export_read(text: str, where: str, scripts: dict[str, str]) -> tuple[tuple[tuple[int, str], ...], tuple[str, ...], dict[str, str]]:
    """(chunks, notes, files) of a .py file nbconvert wrote from a notebook, graded as that
    notebook is (a course that asks for a .py gets Jupyter's "Download as Python" of it): a code
    cell from each `# In[ ]:` mark to the next, its IPython syntax back from the get_ipython()
    calls nbconvert made of it, and the comments it made of the markdown cells below it dropped.
    Its task cells run, and the definitions they take from the other cells; its check cells,
    demos and magics do not. Each chunk keeps its lines in the .py file, which the feedback names."""
    inside, row, at = string_rows(text), 0, 0  # a mark inside a string is the string's (qa51h h06)
    marks = []
    for mark in NBCONVERT_MARK.finditer(text):
        row += text.count("\n", at, mark.start())
        at = mark.start()
        if row not in inside:
            marks.append(mark)
    starts = [0, *(mark.end() for mark in marks)]  # each cell's code begins on the line after its mark
    ends = [*(mark.start() for mark in marks), len(text)]
    sources, lines, code_lines, line = [], [], [], 1  # lines: each cell's mark, which the notes name; code_lines: its code's first line
    for number, (start, end) in enumerate(zip(starts, ends)):
        code = _export_cell(text[start:end].removeprefix("\n"))
        if code.strip() or number:  # the lines above the first mark (nbconvert's header) are a cell only when they hold code
            sources.append(code)
            lines.append(line)
            code_lines.append(line + 1 if number else 1)
        line += text.count("\n", start, end)  # on to the line of the next mark
    cells = [{"cell_type": "code", "metadata": {}, "source": source} for source in sources]
    try:
        chunks, notes, places, written = _cells_read(cells, where, scripts, lines)
    finally:
        _parsed.cache_clear()
    at_lines = tuple((code_lines[number - 1], body) for (_, body), (_, number) in zip(chunks, places, strict=True))
    return at_lines, (t("submission.exported", file=where, notebook=entry_names()[1]), *notes), written


def _export_cell(text: str) -> str:
    """A cell's code as nbconvert wrote it, as the notebook held it: without the comment lines of
    the markdown cells below it (no cell of the kit ends in a comment), each get_ipython() line
    the IPython syntax it was written from."""
    lines = text.split("\n")
    while lines and (not lines[-1].strip() or lines[-1].lstrip().startswith("#")):
        lines.pop()
    return "\n".join(_ipython_syntax(line) for line in lines)


def _ipython_syntax(line: str) -> str:
    """`get_ipython().run_line_magic('timeit', 'f(x)')` as the notebook's line `%timeit f(x)` (a
    value taken from it, `t = %timeit ...`; a shell escape `!ls`; a cell magic `%%time` and its
    body, on lines of their own below that line); any other line as it is."""
    if "get_ipython()." not in line:
        return line
    stripped = line.lstrip()
    try:
        (statement,) = ast.parse(stripped).body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return line
    call = _ipython_call(statement.value) if isinstance(statement, (ast.Expr, ast.Assign)) else None
    if call is None or (isinstance(statement, ast.Assign) and len(statement.targets) != 1):
        return line
    method, args = call
    indent = line[:len(line) - len(stripped)]
    target = (ast.get_source_segment(stripped, statement.targets[0]) or "_") + " = " if isinstance(statement, ast.Assign) else ""
    if method == "run_cell_magic" and len(args) == 3 and not target:
        return f"{indent}%%{args[0]} {args[1]}".rstrip() + "\n" + args[2].rstrip("\n")
    if method == "run_line_magic" and len(args) == 2:
        return f"{indent}{target}%{args[0]} {args[1]}".rstrip()
    if method in ("system", "getoutput") and len(args) == 1:
        return f"{indent}{target}!{args[0]}"
    return line


def _ipython_call(node: ast.expr) -> tuple[str, list[str]] | None:
    """(method, its text arguments) of a call `get_ipython().method('text', ...)` nbconvert writes."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in IPYTHON_CALLS and not node.keywords):
        return None
    shell = node.func.value
    if not (isinstance(shell, ast.Call) and isinstance(shell.func, ast.Name) and shell.func.id == "get_ipython" and not shell.args and not shell.keywords):
        return None
    args = [a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
    return (node.func.attr, args) if len(args) == len(node.args) else None

def _unwritten(path: str, data: bytes) -> int:
    """How many tasks a file leaves to write: stubs left in its code (`raise NotImplementedError`;
    a notebook's text cells that say what a stub is do not count, qa50h h11), and functions of a
    task whose body does nothing (`pass`, `...`, `return None`: a draft that moved elsewhere)."""
    if path.endswith(".ipynb"):
        try:
            cells = json.loads(data.decode("utf-8-sig"))["cells"]
            codes = [_checked_code(_source_text(cell) or "") for cell in cells if isinstance(cell, dict) and cell.get("cell_type") == "code"]
        except (UnicodeDecodeError, ValueError, TypeError, KeyError, RecursionError):
            return data.count(STUB_MARK)
    else:
        try:
            codes = [decode_python(data, path)]
        except SubmissionError:
            return data.count(STUB_MARK)
    tasks = set(current().task_names.values())
    count = 0
    for code in codes:
        count += sum(1 for line in code.splitlines() if line.lstrip().startswith(STUB_MARK.decode()))  # not one commented out (qa51h h11)
        tree = _parsed(code)
        count += sum(1 for node in (tree.body if tree else ()) if isinstance(node, _DEFINITIONS) and node.name in tasks and _does_nothing(node))
    _parsed.cache_clear()
    return count


def _does_nothing(function: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> bool:
    """Whether a function's body, its docstring aside, is only `pass`, `...` or `return None`; a
    class's, when every method but __init__ is such a draft (qa51h h10)."""
    if isinstance(function, ast.ClassDef):
        return all(_does_nothing(node) or node.name == "__init__" for node in function.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)))
    return all(isinstance(node, ast.Pass) or (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant))
               or (isinstance(node, ast.Return) and (node.value is None or (isinstance(node.value, ast.Constant) and node.value.value is None)))
               for node in function.body)


def _find_entry(name: str, files: dict[str, bytes], others: Sequence[str] = ()) -> str:
    """The file the student wrote in. A whole release folder holds attention.py and the notebooks,
    and only one of them has the answers: the one with the fewest tasks left to write (_unwritten;
    a notebook before a .py exported from a notebook, then in entry_names() order when they tie), so that the untouched
    attention.py next to a finished notebook, or one nbconvert wrote from it, is not graded instead
    of it. A notebook or .py file under another name that defines every task (Colab's "Copy of
    attention.ipynb", a browser's "attention (1).py") is one of them, after those names."""
    found = []
    for order, wanted in enumerate(entry_names()):
        matches = [f for f in files if PurePosixPath(f).name == wanted]
        if matches:
            depth = min(f.count("/") for f in matches)
            shallowest = sorted(f for f in matches if f.count("/") == depth)
            if len({files[f] for f in shallowest}) > 1:  # two different copies: which one is the work is not ours to guess
                raise SubmissionError(t("submission.ambiguous", file=name, student_file=wanted, files=", ".join(shallowest)))
            entry = shallowest[0]
            found.append((entry, _exported(entry, files[entry]), order))
    named = {entry for entry, *_ in found}
    kit = {PurePosixPath(f).name for f in current().kit_files()}
    for other in sorted(files):  # a copy under another name ("Copy of attention.ipynb", "attention (1).py"), not the kit's own files
        if other.endswith((".ipynb", ".py")) and other not in named and PurePosixPath(other).name not in kit and _writes_every_task(files[other]):
            found.append((other, _exported(other, files[other]), len(entry_names())))
    if len(found) == 1:
        return found[0][0]
    if found:
        return min(found, key=lambda f: (_unwritten(f[0], files[f[0]]), f[1], f[2], f[0]))[0]
    candidates = [f for f in files if "/" not in f]
    if len(candidates) == 1:
        return candidates[0]
    student_file, notebook, notebook_zh = entry_names()
    handed_in = sorted(files) + sorted(others)  # all of them: "files: none" next to a misnamed file misleads
    shown = ", ".join(handed_in[:MAX_NAMES_SHOWN]) + (", ..." if len(handed_in) > MAX_NAMES_SHOWN else "")
    raise SubmissionError(t("submission.not_found", file=name, student_file=student_file, notebook=notebook, notebook_zh=notebook_zh,
                            files=shown or "none"))

