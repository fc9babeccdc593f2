"""RESULTS.md: the machine, the versions, every figure with its spread, and how to reproduce it."""
from __future__ import annotations

import os
import platform
import subprocess
import sys
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

import psutil

from bench import nbfloor
from bench.figures import Measured, NotMeasured, Row, Section, find
from bench.measure import Stats
from bench.notebooks import CYCLE, VARIANTS
from bench.sections import ATTNKIT_BATCH, CHECK, DOCKER_ONE, DOCKER_PER, FLOOR, GRADE, NBGRADER, OTTER, WATCH_ALL, WATCH_TASK

REPO = Path(__file__).resolve().parents[1]
HEADINGS = {
    "peers": "## 1. attnkit, nbgrader and otter-grader on the same notebooks",
    "floor": "## 2. A student's check against the floor (`import torch`)",
    "docker": "## 3. Docker: one container for the batch, or one per submission",
    "scaling": "## 4. Scaling with the batch size and `--jobs`",
}


@dataclass(frozen=True)
class Machine:
    cpus: int
    memory_gib: float
    cpu_model: str
    system: str
    python: str
    versions: dict[str, str]
    commit: str

    @classmethod
    def probe(cls, otter_version: str) -> Machine:
        versions = {name: _version(name) for name in ("torch", "nbgrader", "numpy", "matplotlib", "pytest")}
        versions["otter-grader"] = otter_version
        versions["docker engine"] = command_output(["docker", "version", "--format", "{{.Server.Version}}"]) or "not running"
        return cls(os.cpu_count() or 0, psutil.virtual_memory().total / 2**30, _cpu_model(),
                   f"{platform.system()} {platform.release()}", sys.version.split()[0], versions, _commit())


def _version(name: str) -> str:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "not installed"


