"""Where the kit's files live. ATTNKIT_ROOT overrides the repository root (used in containers)."""
import os
from pathlib import Path

REPO_ROOT = Path(os.environ.get("ATTNKIT_ROOT") or Path(__file__).resolve().parents[1])
ASSIGNMENT = "attention"  # the default assignment: graded unless ATTNKIT_ASSIGNMENT names another; a result that names none is its
SOLUTION_DIR = REPO_ROOT / "solutions" / ASSIGNMENT
RELEASE_DIR = REPO_ROOT / "assignments" / ASSIGNMENT
PACKAGE_DIR = Path(__file__).resolve().parent
CHECKS_DIR = PACKAGE_DIR / "assignments" / ASSIGNMENT / "checks"
REFERENCE_DIR = PACKAGE_DIR / "assignments" / ASSIGNMENT / "reference"
EXAMPLES_DIR = REPO_ROOT / "examples" / "submissions"
