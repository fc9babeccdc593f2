"""An assignment as content: a folder with a manifest.toml, read by the engine.

The folder holds the hidden checks (`part_<letter>.py`, one per part), the reference weights and
the PrairieLearn question text; the manifest gives the parts (title, points, the names students
must define), the file students submit and where the reference solution is. The engine reads
names, parts, points and titles from here, never from its own constants.

ATTNKIT_ASSIGNMENT selects the assignment: a folder holding a manifest.toml, or the name of one
under autograder/assignments/ (default: the one folder there, autograder.paths.ASSIGNMENT).
"""
from __future__ import annotations

import functools
import importlib
import importlib.util
import os
import sys
import tomllib
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from types import ModuleType
from typing import Any

from autograder.errors import AttnkitError
from autograder.feedback.messages import DEFAULT_LANG, Words, words_of
from autograder.paths import ASSIGNMENT as DEFAULT_ASSIGNMENT
from autograder.paths import ASSIGNMENTS_DIR, MANIFEST_NAME, PACKAGE_DIR, REPO_ROOT
ENV_VAR = "ATTNKIT_ASSIGNMENT"
CHECK_FILE_PATTERN = "part_*.py"  # also in autograder/grading/checks/pytest.ini (python_files)


class ManifestError(AttnkitError):
    """A manifest that cannot be read or says something impossible; the text says where and what."""


@dataclass(frozen=True)
class Part:
    letter: str
    title: str
    points: float
    names: tuple[str, ...] = ()  # what students must define for this part
    title_zh: str = ""  # the title on a Chinese page ("": the English one)

    def title_in(self, lang: str) -> str:
        return self.title_zh if lang == "zh" and self.title_zh else self.title


