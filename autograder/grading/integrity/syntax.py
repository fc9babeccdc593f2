"""What the static pass reads from a source's syntax alone, before it scans it (integrity/static.py):
dotted names, constant text, whether an expression names a file or a descriptor number, the names a
source binds to numbers or to text, a `__main__` guard, a DataLoader with workers, an open() for
writing, and whether a module is installed. Pure functions of AST nodes (and of the installation)."""
from __future__ import annotations

import ast
import functools
import importlib.machinery
import os
import sys
import sysconfig
from collections.abc import Sequence, Set as AbstractSet
from dataclasses import dataclass, replace

from autograder.grading.integrity.names import LOADER_WORKERS_ARGUMENT, PATH_CALLS, PATH_WORDS, SAFE_RECEIVERS, TEXT_ATTRIBUTES, TEXT_TABLES, WRITE_MODES


def dotted_name(node: ast.AST) -> str:
    """`torch.nn.functional.softmax` for an attribute chain; '' where the chain is not names."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    if isinstance(node, ast.Call):
        inner = dotted_name(node.func)
        return ".".join([f"{inner}()" if inner else "(...)", *reversed(parts)])
    return ".".join(["(...)", *reversed(parts)])


def on_super(node: ast.AST) -> bool:
    """Whether the expression starts at a zero-argument `super()` (`super().__getattr__("attn")`):
    the method's own object, as safe to read by a computed name as `self` is."""
    while isinstance(node, (ast.Attribute, ast.Call, ast.Subscript)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "super":
            return not node.args and not node.keywords
        node = node.func if isinstance(node, ast.Call) else node.value
    return False


def constant_text(node: ast.AST) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


def definition_time(node: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.AST]:
    """What runs when a function is defined: its decorators, default values and annotations."""
    arguments = node.args
    annotations = [a.annotation for a in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs, arguments.vararg, arguments.kwarg] if a is not None and a.annotation is not None]
    return [*node.decorator_list, *arguments.defaults, *(d for d in arguments.kw_defaults if d is not None), *annotations, *([node.returns] if node.returns else [])]


def looks_like_path(node: ast.AST, text_names: AbstractSet[str] = frozenset(), numbers: AbstractSet[str] = frozenset()) -> bool:
    """An argument of open() that names a file rather than a descriptor number: text (a string, an
    f-string, "..." + x, one of `text_names`: the names only ever bound to such a value, and
    sys.argv, os.environ, os.devnull where the source leaves them alone), a Path(...) or os.path
    call, a name or attribute whose name says path/file/name (but for a name bound to a number)."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, (str, bytes))
    if isinstance(node, ast.JoinedStr):
        return True
    if isinstance(node, ast.BinOp):  # "log_" + name, "%s.txt" % n, folder / "x.txt", base + ext; not 2 + 1, fd + 0
        sides = (node.left, node.right)
        return any(looks_like_path(n, text_names, numbers) for n in sides) or not any(is_number(n) or (isinstance(n, ast.Name) and n.id in numbers) for n in sides)
    if isinstance(node, ast.Subscript):
        return dotted_name(node.value) in TEXT_TABLES and dotted_name(node.value) in text_names
    if isinstance(node, ast.Call):
        called = dotted_name(node.func)
        return called.split(".")[-1] in PATH_CALLS or ".path." in f".{called}."
    if isinstance(node, ast.Attribute) and dotted_name(node) in TEXT_ATTRIBUTES:
        return dotted_name(node) in text_names
    if isinstance(node, ast.Name) and node.id in text_names:
        return True
    name = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else ""
    return name not in numbers and any(word in name.lower() for word in PATH_WORDS)


NUMBER_CALLS = frozenset({"int", "len", "abs", "round", "max", "min", "sum", "range", "fileno", "dup"})


def is_number(node: ast.AST) -> bool:
    """A value that is a number (a descriptor can be one): 3, 2 + 1, int(...), sock.fileno(), range(...)."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, (int, float))
    if isinstance(node, ast.UnaryOp):
        return is_number(node.operand)
    if isinstance(node, ast.BinOp):
        return is_number(node.left) or is_number(node.right)
    if isinstance(node, ast.Call):
        called = dotted_name(node.func).split(".")[-1]
        return called in NUMBER_CALLS or dotted_name(node.func) == "os.open"  # os.open returns a descriptor
    return False


def number_names(trees: Sequence[ast.AST]) -> frozenset[str]:
    """The names some binding of which is a number (`filename = 3`, `for path in range(3, 9)`): an
    open() of one is not of a file, whatever the name says."""
    found: set[str] = set()
    for tree in trees:
        for node in ast.walk(tree):
            targets, value = ((node.targets, node.value) if isinstance(node, ast.Assign) else ([node.target], node.value) if isinstance(node, (ast.AnnAssign, ast.AugAssign, ast.NamedExpr))
                              else ([node.target], node.iter) if isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)) else ([], None))
            if value is not None and is_number(value):
                found.update(n.id for target in targets for n in ast.walk(target) if isinstance(n, ast.Name))
    return frozenset(found)


def record_fields(trees: Sequence[ast.AST]) -> dict[str, tuple[str, ...]]:
    """The file's plain record classes and their fields: `@dataclass class Dims:` or `class
    Dims(NamedTuple):` with annotated fields (no other base, no metaclass, no __match_args__ of its
    own) or `Dims = namedtuple("Dims", "b s e")`, each name bound only there. A positional pattern
    `case Dims(b, s, e)` reads those fields of a real Dims (isinstance cannot be changed for it)."""
    found: dict[str, tuple[str, ...]] = {}
    bound: dict[str, int] = {}
    for tree in trees:
        for node in ast.walk(tree):
            for name in node_binds(node):
                bound[name] = bound.get(name, 0) + 1
            if isinstance(node, ast.ClassDef) and _is_record(node):
                found[node.name] = tuple(s.target.id for s in node.body if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name))
            elif (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) and isinstance(node.value, ast.Call)
                  and dotted_name(node.value.func).split(".")[-1] == "namedtuple" and len(node.value.args) == 2 and not node.value.keywords):
                fields = node.value.args[1]
                spelled = constant_text(fields)
                names = spelled.replace(",", " ").split() if spelled else [constant_text(e) or "" for e in getattr(fields, "elts", [])]
                if names and all(names):
                    found[node.targets[0].id] = tuple(names)
    return {name: fields for name, fields in found.items() if bound.get(name) == 1}


