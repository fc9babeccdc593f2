"""The static pass: what the submitted source says, read in the grader (student code never runs here).

The worker's trace is evidence from the student's own process, which the student controls. This
pass reads the same source the worker ran (the answer cells of a notebook, the entry file and its
helper files) as an AST, and as tokens where a piece does not parse, and records:

- uses of library functions by name (the names `analyze` is given: those an assignment's rules
  ban): attribute accesses (`torch.softmax`, `x.softmax`, `nn.MultiheadAttention`), names imported
  from a library (`from torch.nn.functional import softmax as s`) and aliases bound to them
  (`sm = F.softmax`), each with the top-level function or class it sits in, so a rule can look
  only at the code its function reaches;
- constructs that can switch the trace off or reach around it, anywhere in the source: `getattr`
  and friends with a computed name, `torch.ops`, private torch attributes (`torch._C`),
  `importlib`, `ctypes`, `gc`, `sys.modules`, frames (`sys._getframe`, `inspect`), builtins,
  `eval`/`exec`/`compile`/`__import__`, scripted functions; any reference to the grader's own
  modules; and the means of reaching outside the submission (files, network, signals, processes).

Each finding carries a flag code (autograder.grading.integrity.flags) and the line it is on.
The names it looks for are in integrity/names.py; what an expression says by its syntax alone
(a file or a descriptor number, text, a `__main__` guard...) in integrity/syntax.py.
"""
from __future__ import annotations

import ast
import collections
import contextlib
import functools
import importlib
import inspect
import io
import keyword
import re
import signal
import sys
import threading
import tokenize
from collections.abc import Iterable, Iterator, Sequence, Set as AbstractSet
from dataclasses import dataclass, replace
from typing import Any

from autograder.grading.integrity.flags import EVASION, FILE_ACCESS, GRADER_REFERENCE, LIBRARY_CALL, LIBRARY_PATCH, NETWORK, PROCESS, SIGNAL
from autograder.grading.chunks import Cells, line_where, split_chunks
from autograder.grading.integrity import syntax
from autograder.grading.integrity.syntax import (
    dotted_name, constant_text, on_super, definition_time, looks_like_path, number_names, bindings, stored_attributes, text_bound_names, argv_is_text, shown_texts_used, is_main_guard, starts_workers, opens_for_writing, installed,
    Ownership, attributes_holding, holders, may_hold, module_names, ownership, receivers, record_fields, threading_in_place, torch_bound,
)
from autograder.settings import STATIC_PASS_CPU_SECONDS
from autograder.grading.integrity.names import (
    GRADER_NAMES, READ_PACKAGES, UNREAD_PACKAGE, EVASION_MODULES, MODULE_ATTRIBUTES, EVASION_ATTRIBUTES, EVASION_BUILTINS, NAME_LOOKUPS, TEXT_LOOKUPS, TEXT_CODE_MODULES, TEXT_CODE_SAFE_NAMES, TEST_AND_DEBUG_MODULES, DEBUGGER, DEBUGGER_CALLS, RAW_DESCRIPTOR_FUNCTIONS, RAW_DESCRIPTOR_NAMES, RAW_DESCRIPTOR_KEYWORDS, UNPICKLING_KEYWORDS, UNPICKLING_POSITIONS, OUTSIDE_TRACE, LOADER, FILE_NAMES, OS_ONLY_METHODS, UNKNOWN_MODULE, FILE_READERS, TEXT_ATTRIBUTES, MAIN_GUARD, IMPORT_PATHS, NOT_PATCHES, LIBRARY_MODULES, TEMPORARY_FILES, CALLED_IS_FINE, READ_IS_FINE, NETWORK_NAMES, PROCESS_NAMES, SIGNAL_NAMES, SAFE_RECEIVERS, MODULE_SCOPE, SCRIPTED, TORCH_PRIVATE_MODULES,
)
# what makes the worker's evidence worthless: a switch of the trace where it runs, or a library patched,
# which can rewrite what the worker sends (json.dumps, socket.socket.sendall: a forged trace or figure)
UNTRUSTED_CODES = frozenset({EVASION, LIBRARY_PATCH})
PERSISTENT_HOOKS = frozenset({"settrace", "setprofile", "addaudithook", "monitoring"})  # sys.<these>, threading.<these>: run on later calls
MODULE_MAKERS = frozenset({PROCESS, NETWORK})  # flag codes of what can make a module while the code runs (and writing files)
# what ast.parse raises for a text Python cannot compile: an expression nested too deep for its
# parser raises RecursionError (`x = a+a+...+a`, 50,000 terms), null bytes ValueError
UNPARSABLE = (SyntaxError, ValueError, RecursionError, MemoryError)
IMMUTABLE_TYPE = 1 << 8  # Py_TPFLAGS_IMMUTABLETYPE: a class no store can change (str, list, the C types)


@dataclass(frozen=True)
class Finding:
    """One thing the source does: its flag code, what (in the student's words) and where."""

    code: str
    what: str
    line: int
    scope: str  # the top-level function or class it is in ("" = module level); "file.py:" prefix for helper files
    name: str = ""  # LIBRARY_CALL: the library function's name (softmax, MultiheadAttention...); EVASION: the name that is one

    cells: Cells = ()  # the entry is a notebook: where its lines are (grading/chunks.py)

    def describe(self) -> str:
        return f"{self.what} ({line_where(self.line, self.cells)})"


@dataclass(frozen=True)
class SourceFacts:
    """Everything the static pass found in one submission."""

    findings: tuple[Finding, ...]
    references: dict[str, frozenset[str]]  # top-level def/class -> the names its body loads
    defined: frozenset[str]  # names the submission defines at top level (functions, classes)
    aliases: dict[str, str]  # a name bound to a library function anywhere -> that function's name
    graded: frozenset[str] = frozenset()  # what the grader calls (the assignment's tasks); empty: every definition
    unread: float = 0.0  # the CPU seconds the pass ran out of (STATIC_PASS_CPU_SECONDS); then nothing above is known
    read: frozenset[str] | None = None  # the helper files it read, those the entry can load (_reachable); None: not known
    # a name -> the helper files' definitions it may stand for ("helpers.py:f"): its own, an import's
    # alias of it, its module's name; None: a file loads code by other means, any may be reached
    helper_names: dict[str, frozenset[str]] | None = None
    helper_escapes: frozenset[str] = frozenset()  # helper definitions any code may reach: those names do not follow them

    def reachable(self, roots: set[str], stop: frozenset[str] = frozenset()) -> set[str]:
        """The top-level definitions `roots` reach through the names their bodies load (not through
        `stop`), into the helper files' definitions too."""
        seen: set[str] = set()
        todo = [r for r in roots if r in self.references]
        while todo:
            name = todo.pop()
            if name in seen:
                continue
            seen.add(name)
            for loaded in self.references.get(name, frozenset()) - stop:
                todo.extend(n for n in (loaded, *(self.helper_names or {}).get(loaded, ())) if n in self.references and n not in seen)
        return seen

    def library_uses(self, roots: set[str], banned: frozenset[str], stop: frozenset[str] = frozenset()) -> list[Finding]:
        """Uses of the banned library functions in the code `roots` reach: in a helper file, in the
        definitions they reach and in its module-level code (an alias made there is used by name);
        in every definition of the helper files when a file loads code by other means."""
        scopes = self.reachable(roots, stop)
        return [
            f for f in self.findings
            if f.code == LIBRARY_CALL and f.name in banned
            and (f.scope in scopes or (":" in f.scope and (self.helper_names is None or f.scope.endswith(":") or f.scope in self.helper_escapes)))
        ]

    def untrusted(self, roots: set[str], stop: frozenset[str] = frozenset()) -> list[Finding]:
        """What makes the worker's evidence about `roots` worthless: any reference to the grader's
        modules outside a demo under `if __name__ == "__main__":`, and constructs that can switch
        the trace off in the code that runs at import
        (module level, decorators, default values, class bodies, and every function they reach)
        or in the code the roots reach (an unrelated function's dynamic getattr does not count
        against them); and what outlives the call that made it (a library patched, a trace or audit
        hook installed: one set up by attention_scores rewrites every later reply) in any code the
        grader runs (not a demo under `if __name__ == "__main__":`)."""
        scopes = self.reachable(set(roots) | {MODULE_SCOPE}, stop) | {MODULE_SCOPE}
        graded = self.reachable(set(self.graded or self.references) - {MAIN_GUARD} | {MODULE_SCOPE}) | {MODULE_SCOPE}
        return [
            f for f in self.findings
            if (f.code == GRADER_REFERENCE and f.scope != MAIN_GUARD) or (f.code in UNTRUSTED_CODES and (f.scope in scopes or ":" in f.scope))
            or (_persists(f) and f.scope in graded)
        ]

    def anywhere(self, *codes: str) -> list[Finding]:
        return [f for f in self.findings if f.code in codes]


