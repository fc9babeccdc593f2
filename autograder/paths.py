"""Where the kit's files live (ATTNKIT_ROOT overrides the repository root: used in containers),
and how a handed-in folder's files are listed."""
import os
from pathlib import Path

REPO_ROOT = Path(os.environ.get("ATTNKIT_ROOT") or Path(__file__).resolve().parents[1])
PACKAGE_DIR = Path(__file__).resolve().parent
ASSIGNMENTS_DIR = PACKAGE_DIR / "assignments"  # one folder per assignment, each with a manifest
MANIFEST_NAME = "manifest.toml"


def _only_assignment() -> str:
    """The name of the one assignment folder under autograder/assignments/ ("" when there are
    several: then ATTNKIT_ASSIGNMENT must name one, autograder.assignment says so)."""
    found = sorted(manifest.parent.name for manifest in ASSIGNMENTS_DIR.glob(f"*/{MANIFEST_NAME}"))
    return found[0] if len(found) == 1 else ""


ASSIGNMENT = _only_assignment()  # the default assignment: graded unless ATTNKIT_ASSIGNMENT names another; a result that names none is its
# The default assignment's folders (tests and bench); the engine asks the manifest (autograder.assignment.current()).
SOLUTION_DIR = REPO_ROOT / "solutions" / ASSIGNMENT
RELEASE_DIR = REPO_ROOT / "assignments" / ASSIGNMENT
CHECKS_DIR = ASSIGNMENTS_DIR / ASSIGNMENT / "checks"
REFERENCE_DIR = ASSIGNMENTS_DIR / ASSIGNMENT / "reference"
EXAMPLES_DIR = REPO_ROOT / "examples" / "submissions"


def regular_files(folder: Path) -> list[Path]:
    """The regular files under `folder`, in name order, without following links and without
    recursion (Path.rglob recursed once a level: a folder 1,200 deep raised RecursionError, qa31h).
    A FIFO, a device or a socket is not a file here: reading one blocks or never ends. A folder
    below that cannot be listed (no permission, a path longer than the system takes) is passed
    over (qa32h M4: an unreadable .git/objects refused the whole hand-in); OSError when `folder`
    itself cannot be."""
    found, folders = [], [folder]
    while folders:
        here = folders.pop()
        try:
            with os.scandir(here) as entries:
                for entry in entries:
                    if entry.is_dir(follow_symlinks=False):
                        folders.append(Path(entry.path))
                    elif entry.is_file(follow_symlinks=False):
                        found.append(Path(entry.path))
        except OSError:
            if here == folder:
                raise
    return sorted(found)