def _is_record(node: ast.ClassDef) -> bool:
    own_match_args = any(isinstance(t, ast.Name) and t.id == "__match_args__" for s in node.body for t in ast.walk(s) if isinstance(t, ast.Name))
    if node.keywords or own_match_args:
        return False
    bases = [dotted_name(b) for b in node.bases]
    if bases in (["NamedTuple"], ["typing.NamedTuple"]):
        return True
    decorators = [dotted_name(d.func if isinstance(d, ast.Call) else d) for d in node.decorator_list]
    return not bases and decorators in (["dataclass"], ["dataclasses.dataclass"])


def node_binds(node: ast.AST) -> list[str]:
    """The names one node binds: a def or class, a stored or deleted name, an import, a parameter,
    a match capture, `except ... as`, global and nonlocal."""
    if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
        return [node.name]
    if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
        return [node.id]
    if isinstance(node, ast.alias):
        return [node.asname or node.name.split(".")[0]]
    if isinstance(node, ast.arg):
        return [node.arg]
    if isinstance(node, (ast.MatchAs, ast.MatchStar, ast.ExceptHandler)) and node.name:
        return [node.name]
    if isinstance(node, ast.MatchMapping) and node.rest:
        return [node.rest]
    if isinstance(node, (ast.Global, ast.Nonlocal)):
        return list(node.names)
    return []


def receivers(trees: Sequence[ast.AST]) -> frozenset[str]:
    """The receivers (self, cls) that name the submission's own object wherever they appear: each
    is bound only as the first parameter of a def (a method, or a function made one: `Block.forward
    = _forward`; a lambda given to property) and never given by hand (`_forward(x)`,
    `Block.forward(x)`, `Sub.forward(x)`, the file's own decorator). A file that binds one in any
    other way (`cls = sys`, `def f(x, cls)`, a loop, an import, a match capture) makes it a name
    like any other there: `cls.modules` reached sys.modules unseen (qa20h h02, h03). A method read
    off its class as a value (`map(Block.peek, [sys])`, `g = Block.peek`) counts as given by hand.
    Not followed: a module-level function taking self passed on as a value (`g = _peek; g(sys)`),
    which honest decorators and wrappers do too."""
    takes: dict[str, set[str]] = {"": set()}  # class ("" for none) -> its defs whose first parameter is self or cls
    firsts: set[int] = set()  # ids of those parameters
    nodes = [node for tree in trees for node in ast.walk(tree)]
    parent = {id(child): node for node in nodes for child in ast.iter_child_nodes(node)}
    owner = {id(item): node.name for node in nodes if isinstance(node, ast.ClassDef) for item in node.body}
    defined = {node.name for node in nodes if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
    unsafe: set[str] = set()
    for node in nodes:
        if isinstance(node, ast.Lambda) and (node.args.posonlyargs + node.args.args)[:1]:
            used = parent.get(id(node))  # property(lambda self: ...), or `f = lambda self: ...` in a class body: Python binds self
            if (isinstance(used, ast.Call) and dotted_name(used.func).rsplit(".", 1)[-1] in ("property", "cached_property")
                    or isinstance(used, ast.Assign) and id(used) in owner):
                firsts.add(id((node.args.posonlyargs + node.args.args)[0]))
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        positional = node.args.posonlyargs + node.args.args
        decorators = {dotted_name(d.func if isinstance(d, ast.Call) else d) for d in node.decorator_list}
        if not (positional and positional[0].arg in SAFE_RECEIVERS and "staticmethod" not in {d.rsplit(".", 1)[-1] for d in decorators}):
            continue
        firsts.add(id(positional[0]))
        if not {d.rsplit(".", 1)[-1] for d in decorators} & {"classmethod", "property"}:  # Python binds those itself
            takes.setdefault(owner.get(id(node), ""), set()).add(node.name)
        if {d.split(".", 1)[0] for d in decorators} & defined:  # a decorator of the file's own is given the function: it may call it with anything
            unsafe.update(SAFE_RECEIVERS)
    methods = set().union(*takes.values())
    classes = {node.name for node in nodes if isinstance(node, ast.ClassDef)}
    classes |= {t.id for node in nodes if isinstance(node, ast.Assign) and isinstance(node.value, ast.Name) and node.value.id in classes
                for t in node.targets if isinstance(t, ast.Name)}  # C = Block: C.forward(x) too
    for node in nodes:
        if id(node) not in firsts and not isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            unsafe.update(node_binds(node))  # bound some other way than as a method's receiver
        if (isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load) and isinstance(node.value, ast.Name) and node.value.id in classes
                and node.attr in methods and not _called_or_named(node, parent.get(id(node)))):
            unsafe.update(SAFE_RECEIVERS)  # Block.forward given on as a value (map, partial, g = ...): any object may become its self (qa21h c05)
        elif isinstance(node, ast.Call) and not (node.args and isinstance(node.args[0], ast.Name) and node.args[0].id in SAFE_RECEIVERS):
            function = node.func
            given = (isinstance(function, ast.Name) and function.id in takes[""]
                     or isinstance(function, ast.Attribute) and isinstance(function.value, ast.Name) and function.value.id in classes and function.attr in methods)
            if given:  # _forward(x, ...), Block.forward(x, ...), Sub.forward(x, ...): x is its self
                unsafe.update(SAFE_RECEIVERS)
    return frozenset(SAFE_RECEIVERS) - unsafe