SELF_MATCHING = frozenset({"bool", "bytearray", "bytes", "dict", "float", "frozenset", "int", "list", "set", "str", "tuple"})  # case int(x): x is the subject


# ---------------------------------------------------------------------------------------------
# reading the source
# ---------------------------------------------------------------------------------------------
class _Scanner(ast.NodeVisitor):
    def __init__(self, library: frozenset[str], prefix: str = "", local: frozenset[str] = frozenset(), text_names: frozenset[str] = frozenset(),
                 main_guard: bool = False, numbers: frozenset[str] = frozenset(), own_definitions: dict[str, frozenset[str]] | None = None,
                 ownership: Ownership | None = None, receivers: frozenset[str] = frozenset(SAFE_RECEIVERS)):
        self.receivers = receivers  # self and cls where they name the submission's own object (syntax.receivers)
        self.records: dict[str, tuple[str, ...]] = {}  # the file's dataclasses and named tuples -> their fields (syntax.record_fields)
        self.library = library  # the library functions whose uses are findings (LIBRARY_CALL)
        self.own_definitions = own_definitions or {}  # a helper file's module name -> the functions and classes it defines
        self.ownership = ownership or Ownership(frozenset(), frozenset(), frozenset(), frozenset())  # what the submission made: attributes stored on it patch nothing
        self.text_names = text_names  # names only ever bound to text or paths (an open() of one opens a file)
        self.main_guard = main_guard  # nothing can make __name__ "__main__": such a block never runs
        self.numbers = numbers  # names bound to a number somewhere (what open() of one opens may be a descriptor)
        self.local = local  # the submission's own modules (its files, its entry module)
        self.prefix = prefix
        self.scope = MODULE_SCOPE
        self.findings: list[Finding] = []
        self.references: dict[str, set[str]] = {}
        self.first_loads: dict[tuple[str, str], int] = {}  # (top-level def/class, name) -> the line it is first loaded on
        self.defined: set[str] = set()
        self.aliases: dict[str, str] = {}
        self.scoped_aliases: dict[tuple[str, str], tuple[str, str, int]] = {}  # (class, self) -> (softmax, self.sm, line) of `self.sm = F.softmax`
        self.local_stores: dict[str, set[str]] = {}
        self.called: set[int] = set()  # ids of Attribute nodes that are called (x.modules())
        self.imported: set[str] = set()  # names bound by imports (modules and what came from them)
        self.own_modules: set[str] = set()  # names bound to the submission's own modules (`import helpers as h`): no library
        self.links: dict[str, set[str]] = {}  # top-level name -> names assigned into it at module level
        self.torch_names: set[str] = {"torch"}  # names bound to torch or to something imported from it
        self.os_names: set[str] = set()  # names bound to the os (or posix) module
        self.os_attributes: frozenset[str] = frozenset()  # attribute names given it (`self.o = os`)
        self.sys_names: set[str] = {"sys"}  # names bound to the sys module (`import sys as _sys`: _sys.stdout is sys.stdout, qa37h F5)
        self.pandas_names: set[str] = set()  # names bound to the pandas module: its eval taken as a value runs text (qa37h F2)
        self.makes_modules = False  # it changes where imports look, makes temporary files or writes files
        self.loaders: set[str] = {LOADER}  # names bound to torch's DataLoader
        self.threading_in_place = False  # threading used only for locks and the like (syntax.threading_in_place)
        self.settings: set[int] = set()  # ids of attribute targets assigned a constant (torch.backends.cudnn.deterministic = True)
        self.prose = False  # texts only shown name nothing: docstrings and print's arguments (_scan: not where __doc__ is read or print rebound)
        self.printed: set[int] = set()  # ids of the texts print is given
        self.test_and_debug: dict[str, str] = {}  # a name bound by an import of a TEST_AND_DEBUG_MODULES module -> what it names: each use is a finding, the import is not (qa39h F2)
        self.debugger_names: set[int] = set()  # ids of the names of `pdb.set_trace` (DEBUGGER)
        self.match_subjects: dict[int, ast.expr] = {}  # id of a class pattern -> what it is matched against (visit_Match)
        self.own_reflection: set[int] = set()  # ids of names and attributes that reflect on the file's own object only (vars(self), object.__setattr__(self, "x", v))

    def add(self, code: str, what: str, node: ast.AST, name: str = "") -> None:
        self.findings.append(Finding(code, what, getattr(node, "lineno", 0), f"{self.prefix}{self.scope}", name))

    # -- scopes ---------------------------------------------------------------------------------
    def _top_level(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> None:
        if isinstance(node, ast.ClassDef) and any(dotted_name(base).endswith("Formatter") for base in node.bases):
            for method in node.body:  # a string.Formatter's convert_field overridden: the object a text names is handed to it (qa37h F2)
                if isinstance(method, ast.FunctionDef | ast.AsyncFunctionDef) and method.name in FORMATTER_DOORS:
                    self.findings.append(Finding(EVASION, f"{node.name}.{method.name} (reaches a name given as text)", method.lineno,
                                                 f"{self.prefix}{node.name if self.scope == MODULE_SCOPE else self.scope}", method.name))
        if self.scope != MODULE_SCOPE:
            self.generic_visit(node)
            return
        self.defined.add(node.name)
        self.references.setdefault(node.name, set())
        self.local_stores.setdefault(node.name, set())
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            self._import_time(node.name, definition_time(node))
            self._in_scope(node.name, node.body)
            return
        methods = [s for s in node.body if isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef)]
        body = [s for s in node.body if s not in methods]  # a class body runs at import
        self._import_time(node.name, [*node.decorator_list, *node.bases, *node.keywords, *body, *(p for m in methods for p in definition_time(m))])
        self._in_scope(node.name, [b for m in methods for b in m.body])

    def _in_scope(self, scope: str, nodes: Sequence[ast.AST]) -> None:
        self.scope = scope
        for child in nodes:
            self.visit(child)
        self.scope = MODULE_SCOPE

    def _import_time(self, scope: str, nodes: Sequence[ast.AST]) -> None:
        """Parts of a definition that run when it is defined, at import (decorators, default
        values, class bodies): they belong to the definition, and what they load and the
        constructs that can switch the trace off count as module-level code too (but for
        scripting a function, which hides only that function)."""
        start = len(self.findings)
        self._in_scope(scope, nodes)
        self.findings += [replace(f, scope=f"{self.prefix}{MODULE_SCOPE}") for f in self.findings[start:] if f.code in UNTRUSTED_CODES and SCRIPTED not in f.what]
        self.references.setdefault(MODULE_SCOPE, set()).update(n.id for part in nodes for n in ast.walk(part) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load))

    visit_FunctionDef = visit_AsyncFunctionDef = visit_ClassDef = _top_level

    def visit_If(self, node: ast.If) -> None:
        """A module-level `if __name__ == "__main__":` block (a demo) is its own scope, which no
        rule reaches: what it holds and calls is not code that runs at import. Its `else` is."""
        if not (self.main_guard and self.scope == MODULE_SCOPE and is_main_guard(node)):
            self.generic_visit(node)
            return
        self.local_stores.setdefault(MAIN_GUARD, set())
        self._in_scope(MAIN_GUARD, node.body)
        for child in node.orelse:
            self.visit(child)

    # -- imports --------------------------------------------------------------------------------
    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            deferred = self._test_or_debug(alias.name)
            self._module(alias.name, node, deferred=deferred)
            if deferred:
                self.test_and_debug[alias.asname or alias.name.split(".")[0]] = alias.name if alias.asname else alias.name.split(".")[0]
            self.imported.add(alias.asname or alias.name.split(".")[0])
            if alias.name.split(".")[0] in self.local:
                self.own_modules.add(alias.asname or alias.name.split(".")[0])
            if alias.name.split(".")[0] == "torch":
                self.torch_names.add(alias.asname or "torch")
            if alias.name in ("os", "posix"):
                self.os_names.add(alias.asname or alias.name)
            if alias.name == "sys":
                self.sys_names.add(alias.asname or alias.name)
            if alias.name == "pandas":
                self.pandas_names.add(alias.asname or alias.name)
            for part in alias.name.split("."):
                self._name_use(part, node, imported=True)
        self.generic_visit(node)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        deferred = self._test_or_debug(node.module or "", node.level > 0) and all(alias.name != "*" and not alias.name.startswith("_") for alias in node.names)
        self._module(node.module or "", node, relative=node.level > 0, deferred=deferred)
        for alias in node.names:
            if deferred and f"{node.module}.{alias.name}" not in TEXT_CODE_SAFE_NAMES:
                self.test_and_debug[alias.asname or alias.name] = f"{node.module}.{alias.name}"
            self.imported.add(alias.asname or alias.name)
            if (node.module or "").split(".")[0] == "torch":
                self.torch_names.add(alias.asname or alias.name)
            self._name_use(alias.name, node, imported=True, origin=node.module or "")
            if alias.name in self.library and not self._defined_in(node.module or "", alias.name):
                self.aliases[alias.asname or alias.name] = alias.name
            if alias.name == LOADER:
                self.loaders.add(alias.asname or alias.name)
            if node.module in ("os", "posix") and alias.name in RAW_DESCRIPTOR_FUNCTIONS:
                self.add(EVASION, f"{node.module}.{alias.name} (raw descriptor I/O can reach the worker's channel)", node)
        self.generic_visit(node)

    def _defined_in(self, module: str, name: str) -> bool:
        """Whether `name` is a function or class the submission's own file `module` defines
        (`from attn_helpers import scaled_dot_product_attention`: its own, not the library's)."""
        return any(name in names for own, names in self.own_definitions.items() if module and (own == module or own.endswith(f".{module}")))

    def _test_or_debug(self, dotted: str, relative: bool = False) -> bool:
        """Whether an import is of a self-test or debugging module (TEST_AND_DEBUG_MODULES):
        importing it runs nothing, so its names are findings where they are used."""
        parts = dotted.split(".")
        return (not relative and parts[0] in TEST_AND_DEBUG_MODULES and not {p.lstrip("_") for p in parts} & EVASION_MODULES
                and not any(p.startswith("_") for p in parts))

    def _module(self, dotted: str, node: ast.AST, relative: bool = False, deferred: bool = False) -> None:
        parts = set(dotted.split("."))
        top = dotted.split(".")[0]
        bare = {p.lstrip("_") for p in parts}  # the C module behind one (_pickle, _frozen_importlib, _imp) is that module
        if parts & GRADER_NAMES:
            self.add(GRADER_REFERENCE, f"import of {dotted}", node)
        if deferred:
            return
        if (bare & EVASION_MODULES or top.lstrip("_") in TEXT_CODE_MODULES or any(dotted == m or dotted.startswith(f"{m}.") for m in ("torch.ops", "torch._C", "torch.overrides", "torch.library", "torch.jit", "torch.fx", "logging.config"))
                or any(p.startswith("_") and not p.startswith("__") for p in dotted.split(".")[1:])):
            self.add(EVASION, f"import of {dotted}", node)
        elif top and not relative and top not in self.local and top not in GRADER_NAMES and not installed(top):
            self.add(EVASION, f"import of {dotted}{UNKNOWN_MODULE}", node)
        elif top and not relative and top not in self.local and top not in READ_PACKAGES and top not in sys.stdlib_module_names and top not in GRADER_NAMES:
            self.add(EVASION, f"import of {dotted}{UNREAD_PACKAGE}", node)

    # -- names and attributes -------------------------------------------------------------------
    def visit_Name(self, node: ast.Name) -> None:
        if isinstance(node.ctx, ast.Load) and node.id in NAME_LOOKUPS and id(node) not in self.called:
            self.add(EVASION, f"{node.id} passed as a value (it can look up any name)", node)
        if isinstance(node.ctx, ast.Load) and node.id in self.test_and_debug and id(node) not in self.own_reflection:
            named = self.test_and_debug[node.id]
            self.add(EVASION, f"{named}{DEBUGGER}" if named in DEBUGGER_CALLS or id(node) in self.debugger_names
                     else f"{named} (its module runs text as code or reaches names given as text)", node)
        if isinstance(node.ctx, ast.Load):
            self.references.setdefault(self.scope, set()).add(node.id)  # MODULE_SCOPE: what import-time code reaches
            self.first_loads.setdefault((self.scope, node.id), node.lineno)
            self._name_use(node.id, node)
        elif self.scope != MODULE_SCOPE:
            self.local_stores[self.scope].add(node.id)

    def _name_use(self, name: str, node: ast.AST, imported: bool = False, origin: str = "") -> None:
        if name in GRADER_NAMES:
            self.add(GRADER_REFERENCE, f"the name {name}", node)
        if (name in EVASION_BUILTINS or (imported and name in EVASION_MODULES | (EVASION_ATTRIBUTES - {"sys"}))) and id(node) not in self.own_reflection:
            self.add(EVASION, f"{name}{DEBUGGER if name in DEBUGGER_CALLS else ''}", node, name)
        if imported and name in self.library:
            self.add(LIBRARY_CALL, f"{origin + '.' if origin else ''}{name} (imported)", node, name)
        self._reach(name, node)

    def _reach(self, name: str, node: ast.AST) -> None:
        if name in TEMPORARY_FILES or (name in FILE_NAMES - FILE_READERS and (name != "open" or id(node) not in self.called)):
            self.makes_modules = True  # open(...) called: its mode says (visit_Call)
        for code, names in ((FILE_ACCESS, FILE_NAMES), (NETWORK, NETWORK_NAMES), (PROCESS, PROCESS_NAMES), (SIGNAL, SIGNAL_NAMES)):
            if name in names and not (name == "threading" and self.threading_in_place):
                self.add(code, name, node)
        if name in RAW_DESCRIPTOR_NAMES:
            self.add(EVASION, f"{name} (raw descriptor I/O can reach the worker's channel)", node)
        if name in TEXT_LOOKUPS:
            self.add(EVASION, f"{name} (reaches a name given as text)", node)
        if (name in OUTSIDE_TRACE or name in PROCESS_NAMES) and not (name == "threading" and self.threading_in_place):
            self.add(EVASION, f"{name} (code in another thread or process runs outside the trace)", node)
        if name in self.loaders and isinstance(node, (ast.Name, ast.Attribute)) and id(node) not in self.called:
            self.add(EVASION, f"{name} passed as a value (its worker processes run outside the trace)", node)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        dotted = dotted_name(node)
        if isinstance(node.value, ast.Name) and f"{self.test_and_debug.get(node.value.id)}.{node.attr}" in TEXT_CODE_SAFE_NAMES:
            self.own_reflection.add(id(node.value))  # unittest.TestCase
        if isinstance(node.value, ast.Name) and f"{self.test_and_debug.get(node.value.id)}.{node.attr}" in DEBUGGER_CALLS:
            self.debugger_names.add(id(node.value))  # pdb.set_trace
        receiver = dotted.split(".", 1)[0]
        own = (receiver in self.receivers and node.attr not in ("__globals__", "__code__", "__closure__", "__subclasses__", "__mro__", "__bases__", "__base__", "__builtins__")) or id(node) in self.own_reflection
        direct = isinstance(node.value, ast.Name) and node.value.id in self.receivers  # self.x: the submission's own attribute; self.x.y: y of what self.x holds (torch: qa41h F2)
        if node.attr in self.library and not direct:
            self.add(LIBRARY_CALL, dotted, node, node.attr)
        if node.attr in GRADER_NAMES:
            self.add(GRADER_REFERENCE, dotted, node)
        plain = f"sys{dotted[len(receiver):]}" if receiver in self.sys_names else dotted
        if isinstance(node.ctx, (ast.Store, ast.Del)) and self._patches(node.value, node.attr) and id(node) not in self.settings and plain not in NOT_PATCHES:
            self.add(LIBRARY_PATCH, f"{dotted} assigned (a patched library can rewrite what the grader is sent)", node)
        if receiver == "sys" and node.attr in IMPORT_PATHS:
            self.makes_modules = True
        if node.attr in RAW_DESCRIPTOR_FUNCTIONS and (receiver in self.os_names or may_hold(node.value, frozenset(self.os_names), self.os_attributes)):  # `_O[0].write` (qa41h b04)
            self.add(EVASION, f"{dotted if '(' not in dotted else ast.unparse(node)[:80]} (raw descriptor I/O can reach the worker's channel)", node)
        if dotted.startswith("torch.compile") or ".jit." in f".{dotted}.":
            self.add(EVASION, f"{dotted} {SCRIPTED}", node)
        elif node.attr == "eval" and id(node) not in self.called and isinstance(node.ctx, ast.Load) and receiver in self.pandas_names:
            self.add(EVASION, f"{dotted} as a value (pandas' eval runs a text as code)", node, "eval")
        elif node.attr in CALLED_IS_FINE and id(node) in self.called:
            pass
        elif node.attr in READ_IS_FINE and isinstance(node.ctx, ast.Load):
            pass
        elif not own and (node.attr in EVASION_ATTRIBUTES or node.attr.lstrip("_") in MODULE_ATTRIBUTES
                          or (node.attr.startswith("_") and not node.attr.startswith("__") and receiver in self.torch_names)):
            self.add(EVASION, dotted, node, node.attr)
        elif node.attr in TORCH_PRIVATE_MODULES and not direct and id(node) not in self.own_reflection:
            self.add(EVASION, dotted, node, node.attr)
        if node.attr not in OS_ONLY_METHODS or receiver in self.os_names:
            self._reach(node.attr, node)
        self.generic_visit(node)

    def visit_Match(self, node: ast.Match) -> None:
        """A match binds its captures from its subject: `case object(softmax=sm)` makes sm the
        subject's softmax, any other capture may hold the subject itself (qa40h F2); a class
        pattern's keywords read attributes of the subject (`case object(_C=...)` on torch: torch._C)."""
        for case in node.cases:
            self._match_subjects(case.pattern, node.subject)
        self.generic_visit(node)

    def _match_subjects(self, pattern: ast.pattern, subject: ast.expr) -> None:
        """Note what each class pattern in `pattern` is matched against, and bind its captures."""
        if isinstance(pattern, ast.MatchClass):
            self.match_subjects[id(pattern)] = subject
            for attr, inner in zip(pattern.kwd_attrs, pattern.kwd_patterns):
                self._match_subjects(inner, ast.Attribute(value=subject, attr=attr, ctx=ast.Load(), lineno=pattern.lineno))
            return
        if isinstance(pattern, ast.MatchAs) and pattern.pattern is not None:
            self._match_subjects(pattern.pattern, subject)
        elif isinstance(pattern, ast.MatchOr):
            for each in pattern.patterns:
                self._match_subjects(each, subject)
        captured = [name for node in ast.walk(pattern) for name in syntax.node_binds(node)]
        if captured:
            self._bind([ast.Name(id=name, ctx=ast.Store()) for name in captured], subject)

    def visit_MatchClass(self, node: ast.MatchClass) -> None:
        """`case object(modules=table)` reads the subject's attribute `modules`: each keyword is an
        attribute of what is matched, read as `<subject>.modules` (`<match>` where the subject is
        not known: qa20h h08, sys.modules, setattr and torch.softmax reached with no name the pass read)."""
        cls = dotted_name(node.cls)
        fields = self.records[cls][: len(node.patterns)] if node.patterns and cls in self.records else []  # the file's own dataclass or named tuple
        subject = self.match_subjects.get(id(node), ast.Name(id="<match>", ctx=ast.Load(), lineno=node.lineno))
        for attr in [*node.kwd_attrs, *fields]:
            self.visit_Attribute(ast.Attribute(value=subject, attr=attr, ctx=ast.Load(), lineno=node.lineno))
            if attr.startswith("_") and not attr.startswith("__") and cls not in self.records and cls not in self.defined:
                self.add(EVASION, f"case {cls}({attr}=...) (a private attribute read by a match pattern)", node, attr)
        if node.patterns and cls not in self.records and cls not in SELF_MATCHING:  # by position: the attributes its class's __match_args__ names
            self.add(EVASION, f"case {cls}(...) by position (a class's __match_args__ can name any attribute)", node)
        self.generic_visit(node)

    # -- texts ----------------------------------------------------------------------------------
    def visit_Expr(self, node: ast.Expr) -> None:
        """A docstring, or a bare text: it does nothing, unless the source reads docstrings back
        (`__doc__`: qa36h F1), when a word such as "autograder" in it may name something."""
        if not (self.prose and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)):
            self.generic_visit(node)

    def visit_Constant(self, node: ast.Constant) -> None:
        if isinstance(node.value, str) and id(node) not in self.printed and any(name in node.value for name in GRADER_NAMES - {"attnkit", "dispatcher"}):
            self.add(GRADER_REFERENCE, f"the text {node.value[:60]!r}", node)
        if isinstance(node.value, str) and "WEIGHTS_ONLY" in node.value:  # TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD: torch.load unpickles anything
            self.add(EVASION, f"the text {node.value[:60]!r} (unpickled data can look up any name)", node)
        if isinstance(node.value, str) and node.value.startswith("module:") and id(node) not in self.printed:  # matplotlib imports a backend so named (qa37h F3)
            self.add(EVASION, f"the text {node.value[:60]!r} (a backend named by a text is imported)", node)
        if isinstance(node.value, str) and node.value.startswith(("/proc", "/etc", "/root", "/home", "/grade", "/autograder", "/work", "/tmp", "/dev", "../")):
            self.add(FILE_ACCESS, f"the path {node.value[:60]!r}", node)

    # -- calls and assignments ------------------------------------------------------------------
    def visit_Compare(self, node: ast.Compare) -> None:
        """`"get_ipython" in globals()`: a membership test of the file's own names reads no value (qa39h F2)."""
        for operator, right in zip(node.ops, node.comparators):
            if (isinstance(operator, ast.In | ast.NotIn) and isinstance(right, ast.Call) and isinstance(right.func, ast.Name)
                    and right.func.id in ("globals", "locals", "vars", "dir") and not right.args and not right.keywords):
                self.own_reflection.add(id(right.func))
        self.generic_visit(node)

    def _reflects_on_own(self, node: ast.Call) -> bool:
        """`vars(self)`, `object.__setattr__(self, "name", value)` (a frozen dataclass's
        __post_init__), `"name" in globals()`: reflection on the file's own object or module by a
        constant name, which reaches nothing else (qa39h F4)."""
        own = bool(node.args) and isinstance(node.args[0], ast.Name) and node.args[0].id in self.receivers
        if isinstance(node.func, ast.Name) and node.func.id == "vars":
            return own and len(node.args) == 1 and not node.keywords
        if dotted_name(node.func) == "object.__setattr__":
            return own and len(node.args) == 3 and not node.keywords and constant_text(node.args[1]) is not None
        return False

    def visit_Call(self, node: ast.Call) -> None:
        function = node.func.id if isinstance(node.func, ast.Name) else ""
        self.called.add(id(node.func))
        if isinstance(node.func, ast.Attribute) and node.func.attr in FILLING_METHODS and isinstance(node.func.value, ast.Name):
            self._bind([node.func.value], ast.Tuple(elts=[*node.args, *(k.value for k in node.keywords)], ctx=ast.Load()))  # box.append(F.softmax): box holds it (qa41h F4)
        if self._reflects_on_own(node):
            self.own_reflection.add(id(node.func))
        if function == "print" and self.prose:  # the builtin: what it is given goes to the output alone (qa35h F2)
            self.printed.update(id(part) for arg in node.args for part in (arg.values if isinstance(arg, ast.JoinedStr) else [arg]) if isinstance(part, ast.Constant))
        opened = node.func.attr if isinstance(node.func, ast.Attribute) else function
        if opened == "open" and node.args and not looks_like_path(node.args[0], self.text_names, self.numbers):
            self.add(EVASION, "open(...) of what may be a descriptor number (raw descriptor I/O can reach the worker's channel)", node)
        if opened == "open" and opens_for_writing(node, self.os_names):
            self.makes_modules = True
        if opened in self.loaders and starts_workers(node):
            self.add(EVASION, f"{opened}(..., num_workers=...) (its worker processes run outside the trace)", node)
        for keyword_ in node.keywords:
            if keyword_.arg in RAW_DESCRIPTOR_KEYWORDS:
                self.add(EVASION, f"{keyword_.arg}= (raw descriptor I/O can reach the worker's channel)", node)
            if keyword_.arg in UNPICKLING_KEYWORDS and not (isinstance(keyword_.value, ast.Constant) and keyword_.value.value is UNPICKLING_KEYWORDS[keyword_.arg]):
                self.add(EVASION, f"{keyword_.arg}= (unpickled data can look up any name)", node)
        if isinstance(node.func, ast.Attribute) and node.func.attr == "eval" and (node.args or node.keywords) and dotted_name(node.func.value).split(".", 1)[0] not in self.receivers:
            self.add(EVASION, f"{dotted_name(node.func)}(...) (runs a text as code: pandas' eval; nn.Module's eval() takes nothing)", node, "eval")
        if by_text := _imports_or_runs_text(node, self.receivers):
            self.add(EVASION, f"{dotted_name(node.func)}(...) ({by_text})", node)
        position = UNPICKLING_POSITIONS.get(opened)
        given = node.args[position] if position is not None and len(node.args) > position else None
        if position is not None and (
            (given is not None and not (isinstance(given, ast.Constant) and given.value in (False, None)))
            or any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords)
        ):
            self.add(EVASION, f"{opened}(...) with what may be allow_pickle or pickle_module given by position (unpickled data can look up any name)", node)
        if function in NAME_LOOKUPS and len(node.args) >= 2:
            receiver = dotted_name(node.args[0]).split(".", 1)[0]
            if constant_text(node.args[1]) is None and receiver not in self.receivers and not on_super(node.args[0]):
                self.add(EVASION, f"{function}(..) with a computed name", node)
            elif function in ("setattr", "delattr") and self._patches(node.args[0], str(constant_text(node.args[1]))):
                self.add(LIBRARY_PATCH, f"{function}({receiver}, ...) (a patched library can rewrite what the grader is sent)", node)
            elif constant_text(node.args[1]) is not None:
                attribute = ast.Attribute(value=node.args[0], attr=str(constant_text(node.args[1])), ctx=ast.Load(), lineno=node.lineno)
                self.visit_Attribute(attribute)
        self.generic_visit(node)

    def visit_Assign(self, node: ast.Assign) -> None:
        if isinstance(node.value, ast.Constant) and (node.value.value is None or isinstance(node.value.value, (bool, int, float, str))):  # a setting (p.grad = None), not a function patched
            self.settings.update(id(t) for t in node.targets if isinstance(t, ast.Attribute) and not t.attr.startswith("_"))  # cudnn.deterministic = True
        self._bind(node.targets, node.value)
        if isinstance(node.value, ast.Name) and node.value.id in self.torch_names:  # `_T = torch`: `_T._decomp` is torch's private name (qa26h)
            self.torch_names.update(target.id for target in node.targets if isinstance(target, ast.Name))
        if self.scope == MODULE_SCOPE:  # MultiHeadAttention.forward = _other: _other is part of the class;
            for target in node.targets:  # _q = _helper: a function that calls _q reaches _helper
                name = target.value if isinstance(target, ast.Attribute) else target
                if isinstance(name, ast.Name):
                    loads = {n.id for n in ast.walk(node.value) if isinstance(n, ast.Name)}
                    self.links.setdefault(name.id, set()).update(loads)
        self.generic_visit(node)

    def _patches(self, target: ast.expr, attribute: str) -> bool:
        """Whether storing `attribute` on `target` may patch a library: unless it is one of the
        submission's modules or objects (syntax.Ownership), it may be a library's module, class or
        function: an imported name, a name bound to one (`_enc = json.JSONEncoder`, `for m in (json,)`),
        a parameter (`def install(m): m.dumps = f`, called with json), a `with` or := target, a slot of
        a list, what a lookup returns (`getattr(json, "JSONEncoder")`, `type(x)`), and what a module of
        its own holds that it did not make (`attention.json`)."""
        attributes = []  # target's attribute names, outermost first
        base = target
        while isinstance(base, ast.Attribute):
            attributes.append(base.attr)
            base = base.value
        if isinstance(base, ast.Name) and (base.id in self.own_modules or base.id in self.local):
            if not attributes:  # one of its modules itself (`attention.LOG = 3`)
                return False
            inside: ast.expr = ast.Name(id=attributes[-1], ctx=ast.Load())  # `attention.json` is its module's name json: the json module
            for name in reversed(attributes[:-1]):
                inside = ast.Attribute(value=inside, attr=name, ctx=ast.Load())
            return not self.ownership.holds_own(inside)
        if self.ownership.holds_own(target):
            return False
        # on an object it cannot place (a parameter: a forward hook's `module.last_weights = w`), only
        # a name that the libraries the worker answers through define is a patch
        # ... and any name on what is given an imported module or class itself (`install(plt, f)`: m.get_fignums = f)
        return (isinstance(base, ast.Name) and (base.id in self.imported or base.id in self.ownership.modules_given)) or attribute in library_attributes()

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        if node.value is not None:
            self._bind([node.target], node.value)
        self.generic_visit(node)

    def visit_For(self, node: ast.For | ast.AsyncFor) -> None:
        self._bind([node.target], node.iter)
        self.generic_visit(node)

    visit_AsyncFor = visit_For

    def visit_comprehension(self, node: ast.comprehension) -> None:
        self._bind([node.target], node.iter)
        self.generic_visit(node)

    def visit_withitem(self, node: ast.withitem) -> None:
        if node.optional_vars is not None:
            self._bind([node.optional_vars], node.context_expr)
        self.generic_visit(node)

    def visit_NamedExpr(self, node: ast.NamedExpr) -> None:
        self._bind([node.target], node.value)
        self.generic_visit(node)

    def _bind(self, targets: list[ast.expr], value: ast.AST) -> None:
        """`sm = F.softmax` (or partial(F.softmax, ...), nn.Softmax(-1)): `sm` is an alias of softmax;
        `sm = ops.softmax` on an object of the submission's own is not. So is a name bound, by any
        target, from a value that holds softmax uncalled: `sm, _ = F.softmax, None`, `[F.softmax][0]`,
        `for sm in [F.softmax]`, `with nullcontext(F.softmax) as sm` (qa40h F2).

        A value computed by a library function (`w = torch.softmax(s, -1)`) is not an alias."""
        whole = value
        if isinstance(value, ast.Call):
            callee = value.func.attr if isinstance(value.func, ast.Attribute) else value.func.id if isinstance(value.func, ast.Name) else ""
            if callee == "partial" and value.args:
                value = value.args[0]
            elif callee == "getattr" and len(value.args) >= 2 and isinstance(value.args[1], ast.Constant) and isinstance(value.args[1].value, str):
                value = ast.Attribute(value=value.args[0], attr=value.args[1].value, ctx=ast.Load())  # getattr(m, "softmax"): m.softmax (qa41h F4)
            elif callee[:1].isupper():  # a class: nn.Softmax(dim=-1) builds a callable
                value = value.func
        banned = self._banned(value) or self._held_banned(whole)
        if isinstance(whole, ast.Lambda):  # `sm = lambda s: F.softmax(s, -1)`: calling sm calls softmax (qa41h F4)
            banned = banned or [name for node in ast.walk(whole.body) if isinstance(node, ast.Call) for name in self._banned(node.func)]
        if not banned:
            return
        for target in targets:
            names = [node.id for node in ast.walk(target) if isinstance(node, ast.Name)]
            if self.scope != MODULE_SCOPE and not _bound_names(target):  # `self.attn = nn.MultiheadAttention(...)`: this class's `self` only
                self.scoped_aliases.update(dict.fromkeys(((self.scope, name) for name in names), (banned[0], ast.unparse(target), target.lineno)))
            else:
                self.aliases.update(dict.fromkeys(names, banned[0]))


    def _banned(self, value: ast.AST) -> list[str]:
        """The library function `value` is (an attribute, or an alias's name), not its own object's method."""
        own_method = isinstance(value, ast.Attribute) and self.ownership.holds_own(value.value)  # `masked_softmax = _ops.softmax`: its own object's method
        if isinstance(value, ast.Attribute) and value.attr in self.library and not own_method:
            return [value.attr]
        return [self.aliases[value.id]] if isinstance(value, ast.Name) and value.id in self.aliases else []

    def _held_banned(self, value: ast.AST) -> list[str]:
        """The library functions `value` holds uncalled anywhere inside it (not the function it calls)."""
        called = {id(node.func) for node in ast.walk(value) if isinstance(node, ast.Call)}
        return [name for node in ast.walk(value) if id(node) not in called for name in self._banned(node)]


