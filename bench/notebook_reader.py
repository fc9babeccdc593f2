"""Why submissions are read with json and not nbformat: import and parse times, side by side.

Run: .venv/bin/python bench/notebook_reader.py  (a few seconds; each import in a fresh process)
"""
from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
NOTEBOOK = REPO / "examples" / "submissions" / "notebook_style.ipynb"
IMPORT = "import sys, time; {pre}t = time.perf_counter(); import {module}; print(time.perf_counter() - t)"


def import_seconds(module: str, pre: str = "") -> float:
    """Median of three cold imports, each in a fresh interpreter."""
    times = sorted(float(subprocess.run([sys.executable, "-c", IMPORT.format(module=module, pre=pre)], check=True,
                                        capture_output=True, text=True).stdout) for _ in range(3))
    return times[1]


def parse_ms(read, text: str, runs: int = 200) -> float:
    start = time.perf_counter()
    for _ in range(runs):
        read(text)
    return (time.perf_counter() - start) / runs * 1e3


def main() -> None:
    import nbformat

    text = NOTEBOOK.read_text(encoding="utf-8")
    json_ms = parse_ms(json.loads, text)
    plain_ms = parse_ms(nbformat.reader.reads, text)
    valid_ms = parse_ms(lambda s: nbformat.reads(s, as_version=4), text)
    print(f"parse {NOTEBOOK.name} ({len(text)} B): json.loads {json_ms:.2f} ms; nbformat.reader.reads "
          f"(no validation) {plain_ms:.2f} ms ({plain_ms / json_ms:.1f}x); nbformat.reads (validated) "
          f"{valid_ms:.2f} ms ({valid_ms / json_ms:.1f}x)")
    torch_s = import_seconds("torch")
    nbformat_s = import_seconds("nbformat")
    bare_s = import_seconds("nbformat", pre="sys.modules['rfc3987_syntax'] = None; ")
    print(f"cold import: nbformat {nbformat_s:.2f} s ({nbformat_s / torch_s:.2f}x import torch, {torch_s:.2f} s); "
          f"without jsonschema's rfc3987 grammar {bare_s:.2f} s ({bare_s / torch_s:.2f}x)")


if __name__ == "__main__":
    main()