def _called_or_named(node: ast.AST, parent: ast.AST | None) -> bool:
    """`Block.forward(...)` (a call: judged as one), or only its name or text read (`Block.forward.__doc__`)."""
    return (isinstance(parent, ast.Call) and parent.func is node
            or isinstance(parent, ast.Attribute) and parent.attr in ("__doc__", "__name__", "__qualname__"))


def bindings(trees: Sequence[ast.AST], known: list[tuple[str, ast.AST]] | None = None,
             inherited: frozenset[str] = frozenset()) -> tuple[list[tuple[str, ast.AST]], set[str]]:
    """The single-name assignments of the trees (name, value), and the names bound in any other way
    (a loop variable, a parameter, unpacking, `with ... as`, :=, global, an import, a def); with
    `known`, a `for name in ...` loop's variable (name, what it loops over), a def or class
    (name, the definition) and a parameter that placed_parameters places (name, each value it
    may hold) go there instead."""
    assigned: list[tuple[str, ast.AST]] = []
    other: set[str] = set()
    placed = placed_parameters(trees, inherited) if known is not None else {}
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.arg) and id(node) in placed and known is not None:
                known += [(node.arg, value) for value in placed[id(node)]]
            elif (known is not None and isinstance(node, (ast.For, ast.AsyncFor)) and isinstance(node.target, ast.Tuple) and len(node.target.elts) == 2
                  and all(isinstance(e, ast.Name) for e in node.target.elts) and isinstance(node.iter, ast.Call)
                  and isinstance(node.iter.func, ast.Attribute) and node.iter.func.attr in MODULE_ITERATORS and node.iter.func.attr.startswith("named_")):
                label, item = (e.id for e in node.target.elts if isinstance(e, ast.Name))
                other.add(label)  # `for name, layer in model.named_modules()`: the layer is what the walk gives
                known.append((item, node.iter))
            elif known is not None and isinstance(node, (ast.For, ast.AsyncFor)) and isinstance(node.target, ast.Name):
                known.append((node.target.id, node.iter))
            elif known is not None and isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                known.append((node.name, node))
            elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                assigned.append((node.targets[0].id, node.value))
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
                assigned.append((node.target.id, node.value))
            elif isinstance(node, ast.Assign):  # with `known`, only the names it binds (not `x` of `x.a = v`)
                other.update(n.id for target in node.targets for n in ast.walk(target) if isinstance(n, ast.Name) and (known is None or isinstance(n.ctx, ast.Store)))
            elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
                other.update(n.id for n in ast.walk(node.target) if isinstance(n, ast.Name))
            elif isinstance(node, (ast.AugAssign, ast.NamedExpr)) and isinstance(node.target, ast.Name):
                other.add(node.target.id)
            elif isinstance(node, ast.withitem) and node.optional_vars is not None:
                other.update(n.id for n in ast.walk(node.optional_vars) if isinstance(n, ast.Name))
            elif isinstance(node, (ast.Global, ast.Nonlocal)):
                other.update(node.names)
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                other.update((a.asname or a.name).split(".")[0] for a in node.names)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                other.add(node.name)
            elif isinstance(node, (ast.ExceptHandler, ast.MatchAs, ast.MatchStar)) and node.name:
                other.add(node.name)
            elif isinstance(node, ast.MatchMapping) and node.rest:
                other.add(node.rest)
            elif isinstance(node, ast.arg):
                other.add(node.arg)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Del):
                other.add(node.id)
    return assigned, other


# methods that call the function given them with the module they are called on (or one of its
# submodules) first: a forward hook's `module`, model.apply(init)'s `m`
MODULE_CALLBACKS = frozenset({
    "apply", "register_forward_hook", "register_forward_pre_hook", "register_full_backward_hook",
    "register_full_backward_pre_hook", "register_backward_hook",
})
MODULE_ITERATORS = frozenset({
    "parameters", "named_parameters", "modules", "named_modules", "children", "named_children", "buffers", "named_buffers",
})
GRADER_DATA = ast.Constant(None)  # what a parameter of a function the submission never calls holds: the grader's data, or nothing
OWN_RECEIVER = ast.Constant(None)  # what a method's first parameter holds: the submission's own instance (or class)


def parents_of(trees: Sequence[ast.AST]) -> dict[int, ast.AST]:
    """Each node's parent, by id of the node."""
    return {id(child): node for tree in trees for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}


