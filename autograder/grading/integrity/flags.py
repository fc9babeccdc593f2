"""Integrity flags: what the grader saw a submission try, recorded beside its scores.

A flag never changes a score by itself. It shows on the instructor's dashboard and in grades.csv,
never on the student's page; `--integrity strict` zeroes the part a flag belongs to.
"""
from __future__ import annotations

from dataclasses import dataclass

# Flag codes, each with the words the instructor reads.
LIBRARY_CALL = "library_call"  # the source uses a library function a rule bans
RULE_BYPASS = "rule_bypass"  # a rule's evidence disagrees (trace vs source), or a banned op ran
EVASION = "evasion"  # the source holds a construct that can switch the trace off or reach around it
GRADER_REFERENCE = "grader_reference"  # the source names the grader's own modules
LIBRARY_PATCH = "library_patch"  # the source assigns to a library's attributes (torch.allclose = ...)
TAMPER = "tamper"  # the worker's machinery did not behave as built (tripwire, forged figure)
FILE_ACCESS = "file_access"  # the source reads or writes files (outside the submission)
NETWORK = "network"  # the source opens network connections
SIGNAL = "signal"  # the source sends signals to processes
PROCESS = "process"  # the source starts processes or threads
RESOURCE_LIMIT = "resource_limit"  # a time, memory, CPU or file-size limit was hit
FAKE_RESULTS = "fake_results"  # the submission wrote a grader results file

FLAG_TEXT = {
    LIBRARY_CALL: "uses a library function that a rule bans",
    RULE_BYPASS: "a rule's evidence disagrees or a banned operation ran",
    EVASION: "holds code that can switch the grader's trace off (dynamic lookups, torch.ops, frames, gc, importlib...)",
    GRADER_REFERENCE: "refers to the grader's own modules",
    LIBRARY_PATCH: "patches a library (assigns to torch, numpy... attributes)",
    TAMPER: "the worker's own machinery was tampered with",
    FILE_ACCESS: "reads or writes files",
    NETWORK: "tries the network",
    SIGNAL: "sends signals to processes",
    PROCESS: "starts processes or threads",
    RESOURCE_LIMIT: "hit a resource limit",
    FAKE_RESULTS: "wrote a grader results file",
}
UNTRUSTED_TRACE = (EVASION, GRADER_REFERENCE)  # with these in the source, the trace proves nothing
INTEGRITY_MODES = ("record", "strict")


@dataclass(frozen=True)
class Flag:
    """One thing the grader saw: a code from FLAG_TEXT, what exactly, and the part it touches ('' = all)."""

    code: str
    detail: str
    part: str = ""

    @property
    def text(self) -> str:
        return FLAG_TEXT.get(self.code, self.code)


def flag_codes(flags: tuple[Flag, ...]) -> tuple[str, ...]:
    """Each code once, in the order first seen."""
    return tuple(dict.fromkeys(f.code for f in flags))