FILLING_METHODS = frozenset({"append", "extend", "insert", "add", "update", "setdefault", "appendleft", "extendleft", "put", "__setitem__"})  # what a container is filled by
FORMATTER_DOORS = frozenset({"get_field", "get_value", "convert_field", "format_field", "vformat"})  # what a string.Formatter's subclass may override
QUERY_KEYWORDS = frozenset({"engine", "local_dict", "global_dict", "resolvers"})  # pandas' query and eval: the names a text may reach


def _imports_or_runs_text(node: ast.Call, receivers: AbstractSet[str]) -> str:
    """Why a call imports a module or runs an expression named by a constant text (qa37h F2, F3),
    or ''. Narrow on purpose: help() of an object, a backend or option given by a variable, a
    DataFrame query over its own columns are honest (qa38h F1)."""
    function = node.func
    texts = [text for text in (constant_text(a) for a in [*node.args[:2], *(k.value for k in node.keywords)]) if text is not None]
    if isinstance(function, ast.Name) and function.id == "help":
        named = [text for text in texts if not (text.split(".")[0].isidentifier() and installed(text.split(".")[0]))]
        return "help() of a name given as text imports that module" if named else ""
    if not isinstance(function, ast.Attribute) or dotted_name(function.value).split(".", 1)[0] in receivers:
        return ""
    if function.attr == "set_option" and texts and "backend" in texts[0] and texts[1:2] != ["matplotlib"]:
        return "a backend option names a module to import"
    if function.attr == "query" and (any(k.arg in QUERY_KEYWORDS for k in node.keywords) or any("@" in text for text in texts)):
        return "runs a text as code: pandas' query"
    return ""