def placed_parameters(trees: Sequence[ast.AST], inherited: frozenset[str] = frozenset()) -> dict[int, list[ast.AST]]:
    """The parameters whose every value the source shows, by id of their ast.arg: what each call
    passes and the defaults; a hook's or model.apply's function's first parameter (a method's after
    self, a lambda's), the module it was registered on; a decorator's, the definition. A function
    the submission never names is called by the grader (with tensors, an Axes) or not at all; a
    method it never names may be called by Python or torch with anything (forward, __call__), so its
    parameters stay unplaced, as do those of a method a library's class may call (a dunder, one
    of `inherited`: forward, a JSONEncoder's default). Any other mention of the name (passed as a value, a getattr by text,
    the attribute of a module: `map(install, [json])`, `me.install(json)`), a second definition of
    it, or `*args` in a call leaves its parameters unplaced; *args and **kwargs parameters never
    are. A callback method (`apply`) counts only when the submission defines none of that name."""
    parents = parents_of(trees)
    definitions: dict[str, list[ast.FunctionDef | ast.AsyncFunctionDef]] = {}
    mentions: dict[str, list[ast.AST]] = {}
    callbacks: list[ast.Call] = []
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                definitions.setdefault(node.name, []).append(node)  # type: ignore[arg-type]  # a class of the name: never placed
            name = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else constant_text(node) if isinstance(node, ast.Constant) else None
            if isinstance(name, str):
                mentions.setdefault(name, []).append(node)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in MODULE_CALLBACKS:
                callbacks.append(node)
    registrars = MODULE_CALLBACKS - set(definitions) - stored_attributes(trees)
    placed: dict[int, list[ast.AST]] = {}
    for name, found in definitions.items():
        if len(found) == 1 and isinstance(found[0], (ast.FunctionDef, ast.AsyncFunctionDef)):
            method = isinstance(parents.get(id(found[0])), ast.ClassDef)
            called_by_libraries = name.startswith("__") or name in inherited
            if not (method and (found[0].decorator_list or not mentions.get(name) or called_by_libraries)):
                placed.update(_parameter_values(found[0], mentions.get(name, []), parents, registrars, int(method), method) or {})
        elif len(found) == 1 and isinstance(found[0], ast.ClassDef) and all(_plain_init_call(m, parents) for m in mentions.get("__init__", [])):
            for init in found[0].body:  # Probe(block): its __init__'s parameters hold what Probe(...) is given
                if isinstance(init, ast.FunctionDef) and init.name == "__init__" and not init.decorator_list:
                    placed.update(_parameter_values(init, mentions.get(name, []), parents, frozenset(), 1, False, implicit=False) or {})
    for tree in trees:  # a method's self (cls) is its own object or class: `def deco(cls): cls.dumps = f` is not a method
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and isinstance(parents.get(id(node)), ast.ClassDef) and (node.args.posonlyargs + node.args.args):
                if not any(dotted_name(d) == "staticmethod" for d in node.decorator_list):
                    placed[id((node.args.posonlyargs + node.args.args)[0])] = [OWN_RECEIVER]
    for call in callbacks:  # m.register_forward_hook(lambda module, inputs, output: ...)
        for given in call.args:
            if isinstance(given, ast.Lambda) and call.func.attr in registrars and given.args.posonlyargs + given.args.args:  # type: ignore[attr-defined]
                placed[id((given.args.posonlyargs + given.args.args)[0])] = [call.func.value]  # type: ignore[attr-defined]
    return placed


def _plain_init_call(mention: ast.AST, parents: dict[int, ast.AST]) -> bool:
    """Whether a mention of `__init__` is the definition's own name or `super().__init__(...)`
    (not `type(x).__init__(x, json)`, which calls it with what no class call shows)."""
    call = parents.get(id(mention))
    return (isinstance(mention, ast.Attribute) and isinstance(mention.value, ast.Call) and dotted_name(mention.value.func) == "super"
            and isinstance(call, ast.Call) and call.func is mention)


def _parameter_values(function: ast.FunctionDef | ast.AsyncFunctionDef, mentions: list[ast.AST], parents: dict[int, ast.AST],
                      registrars: frozenset[str], skip: int, by_attribute: bool, implicit: bool = True) -> dict[int, list[ast.AST]] | None:
    """placed_parameters for one function, method (`self.name(...)`: by_attribute, skip 1) or
    class's __init__ (`Probe(block)`: skip 1): None when a mention of its name is none of a call of
    it, a module callback given it or a decorator. `implicit`: a function never named holds the
    grader's data."""
    arguments = function.args
    method = skip > 0
    positional = (arguments.posonlyargs + arguments.args)[skip:]
    named = {a.arg: a for a in positional + arguments.kwonlyargs}
    values: dict[int, list[ast.AST]] = {id(a): [] for a in named.values()}
    unplaced: set[int] = set()  # what torch passes a hook besides the module (inputs, output) says nothing
    defaults = list(zip(positional[len(positional) - len(arguments.defaults):], arguments.defaults))
    defaults += [(a, d) for a, d in zip(arguments.kwonlyargs, arguments.kw_defaults) if d is not None]
    for argument, default in defaults:
        values[id(argument)].append(default)
    if not mentions:
        return {k: v + [GRADER_DATA] for k, v in values.items()} if implicit else None
    for mention in mentions:
        parent = parents.get(id(mention))
        if not isinstance(mention, ast.Attribute if by_attribute else ast.Name) or not isinstance(mention.ctx, ast.Load):  # type: ignore[attr-defined]
            return None
        if isinstance(parent, ast.Call) and parent.func is mention:
            if any(isinstance(a, ast.Starred) for a in parent.args) or any(k.arg is None for k in parent.keywords):
                return None
            for argument, value in zip(positional, parent.args):
                values[id(argument)].append(value)
            for keyword in parent.keywords:
                if keyword.arg in named:
                    values[id(named[keyword.arg])].append(keyword.value)
        elif (isinstance(parent, ast.Call) and isinstance(parent.func, ast.Attribute) and parent.func.attr in registrars
              and any(a is mention for a in parent.args) and positional):
            values[id(positional[0])].append(parent.func.value)
            unplaced.update(id(a) for a in positional[1:] + arguments.kwonlyargs)
        elif not method and isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and mention in parent.decorator_list and positional:
            values[id(positional[0])].append(parent)
        else:
            return None
    return {k: v for k, v in values.items() if k not in unplaced}