def command_output(command: list[str]) -> str:
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return done.stdout.strip() if done.returncode == 0 else ""


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _commit() -> str:
    commit = command_output(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"]) or "unknown"
    dirty = command_output(["git", "-C", str(REPO), "status", "--porcelain", "--untracked-files=no"])
    return commit + (" (with uncommitted changes)" if dirty else "")


def seconds(stats: Stats) -> str:
    if stats.count == 1 or stats.low == stats.high:
        return f"{stats.median:.2f}"
    return f"{stats.median:.2f} ({stats.low:.2f}–{stats.high:.2f})"


def mib(row: Measured) -> str:
    """Peak PSS, with the peak RSS sum in brackets."""
    if row.peak_mib is None:
        return "n/a"
    text = f"{row.peak_mib.median:.0f}"
    if row.peak_mib.count > 1 and row.peak_mib.low != row.peak_mib.high:
        text += f" ({row.peak_mib.low:.0f}–{row.peak_mib.high:.0f})"
    if row.peak_rss_mib is not None:
        text += f" [{row.peak_rss_mib.median:.0f}]"
    return text


def ratio(numerator: Measured | None, denominator: Measured | None, per_submission: bool = True) -> str:
    if numerator is None or denominator is None:
        return "n/a"
    top = numerator.per_submission if per_submission else numerator.total
    bottom = denominator.per_submission if per_submission else denominator.total
    return f"{top.median / bottom.median:.1f}×"


def _row_cells(row: Row) -> tuple[str, ...]:
    if isinstance(row, NotMeasured):
        return (f"not measured: {row.reason}".replace("\n", " ").replace("|", "/"),)
    return (str(row.submissions), str(row.total.count), seconds(row.per_submission), seconds(row.total), mib(row))


def _table(header: tuple[str, ...], rows: list[tuple[str, ...]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(" --- " for _ in header) + "|"]
    for cells in rows:
        padded = cells if len(cells) == len(header) else (cells[0], cells[1], *(["—"] * (len(header) - 2)))
        lines.append("| " + " | ".join(padded) + " |")
    return lines


def _peers(section: Section, jobs: int) -> list[str]:
    attnkit = find(section, ATTNKIT_BATCH.format(jobs=jobs))
    serial = find(section, ATTNKIT_BATCH.format(jobs=1))
    header = ("grader", "submissions", "runs", "s per submission, median (min–max)", "s whole batch", "peak MiB PSS [RSS sum]", "per submission vs attnkit")
    rows = []
    for row in section.rows:
        cells = _row_cells(row)
        if isinstance(row, NotMeasured):
            rows.append((f"`{row.label}`", *cells))
        else:
            rows.append((f"`{row.label}`", *cells, "1×" if row is attnkit else ratio(row, attnkit)))
    lines = _table(header, rows)
    lines.append("")
    for row in section.rows:
        if isinstance(row, Measured):
            lines.append(f"- `{row.label}`: per submission = {row.derived}. {row.note}")
    nbgrader, otter, floor = find(section, NBGRADER), find(section, OTTER), find(section, nbfloor.LABEL)
    lines += ["", "**Ratios (per submission, medians):**", ""]
    for name, peer in (("nbgrader", nbgrader), ("otter", otter), ("nbgrader's floor (a kernel, `import torch`, one cell)", floor)):
        line = f"- {name} / attnkit (--jobs {jobs}): **{ratio(peer, attnkit)}**"
        if serial is not None and serial is not attnkit:
            line += f"; against attnkit --jobs 1: {ratio(peer, serial)}"
        lines.append(line)
    lines.append("- issue 15's aim: attnkit at a tenth of nbgrader's floor (10×); issue 11's: ≥10× faster than nbgrader and otter on the same notebooks")
    lines += ["", "Scores each grader gave each variant (score/max; two values: not every submission of the "
                  "variant, or not every run, got the same score):", ""]
    graders = [s.grader for s in section.scores]
    header2 = ("variant", "what", "correct", *graders)
    body = []
    used = [v for v in VARIANTS if v.name in CYCLE]
    for variant in used:
        cells = []
        for scores in section.scores:
            given = scores.by_variant.get(variant.name)
            cells.append(", ".join(f"{s:g}/{m:g}" for s, m in given) if given else "—")
        body.append((variant.name, variant.what, "yes" if variant.correct else "no", *cells))
    lines += _table(header2, body)
    return lines


def _floor(section: Section) -> list[str]:
    base = find(section, FLOOR)
    header = ("command", "runs", "s, median (min–max)", "peak MiB PSS [RSS sum]", "vs `import torch`")
    rows = []
    for row in section.rows:
        if isinstance(row, NotMeasured):
            rows.append((f"`{row.label}`", f"not measured: {row.reason}", "—", "—", "—"))
        else:
            rows.append((f"`{row.label}`", str(row.total.count), seconds(row.total), mib(row),
                         ratio(row, base, per_submission=False)))
    lines = _table(header, rows)
    check, grade = find(section, CHECK), find(section, GRADE)
    task, every = find(section, WATCH_TASK), find(section, WATCH_ALL)
    lines += ["", f"**Ratios:** `attnkit check` / `import torch` = **{ratio(check, base, False)}**, "
                  f"`attnkit grade` / `import torch` = **{ratio(grade, base, False)}**; `attnkit watch` after a save: "
                  f"the task at hand / `import torch` = **{ratio(task, base, False)}**, everything / `import torch` = "
                  f"**{ratio(every, base, False)}** (medians).", ""]
    lines += [f"- `{row.label}`: {row.note}" for row in section.rows if isinstance(row, Measured) and row.note]
    return lines


def _docker(section: Section) -> list[str]:
    header = ("mode", "submissions", "runs", "s per submission", "s whole batch", "peak MiB PSS [RSS sum]")
    rows = [(f"`{row.label}`", *_row_cells(row)) for row in section.rows]
    lines = _table(header, rows)
    one, per = find(section, DOCKER_ONE), find(section, DOCKER_PER)
    if one and per:
        lines += ["", f"**Ratio:** a container per submission / one container for the batch = **{ratio(per, one)}** per submission."]
    return lines + _notes(section)


def _scaling(section: Section) -> list[str]:
    header = ("submissions", "--jobs", "runs", "s per submission, median (min–max)", "s whole batch", "peak MiB PSS [RSS sum]")
    rows = []
    for row in section.rows:
        if isinstance(row, NotMeasured):
            rows.append((row.label, f"not measured: {row.reason}", "—", "—", "—", "—"))
        else:
            jobs = row.label.rsplit(" ", 1)[-1]
            rows.append((str(row.submissions), jobs, str(row.total.count), seconds(row.per_submission), seconds(row.total), mib(row)))
    return _table(header, rows) + _notes(section)


def _notes(section: Section) -> list[str]:
    return ["", *(f"- {note}" for note in section.notes)] if section.notes else []


def render(machine: Machine, sections: list[Section], *, command: str, elapsed_s: float, jobs: int,
           load_start: str, load_end: str, notes: list[str]) -> str:
    by_title = {section.title: section for section in sections}
    lines = [
        "# attnkit benchmarks",
        "",
        f"Written by `bench/run.py` in {elapsed_s / 60:.1f} min. Reproduce: `{command}` "
        "(`make bench` runs `.venv/bin/python bench/run.py`; `--help` lists the options).",
        "",
        "## Machine and versions",
        "",
        f"- CPU: {machine.cpu_model}, {machine.cpus} cores; memory {machine.memory_gib:.1f} GiB; {machine.system}",
        f"- Python {machine.python}; " + "; ".join(f"{k} {v}" for k, v in machine.versions.items()),
        f"- attnkit commit {machine.commit}",
        f"- load average (1, 5, 15 min) at start: {load_start}; at end: {load_end}. Other work ran on "
        "this machine at the same time, so absolute times are noisy; the ratios compare runs made "
        "minutes apart under similar load.",
        "",
        "Times are wall-clock seconds. Peak memory is the peak, over the run, of the memory of the "
        "measured command and all its child processes summed: PSS (proportional set size, a page "
        "shared by n processes counts 1/n in each: what the tree really holds; sampled every 0.5 s), "
        "and in brackets the RSS sum (shared pages counted in every process, which over-states "
        "fork-based graders; sampled every 0.1 s). Medians over runs; for otter, over submissions.",
        "",
    ]
    for note in notes:
        lines.append(f"- {note}")
    if notes:
        lines.append("")
    for title in ("peers", "floor", "docker", "scaling"):
        lines += [HEADINGS[title], ""]
        section = by_title.get(title)
        if section is None:
            lines += ["not measured: skipped (--skip " + title + ")", ""]
            continue
        lines.append(f"Load average at start {section.load_start}, at end {section.load_end}.")
        lines.append("")
        if title == "peers":
            lines += _peers(section, jobs)
        elif title == "floor":
            lines += _floor(section)
        elif title == "docker":
            lines += _docker(section)
        else:
            lines += _scaling(section)
        lines.append("")
    return "\n".join(lines).rstrip("\n") + "\n"
