"""Finding English sentences in text that should be Chinese (a test helper).

An English sentence here is four or more English words in a row. Code is not prose: text in
backticks and fenced blocks, identifiers (snake_case, dotted names, CamelCase), shapes and
numbers are left out first, and so is quoted data (the pronoun task's English sentences, printed
as 'the king met a queen . she thanked the princess', are the model's input, not prose). Single terms (query, key, value, softmax, LayerNorm) are allowed: the
notebook gives the English term next to the Chinese one on purpose.
"""
from __future__ import annotations

import io
import re
import tokenize

FENCE_RE = re.compile(r"```.*?```", re.S)
INLINE_CODE_RE = re.compile(r"`[^`\n]*`")
QUOTED_RE = re.compile(r"'[^'\n]*'")
IDENTIFIER_RE = re.compile(r"\b\w*[_.]\w*\b|\b[a-z]+[A-Z]\w*\b|\b[A-Z][a-z]+[A-Z]\w*\b")
WORDS_RE = re.compile(r"\b[A-Za-z]{2,}'?[a-z]*(?:[ \t]+[A-Za-z]{2,}'?[a-z]*){3,}\b")


def english_sentences(text: str) -> list[str]:
    """The runs of four or more English words in text, once code is left out."""
    text = FENCE_RE.sub(" ", text)
    text = INLINE_CODE_RE.sub(" ", text)
    text = QUOTED_RE.sub(" ", text)
    text = IDENTIFIER_RE.sub(" ", text)
    return WORDS_RE.findall(text)


def code_prose(source: str) -> str:
    """The comments and string literals (docstrings included) of Python source: its prose."""
    parts: list[str] = []
    prose_types = {tokenize.COMMENT, tokenize.STRING}
    prose_types |= {getattr(tokenize, name) for name in ("FSTRING_MIDDLE",) if hasattr(tokenize, name)}
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type in prose_types:
            parts.append(token.string)
    return "\n".join(parts)