@dataclass(frozen=True)
class Ownership:
    """What the submission made (never a library's own module, class or function): the names bound
    only to objects it made or to its own definitions (`names`), and the attribute names given only
    such values (`attributes`, of all those given a value: `given`)."""

    names: frozenset[str]
    attributes: frozenset[str]
    given: frozenset[str]
    torch_names: frozenset[str]
    modules_given: frozenset[str] = frozenset()  # names given an imported module or class as such (`install(plt)`'s parameter)
    written: frozenset[str] = frozenset()  # names the submission binds itself (def, class, lambda, assignment): its own code, whatever their case
    constructors: frozenset[str] = frozenset()  # its classes whose call makes a new instance (no __new__, no metaclass)
    own_class_receivers: frozenset[str] = frozenset()  # self/cls where no call places anything but its own classes' instances in them

    def makes_new(self, node: ast.AST) -> bool:
        """Whether an expression's value is an object the submission made: a constant, a literal of
        such, a definition, a lambda, arithmetic, what torch computes (torch.zeros(3)), a class called
        (nn.Linear(4, 4), _Ops()), or what one of its own objects holds (self.layers[0]). Any other call,
        a lookup or a name bound otherwise may give a library's object (getattr, type(x), d.get)."""
        if isinstance(node, (ast.Constant, ast.Lambda, ast.BinOp, ast.UnaryOp, ast.JoinedStr, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            return True
        if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
            return all(self.makes_new(e) for e in node.elts)
        if isinstance(node, ast.Dict):
            return all(self.makes_new(v) for v in node.values)
        if isinstance(node, ast.Call):
            base = root(node)
            called = dotted_name(node.func).rsplit(".", 1)[-1]
            if called in self.written:  # its own code, which may return what it is given (`def Pass(x): return x`): a capital says nothing
                return called in self.constructors or (isinstance(node.func, ast.Name) and f"{called}()" in self.names)
            return ((isinstance(base, ast.Name) and base.id in self.torch_names) or called.lstrip("_")[:1].isupper()
                    or self.iterates_own(node) or (isinstance(node.func, ast.Name) and f"{node.func.id}()" in self.names))
        return self.holds_own(node)

    def iterates_own(self, node: ast.Call) -> bool:
        """Whether a call is an nn.Module's walk over what one of its own objects holds
        (`model.parameters()`, `model.named_modules()`), unless the submission defines or assigns
        a method of that name (which may return anything)."""
        method = node.func.attr if isinstance(node.func, ast.Attribute) else ""
        return (method in MODULE_ITERATORS and method not in self.names and method not in self.given
                and isinstance(node.func, ast.Attribute) and self.holds_own(node.func.value))

    def holds_own(self, node: ast.AST) -> bool:
        """Whether a name, attribute or subscript chain reaches only what the submission made: it
        starts from an own name (or self, cls) and no attribute on the way was given a value that
        may be a library's (`Box.target` after `target = json` in Box's body). An object's
        `__class__` is its class, which the submission did not make where the object is a library
        class's instance (`json.JSONEncoder().__class__` is json.JSONEncoder): own only on self (or
        cls) that no call shows holding anything but an instance of its own classes."""
        while isinstance(node, (ast.Attribute, ast.Subscript)):
            if isinstance(node, ast.Attribute) and node.attr in self.given and node.attr not in self.attributes:
                return False
            if isinstance(node, ast.Attribute) and node.attr == "__class__" and not (isinstance(node.value, ast.Name) and node.value.id in self.own_class_receivers):
                return False
            node = node.value
        if isinstance(node, ast.Call):
            return self.makes_new(node)
        return isinstance(node, ast.Name) and node.id in self.names


def torch_bound(trees: Sequence[ast.AST]) -> frozenset[str]:
    """The names bound to torch or to what an import takes from it (`import torch.nn as nn`, `from torch import nn`)."""
    found = {"torch"}
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                found.update(a.asname or a.name.split(".")[0] for a in node.names if a.name.split(".")[0] == "torch")
            elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "torch" and not node.level:
                found.update(a.asname or a.name for a in node.names)
    return frozenset(found)


def module_names(trees: Sequence[ast.AST], modules: AbstractSet[str]) -> frozenset[str]:
    """The names an import binds to one of `modules` itself (`import os`, `import os as _o`)."""
    return frozenset(a.asname or a.name for tree in trees for node in ast.walk(tree) if isinstance(node, ast.Import)
                     for a in node.names if a.name in modules or (a.asname is None and a.name.split(".")[0] in modules))


def holders(trees: Sequence[ast.AST], seeds: frozenset[str]) -> frozenset[str]:
    """`seeds` and every name that may come to hold what one of them holds: bound, by any target,
    from a value that holds one as a value (not `torch.zeros(...)`, not a call of it): `t = torch`,
    `t, _ = torch, None`, `(t := torch)`, `for t in [torch]`, `with f(torch) as t`, a match capture
    of a subject, a parameter given one by default or by a call of the file's own function (qa40h F1)."""
    by_name: dict[str, list[list[str]]] = {}
    for names, values in _binding_sites(trees):
        for held in {name for value in values for name in _values_held(value)}:
            by_name.setdefault(held, []).append(names)
    found, queue = set(seeds), list(seeds)
    while queue:
        for names in by_name.get(queue.pop(), []):
            fresh = [name for name in names if name not in found]
            found.update(fresh)
            queue += fresh
    return frozenset(found)


def _values_held(value: ast.AST) -> set[str]:
    """The names whose value `value` may hand on: loaded other than as an attribute's or a call's owner."""
    parents = {id(child): node for node in ast.walk(value) for child in ast.iter_child_nodes(node)}
    held = set()
    for node in ast.walk(value):
        parent = parents.get(id(node))
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and not (
                isinstance(parent, ast.Attribute) or (isinstance(parent, ast.Call) and parent.func is node)):
            held.add(node.id)
    return held


def _binding_sites(trees: Sequence[ast.AST]) -> list[tuple[list[str], list[ast.AST]]]:
    """(names, the values they may be bound from) for each binding of the trees (holders)."""
    def names(target: ast.AST) -> list[str]:
        return [n for node in ast.walk(target) for n in node_binds(node)]

    functions: dict[str, list[list[str]]] = {}
    sites: list[tuple[list[str], list[ast.AST]]] = []
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign):
                sites.append(([n for t in node.targets for n in names(t)], [node.value]))
            elif isinstance(node, (ast.AnnAssign, ast.NamedExpr)) and node.value is not None:
                sites.append((names(node.target), [node.value]))
            elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
                sites.append((names(node.target), [node.iter]))
            elif isinstance(node, ast.withitem) and node.optional_vars is not None:
                sites.append((names(node.optional_vars), [node.context_expr]))
            elif isinstance(node, ast.Match):
                sites.append(([n for case in node.cases for n in names(case.pattern)], [node.subject]))
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                arguments = node.args
                positional = [*arguments.posonlyargs, *arguments.args]
                defaults = list(zip(positional[len(positional) - len(arguments.defaults):], arguments.defaults))
                defaults += [(a, d) for a, d in zip(arguments.kwonlyargs, arguments.kw_defaults) if d is not None]
                sites += [([a.arg], [d]) for a, d in defaults]
                if not isinstance(node, ast.Lambda):
                    functions.setdefault(node.name, []).append([a.arg for a in (*positional, *arguments.kwonlyargs, arguments.vararg, arguments.kwarg) if a])
                    sites += [([node.name], [r.value]) for r in ast.walk(node) if isinstance(r, ast.Return) and r.value is not None]  # `def _get(): return os`
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                called = node.func.id if isinstance(node.func, ast.Name) else node.func.attr if isinstance(node.func, ast.Attribute) else ""
                given: list[ast.AST] = [*node.args, *(k.value for k in node.keywords)]
                sites += [(parameters, given) for parameters in functions.get(called, [])]
    return sites


def root(node: ast.AST) -> ast.AST:
    """What an attribute, subscript or call chain starts from: `x` for `x.a[0].b()`."""
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Call)):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node


