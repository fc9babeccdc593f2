"""Example submissions generated from an assignment's mutants: the catalogue's mistakes planted into
the reference solution, as text replacements, one bug each.

An assignment's manifest names its mutants file (`mutants`): it defines MUTANTS (one per catalogue
mistake, which tests grade alone and in pairs), `mutant(key)`, and EXAMPLES, the few that `attnkit
release` writes as buggy example submissions (examples/submissions/bug_*.py, what `make demo`
grades); tests/test_mistakes.py proves the checked-in files equal a fresh generation.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from autograder.assignment import Manifest
from autograder.authoring.stubs import BEGIN, END
from autograder.errors import AttnkitError
from autograder.feedback.results import write_atomic


@dataclass(frozen=True)
class Mutant:
    key: str  # the assignment's mistakes key this bug must be diagnosed as
    part: str  # the part that must lose points
    replacements: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class Example:
    """A buggy example submission: a mutant of the reference, and the one line that says what is wrong."""

    key: str  # the mutant's key
    says: str  # "Example of a realistic mistake: <says>."


class MutantError(AttnkitError):
    pass


def apply(source: str, mutant: Mutant) -> str:
    """The source with the mutant's replacements; each old text must be there exactly once."""
    for old, new in mutant.replacements:
        count = source.count(old)
        if count != 1:
            raise MutantError(f"mutant {mutant.key}: {old!r} occurs {count} times in the reference (expected once)")
        source = source.replace(old, new)
    return source


def example_source(reference: str, example: Example, mutant: Mutant) -> str:
    """An example submission: the reference without solution markers, the example's mutant planted,
    and its docstring's first line saying which mistake it shows."""
    lines = [line for line in reference.splitlines() if line.strip() not in (BEGIN, END)]
    first = lines[0].rstrip(".")
    if not first.startswith('"""'):
        raise MutantError(f"the reference must open with its docstring, not {lines[0]!r}")
    lines[0] = f"{first} - my submission.\n\nExample of a realistic mistake: {example.says}."
    lines.insert(1, f"(Made by `attnkit release`: the reference solution with the catalogue mistake {example.key} planted.)")
    return apply("\n".join(lines) + "\n", mutant)


def write_examples(manifest: Manifest, examples_dir: Path) -> list[Path]:
    """Write every example of the assignment's mutants file into examples_dir (other files there are
    left alone); none for an assignment without one."""
    catalogue = manifest.content("mutants")
    if catalogue is None:
        return []
    reference = manifest.solution.read_text(encoding="utf-8")
    examples_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for name, example in sorted(catalogue.EXAMPLES.items()):
        write_atomic(examples_dir / name, example_source(reference, example, catalogue.mutant(example.key)))
        written.append(examples_dir / name)
    return written
