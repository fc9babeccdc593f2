"""The flags that go on a submission's record, and what `--integrity strict` does with them."""
from __future__ import annotations

from dataclasses import replace

from autograder.assignment import current
from autograder.grading.integrity.flags import (
    EVASION, FAKE_RESULTS, FILE_ACCESS, GRADER_REFERENCE, LIBRARY_PATCH, NETWORK, PROCESS, RESOURCE_LIMIT, SIGNAL, Flag,
)
from autograder.grading.integrity.static import MAIN_GUARD, SourceFacts
from autograder.feedback.messages import ENGINE_MESSAGES
from autograder.feedback.results import FAILED, CheckResult
from autograder.settings import GRADES_CSV, GRADESCOPE_FILE, PRAIRIELEARN_FILE, RESULT_FILE

SOURCE_CODES = (EVASION, GRADER_REFERENCE, LIBRARY_PATCH, FILE_ACCESS, NETWORK, PROCESS, SIGNAL)
LIMIT_WORDS = ("timed out", "memory limit", "CPU time limit", "file size limit", "time budget", "killed")
RESULT_FILE_NAMES = (GRADESCOPE_FILE, PRAIRIELEARN_FILE, RESULT_FILE, GRADES_CSV)


def part_of(scope: str) -> str:
    """The part a top-level name of the submission belongs to (the assignment's manifest: the part
    whose names hold it; a finding inside it touches that part), "" for any other."""
    return next((part.letter for part in current().parts if scope in part.names), "")


def source_flags(facts: SourceFacts) -> list[Flag]:
    """One flag per code and scope: what the static pass saw anywhere in the source."""
    grouped: dict[tuple[str, str], list[str]] = {}
    for finding in facts.findings:
        if finding.scope == MAIN_GUARD and finding.code != GRADER_REFERENCE:
            continue  # a demo under `if __name__ == "__main__":` never runs in the grader: only naming the grader counts
        if finding.code in SOURCE_CODES:
            grouped.setdefault((finding.code, finding.scope), []).append(finding.describe())
        if finding.code == FILE_ACCESS and any(name in finding.what for name in RESULT_FILE_NAMES):
            grouped.setdefault((FAKE_RESULTS, finding.scope), []).append(finding.describe())
    flags = [Flag(RESOURCE_LIMIT, f"the grader's reading of the source ran out of its {facts.unread:g} s of CPU: the rules could not be checked")] if facts.unread else []
    untold: dict[str, int] = {}  # code -> scopes of no part past MAX_SCOPE_FLAGS
    for (code, scope), found in grouped.items():
        part = part_of(scope)
        if not part and sum(1 for flag in flags if flag.code == code and not flag.part) >= MAX_SCOPE_FLAGS:
            untold[code] = untold.get(code, 0) + 1
            continue
        where = f"in {scope}: " if scope else "at module level: "
        shown = ", ".join(dict.fromkeys(found[:4])) + (f" and {len(found) - 4} more" if len(found) > 4 else "")
        flags.append(Flag(code, where + shown, part))
    flags += [Flag(code, f"the same in {count:,} more functions") for code, count in untold.items()]
    return flags


MAX_SCOPE_FLAGS = 8  # flags of one code for scopes no part holds (60,000 one-line functions made 4.5 MB of flags: qa27h n02)


AUDIT_CODES = {  # Python audit event (reported by the worker) -> flag
    "socket.getaddrinfo": NETWORK, "socket.__new__": NETWORK, "socket.connect": NETWORK, "socket.bind": NETWORK, "socket.sendto": NETWORK, "os.kill": SIGNAL, "os.killpg": SIGNAL,
    "signal.pthread_kill": SIGNAL, "subprocess.Popen": PROCESS, "os.system": PROCESS, "os.exec": PROCESS,
    "os.posix_spawn": PROCESS, "os.spawn": PROCESS, "os.fork": PROCESS, "os.forkpty": PROCESS, "ctypes.dlopen": EVASION,
    "ctypes.dlsym": EVASION, "gc.get_objects": EVASION, "gc.get_referrers": EVASION, "gc.get_referents": EVASION, "open": FILE_ACCESS,
}


def audit_flags(events: list[str]) -> list[Flag]:
    """What the worker saw the student's code do (its audit hook): one flag per code, with examples.

    The worker is the student's process, so these are only what it reported: they add to the
    static pass's flags, they never clear one."""
    grouped: dict[str, list[str]] = {}
    for event in events:
        code = AUDIT_CODES.get(event.split(" ", 1)[0])
        if code:
            grouped.setdefault(code, []).append(event)
    return [Flag(code, "seen running: " + ", ".join(dict.fromkeys(found[:4]))) for code, found in grouped.items()]


def event_flags(texts: list[str] | tuple[str, ...]) -> list[Flag]:
    """Resource limits hit, from the worker's events and the checks' messages (each text once)."""
    return [Flag(RESOURCE_LIMIT, text[:300]) for text in dict.fromkeys(texts) if any(word in text for word in LIMIT_WORDS)]


def merge(*groups: list[Flag] | tuple[Flag, ...]) -> tuple[Flag, ...]:
    return tuple(dict.fromkeys(flag for group in groups for flag in group))


ZEROED = ENGINE_MESSAGES["integrity_zeroed"]["en"]


def strict(checks: tuple[CheckResult, ...], flags: tuple[Flag, ...]) -> tuple[CheckResult, ...]:
    """`--integrity strict`: every check of a part that carries a flag scores 0 and fails, its
    message says why (not which flag: those are the instructor's). It read "passed (0/2)" (qa33p)."""
    parts = {flag.part for flag in flags if flag.part and flag.code != RESOURCE_LIMIT}
    return tuple(
        replace(c, points=0.0, status=FAILED, message=ZEROED, message_key="integrity_zeroed", message_args={}) if c.part in parts and c.points else c
        for c in checks
    )