def ownership(trees: Sequence[ast.AST], torch_names: frozenset[str], inherited: frozenset[str] = frozenset()) -> Ownership:
    """Which names and attributes hold only what the submission made: an attribute stored on one of
    them changes no library. A parameter (unless placed_parameters places it; `inherited`: the
    method names a library's class may call), a `with ... as` or := target, an import, an unpacking
    or a comprehension's variable may hold a library's module. self and cls are own unless a call
    shows them holding something else (`def deco(cls): cls.dumps = f` called as deco(json)): a
    method's, or a function's that becomes one (`forward = make_forward(...)` in a class body)."""
    known: list[tuple[str, ast.AST]] = []  # loops (`for layer in [nn.Linear(2, 2), ...]`: each element is what it holds) and definitions
    assigned, unknown = bindings(trees, known, inherited)  # unknown: bound in a way that says nothing of what it holds
    names: dict[str, list[ast.AST]] = {}
    for name, value in assigned + known:
        names.setdefault(name, []).append(value)
    attributes: dict[str, list[ast.AST]] = {}
    for name, value in attribute_values(trees):
        attributes.setdefault(name, []).append(value)
    for definition in _plain_functions(trees):  # what an own function returns: `cfg = for_eval(Config())`
        returns = [r.value or ast.Constant(None) for r in _returns(definition)]
        names.setdefault(f"{definition.name}()", []).extend(returns or [ast.Constant(None)])
    imported_names = {(a.asname or a.name).split(".")[0] for tree in trees for node in ast.walk(tree) if isinstance(node, (ast.Import, ast.ImportFrom)) for a in node.names}
    definitions = [node for tree in trees for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]
    written = frozenset({d.name for d in definitions} | {n for n, _ in assigned} - imported_names)
    constructors = frozenset(d.name for d in definitions if isinstance(d, ast.ClassDef) and not d.keywords and not any(
        isinstance(b, (ast.FunctionDef, ast.AsyncFunctionDef)) and b.name == "__new__" for b in d.body)
        and [e.name for e in definitions if e.name == d.name] == [d.name] and d.name not in {n for n, _ in assigned})
    # from everything down to what holds: a name bound only to own names is own too; a cycle
    # (`CONFIG = for_eval(CONFIG)`) only passes on what enters it. A worklist: when a name or an
    # attribute drops out, only what mentions it is looked at again (a chain of 4,000 helpers
    # returning each other's result took one pass over every value per link: 250 s, qa17h)
    values_of: dict[tuple[str, str], list[ast.AST]] = {("name", n): v for n, v in names.items() if n not in unknown}
    values_of |= {("name", n): names.get(n, []) for n in SAFE_RECEIVERS} | {("attribute", n): v for n, v in attributes.items()}
    mentioned_by: dict[tuple[str, str], set[tuple[str, str]]] = {}
    for key, values in values_of.items():
        for mention in _mentions(values):
            mentioned_by.setdefault(mention, set()).add(key)
    own, todo = set(values_of), set(values_of)
    own_names, own_attributes = {n for kind, n in own if kind == "name"}, {n for kind, n in own if kind == "attribute"}
    # one Ownership over the two sets as they shrink: a copy per round cost O(names) a link (8,000 links: 44 s)
    found = Ownership(own_names, own_attributes, frozenset(attributes), torch_names, written=written, constructors=constructors)  # type: ignore[arg-type]
    while dropped := {key for key in todo if not all(map(found.makes_new, values_of[key]))}:
        own -= dropped
        for kind, name in dropped:
            (own_names if kind == "name" else own_attributes).discard(name)
        todo = {key for mention in dropped for key in mentioned_by.get(mention, ())} & own
    found = replace(found, names=frozenset(own_names), attributes=frozenset(own_attributes))
    imported = {(a.asname or a.name).split(".")[0] for tree in trees for node in ast.walk(tree) if isinstance(node, (ast.Import, ast.ImportFrom)) for a in node.names}
    given = frozenset(n for n, values in names.items() if n not in found.names and any(
        isinstance(v, (ast.Name, ast.Attribute)) and isinstance(root(v), ast.Name) and root(v).id in imported for v in values))  # type: ignore[attr-defined]
    instances = frozenset(n for n in SAFE_RECEIVERS if all(
        isinstance(v, ast.Constant) or isinstance(v, ast.Call) and isinstance(v.func, ast.Name) and v.func.id in constructors or isinstance(v, ast.Name) and v.id in SAFE_RECEIVERS
        for v in names.get(n, [])))
    return replace(found, modules_given=given, own_class_receivers=instances)