def _persists(finding: Finding) -> bool:
    """A library patched or a hook installed: it acts on every later request the worker serves."""
    return finding.code == LIBRARY_PATCH or (finding.code == EVASION and finding.name in PERSISTENT_HOOKS)


def _bound_names(target: ast.expr) -> list[str]:
    """The names an assignment binds (`a`, `a, (b, *c)`), not those inside `self.x` or `d[k]`."""
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, ast.Starred):
        return _bound_names(target.value)
    if isinstance(target, (ast.Tuple, ast.List)):
        return [name for element in target.elts for name in _bound_names(element)]
    return []


def _pieces(source: str, first_line: int) -> list[tuple[int, str]]:
    """The source as the worker compiles it: whole, or in top-level chunks when it does not parse."""
    try:
        ast.parse(source)
        return [(first_line, source)]
    except UNPARSABLE:
        chunks = split_chunks(source)
        if len(chunks) <= 1:
            return [(first_line, source)]
        return [(first_line + offset - 1, text) for offset, text in chunks]


def _token_names(text: str) -> list[tuple[str, int]]:
    """The identifiers of a text that does not parse (as far as the tokenizer gets)."""
    names = []
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.NAME and not keyword.iskeyword(token.string):
                names.append((token.string, token.start[0]))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        pass
    return names


