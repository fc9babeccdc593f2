"""One home for the kit's limits, image names and file names.

Every module that enforces a limit or names a file takes it from here; the README's limits table
is generated from LIMITS (`python scripts/readme_limits.py` writes it between its markers) and
tests/test_settings.py compares them. This module imports nothing of the package.
"""
from __future__ import annotations

# --- a worker running student code (grading/worker/client.py Budget, sandbox.py SandboxConfig) --
CALL_SECONDS = 10.0  # wall clock of one call into student code
IMPORT_SECONDS = 20.0  # wall clock of importing the submission
SUBMISSION_SECONDS = 180.0  # wall clock of one submission, every call together
GRADER_MARGIN_SECONDS = 120.0  # a batch's grader process on one submission: its budget, one import and one call, and this
WORKER_CPU_SECONDS = 120  # CPU time (rlimit)
WORKER_MEMORY_BYTES = 2 << 30  # address space above the size the worker was forked at
WORKER_GROUP_MEMORY_BYTES = 4 << 30  # memory of all the worker's processes together (a memory cgroup, as root)
WORKER_PROCESSES = 64  # processes (a fresh uid per worker)
WORKER_FILE_BYTES = 16 << 20  # largest file it may write
WORKER_OPEN_FILES = 128
WORKER_SCRATCH_BYTES = 64 << 20  # the tmpfs at /tmp
WORKER_OUTPUT_BYTES = 64 << 10  # stdout + stderr kept (the rest is counted and dropped)

# --- the wire format between grader and worker (grading/worker/protocol.py Limits) -------------
WIRE_MAX_JSON_BYTES = 8 << 20
WIRE_MAX_PAYLOAD_BYTES = 256 << 20  # tensor data of one frame
WIRE_MAX_BLOBS = 4096
WIRE_MAX_DEPTH = 32  # nesting of lists, tuples and dicts

# --- reading a figure in the grader (grading/heatmap.py, grading/worker/plotdata.py) -----------
PLOT_MAX_TICKS = 1000  # ticks read per axis (a heatmap of attention has a few dozen)
PLOT_MAX_SIDE = 1000  # rows or columns read (the worker sends at most PLOT_MAX_CELLS cells)
PLOT_MAX_CELLS = 1 << 16  # cells of one drawing
PNG_DPI = 72  # the figure's PNG, as the worker saves it and the grader reads its pixels
PLOT_MAX_DRAWINGS = 64  # images + meshes on one Axes
PLOT_MAX_LABEL_CHARS = 200  # characters kept of one tick label
PLOT_MAX_PNG_BYTES = 4 << 20  # the student's own figure, stored with the feedback
PLOT_MAX_PNG_PIXELS = 1 << 22  # its picture's width x height (2048 x 2048, a figure of 28 x 28 inches: ~0.1 GB decoded to float64)

# --- a submission as read from disk (grading/submission.py) ------------------------------------
SIMILARITY_MAX_CHARS = 100_000  # of a submission's answer (entry first, then its helpers), fingerprinted for the class's similarity ranking
SUBMISSION_MAX_FILE_BYTES = 2 << 20  # one .py file (a notebook, with its outputs, may take SUBMISSION_MAX_TOTAL_BYTES)
SUBMISSION_MAX_TOTAL_BYTES = 8 << 20  # a folder, every file together
SUBMISSION_MAX_FILES = 200
SUBMISSION_MAX_ZIP_BYTES = 32 << 20  # a zip, unpacked
SUBMISSION_MAX_ZIP_ENTRIES = 10 * SUBMISSION_MAX_FILES  # entries of a zip, whatever they are
NOTEBOOK_MAX_OWN_STATEMENTS = 10_000  # top-level statements of a notebook's own cells (not answer cells) read for what they give the answers
STATIC_PASS_CPU_SECONDS = 30.0  # the grader's reading of the source (integrity/static.py): the reference takes ~0.03 s

# --- feedback files (feedback/formats/) ----------------------------------------------------------
GRADESCOPE_MAX_IMAGE_BYTES = 400_000  # embedded images together (base64): results.json stays well under 1 MB
GRADESCOPE_MAX_OUTPUT_CHARS = 200_000  # the Markdown text, before images
PRAIRIELEARN_MAX_IMAGE_BYTES = 600_000  # embedded images together (base64), well below PrairieLearn's 1 MB cap
HTML_MAX_IMAGE_BYTES = 8 << 20  # one image embedded in feedback.html