def _mentions(values: list[ast.AST]) -> set[tuple[str, str]]:
    """The names and attributes whose ownership Ownership.makes_new may read for these values
    (more is harmless): every name and attribute in them, and `f()` for each call of a name."""
    found: set[tuple[str, str]] = set()
    for value in values:
        for node in ast.walk(value):
            if isinstance(node, ast.Name):
                found.add(("name", node.id))
            elif isinstance(node, ast.Attribute):
                found |= {("name", node.attr), ("attribute", node.attr)}
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                found.add(("name", f"{node.func.id}()"))
    return found


def _plain_functions(trees: Sequence[ast.AST]) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    """The functions (not methods, not generators) defined once under their name, nothing else bound to it."""
    parents = parents_of(trees)
    found: dict[str, list[ast.AST]] = {}
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                found.setdefault(node.name, []).append(node)
            elif isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
                found.setdefault(node.id, []).append(node)
    return [d[0] for d in found.values() if len(d) == 1 and isinstance(d[0], ast.FunctionDef) and not isinstance(parents.get(id(d[0])), ast.ClassDef)
            and not any(isinstance(n, (ast.Yield, ast.YieldFrom)) for n in _own_body(d[0]))]


def _own_body(function: ast.AST) -> list[ast.AST]:
    """The nodes of a function's body, not those of functions, lambdas or classes inside it."""
    found: list[ast.AST] = []
    todo = list(ast.iter_child_nodes(function))
    while todo:
        node = todo.pop()
        found.append(node)
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            todo.extend(ast.iter_child_nodes(node))
    return found


def _returns(function: ast.AST) -> list[ast.Return]:
    return [n for n in _own_body(function) if isinstance(n, ast.Return)]


# what of threading runs no code in another thread: locks and the like, and who is running
THREADING_IN_PLACE = frozenset({
    "Lock", "RLock", "Event", "Condition", "Semaphore", "BoundedSemaphore", "Barrier", "local", "get_ident", "get_native_id",
    "current_thread", "main_thread",
})


def threading_in_place(trees: Sequence[ast.AST]) -> bool:
    """Whether the source uses threading only for what runs in the calling thread (a module-level
    `_lock = threading.Lock()` guarding a cache): `import threading` (or from it only those names),
    and the module named only as `threading.Lock` and the like, never passed on."""
    aliases: set[str] = set()
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                aliases.update(a.asname or a.name for a in node.names if a.name == "threading")
                if any(a.name.startswith("threading.") for a in node.names):
                    return False
            elif isinstance(node, ast.ImportFrom) and node.module == "threading" and any(a.name not in THREADING_IN_PLACE for a in node.names):
                return False
    parents = parents_of(trees)
    return all(
        isinstance(parent := parents.get(id(node)), ast.Attribute) and parent.value is node and parent.attr in THREADING_IN_PLACE
        for tree in trees for node in ast.walk(tree) if isinstance(node, ast.Name) and node.id in aliases)


def attribute_values(trees: Sequence[ast.AST]) -> list[tuple[str, ast.AST]]:
    """(attribute name, value) of every attribute given a value: `x.a = v`, `setattr(x, "a", v)`,
    `a = v` in a class body."""
    found: list[tuple[str, ast.AST]] = []
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                found += [(t.attr, node.value) for t in targets if isinstance(t, ast.Attribute)]
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "setattr" and len(node.args) == 3:
                found.append((str(constant_text(node.args[1])), node.args[2]))
            elif isinstance(node, ast.ClassDef):
                found += [(t.id, s.value) for s in node.body if isinstance(s, ast.Assign) for t in s.targets if isinstance(t, ast.Name)]
    return found


def attributes_holding(trees: Sequence[ast.AST], names: frozenset[str]) -> frozenset[str]:
    """The attribute names given a value that holds what one of `names` holds (`self.o = os`,
    `o = os` in a class body, `setattr(k, "o", os)`)."""
    return frozenset(attribute for attribute, value in attribute_values(trees) if _values_held(value) & names)


def may_hold(node: ast.AST, names: frozenset[str], attributes: frozenset[str]) -> bool:
    """Whether an expression may be what `names` hold: one of them is in it as a value (`[os][0]`,
    `next(iter([os]))`, `os if c else None`, `(lambda m: m)(os)`), or its chain starts at a name
    that holds one (`_O[0]`, `_O = [os]`; `_get()`, `def _get(): return os`: holders) or reads an
    attribute of `attributes` (`self.o`)."""
    if _values_held(node) & names:
        return True
    while True:
        if isinstance(node, ast.Name):
            return node.id in names
        if isinstance(node, ast.Attribute) and node.attr in attributes:
            return True
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Lambda):
            node = node.func.body
        elif isinstance(node, (ast.Attribute, ast.Subscript, ast.Call)):
            node = node.func if isinstance(node, ast.Call) else node.value
        else:
            return False


