"""Would the submission run on a GPU? Seen on the CPU by tracing where new tensors are made.

A tensor made without device= next to inputs on a GPU crashes there (autograder/grading/worker/
devicetrace.py finds such lines). This cannot be told for sure on a CPU (a tensor made on the CPU
may never meet a GPU tensor in a way that fails), so it is a note in the feedback, never points.
"""
from __future__ import annotations

import re

from autograder.assignment import current
from autograder.feedback.i18n import t
from autograder.grading.worker.client import Student, StudentError, WorkerFailure

FIELDS = ("where", "function", "line", "factory", "op")  # what the worker reports per line
MAX_NOTES = 8  # a file has a few such lines; past them one line says how many more (qa33h: 6,000 notes, 11 MB of feedback)
MAX_LINE = 120  # characters of a quoted source line


def _probes() -> list[tuple[str, str, tuple, tuple]]:
    """(part, function or class, constructor args, call args) for every task whose code combines
    tensors: the assignment's (its rules file's `device_probes`), none without them."""
    probes = getattr(current().content("rules"), "device_probes", None)
    return list(probes()) if probes is not None else []


def device_notes(student: Student, lang: str = "en", parts: frozenset[str] | None = None) -> list[str]:
    """One note per line of the student's file that makes a tensor on the default device which
    is then combined with the inputs (would fail on a GPU), MAX_NOTES at most. Only the probes of
    `parts` run. Run before the checks: what a worker that held private data (Part F's weights)
    reports is the submission's to choose (qa33h: the lines noted spelled out the weights' digits),
    so none is asked."""
    if student.holds_private():
        return []
    found: dict[str, dict] = {}
    for part, name, init, args in _probes():
        if parts is not None and part not in parts:
            continue
        try:
            if init:
                handle = student.new(name, *init, seed=0)
                message = {"op": "call", "handle": handle, "method": "__call__", "args": list(args), "kwargs": {}, "device_trace": True}
            else:
                message = {"op": "call", "name": name, "args": list(args), "kwargs": {}, "device_trace": True}
            for item in student.request(message, name) or []:
                if isinstance(item, dict) and all(isinstance(item.get(k), str) for k in FIELDS):
                    found.setdefault(item["where"], item)
        except WorkerFailure:
            break  # a hang or a crash: the checks say so, and a note is not worth another timeout (qa33p: one a probe)
        except StudentError:
            continue  # not implemented, raised, returned what cannot cross: the checks say so (qa34h: not the probes after it)
    shown = sorted(found.values(), key=lambda item: [int(w) if w.isdigit() else w for w in re.split(r"(\d+)", item["where"])])[:MAX_NOTES]  # in the file's order
    notes = [t("device.note", lang, **{k: item[k][:MAX_LINE] for k in FIELDS}) for item in shown]
    return notes + ([t("device.more", lang, count=len(found) - MAX_NOTES)] if len(found) > MAX_NOTES else [])