@dataclass(frozen=True)
class Manifest:
    name: str
    title: str
    folder: Path
    student_file: str
    solution: Path
    checks_dir: Path
    reference_dir: Path
    parts: tuple[Part, ...]
    topic: str = ""
    lms_name: str = ""
    question_html: str = ""
    carried: str = ""  # the module of error carried forward (earlier_tasks, stand_in_names, trusted_answer, carried_note); "" for none
    texts: str = ""  # its words (check names, messages in every language): a file of the folder, "" for none
    mistakes: str = ""  # its catalogue of known mistakes (MISTAKES: key -> entry with .en, .message(lang))
    hints: str = ""  # its hints in tiers (TASK_TIERS, CHECK_IDEAS)
    tasks: tuple[tuple[str, str], ...] = ()  # (task, the name students define for it), in order
    grader_side: tuple[str, ...] = ()  # names whose trusted stand-in stays in the grader (never sent to the worker)
    course_id: str = ""  # its nbgrader course id ("": attnkit-<name>)
    notebook_helpers: tuple[str, ...] = ()  # files of the solution folder its notebook imports (nbgrader releases them with it)
    mutants: str = ""  # its mutants: catalogue mistakes planted into the reference (MUTANTS, FIGURE_MUTANTS, EXAMPLES)
    training: str = ""  # its training module: train_reference(out_dir, seed) -> report, summary(report, out_dir) -> str
    worker_standins: str = ""  # its stand-ins for error carried forward, worker side (NAMES, REPLACES, stand_ins): a file of the folder
    rules: str = ""  # its rules (which function may not call which library function) and LIBRARY_NAMES, the names they ban
    public_checks: str = ""  # its public checks (a file of the solution folder): a graded worker gets a module of that name whose checks do nothing (GRADED_PUBLIC_CHECKS)

    @property
    def nbgrader_course_id(self) -> str:
        return self.course_id or f"attnkit-{self.name}"

    @property
    def solution_dir(self) -> Path:
        """The folder of the reference solution: what `attnkit release` makes the student release of."""
        return self.solution.parent

    @property
    def release_dir(self) -> Path:
        """Its student release (`attnkit release` writes it): assignments/<name>/ in the repository."""
        return REPO_ROOT / "assignments" / self.name

    def in_language(self, file: str, lang: str) -> str:
        """The name of `file`'s text in `lang`: x.py -> x.zh.py (English: `file` itself)."""
        path = PurePosixPath(file)
        return file if lang == DEFAULT_LANG else str(path.with_name(f"{path.stem}.{lang}{path.suffix}"))

    def notebook_name(self, lang: str = DEFAULT_LANG) -> str:
        """The student notebook in `lang`: the student file's stem, .ipynb (x.ipynb, x.zh.ipynb)."""
        return self.in_language(f"{PurePosixPath(self.student_file).stem}.ipynb", lang)

    @property
    def task_names(self) -> dict[str, str]:
        return dict(self.tasks)

    def hint_tables(self) -> tuple[dict[str, Any], dict[str, dict[str, str]]]:
        """(TASK_TIERS, CHECK_IDEAS) of its hints file (autograder.feedback.hints serves them); empty without one."""
        module = self.content("hints")
        return (getattr(module, "TASK_TIERS", {}), getattr(module, "CHECK_IDEAS", {})) if module else ({}, {})

    def part_title(self, letter: str, lang: str) -> str:
        """A part's title in `lang`; the letter itself for a part the manifest does not name."""
        return next((part.title_in(lang) for part in self.parts if part.letter == letter), letter)

    def content(self, kind: str) -> ModuleType | None:
        """The module the manifest names for `kind` ("texts", "mistakes", "hints", "mutants", "training",
        "rules" or "worker_standins"), or None."""
        file = {
            "texts": self.texts, "mistakes": self.mistakes, "hints": self.hints, "mutants": self.mutants,
            "training": self.training, "rules": self.rules, "worker_standins": self.worker_standins,
        }[kind]
        return content_module(self.folder / file) if file else None

    @property
    def stand_ins_file(self) -> str:
        """Its worker stand-ins file, as the worker template imports it before forking ("": none)."""
        return str(self.folder / self.worker_standins) if self.worker_standins else ""

    def stand_in_names(self) -> tuple[str, ...]:
        """The names its worker stand-ins replace (its stand-ins file's NAMES; none without one)."""
        module = self.content("worker_standins")
        return tuple(getattr(module, "NAMES", ())) if module else ()

    def library_names(self) -> frozenset[str]:
        """The library functions its rules ban (its rules file's LIBRARY_NAMES): the static pass records their uses."""
        module = self.content("rules")
        return frozenset(getattr(module, "LIBRARY_NAMES", ())) if module else frozenset()

    def traced_roots(self) -> frozenset[str]:
        """The functions and classes its rules judge from a traced call (its rules file's RULES)."""
        module = self.content("rules")
        return frozenset(root for rule in getattr(module, "RULES", ()) for root in rule.roots) if module else frozenset()

    def profiled_roots(self) -> frozenset[str]:
        """The functions and classes of its rules that must be written by hand (`elementary_only`):
        their calls also note other libraries' Python functions (a softmax computed in numpy)."""
        module = self.content("rules")
        return frozenset(root for rule in getattr(module, "RULES", ()) if rule.elementary_only for root in rule.roots) if module else frozenset()

    def banned_words(self) -> frozenset[str]:
        """What its rules ban by name: torch functions, and the words of banned operators
        (a trace's name is kept for a rule only when it holds one: client.other_calls)."""
        module = self.content("rules")
        rules = getattr(module, "RULES", ()) if module else ()
        return frozenset(word for rule in rules for word in (*rule.banned, *rule.banned_ops))

    def carried_module(self) -> ModuleType | None:
        """The assignment's error-carried-forward module, or None when it has none."""
        return importlib.import_module(self.carried) if self.carried else None

    @property
    def part_titles(self) -> dict[str, str]:
        return {part.letter: part.title for part in self.parts}

    @property
    def part_points(self) -> dict[str, float]:
        return {part.letter: part.points for part in self.parts}

    @property
    def max_points(self) -> float:
        return sum(part.points for part in self.parts)

    def kit_files(self) -> dict[str, bytes]:
        """The kit's own .py files that the release hands out as they are (relative path -> bytes):
        every .py file of the solution folder but the student file in any language (x.py, x.<lang>.py).
        A student who hands in the whole release folder hands these in beside their own file."""
        return _kit_files(self.solution_dir, PurePosixPath(self.student_file).stem)

    def check_file(self, letter: str) -> Path:
        return self.checks_dir / f"part_{letter.lower()}.py"

    def hidden_paths(self) -> tuple[Path, ...]:
        """What a worker must never see: the folder (checks, weights) and the reference solution."""
        return (self.folder, self.checks_dir, self.reference_dir, self.solution)


@functools.cache
def _kit_files(solution_dir: Path, student_stem: str) -> dict[str, bytes]:
    found = {}
    for path in sorted(solution_dir.rglob("*.py")):
        relative = path.relative_to(solution_dir)
        if "__pycache__" in relative.parts or path.name.split(".", 1)[0] == student_stem:
            continue
        found[relative.as_posix()] = path.read_bytes()
    return found


