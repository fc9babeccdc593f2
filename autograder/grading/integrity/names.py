"""What the static pass (integrity/static.py) looks for, by name: the modules, functions and
attributes that can switch the worker's trace off or reach around it, the grader's own names, and
the means of reaching outside the submission (files, network, signals, processes). One table per
idea, each with why it is there; the pass itself reads them."""
from __future__ import annotations

GRADER_NAMES = frozenset({"autograder", "attnkit", "dispatcher", "plotdata", "OpTracer", "OpRecorder", "Dispatcher", "plot_call", "extract_plot", "LIBRARY_FUNCTIONS"})
EVASION_MODULES = frozenset({"importlib", "ctypes", "gc", "inspect", "builtins", "marshal", "codeop", "pickle", "dill", "cloudpickle", "runpy",
                             "frozen_importlib", "frozen_importlib_external",  # by their names without leading underscores: _pickle is pickle
                             "cffi", "cffi_backend",  # cffi: raw memory and C calls, as ctypes (ffi.buffer(ffi.cast("char*", id(x))))
                             "lsprof"})  # cProfile's C profiler: its enable() puts its own profile in the trace's place (qa42h F1)
EVASION_ATTRIBUTES = frozenset({
    "modules", "_getframe", "settrace", "setprofile", "gettrace", "getprofile", "addaudithook", "monitoring", "ops", "library", "overrides", "jit", "_dynamo",
    "trace_dependencies",  # torch.package.analyze: runs a callable under a profile of its own (qa42h F4)
    "f_back", "f_globals", "f_locals", "f_code", "tb_frame", "gi_frame", "cr_frame", "__globals__", "__code__", "__closure__",
    "__builtins__", "__subclasses__", "__bases__", "__base__", "__mro__", "__dict__", "__getattribute__", "__self__", "__func__",
    "__wrapped__", "__loader__", "__spec__", "__import__", "__reduce__", "__reduce_ex__", "__getstate__", "__setattr__", "__delattr__", "__class__",
    "__defaults__", "__kwdefaults__", "sys",
    "__annotations__", "__annotate__",  # annotations written at run time: texts that singledispatch, get_type_hints... evaluate
    "fx",  # torch.fx writes Python from the texts a graph's nodes name (get_attr "t._C...", call_method "softmax") and runs it
    "CodeType", "FunctionType", "LambdaType", "MethodType",  # a function built from a code object's parts, or bound to any object (qa21h c01, c05)
    "__get__", "fget", "fset", "fdel",  # a function taking self bound by hand to another object: sys as its self (qa21h c05)
    "hub",  # torch.hub.load(folder, source="local") imports a hubconf.py the code may have written (qa21h c03)
    # torch's public names for the switches of torch._C: the trace's modes skipped (qa37h F1)
    "DisableTorchFunction", "DisableTorchFunctionSubclass", "ExcludeDispatchKeyGuard", "DispatchKeySet", "DispatchKey",
})
EVASION_BUILTINS = frozenset({"eval", "exec", "compile", "__import__", "globals", "vars", "locals", "breakpoint", "__builtins__", "__loader__", "__spec__"})
NAME_LOOKUPS = frozenset({"getattr", "setattr", "delattr"})
# what reaches an attribute or a module by its name as text, like a computed getattr, or runs text as
# code, like exec: string annotations evaluated, logging's configurators, unpicklers
TEXT_LOOKUPS = frozenset({
    "attrgetter", "methodcaller", "locate", "resolve_name", "get_field", "import_module", "getattr_static", "find_spec",
    "module_from_spec", "load_module", "exec_module", "get_type_hints", "ForwardRef", "get_annotations", "BaseConfigurator",
    "DictConfigurator", "dictConfig", "fileConfig", "Unpickler", "read_pickle", "unsafe_load", "full_load", "UnsafeLoader",
    "FullLoader", "PackageImporter", "load_inline", "cpp_extension",
    # more of the same in installed libraries (qa10h): yaml's full loader (`!!python/name:torch._C...`),
    # traitlets/IPython's import_item, tornado's import_object, entry points, pytest's MonkeyPatch
    # (setattr("json.dumps", f)), jinja2's compile_expression, an IPython shell running a cell's text
    "Loader", "UnsafeConstructor", "FullConstructor", "unsafe_load_all", "full_load_all", "import_item", "import_object", "EntryPoint",
    "MonkeyPatch", "compile_expression", "InteractiveShell", "TerminalInteractiveShell", "InteractiveShellEmbed", "start_ipython",
    "run_cell", "run_cell_async", "safe_execfile", "safe_run_module",  # not run_line_magic: a notebook saved as .py holds get_ipython().run_line_magic(...)
    # a string.Formatter's other doors to the object a field names, and IPython's formatters that eval it (qa37h F2)
    "EvalFormatter", "FullEvalFormatter", "DollarFormatter",
    "addsitedir", "addpackage", "execsitecustomize", "execusercustomize",  # site's: run the `import` lines of the .pth files found (qa37h F3)
    "importorskip",  # pytest's: an import by text (qa39h F1)
    "walk_stack", "walk_tb",  # traceback's: the frames above, whose variables stack_data reads with no attribute named (qa39h F1)
})
# modules (by their top-level name) whose purpose is running text as code or looking names up by text
TEXT_CODE_MODULES = frozenset({
    "timeit", "cProfile", "profile", "trace", "code", "doctest", "pdb", "bdb", "pydoc", "pkgutil", "shelve", "copyreg", "zipimport",
    "imp", "unittest", "sympy",  # sympy: sympify and parse_expr end in eval, with the builtins at hand
    "jinja2", "mako", "pure_eval",  # templates and expression evaluators: attribute access (and more) by text
    "traitlets",  # a Type or Instance trait given "torch._C.DisableTorchFunction" imports that class by its name
    # lazy_loader.attach(package, submod_attrs={module: [name]}) imports a module and looks an attribute up by text;
    # fsspec's registry imports a class by its dotted text; stack_data reads frames' variables (qa39h F1)
    "lazy_loader", "fsspec", "stack_data",
})
# of those, the modules of self-tests and debugging: importing one runs nothing, so their names count
# where they are used (a self-test under the main guard is no finding: qa39h F2)
TEST_AND_DEBUG_MODULES = frozenset({"unittest", "doctest", "pdb"})
# what of those modules is only used, never run from text: a test case's class and its skip markers
TEXT_CODE_SAFE_NAMES = frozenset({"unittest.TestCase", "unittest.IsolatedAsyncioTestCase", "unittest.skip", "unittest.skipIf", "unittest.skipUnless",
                                  "unittest.expectedFailure", "unittest.SkipTest"})