class _Unparsed(str):
    """A piece of a source that does not parse, and the line of the file it starts on."""

    first_line = 1


def _trees(text: str, first_line: int) -> list[ast.Module | str]:
    """The pieces of a text parsed, their lines those of the file; an _Unparsed for one that does
    not parse. (Each piece padded with newlines to its first line made a file of many broken
    pieces quadratic: 2 MB took the static pass past its bound, qa24h.)"""
    trees: list[ast.Module | str] = []
    for line, piece in _pieces(text, first_line):
        try:
            tree = ast.parse(piece)
        except UNPARSABLE:
            unparsed = _Unparsed(piece)
            unparsed.first_line = line
            trees.append(unparsed)
            continue
        trees.append(_AnnotationsAsCode().visit(ast.increment_lineno(tree, line - 1)))  # too deep to walk: unread (_bounded), not unparsed (qa41h F1)
    return trees


class _AnnotationsAsCode(ast.NodeTransformer):
    """A string annotation is code that whatever reads it evaluates (typing.get_type_hints, and
    functools.singledispatch's register, dataclass-like libraries... without naming it): each
    text in an annotation that parses as an expression is put in its place, to be read as code."""

    def visit_arg(self, node: ast.arg) -> ast.arg:
        node.annotation = _unquoted(node.annotation)
        return node

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> ast.AST:
        node.returns = _unquoted(node.returns)
        return self.generic_visit(node)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_AnnAssign(self, node: ast.AnnAssign) -> ast.AST:
        node.annotation = _unquoted(node.annotation) or node.annotation
        return self.generic_visit(node)