def load_manifest(folder: Path) -> Manifest:
    """Read `folder`/manifest.toml; a missing field or a wrong type says which and where."""
    folder = Path(folder).resolve()
    path = folder / MANIFEST_NAME
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ManifestError(f"{path} is missing: an assignment folder needs a {MANIFEST_NAME}") from None
    except tomllib.TOMLDecodeError as error:
        raise ManifestError(f"{path} is not valid TOML: {error}") from None

    def text(key: str, default: str | None = None) -> str:
        value = data.get(key, default)
        if not isinstance(value, str) or (default is None and not value):
            raise ManifestError(f"{path}: `{key}` must be a non-empty string (got {value!r})")
        return value

    parts_table = data.get("parts")
    if not isinstance(parts_table, dict) or not parts_table:
        raise ManifestError(f"{path}: needs at least one [parts.<letter>] table")
    parts = []
    for letter, table in parts_table.items():
        if not (isinstance(table, dict) and isinstance(table.get("title"), str) and isinstance(table.get("points"), (int, float))):
            raise ManifestError(f"{path}: [parts.{letter}] needs title (a string) and points (a number)")
        names = table.get("names", [])
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            raise ManifestError(f"{path}: [parts.{letter}] names must be a list of strings")
        title_zh = table.get("title_zh", "")
        if not isinstance(title_zh, str):
            raise ManifestError(f"{path}: [parts.{letter}] title_zh must be a string")
        parts.append(Part(letter, table["title"], float(table["points"]), tuple(names), title_zh))
    question = text("question_html", "")
    tasks = data.get("tasks", {})
    if not isinstance(tasks, dict) or not all(isinstance(v, str) for v in tasks.values()):
        raise ManifestError(f"{path}: [tasks] maps a task (\"A.1\") to the name students define for it (a string)")
    grader_side = data.get("grader_side", [])
    if not isinstance(grader_side, list) or not all(isinstance(name, str) for name in grader_side):
        raise ManifestError(f"{path}: `grader_side` must be a list of names")
    helpers = data.get("notebook_helpers", [])
    if not isinstance(helpers, list) or not all(isinstance(name, str) for name in helpers):
        raise ManifestError(f"{path}: `notebook_helpers` must be a list of file names")
    for kind in ("texts", "mistakes", "hints", "mutants", "training", "rules", "worker_standins"):
        file = text(kind, "")
        if file and not (folder / file).is_file():
            raise ManifestError(f"{path}: `{kind}` names {file}, which is not in {folder}")
    return Manifest(
        name=text("name"), title=text("title"), folder=folder, student_file=text("student_file"),
        solution=(folder / text("solution")).resolve(), checks_dir=folder / text("checks", "checks"),
        reference_dir=folder / text("reference", "reference"), parts=tuple(parts), topic=text("topic", ""),
        lms_name=text("lms_name", ""), carried=text("carried", ""), question_html=(folder / question).read_text(encoding="utf-8") if question else "",
        texts=text("texts", ""), mistakes=text("mistakes", ""), hints=text("hints", ""), tasks=tuple(tasks.items()),
        grader_side=tuple(grader_side), course_id=text("course_id", ""), notebook_helpers=tuple(helpers),
        mutants=text("mutants", ""), training=text("training", ""),
        worker_standins=text("worker_standins", ""), rules=text("rules", ""), public_checks=text("public_checks", ""),
    )


def assignment_folder(selector: str | None = None) -> Path:
    """The folder `selector` names (a path, or a name under autograder/assignments/); default:
    $ATTNKIT_ASSIGNMENT, else the one folder under autograder/assignments/."""
    return _folder(selector or os.environ.get(ENV_VAR) or DEFAULT_ASSIGNMENT)


@functools.cache
def _folder(chosen: str) -> Path:
    if not chosen:  # no default: several folders under autograder/assignments/
        known = sorted(p.parent.name for p in ASSIGNMENTS_DIR.glob(f"*/{MANIFEST_NAME}"))
        raise ManifestError(f"{ASSIGNMENTS_DIR} holds several assignments ({', '.join(known)}): set {ENV_VAR} to the one to use")
    folder = Path(chosen)
    if not (folder / MANIFEST_NAME).is_file():
        folder = ASSIGNMENTS_DIR / chosen
    if not (folder / MANIFEST_NAME).is_file():
        known = sorted(p.parent.name for p in ASSIGNMENTS_DIR.glob(f"*/{MANIFEST_NAME}"))
        raise ManifestError(f"no assignment {chosen!r} ({ENV_VAR}): give a folder with a {MANIFEST_NAME} or one of {', '.join(known)}")
    return folder.resolve()


def current() -> Manifest:
    """The assignment this process grades (read once per folder)."""
    return _cached(assignment_folder())


