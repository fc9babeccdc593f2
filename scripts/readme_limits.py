"""Write the README's limits table from autograder/settings.py (between its two markers).

    python scripts/readme_limits.py          # rewrite README.md
    python scripts/readme_limits.py --check  # exit 1 when README.md is out of date
"""
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from autograder.settings import limits_table  # noqa: E402

BEGIN = "<!-- limits table: generated from autograder/settings.py by scripts/readme_limits.py -->"
END = "<!-- end of limits table -->"


def with_table(readme: str) -> str:
    """The README text with the table between the markers replaced by the settings' table."""
    if readme.count(BEGIN) != 1 or readme.count(END) != 1 or readme.index(BEGIN) > readme.index(END):
        raise SystemExit(f"README.md needs the two markers, once each and in order:\n{BEGIN}\n{END}")
    head, rest = readme.split(BEGIN)
    _, tail = rest.split(END)
    return f"{head}{BEGIN}\n{limits_table()}{END}{tail}"


def main(argv: list[str]) -> int:
    path = ROOT / "README.md"
    text = path.read_text(encoding="utf-8")
    new = with_table(text)
    if "--check" in argv:
        return 0 if new == text else 1
    path.write_text(new, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