def _unquoted(annotation: ast.expr | None, depth: int = 3) -> ast.expr | None:
    """The annotation with each text in it that parses as an expression replaced by that expression
    (`List["x"]`: a text in the text is evaluated too, to `depth`), on the text's line."""
    if annotation is None or depth == 0:
        return annotation

    class Unquote(ast.NodeTransformer):
        def visit_Constant(self, node: ast.Constant) -> ast.expr:
            if not isinstance(node.value, str):
                return node
            try:
                code = ast.parse(node.value.strip(), mode="eval").body
            except UNPARSABLE:
                return node
            for inner in ast.walk(code):
                ast.copy_location(inner, node)
            return _unquoted(code, depth - 1) or code

    return Unquote().visit(annotation)


@functools.cache
def library_attributes() -> frozenset[str]:
    """The names that the modules the worker's replies and traces go through (LIBRARY_MODULES)
    define, and the methods of the classes defined in them (not those they import: torch holds
    hundreds) that a store can replace: what a patch that rewrites what the grader is sent must
    replace (`dumps`, `iterencode`, `sendall`...). A class no store can change (str, a C type) and
    what an instance holds as data (a tensor's grad, an exception's name) are left out: honest code
    stores those on its objects (`p.grad = None` on a parameter)."""
    names: set[str] = set()
    for module_name in LIBRARY_MODULES:
        module = importlib.import_module(module_name)
        names.update(dir(module))
        for value in vars(module).values():
            if isinstance(value, type) and value.__module__ == module_name and not value.__flags__ & IMMUTABLE_TYPE:
                names.update(a for a in dir(value) if not inspect.isdatadescriptor(inspect.getattr_static(value, a, None)))
    return frozenset(names)


@functools.cache
def library_methods() -> frozenset[str]:
    """The method names a library's class may call on a subclass the submission writes, with
    values the source does not show (nn.Module's forward, a JSONEncoder's default)."""
    return library_attributes() | frozenset(dir(importlib.import_module("torch.nn").Module))


def _scan(library: frozenset[str], local: frozenset[str], trees: Sequence[ast.Module | str], everything: Sequence[ast.Module], prefix: str = "",
          own_definitions: dict[str, frozenset[str]] | None = None) -> _Scanner:
    """Scan the trees of the entry (or of one helper file); `everything`: the trees of all of them."""
    stored = stored_attributes(everything)
    special = {*(a for a in TEXT_ATTRIBUTES if a.split(".")[-1] not in stored), *(["os.environ"] if "environ" not in stored else []),
               *(["sys.argv"] if argv_is_text(everything) else [])}
    assigned, rebound = bindings(everything)
    main_guard = "__name__" not in stored | rebound | {name for name, _ in assigned}  # nothing makes __name__ "__main__"
    numbers = number_names(everything)
    text_names = (text_bound_names([t for t in trees if isinstance(t, ast.Module)], stored) | special) - numbers
    scanner = _Scanner(library, prefix=prefix, local=local, text_names=text_names, main_guard=main_guard, numbers=numbers, own_definitions=own_definitions,
                       ownership=ownership(everything, torch_bound(everything), library_methods()), receivers=receivers(everything))
    scanner.threading_in_place = threading_in_place(everything)
    scanner.torch_names |= holders(everything, torch_bound(everything))  # `_T, _ = torch, None`: `_T._C` is torch's (qa40h F1)
    scanner.os_names |= holders(everything, module_names(everything, {"os", "posix"}))
    scanner.os_attributes = attributes_holding(everything, frozenset(scanner.os_names))
    scanner.sys_names |= holders(everything, module_names(everything, {"sys"}) | {"sys"})
    scanner.pandas_names |= holders(everything, module_names(everything, {"pandas"}))
    scanner.prose = not shown_texts_used(everything)
    scanner.records = record_fields(everything)
    for tree in trees:
        if isinstance(tree, ast.Module):
            scanner.visit(tree)
            continue
        for name, lineno in _token_names(tree):  # it never ran, but say what it holds
            if name in GRADER_NAMES:
                scanner.findings.append(Finding(GRADER_REFERENCE, f"the name {name}", lineno + getattr(tree, "first_line", 1) - 1, scanner.prefix))
    return scanner


def _resolve_aliases(scanner: _Scanner) -> None:
    """Loads of an alias name inside a top-level definition count as uses of the library function
    (unless the definition assigns that name itself: then it is a local variable). An alias stored
    on an object inside a definition (`self.sm = F.softmax`) counts in that definition only."""
    for scope, names in scanner.references.items():
        for name in sorted(names & set(scanner.aliases)):
            if name in scanner.local_stores.get(scope, set()) or name in scanner.defined:
                continue
            scanner.findings.append(Finding(LIBRARY_CALL, f"{name} (an alias of {scanner.aliases[name]})", scanner.first_loads.get((scope, name), 0), scope, scanner.aliases[name]))
    for (scope, name), (library, target, line) in scanner.scoped_aliases.items():
        if name in scanner.references.get(scope, set()):
            scanner.findings.append(Finding(LIBRARY_CALL, f"{target} (an alias of {library})", line, scope, library))


# The pass walks the syntax tree with recursive visitors: a sum of 2,900 terms, or an if with as
# many elifs, still compiles, and takes about 7 frames a level (the default limit of 1,000 made a
# 400-term sum crash the grader, qa41h F1). Measured: every file CPython compiles is read under it.
STATIC_PASS_RECURSION = 20_000


