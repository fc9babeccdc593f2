"""A broken file's top-level statements, grouped so each can be compiled on its own."""
from __future__ import annotations


def split_chunks(source: str) -> list[tuple[int, str]]:
    """Top-level statements grouped into chunks (first line number, text).

    Used when the whole file does not compile: each chunk is compiled on its own, so a syntax
    error in one function does not take the others down.
    """
    lines = source.splitlines(keepends=True)
    starts = [0]
    for index, line in enumerate(lines[1:], start=1):
        stripped = line.lstrip()
        opens_statement = line[:1] not in (" ", "\t", "\n", "\r", "#", "") and not line.startswith(("else", "elif", "except", "finally", ")", "]", "}"))
        if opens_statement and stripped and not lines[index - 1].rstrip().endswith("\\"):
            if line.startswith("@") or not lines[index - 1].startswith("@"):
                starts.append(index)
    starts.append(len(lines))
    return [(a + 1, "".join(lines[a:b])) for a, b in zip(starts, starts[1:]) if "".join(lines[a:b]).strip()]
