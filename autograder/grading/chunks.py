"""A broken file's top-level statements, grouped so each can be compiled on its own."""
from __future__ import annotations

import io
import re
import tokenize

FSTRING_START, FSTRING_END = getattr(tokenize, "FSTRING_START", -1), getattr(tokenize, "FSTRING_END", -1)

DEFINITION_RE = re.compile(r"^(?:async[ \t]+)?(?:def|class)[ \t]+(\w+)", re.MULTILINE)  # a top-level function or class, in text


def string_rows(source: str) -> set[int]:
    """Indices (from 0) of the lines that continue a multi-line string: a docstring's line at
    column 0 opens no statement. Found with the tokenizer, which reads a file with a syntax error
    up to where its tokens end (an unterminated string, an inconsistent dedent)."""
    rows: set[int] = set()
    opened: list[int] = []  # Python 3.12+: an f-string is tokens from FSTRING_START to FSTRING_END
    try:
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            if token.type == FSTRING_START:
                opened.append(token.start[0])
            first = opened.pop() if token.type == FSTRING_END and opened else token.start[0]
            if token.type in (tokenize.STRING, FSTRING_END) and token.end[0] > first:
                rows.update(range(first, token.end[0]))  # rows count from 1: the lines after its first
    except (tokenize.TokenError, SyntaxError):  # what was read so far still counts
        pass
    return rows


def split_chunks(source: str) -> list[tuple[int, str]]:
    """Top-level statements grouped into chunks (first line number, text).

    Used when the whole file does not compile: each chunk is compiled on its own, so a syntax
    error in one function does not take the others down.
    """
    lines = source.splitlines(keepends=True)
    in_string = string_rows(source)
    starts = [0]
    for index, line in enumerate(lines[1:], start=1):
        stripped = line.lstrip()
        opens_statement = line[:1] not in (" ", "\t", "\n", "\r", "#", "") and not line.startswith(("else", "elif", "except", "finally", ")", "]", "}"))
        if opens_statement and stripped and index not in in_string and not lines[index - 1].rstrip().endswith("\\"):
            if line.startswith("@") or not lines[index - 1].startswith("@"):
                starts.append(index)
    starts.append(len(lines))
    return [(a + 1, "".join(lines[a:b])) for a, b in zip(starts, starts[1:]) if "".join(lines[a:b]).strip()]


# A notebook's answer cells run as one file (submission.py joins them): where a line of it is, as
# the student sees it in Jupyter. `cells`: (first line of the cell's code in the joined text, the
# cell's number in the notebook: 1-based, counting every cell from the top, markdown cells too);
# empty for a .py file.
Cells = tuple[tuple[int, int], ...]


def cell_place(line: int, cells: Cells) -> tuple[int, int] | None:
    """(cell number, line inside that cell) of a line of the joined text; None for a .py file."""
    found = None
    for first, number in cells:
        if first <= line:
            found = (number, line - first + 1)
    return found


def line_where(line: int, cells: Cells) -> str:
    """`line 12` of a .py file; `cell 7, line 3` of a notebook."""
    place = cell_place(line, cells)
    return f"cell {place[0]}, line {place[1]}" if place else f"line {line}"


def frame_where(filename: str, line: int, cells: Cells) -> str:
    """A traceback's place: `attention.py:12` of a .py file; `cell 7, line 3` of a notebook."""
    return line_where(line, cells) if cell_place(line, cells) else f"{filename}:{line}"


class SourcePlaces(dict[str, Cells]):
    """The files of the student's code (a frame in one is the student's), each with the cells it
    was joined from when it is a notebook, and the place of a line as feedback names it."""

    def where(self, filename: str, line: int) -> str:
        return frame_where(filename.rsplit("/", 1)[-1], line, self[filename])
