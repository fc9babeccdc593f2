"""Code similarity (issue 12): planted copies come out on top; independent correct solutions do not pair.

The copies are made here from one example (examples/submissions/permute_view_style.py): every
local name renamed, the top-level definitions in another order, comments and docstrings changed.
"""
from __future__ import annotations

import ast
import io
import itertools
import re
import tokenize
from pathlib import Path

from autograder.grading.integrity.similarity import THRESHOLD, answer_text, rank_pairs, release_boilerplate

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO / "examples" / "submissions"
ORIGINAL = EXAMPLES / "permute_view_style.py"
INDEPENDENT = sorted(EXAMPLES.glob("*_style*")) + [REPO / "solutions" / "attention" / "attention.py"]
KEPT = {"self", "super", "torch", "nn", "math", "plt", "F", "None", "True", "False"}


def renamed(source: str) -> str:
    """Every argument and local variable gets another name (function and class names stay)."""
    tree = ast.parse(source)
    public = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    local = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    local |= {a.arg for n in ast.walk(tree) if isinstance(n, ast.arguments) for a in n.args + n.kwonlyargs}
    mapping = {name: f"v{index}_{name[::-1]}" for index, name in enumerate(sorted(local - public - KEPT))}
    out = []
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        text = mapping.get(token.string, token.string) if token.type == tokenize.NAME else token.string
        out.append((token.type, text))
    return tokenize.untokenize(out)


def reordered(source: str) -> str:
    """The top-level definitions in reverse order (imports first)."""
    tree = ast.parse(source)
    lines = source.splitlines(keepends=True)
    blocks = ["".join(lines[n.lineno - 1 - len(getattr(n, "decorator_list", [])):n.end_lineno]) for n in tree.body]
    imports = [b for b, n in zip(blocks, tree.body) if isinstance(n, (ast.Import, ast.ImportFrom))]
    rest = [b for b, n in zip(blocks, tree.body) if not isinstance(n, (ast.Import, ast.ImportFrom))]
    return "\n\n".join(imports + rest[::-1]) + "\n"


def recommented(source: str) -> str:
    """Comments removed, other comments added, docstrings replaced."""
    source = re.sub(r"\s+#[^\n]*", "", source)
    source = re.sub(r'"""[^"]*"""', '"""My own words about this."""', source)
    return re.sub(r"\n(def |class )", r"\n# written late at night\n\1", source)


def test_planted_copies_come_out_on_top_and_independent_solutions_do_not_pair():
    original = ORIGINAL.read_text(encoding="utf-8")
    copies = {"copy_renamed": renamed(original), "copy_reordered": reordered(original), "copy_all_three": recommented(reordered(renamed(original)))}
    for text in copies.values():
        compile(text, "copy", "exec")  # still a working submission
    texts = {p.stem: answer_text(p) for p in INDEPENDENT} | copies
    pairs = rank_pairs(texts, release_boilerplate(), top=len(texts) ** 2)
    planted = {frozenset(p) for p in itertools.combinations(["permute_view_style", *copies], 2)}
    top = pairs[: len(planted)]
    assert {frozenset((p.a, p.b)) for p in top} == planted, [(p.a, p.b, p.score) for p in pairs[:8]]
    assert all(p.score >= THRESHOLD for p in top), [(p.a, p.b, p.score) for p in top]
    rest = pairs[len(planted):]
    assert all(p.score < THRESHOLD for p in rest), [(p.a, p.b, p.score) for p in rest if p.score >= THRESHOLD]
    assert top[0].passages_a and top[0].passages_b  # the matching passages, for the dashboard
    for pair in top:  # whole lines of each file (qa33p: slices cut mid-line were glued into code nobody wrote)
        for passage, text in [*((p, texts[pair.a]) for p in pair.passages_a), *((p, texts[pair.b]) for p in pair.passages_b)]:
            assert all(line in text.splitlines() for line in passage.splitlines()[:-1]), passage
            assert text.startswith(passage) or f"\n{passage}" in text, passage


def test_blank_releases_are_not_similar():
    blank = (REPO / "assignments" / "attention" / "attention.py").read_text(encoding="utf-8")
    texts = {"a": blank, "b": blank + "\n# nothing done\n"}
    assert rank_pairs(texts)[0].score > 0.99  # without the starter removed: identical
    assert not [p for p in rank_pairs(texts, release_boilerplate()) if p.score >= THRESHOLD]


def test_a_pair_that_shares_nothing_is_ranked_without_passages():
    texts = {"a": "def f(x):\n    return [i * i for i in range(x) if i % 3]\n" * 3,
             "b": "class Q:\n    def __init__(self):\n        self.items = {'k': 'v', 'w': 2}\n" * 3}
    [pair] = rank_pairs(texts)
    assert pair.score == 0 and pair.passages_a == () and pair.passages_b == ()


def test_every_pair_at_or_above_the_threshold_is_kept_past_the_top(monkeypatch):
    """A class with more suspicious pairs than TOP_PAIRS: the dashboard listed only the top 20 and
    hid the rest. Every pair at or above THRESHOLD is kept; passages only for the first ones."""
    from autograder.grading.integrity import similarity

    monkeypatch.setattr(similarity, "PASSAGE_PAIRS", 3)
    original = ORIGINAL.read_text(encoding="utf-8")
    copies = {f"copy{n}": recommented(original) + f"\n# copy {n}\n" for n in range(8)}  # 28 pairs of copies
    texts = {p.stem: answer_text(p) for p in INDEPENDENT} | copies
    pairs = rank_pairs(texts, release_boilerplate(), top=5)
    suspicious = [p for p in pairs if p.score >= THRESHOLD]
    assert {frozenset((p.a, p.b)) for p in suspicious} >= {frozenset(c) for c in itertools.combinations(copies, 2)}
    assert len(pairs) == max(5, len(suspicious)) and len(suspicious) >= 28
    assert all(p.passages_a for p in pairs[:3]) and not any(p.passages_a for p in pairs[3:])