class _OutOfTime(BaseException):
    """The static pass used up its CPU time (not an Exception: no `except Exception` swallows it)."""


@contextlib.contextmanager
def _cpu_bound(seconds: float) -> Iterator[list[bool]]:
    """Raise _OutOfTime in what runs inside once this process has used `seconds` more CPU
    (ITIMER_PROF: a busy machine does not cut it short), and again every 50 ms of CPU after that
    until it is left; the list it gives says whether it fired. Unbounded off the main thread, where
    no signal arrives, and where a profiling timer is already running (it is left alone)."""
    fired = [False]
    if threading.current_thread() is not threading.main_thread() or signal.getitimer(signal.ITIMER_PROF) != (0.0, 0.0):
        yield fired
        return

    def stop(signum: int, frame: object) -> None:
        fired[0] = True
        raise _OutOfTime

    def unraisable(report: Any) -> None:  # the timer landed in a finalizer: that tick is lost, the next one stops the pass
        if not isinstance(report.exc_value, _OutOfTime):
            hook(report)

    hook = sys.unraisablehook  # pytest's does work (imports tracemalloc) that the next tick would break
    sys.unraisablehook = unraisable
    previous = signal.signal(signal.SIGPROF, stop)
    signal.setitimer(signal.ITIMER_PROF, seconds, 0.05)
    try:
        yield fired
    finally:
        while True:  # a signal already on its way may raise here once more: the timer is stopped all the same
            try:
                signal.setitimer(signal.ITIMER_PROF, 0.0)
                signal.signal(signal.SIGPROF, previous)
                sys.unraisablehook = hook
                break
            except _OutOfTime:
                continue


@functools.lru_cache(maxsize=8)
def _bounded(chunks: tuple[tuple[int, str], ...], files: tuple[tuple[str, str], ...], library: frozenset[str], own: frozenset[str], cells: Cells) -> SourceFacts:
    """_analyze within STATIC_PASS_CPU_SECONDS (a 2 MiB file of tangled helpers could hold the
    grader for many minutes, and a batch's pool with it); past it, facts that say so."""
    limit = STATIC_PASS_CPU_SECONDS
    depth = sys.getrecursionlimit()
    try:
        with _cpu_bound(limit) as fired:
            try:
                sys.setrecursionlimit(max(depth, STATIC_PASS_RECURSION))
                return _analyze(chunks, files, library, own, cells)
            except RecursionError:  # deeper than any file the worker can compile: not read either
                raise _OutOfTime from None
            except Exception:
                if fired[0]:  # what C code made of the timer's exception (ast.parse: "AST constructor recursion depth mismatch")
                    raise _OutOfTime from None
                raise
            finally:
                sys.setrecursionlimit(depth)
    except _OutOfTime:
        return SourceFacts(findings=(), references={}, defined=frozenset(), aliases={}, unread=limit)


def _analyze(chunks: tuple[tuple[int, str], ...], files: tuple[tuple[str, str], ...], library: frozenset[str], own: frozenset[str], cells: Cells) -> SourceFacts:
    local = own | {name.split("/", 1)[0].removesuffix(".py") for name, _ in files}
    entry = [tree for first_line, text in chunks for tree in _trees(text, first_line)]
    helpers = _reachable(entry, {name: text for name, text in files if name.endswith(".py")}, own)
    everything = [t for t in [*entry, *(t for trees in helpers.values() for t in trees)] if isinstance(t, ast.Module)]
    own_definitions = {
        name.removesuffix(".py").replace("/", "."): frozenset(
            node.name for tree in trees if isinstance(tree, ast.Module) for node in tree.body if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
        )
        for name, trees in helpers.items()
    }
    scanner = _scan(library, local, entry, everything, own_definitions=own_definitions)
    for name, loads in scanner.links.items():
        scanner.references.setdefault(name, set()).update(loads)
    _resolve_aliases(scanner)
    starred = _starred_library(everything, local)
    unbound = library - {name for tree in everything for node in ast.walk(tree) for name in syntax.node_binds(node)} if starred else frozenset()
    _star_uses(scanner, starred, unbound)
    findings = [replace(finding, cells=cells) for finding in scanner.findings]
    references = {k: frozenset(v) for k, v in scanner.references.items()}
    for name, trees in helpers.items():
        helper = _scan(library, local, trees, everything, prefix=f"{name}:", own_definitions=own_definitions)
        _star_uses(helper, starred, unbound)
        findings += helper.findings
        scanner.makes_modules |= helper.makes_modules
        for scope, loads in helper.references.items():
            references[f"{name}:{scope}"] = frozenset(loads | helper.links.get(scope, set()))
    unique = tuple(dict.fromkeys(findings))
    if not _can_make_modules(unique, scanner.makes_modules):
        unique = tuple(f for f in unique if not f.what.endswith(UNKNOWN_MODULE))
    if not _feeds_debugger(everything):
        unique = tuple(f for f in unique if not f.what.endswith(DEBUGGER))
    names = None if any(_loads_by_other_means(tree) for tree in everything) else _helper_names(helpers, everything)
    return SourceFacts(
        findings=unique,
        references=references,
        defined=frozenset(scanner.defined),
        aliases=dict(scanner.aliases),
        read=frozenset(helpers),
        helper_names=names,
        helper_escapes=_helper_escapes(names, references) if names is not None else frozenset(),
    )


def _helper_names(helpers: dict[str, list[ast.Module | str]], everything: Sequence[ast.Module]) -> dict[str, frozenset[str]]:
    """A name -> the helper files' code it may stand for in any file: a top-level definition
    ("helpers.py:f") by its own name, or by the names imports give it (`from helpers import f as
    g`, through any chain of re-exports); a name bound at a helper's module level otherwise
    (`fast = f`, a dict of functions) that module's top-level code ("helpers.py:"), which loads
    what it holds; a module's name all of it; a name a module `__getattr__` serves (PEP 562) that
    function. So a task reaches only the helpers it may call: an honest file's import of a helper
    module with a library softmax for its own experiments cost every rule (qa50h h14, qa51h)."""
    found: dict[str, set[str]] = collections.defaultdict(set)
    served: dict[str, set[str]] = collections.defaultdict(set)  # a helper module's last name -> its module __getattr__
    for name, trees in helpers.items():
        module = name.removesuffix(".py").removesuffix("/__init__").replace("/", ".")
        modules = [tree for tree in trees if isinstance(tree, ast.Module)]
        definitions = {f"{name}:{node.name}" for tree in modules for node in tree.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
        for definition in definitions:
            found[definition.split(":", 1)[1]].add(definition)
        for bound in _module_stores(modules) - {d.split(":", 1)[1] for d in definitions}:
            found[bound].add(f"{name}:")
        for part in {module, *module.split(".")}:
            found[part] |= definitions | {f"{name}:"}
        if f"{name}:__getattr__" in definitions:
            served[module.split(".")[-1]].add(f"{name}:__getattr__")
    edges: list[tuple[str, str]] = []  # (a name, a name an import binds to what it stands for)
    for tree in everything:
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                for alias in node.names:
                    edges.append((alias.name, alias.asname or alias.name))
                    edges.append((f"{node.module}.{alias.name}", alias.asname or alias.name))
                    found[alias.asname or alias.name] |= served.get((node.module or "").split(".")[-1], set())
            elif isinstance(node, ast.Import):
                edges += [(alias.name, alias.asname or alias.name.split(".")[0]) for alias in node.names]
    changed = True
    while changed:  # a chain of re-exports, in any order of files: each round goes one link further
        changed = False
        for source, target in edges:
            if source in found and not found[source] <= found[target]:
                found[target] |= found[source]
                changed = True
    return {name: frozenset(nodes) for name, nodes in found.items()}


def _module_stores(trees: list[ast.Module]) -> set[str]:
    """Every name a file's module-level code assigns (in an `if`, a `for`, a tuple, a walrus),
    not by a def, a class or an import (what an import binds, _helper_names follows by name)."""
    return {node.id for tree in trees for statement in tree.body if not isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
            for node in ast.walk(statement) if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)}


def _helper_escapes(names: dict[str, frozenset[str]], references: dict[str, frozenset[str]]) -> frozenset[str]:
    """The helper code that the graded file's module-level code names (stored under another name,
    in a dict, as a default value or a decorator): any task may reach it where no name says."""
    return frozenset(node for loaded in references.get(MODULE_SCOPE, ()) for node in names.get(loaded, ()))


# What may load a module that no import statement names: a module imported (its top name), a
# builtin called by name, an attribute. With one in any file the entry loads, every file is read.
DYNAMIC_MODULES = frozenset({"importlib", "runpy", "pkgutil", "zipimport", "imp", "sys", "os", "builtins", "pickle", "marshal", "ctypes", "subprocess",
                             "shelve", "dill", "joblib", "types", "code", "codeop"})