def stored_attributes(trees: Sequence[ast.AST]) -> frozenset[str]:
    """The attribute names anything assigns or deletes (`os.devnull = 3`, `me.LOG = 3`, setattr(m, "LOG", 3))."""
    stored: set[str] = set()
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and not isinstance(node.ctx, ast.Load):
                stored.add(node.attr)
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("setattr", "delattr") and len(node.args) >= 2:
                stored.add(str(constant_text(node.args[1])))
    return frozenset(stored)


def text_bound_names(trees: Sequence[ast.AST], stored: frozenset[str]) -> frozenset[str]:
    """The names every binding of which is text or a path (`LOG = "run.log"`, `out = Path(...)`,
    `__file__`): not one also bound otherwise (a loop variable, a parameter, `fd = 3`, unpacking) or
    assigned as an attribute (`module.LOG = 3`)."""
    assigned, other = bindings(trees)
    assigned.append(("__file__", ast.Constant("")))  # the worker sets it to the file's path
    other |= stored
    candidates = [(name, value) for name, value in assigned if name not in other]
    waiting: dict[str, list[tuple[str, ast.AST]]] = {}  # a name -> the bindings whose value mentions it
    for name, value in candidates:
        for mentioned in {dotted_name(n) for n in ast.walk(value) if isinstance(n, (ast.Name, ast.Attribute))}:
            waiting.setdefault(mentioned, []).append((name, value))
    text: set[str] = set()
    pending = list(candidates)
    while pending:  # LOG = FOLDER + "/run.log": names bound to text names are text too (a worklist: each binding looked at again only when a name it mentions turns text)
        name, value = pending.pop()
        if name not in text and looks_like_path(value, text):
            text.add(name)
            pending.extend(waiting.get(name, ()))
    values: dict[str, list[ast.AST]] = {}
    for name, value in assigned:
        values.setdefault(name, []).append(value)
    return frozenset(name for name in text if all(looks_like_path(value, text) for value in values[name]))


def shown_texts_used(trees: Sequence[ast.Module]) -> bool:
    """Whether the source can use a text it only seems to show: it reads docstrings back
    (`__doc__`, by name or in a text, or a code object's constants) or binds the name print (qa36h F1)."""
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr in ("__doc__", "co_consts") or isinstance(node, ast.Name) and node.id == "__doc__":
                return True
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and "__doc__" in node.value or "print" in node_binds(node):
                return True
    return False


def argv_is_text(trees: Sequence[ast.AST]) -> bool:
    """Whether sys.argv stays the command line's strings: only ever read as sys.argv[i] or len(sys.argv)
    (a list can be changed: sys.argv.append(3) would make open(sys.argv[-1]) open descriptor 3)."""
    for tree in trees:
        parents = parents_of([tree])
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module == "sys" and any(a.name in ("argv", "*") for a in node.names):
                return False
            if not (isinstance(node, ast.Attribute) and node.attr == "argv"):
                continue
            parent = parents.get(id(node))
            read = isinstance(parent, ast.Subscript) and parent.value is node and isinstance(parent.ctx, ast.Load)
            counted = isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name) and parent.func.id == "len" and parent.args == [node]
            if not (isinstance(node.ctx, ast.Load) and (read or counted)):
                return False
    return True


def is_main_guard(node: ast.AST) -> bool:
    """`if __name__ == "__main__":` (the worker runs the entry as the module named after the
    assignment's student file, never as __main__)."""
    test = node.test if isinstance(node, ast.If) else None
    return (isinstance(test, ast.Compare) and isinstance(test.left, ast.Name) and test.left.id == "__name__" and len(test.ops) == 1
            and isinstance(test.ops[0], ast.Eq) and constant_text(test.comparators[0]) == "__main__")


def starts_workers(node: ast.Call) -> bool:
    """Whether a DataLoader(...) call may start worker processes: num_workers not 0 (or not known)."""
    workers = [k.value for k in node.keywords if k.arg == "num_workers"] + node.args[LOADER_WORKERS_ARGUMENT:LOADER_WORKERS_ARGUMENT + 1]
    unknown = any(k.arg is None for k in node.keywords) or any(isinstance(a, ast.Starred) for a in node.args)
    return unknown or any(not (isinstance(w, ast.Constant) and w.value == 0) for w in workers)


def opens_for_writing(node: ast.Call, os_names: set[str]) -> bool:
    """Whether an open(...) call may write: a mode that is not a text constant, or one with w/a/x/+;
    os.open (its flags are numbers) always."""
    dotted = dotted_name(node.func)
    if dotted.split(".", 1)[0] in os_names:
        return True
    modes: list[ast.AST] = [k.value for k in node.keywords if k.arg == "mode"]
    if any(k.arg is None for k in node.keywords):  # open(path, **options)
        return True
    modes += node.args[1:2] if isinstance(node.func, ast.Name) or dotted in ("io.open", "codecs.open") else node.args[:1]  # Path.open(mode)
    if any(isinstance(a, ast.Starred) for a in node.args):
        return True
    return any(not (isinstance(m, ast.Constant) and isinstance(m.value, str)) or set(m.value) & WRITE_MODES for m in modes)


@functools.lru_cache(maxsize=1)
def library_paths() -> tuple[str, ...]:
    """Where the worker's Python finds modules: the standard library and site-packages."""
    paths = sysconfig.get_paths()
    found = [paths[k] for k in ("stdlib", "platstdlib", "purelib", "platlib")] + [os.path.join(paths["stdlib"], "lib-dynload")]
    return tuple(p for p in dict.fromkeys(found) if os.path.isdir(p))


@functools.lru_cache(maxsize=1024)
def installed(name: str) -> bool:
    """Whether `name` is a module of the standard library or an installed library."""
    return name in sys.builtin_module_names or importlib.machinery.PathFinder.find_spec(name, list(library_paths())) is not None