# --- a grading container (deployment/docker.py Limits) -------------------------------------------
CONTAINER_MEMORY = "4g"
CONTAINER_CPUS = 2.0
CONTAINER_PIDS = 512
CONTAINER_TMPFS = "1g"  # the /tmp scratch
CONTAINER_SECONDS = 600.0  # one submission, before the container is killed

# --- platforms -----------------------------------------------------------------------------------
PRAIRIELEARN_TIMEOUT_SECONDS = 300  # the question's external-grader timeout (deployment/export.py)
PRAIRIELEARN_GRADE_SECONDS = PRAIRIELEARN_TIMEOUT_SECONDS - 20  # attnkit's own bound inside it (platforms/prairielearn.py)
NBGRADER_CELL_TIMEOUT_SECONDS = 300  # nbgrader's default of 30 s per cell is too short for Part F's training

# --- images --------------------------------------------------------------------------------------
IMAGE = "attnkit-grader:latest"  # the public grader image (runtime only)
DEFAULT_BASE_IMAGE = "python:3.11-slim"
LOCAL_BASE_IMAGE = "attnkit-base:bookworm"  # docker/build-base.sh: needs no registry

# --- file names ----------------------------------------------------------------------------------
RESULT_FILE = "attnkit.json"  # OUT/<name>/: the full result, written last (its presence means "graded")
GRADESCOPE_FILE = "results.json"  # OUT/<name>/: Gradescope's format (Gradescope reads /autograder/results/results.json)
PRAIRIELEARN_RESULTS_FILE = "results.json"  # where PrairieLearn reads its results (/grade/results/)
PRAIRIELEARN_FILE = "prairielearn.json"  # OUT/<name>/: PrairieLearn's format (--prairielearn)
FEEDBACK_HTML = "feedback.html"  # OUT/<name>/: the student's feedback page
FEEDBACK_MD = "feedback.md"  # OUT/<name>/: the same in Markdown
GRADES_CSV = "grades.csv"  # OUT/: one row per submission
SUMMARY_MD = "summary.md"  # OUT/: the class summary
DASHBOARD_HTML = "index.html"  # OUT/: the class dashboard
BATCH_FILES = (GRADES_CSV, SUMMARY_MD, DASHBOARD_HTML)
SIMILARITY_JSON = "similarity.json"  # OUT/: the class's ranking of similar answers
LMS_LAYOUTS = ("canvas", "prairielearn")
LMS_CSV = "grades-{layout}.csv"  # OUT/: the gradebook in the layout an LMS imports (`report --lms`)
# every name the class report writes into OUT: no submission's folder takes one (a student's
# similarity.json.py or grades-canvas.csv.py stopped the report: qa23h)
OUT_FILES = (*BATCH_FILES, SIMILARITY_JSON, *(LMS_CSV.format(layout=layout) for layout in LMS_LAYOUTS))
BATCH_LOCK_FILE = ".attnkit-batch.lock"  # OUT/: one grade-batch at a time (one per shard)
PARTIAL_SUFFIX = ".attnkit-partial"  # a file being written atomically (left only by a killed writer)


def _size(n: int) -> str:
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if n >= 1 << shift and n % (1 << shift) == 0:
            return f"{n >> shift} {unit}"
    return f"{n:,} B"


def _docker_size(size: str) -> str:
    """Docker's "4g" as "4 GiB" (Docker's g and m are binary units)."""
    return f"{size[:-1]} {dict(g='GiB', m='MiB')[size[-1]]}"


def grader_seconds(total: float, import_seconds: float, call_seconds: float) -> float:
    """How long a batch's grader may work on one submission before its process is stopped: a
    submission ends within its total budget plus one import and one call that were under way."""
    return total + import_seconds + call_seconds + GRADER_MARGIN_SECONDS


def _seconds(s: float) -> str:
    return f"{s:g} s"