@functools.cache
def _cached(folder: Path) -> Manifest:
    return load_manifest(folder)


def named(name: str = "") -> Manifest:
    """The assignment called `name` (as a result records it): the current one when it has that
    name or no name is given, else the one of that name under autograder/assignments/."""
    chosen = current()
    return chosen if name in ("", chosen.name) else _cached(assignment_folder(name))


def words(name: str = "") -> Words:
    """The words that render the results of the assignment called `name` ("": the current one):
    its texts and mistakes with the engine's messages (autograder.feedback.messages)."""
    return _words(named(name))


@functools.cache
def _words(manifest: Manifest) -> Words:
    return words_of(manifest.content("texts"), manifest.content("mistakes"))


def content_module(path: Path) -> ModuleType:
    """A content file of an assignment folder (its texts, mistakes, hints), loaded once: the one
    loader of assignment content. A file inside the autograder package is imported under its
    package name (its checks import it so too); any other under a name of its own."""
    path = Path(path).resolve()
    try:
        dotted = path.relative_to(PACKAGE_DIR.parent).with_suffix("").parts
    except ValueError:
        dotted = ()
    if dotted and dotted[0] == PACKAGE_DIR.name:
        return importlib.import_module(".".join(dotted))
    name = f"attnkit_content_{zlib.crc32(str(path).encode()):08x}_{path.stem}"  # one per file, wherever its folder
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ManifestError(f"cannot load the assignment file {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module


def reference_module(path: Path) -> ModuleType:
    """A reference solution file, loaded in the grader process (never sent to a worker), once per
    process, under a name no student module has: the one reference loader every assignment's
    checks, and Part F's reference model, share."""
    name = f"attnkit_reference_{path.stem}"
    if name in sys.modules:
        return sys.modules[name]
    if not path.is_file():
        raise ManifestError(f"{path} is missing: the assignment's reference solution must be there")
    return _run_reference(name, path, path.read_text(encoding="utf-8"), str(path))


def reference_variant(path: Path, label: str, source: str) -> ModuleType:
    """The reference solution file `path` run from `source` (its text, changed), once per label."""
    name = f"attnkit_reference_{path.stem}_{label}"
    if name in sys.modules:
        return sys.modules[name]
    return _run_reference(name, path, source, f"{path} ({label})")


def _run_reference(name: str, path: Path, source: str, shown_as: str) -> ModuleType:
    """Run a reference's source as module `name` (file `path`; tracebacks show `shown_as`)."""
    module = ModuleType(name)
    module.__file__ = str(path)
    sys.modules[name] = module  # dataclasses look their module up while the file runs
    try:
        with _deferred("matplotlib.pyplot"):
            exec(compile(source, shown_as, "exec"), module.__dict__)  # noqa: S102 - the kit's own reference (or the kit's change of it)
    except BaseException:
        del sys.modules[name]
        raise
    return module


class _Deferred(ModuleType):
    """Stands in for a module while the reference is loaded: the real one is imported on the
    first attribute the reference reads (importlib's LazyLoader cannot: on Python 3.11 the
    import statement itself reads the module's __spec__ and so loads it)."""

    def __getattr__(self, attribute: str) -> Any:
        if sys.modules.get(self.__name__) is self:  # read while the reference still loads
            del sys.modules[self.__name__]
        return getattr(importlib.import_module(self.__name__), attribute)


@contextmanager
def _deferred(name: str) -> Iterator[None]:
    """`import name` inside the block binds a _Deferred, unless name is already imported. The
    reference imports pyplot for plot_attention, which the grader calls only to train or draw
    the reference: a cold `attnkit check` then never pays for pyplot in the grader (~0.6 s)."""
    if name in sys.modules:
        yield
        return
    stand_in = sys.modules[name] = _Deferred(name)
    try:
        yield
    finally:
        if sys.modules.get(name) is stand_in:
            del sys.modules[name]


_REFERENCE_IN_USE: list[ModuleType] = []  # reference_as's module while its block runs


def reference() -> ModuleType:
    """The current assignment's reference solution (inside `reference_as`, the module it gives)."""
    return _REFERENCE_IN_USE[-1] if _REFERENCE_IN_USE else reference_module(current().solution)


@contextmanager
def reference_as(module: ModuleType) -> Iterator[None]:
    """Within the block, `reference()` is `module` (a variant of the reference: one with a
    catalogue mistake planted, to tell whether a later task's wrong values are an earlier one's)."""
    _REFERENCE_IN_USE.append(module)
    try:
        yield
    finally:
        _REFERENCE_IN_USE.pop()