DYNAMIC_NAMES = frozenset({"__import__", "exec", "eval", "compile", "getattr", "setattr", "globals", "locals", "vars", "open", "__builtins__", "__loader__",
                           "__spec__", "breakpoint", "input"})
DYNAMIC_ATTRIBUTES = frozenset({"import_module", "__import__", "exec_module", "load_module", "find_spec", "module_from_spec", "spec_from_file_location",
                                "spec_from_loader", "__dict__", "__loader__", "__spec__", "__globals__", "__builtins__", "modules", "load", "loads", "hub",
                                "__subclasses__", "__bases__", "__base__", "__mro__"})


def _reachable(entry: list[ast.Module | str], texts: dict[str, str], own: frozenset[str]) -> dict[str, list[ast.Module | str]]:
    """The helper files the entry can load: those its import statements name, theirs, and so on,
    any named like a library (library code may import it) and any the grader loads (`own`: the
    kit's files, such as pronoun_task.py). Every one when a file read so far
    could load a module by other means (DYNAMIC_*) or does not parse. A file nothing loads never
    runs: a 1.7 MB data file beside a correct answer took the static pass past its bound, and the
    rules' points with it (qa24h)."""
    modules = {name.removesuffix(".py").removesuffix("/__init__").replace("/", "."): name for name in texts}
    helpers = {name: _trees(texts[name], 1) for module, name in modules.items() if module in own or installed(module.split(".")[0])}
    todo: list[tuple[ast.Module | str, str]] = [(tree, "") for tree in entry] + [(t, _package(n)) for n, trees in helpers.items() for t in trees]
    while todo:
        tree, package = todo.pop()
        if isinstance(tree, str) or _loads_by_other_means(tree):
            return {name: helpers[name] if name in helpers else _trees(text, 1) for name, text in texts.items()}
        for module in _imported(tree, package):
            for name in _files_of(module, modules, texts):
                if name not in helpers:
                    helpers[name] = _trees(texts[name], 1)
                    todo += [(t, _package(name)) for t in helpers[name]]
    return dict(sorted(helpers.items()))


def _loads_by_other_means(tree: ast.Module) -> bool:
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id in DYNAMIC_NAMES or isinstance(node, ast.Attribute) and node.attr in DYNAMIC_ATTRIBUTES:
            return True
        if isinstance(node, ast.Import | ast.ImportFrom) and any(name.split(".")[0] in DYNAMIC_MODULES for name in _imported_tops(node)):
            return True
    return False


def _imported_tops(node: ast.Import | ast.ImportFrom) -> list[str]:
    return [alias.name for alias in node.names] if isinstance(node, ast.Import) else [node.module or ""] if not node.level else []


def _package(name: str) -> str:
    """The package a helper file's relative imports start from ("pkg/mod.py", "pkg/__init__.py": pkg)."""
    return name.removesuffix(".py").removesuffix("/__init__").replace("/", ".") if name.endswith("/__init__.py") else name.rpartition("/")[0].replace("/", ".")


def _files_of(module: str, modules: dict[str, str], texts: dict[str, str]) -> list[str]:
    """The files of the submission `module` names (_imported's): its own, or for `a.*` those of
    package a's modules that `from a import *` imports: those a's `__init__.py` names in its
    strings (`__all__`, as a list or `"x y".split()`: qa30h r05, qa32h M3) and does not define
    itself (a name it defines or imports is taken from it: qa32h L1), no other (qa31h h03: an old
    attempt beside them, which never runs, was charged for its F.softmax)."""
    if module.endswith(".*"):
        package = module[:-2]
        init = modules.get(package, "")
        trees = [tree for tree in _trees(texts[init], 1) if not isinstance(tree, str)] if init.endswith("__init__.py") else []
        named = _words(trees) - _defined_at_top(trees)
        return [name for found, name in modules.items() if found.rpartition(".")[0] == package and found.rpartition(".")[2] in named]
    return [modules[module]] if module in modules else []


def _words(trees: list[ast.Module]) -> set[str]:
    """The identifiers in the string constants of a file's code."""
    return {word for tree in trees for node in ast.walk(tree) if isinstance(node, ast.Constant) and isinstance(node.value, str)
            for word in re.findall(r"[A-Za-z_]\w*", node.value)}


def _defined_at_top(trees: list[ast.Module]) -> set[str]:
    """The names a file's top-level statements define or import (a def, a class, an import, `x = ...`)."""
    found: set[str] = set()
    for statement in (node for tree in trees for node in tree.body):
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            found.add(statement.name)
        elif isinstance(statement, ast.Import | ast.ImportFrom):
            found.update((alias.asname or alias.name).split(".")[0] for alias in statement.names)
        elif isinstance(statement, ast.Assign):
            found.update(target.id for target in statement.targets if isinstance(target, ast.Name))
    return found


def _imported(tree: ast.Module, package: str) -> set[str]:
    """Every module an import statement of `tree` may load (`import a.b`: a and a.b; `from a import
    b`: a and a.b; `from a import *`: a, and a.* for the modules of package a its `__all__` may
    name), relative ones from `package`."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            dotted = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")[:max(0, len(package.split(".")) - node.level + 1)] if node.level and package else []
            module = ".".join([*base, *([node.module] if node.module else [])])
            dotted = [module, *(f"{module}.{alias.name}" if module else alias.name for alias in node.names)]
        else:
            continue
        for name in dotted:
            parts = name.split(".")
            found.update(".".join(parts[:count]) for count in range(1, len(parts) + 1))
    return found


def _starred_library(everything: Sequence[ast.Module], local: frozenset[str]) -> str:
    """The module of the first `from M import *` that is not one of the submission's own files, or ""."""
    for tree in everything:
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and not node.level and any(a.name == "*" for a in node.names) and (node.module or "").split(".")[0] not in local:
                return node.module or ""
    return ""


def _star_uses(scanner: _Scanner, starred: str, unbound: frozenset[str]) -> None:
    """A banned name that the submission never binds, loaded where a library's `*` import is in
    force, is that library's (`from scipy.special import *` then `softmax(x)`: qa23h)."""
    for scope, names in scanner.references.items():
        for name in sorted(names & unbound):
            scanner.findings.append(Finding(LIBRARY_CALL, f"{name} (from {starred} import *)", scanner.first_loads.get((scope, name), 0), scanner.prefix + scope, name))


def _feeds_debugger(trees: Iterable[ast.AST]) -> bool:
    """Whether the code can give a debugger commands (DEBUGGER): it replaces sys.stdin, names
    PYTHONBREAKPOINT or sys.breakpointhook, or writes the environment other than by a constant key."""
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and (node.attr == "breakpointhook" or (node.attr == "stdin" and not isinstance(node.ctx, ast.Load))):
                return True
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and "PYTHONBREAKPOINT" in node.value:
                return True
            if isinstance(node, ast.Name | ast.Attribute) and (node.id if isinstance(node, ast.Name) else node.attr) in ("putenv", "breakpointhook"):
                return True
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Attribute | ast.Name) and dotted_name(node.value).endswith("environ") and node.attr != "get":
                return True  # os.environ.update(...), .setdefault(...)
            if (isinstance(node, ast.Subscript) and not isinstance(node.ctx, ast.Load) and dotted_name(node.value).endswith("environ")
                    and constant_text(node.slice) is None):
                return True
    return False


def _can_make_modules(findings: tuple[Finding, ...], paths_or_temporary_files: bool) -> bool:
    return paths_or_temporary_files or any(f.code in MODULE_MAKERS or (f.code == EVASION and not f.what.endswith(UNKNOWN_MODULE)) for f in findings)


def analyze(chunks: list[tuple[int, str]] | tuple[tuple[int, str], ...], files: dict[str, str] | None = None, library: frozenset[str] = frozenset(),
            own: Iterable[str] = (), cells: Cells = (), graded: Iterable[str] = ()) -> SourceFacts:
    """The static facts of a submission: its entry chunks (first line, text) and helper files;
    `library`: the library functions whose uses it records (an assignment's rules ban them);
    `own`: the worker's other module names for it (the entry file's module, the kit's files);
    `cells`: where the chunks are in a notebook, for the places its findings name; `graded`: the
    names the grader calls (the assignment's tasks; empty: every top-level definition)."""
    facts = _bounded(tuple((int(line), str(text)) for line, text in chunks), tuple(sorted((files or {}).items())), frozenset(library), frozenset(own),
                     tuple((int(first), int(number)) for first, number in cells))
    return replace(facts, graded=frozenset(graded))  # one pass for every `graded`: the checks' and the record's