# The README's limits table: (what, value), from the constants above.
LIMITS: tuple[tuple[str, str], ...] = (
    ("wall clock per call / import / submission", f"{_seconds(CALL_SECONDS)} / {_seconds(IMPORT_SECONDS)} / {_seconds(SUBMISSION_SECONDS)} "
                                                  "(a call whose worker, one thread with no process of its own, waited for a CPU taken by "
                                                  "others gets that time back, within the submission's limit)"),
    ("CPU time (rlimit)", _seconds(WORKER_CPU_SECONDS)),
    ("memory (address space above the forked size)", _size(WORKER_MEMORY_BYTES)),
    ("memory of all a worker's processes together", f"{_size(WORKER_GROUP_MEMORY_BYTES)} (a memory cgroup, where the grader runs as root "
                                                    "and may make one; in Docker, the container's --memory)"),
    ("processes (a fresh uid per worker)", str(WORKER_PROCESSES)),
    ("file size / open files", f"{_size(WORKER_FILE_BYTES)} / {WORKER_OPEN_FILES}"),
    ("scratch (tmpfs) / captured output", f"{_size(WORKER_SCRATCH_BYTES)} / {_size(WORKER_OUTPUT_BYTES)} for all of a submission's workers together (the rest dropped)"),
    ("a figure read by the grader", f"{PLOT_MAX_SIDE} rows or columns, {PLOT_MAX_CELLS:,} cells, {PLOT_MAX_DRAWINGS} drawings, "
                                    f"{PLOT_MAX_TICKS} ticks, {_size(PLOT_MAX_PNG_BYTES)} PNG of {PLOT_MAX_PNG_PIXELS:,} pixels"),
    ("wire format", f"{_size(WIRE_MAX_JSON_BYTES)} JSON, {_size(WIRE_MAX_PAYLOAD_BYTES)} tensor data, {WIRE_MAX_BLOBS} blobs, "
                    f"nesting {WIRE_MAX_DEPTH}"),
    ("submission", f"{_size(SUBMISSION_MAX_FILE_BYTES)} a .py file, {_size(SUBMISSION_MAX_TOTAL_BYTES)} a notebook (its outputs are not graded) or a folder, "
                   f"{SUBMISSION_MAX_FILES} files; "
                   f"zip: {_size(SUBMISSION_MAX_ZIP_BYTES)} unpacked, {SUBMISSION_MAX_ZIP_ENTRIES} entries"),
    ("a notebook's own cells (not answer cells)", f"{NOTEBOOK_MAX_OWN_STATEMENTS:,} top-level statements together: past it none of them "
                                                   "runs, and the feedback says so"),
    ("similarity ranking (copied work)", f"the first {SIMILARITY_MAX_CHARS:,} characters of a submission's code (the answer first, then its helper files)"),
    ("the grader's own work on one submission, in a batch", f"{_seconds(grader_seconds(SUBMISSION_SECONDS, IMPORT_SECONDS, CALL_SECONDS))} "
                                                           "wall clock: past it the grader's process is stopped, the submission is reported "
                                                           "as not graded, and the batch goes on (a re-run grades it again)"),
    ("the grader's reading of your source (for the rules)", f"{_seconds(STATIC_PASS_CPU_SECONDS)} of CPU: a file it cannot read in that time "
                                                           "cannot be checked for the rules, and their points are not given"),
    ("embedded images: Gradescope / PrairieLearn JSON, HTML page", f"{GRADESCOPE_MAX_IMAGE_BYTES:,} B / {PRAIRIELEARN_MAX_IMAGE_BYTES:,} B "
                                                                  f"(all together), {_size(HTML_MAX_IMAGE_BYTES)} (one)"),
    ("grading container (`--docker`)", f"{_docker_size(CONTAINER_MEMORY)} memory, {CONTAINER_CPUS:g} CPUs, {CONTAINER_PIDS} pids, "
                                       f"{_docker_size(CONTAINER_TMPFS)} /tmp, {_seconds(CONTAINER_SECONDS)} a submission"),
    ("PrairieLearn question / nbgrader cell", f"{PRAIRIELEARN_TIMEOUT_SECONDS} s ({PRAIRIELEARN_GRADE_SECONDS} s for attnkit inside) / "
                                              f"{NBGRADER_CELL_TIMEOUT_SECONDS} s"),
)


def limits_table() -> str:
    """LIMITS as the Markdown table the README shows."""
    rows = ["| limit | value |", "| --- | --- |", *(f"| {what} | {value} |" for what, value in LIMITS)]
    return "\n".join(rows) + "\n"