# a module reached as another module's attribute (`torch.serialization.pickle`, a library that imported
# it) is the module: these names count as attributes too (but for those that name everyday methods:
# x.trace(), err.code, torch.profiler.profile)
MODULE_ATTRIBUTES = (EVASION_MODULES | TEXT_CODE_MODULES) - {"code", "trace", "profile"}
# torch's private modules that reach its dispatcher, its modes and its kernels: read on anything not
# provably the submission's own (`self.t._C` where self.t = torch, `_T[0]._C`, `Lib.t._C`: qa41h F2, F3)
TORCH_PRIVATE_MODULES = frozenset({"_C", "_VF", "_ops", "_dispatch", "_dynamo", "_functorch", "_higher_order_ops", "_library", "_prims",
                                   "_refs", "_decomp", "_subclasses", "_inductor", "_python_dispatch", "_jit_internal"})
# raw descriptor I/O: the worker's channel to the grader is a descriptor, so these could write replies
# the grader takes for the worker's own (a forged trace); os/posix functions, and socket/file objects
# made from a descriptor number
RAW_DESCRIPTOR_FUNCTIONS = frozenset({"write", "writev", "pwrite", "pwritev", "sendfile", "read", "readv", "pread", "dup", "dup2", "fdopen", "splice"})
RAW_DESCRIPTOR_NAMES = frozenset({"fromfd", "fdopen", "FileIO", "send_fds", "recv_fds"})
RAW_DESCRIPTOR_KEYWORDS = frozenset({"fileno", "closefd"})
# keyword arguments that make a loader unpickle (its data can look up any name): anything but these values
UNPICKLING_KEYWORDS = {"weights_only": True, "allow_pickle": False, "pickle_module": None}
# ... and the same given by position (numpy.load(file, mmap_mode, allow_pickle), numpy.lib.format.read_array(fp,
# allow_pickle), torch.load(f, map_location, pickle_module)): a loader called with an argument there, or with
# *args / **options that may hold one, may unpickle
UNPICKLING_POSITIONS = {"load": 2, "read_array": 1}
# what runs code in another thread or process, where the worker's trace (per thread) does not see it
OUTSIDE_TRACE = frozenset({"threading", "_thread", "concurrent", "Thread", "Timer", "ThreadPoolExecutor", "ProcessPoolExecutor", "start_new_thread"})
# a DataLoader runs code elsewhere only with workers: called with num_workers (not 0), or passed around as a value
LOADER = "DataLoader"
LOADER_WORKERS_ARGUMENT = 5  # DataLoader(dataset, batch_size, shuffle, sampler, batch_sampler, num_workers, ...)
FILE_NAMES = frozenset({
    "open", "shutil", "glob", "listdir", "scandir", "walk", "iterdir", "rglob", "read_text", "read_bytes", "write_text",
    "write_bytes", "remove", "unlink", "rmtree", "chmod", "chown", "symlink", "mmap",
    "savetxt", "tofile",  # numpy writes any text (a header) to any path (qa21h c03)
})
# The installed packages, beside the standard library, whose doors to text the rules read (their
# entries in these tables): what the README promises (torch, numpy, matplotlib, seaborn) and a few an
# honest file uses (scipy's special functions, pandas, IPython's display in a notebook). Any other
# installed package is an evasion where imported in code that runs: ~150 are installed, and each
# round found another that imports by a text (six.add_move, watchfiles' import_string,
# networkx.lazy_imports: qa40h F3), so the list says what is read rather than what is not.
READ_PACKAGES = frozenset({
    "torch", "functorch", "numpy", "matplotlib", "mpl_toolkits", "pylab", "seaborn", "scipy", "pandas", "IPython", "ipywidgets",
    "typing_extensions", "einops", "tqdm", "PIL", "cycler", "pytest", "yaml",
})
UNREAD_PACKAGE = ", a package whose doors to text the grader does not read (the standard library, torch, numpy, matplotlib, seaborn, scipy and pandas are)"
# An import of a module that is neither installed nor one of the submission's files counts only in a
# submission that could make one while it runs (write a file, start a process, reach the network,
# change where imports look, or any other evasion): an optional import of a library the grader
# lacks (`try: import einops`) is only a failed import, also in a file that only reads files.
UNKNOWN_MODULE = ", neither a library nor a file of the submission (a module written while the code runs)"
# A debugger stopped in the code (breakpoint(), pdb.set_trace()) runs the commands it reads from
# sys.stdin, an empty pipe in the worker, or calls the function PYTHONBREAKPOINT names: it counts
# only in a submission that replaces sys.stdin or writes that variable (a `breakpoint()` left in a
# branch that never runs is not a text door: qa39h F3)
DEBUGGER = " (a debugger runs the commands it reads from sys.stdin, which the file replaces, or the function PYTHONBREAKPOINT names)"
DEBUGGER_CALLS = frozenset({"breakpoint", "pdb.set_trace"})
# file functions of os whose name is also a method of everyday objects (list.remove, set.remove,
# Artist.remove, Colorbar.remove): as an attribute they reach a file only on the os module
OS_ONLY_METHODS = frozenset({"remove"})
FILE_READERS = frozenset({"glob", "listdir", "scandir", "walk", "iterdir", "rglob", "read_text", "read_bytes"})  # the rest of FILE_NAMES can write
WRITE_MODES = frozenset("wax+")
# what names a file rather than a descriptor number in open(...): text, a path, the command line's or
# the environment's strings (sys.argv[1], os.environ["DATA"]), os.devnull
PATH_CALLS = frozenset({"Path", "join", "joinpath", "expanduser", "abspath", "realpath", "with_suffix", "with_name"})
TEXT_ATTRIBUTES = frozenset({"os.devnull", "os.curdir", "os.pardir"})  # unless the source assigns them
TEXT_TABLES = frozenset({"sys.argv", "os.environ"})  # os.environ holds only text; sys.argv unless the source changes it
MAIN_GUARD = "if __name__ == '__main__'"  # the scope of what such a block holds: it never runs in the worker
PATH_WORDS = ("path", "file", "name", "dir", "folder")
IMPORT_PATHS = frozenset({"path", "path_hooks", "meta_path", "path_importer_cache"})  # sys.<these>
TEMPORARY_FILES = frozenset({"tempfile", "NamedTemporaryFile", "TemporaryFile", "SpooledTemporaryFile", "mkstemp", "mkdtemp", "TemporaryDirectory"})
# What the worker's replies and traces go through: a name these modules (or their classes) define,
# stored on an object the static pass cannot place, may be a patch (static._patches)
LIBRARY_MODULES = ("builtins", "sys", "os", "io", "json", "json.encoder", "json.decoder", "socket", "selectors", "struct", "pickle",
                   "marshal", "codecs", "zlib", "base64", "threading", "traceback", "linecache", "inspect", "types", "functools",
                   "torch", "torch.nn.functional", "torch.overrides", "torch.autograd", "torch.utils._python_dispatch")
NOT_PATCHES = frozenset({"sys.stdout", "sys.stderr", "sys.stdin"})  # where print writes (sys.stdout = io.TextIOWrapper(..., encoding="utf-8")): the worker's channel is elsewhere
CALLED_IS_FINE = frozenset({"modules"})  # nn.Module.modules() is a method; sys.modules is a table
READ_IS_FINE = frozenset({"__class__"})  # x.__class__.__name__ is type(x); assigning it swaps what an object is
NETWORK_NAMES = frozenset({"socket", "urllib", "http", "requests", "ftplib", "smtplib", "ssl", "asyncio", "xmlrpc"})
PROCESS_NAMES = frozenset({"subprocess", "multiprocessing", "threading", "system", "popen", "fork", "forkpty", "execv", "execve", "spawnv", "posix_spawn", "pty"})
SIGNAL_NAMES = frozenset({"signal", "kill", "killpg", "pidfd_send_signal", "tgkill"})
SAFE_RECEIVERS = ("self", "cls")  # the student's own objects (self.x, getattr(self, name), self.__dict__)
MODULE_SCOPE = ""
SCRIPTED = "(scripted or compiled code runs outside the trace)"  # it hides only the function it scripts
