"""autograder/settings.py is the one home of limits, image names and file names."""
from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

from autograder import settings

REPO = Path(__file__).resolve().parents[1]


def _readme_script():
    spec = importlib.util.spec_from_file_location("readme_limits", REPO / "scripts" / "readme_limits.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_readme_limits_table_is_the_one_settings_makes():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert _readme_script().with_table(readme) == readme, "run: python scripts/readme_limits.py"
    assert "| wall clock per call / import / submission | 10 s / 20 s / 180 s (a call whose worker" in readme


def test_the_modules_that_enforce_a_limit_take_it_from_settings():
    from autograder.authoring import nbgrader_course
    from autograder.deployment import docker
    from autograder.deployment.platforms import prairielearn as pl_platform
    from autograder.feedback.formats import gradescope, html, prairielearn
    from autograder.grading import heatmap, submission
    from autograder.grading.worker.client import Budget
    from autograder.grading.worker.protocol import Limits
    from autograder.grading.worker.sandbox import SandboxConfig

    budget, config, wire, container = Budget(), SandboxConfig(), Limits(), docker.Limits()
    assert (budget.call_seconds, budget.import_seconds, budget.total_seconds) == (settings.CALL_SECONDS, settings.IMPORT_SECONDS, settings.SUBMISSION_SECONDS)
    assert (config.memory_bytes, config.cpu_seconds, config.max_processes, config.max_file_bytes, config.max_open_files, config.scratch_bytes, config.output_bytes) == (
        settings.WORKER_MEMORY_BYTES, settings.WORKER_CPU_SECONDS, settings.WORKER_PROCESSES, settings.WORKER_FILE_BYTES,
        settings.WORKER_OPEN_FILES, settings.WORKER_SCRATCH_BYTES, settings.WORKER_OUTPUT_BYTES)
    assert (wire.max_json, wire.max_payload, wire.max_blobs, wire.max_depth) == (
        settings.WIRE_MAX_JSON_BYTES, settings.WIRE_MAX_PAYLOAD_BYTES, settings.WIRE_MAX_BLOBS, settings.WIRE_MAX_DEPTH)
    assert (container.memory, container.cpus, container.pids, container.tmpfs, container.timeout) == (
        settings.CONTAINER_MEMORY, settings.CONTAINER_CPUS, settings.CONTAINER_PIDS, settings.CONTAINER_TMPFS, settings.CONTAINER_SECONDS)
    assert (submission.MAX_FILE_BYTES, submission.MAX_TOTAL_BYTES, submission.MAX_FILES, submission.MAX_ZIP_BYTES) == (
        settings.SUBMISSION_MAX_FILE_BYTES, settings.SUBMISSION_MAX_TOTAL_BYTES, settings.SUBMISSION_MAX_FILES, settings.SUBMISSION_MAX_ZIP_BYTES)
    assert (heatmap.MAX_SIDE, heatmap.MAX_CELLS, heatmap.MAX_DRAWINGS, heatmap.MAX_TICKS) == (
        settings.PLOT_MAX_SIDE, settings.PLOT_MAX_CELLS, settings.PLOT_MAX_DRAWINGS, settings.PLOT_MAX_TICKS)
    for module in (gradescope, prairielearn, html):  # the image budgets have one name each, in settings: no alias
        assert not hasattr(module, "MAX_IMAGE_BYTES") and any(name.endswith("_MAX_IMAGE_BYTES") for name in vars(module)), module.__name__
    assert nbgrader_course.CELL_TIMEOUT_S == settings.NBGRADER_CELL_TIMEOUT_SECONDS
    assert pl_platform.GRADE_TIMEOUT == settings.PRAIRIELEARN_GRADE_SECONDS < settings.PRAIRIELEARN_TIMEOUT_SECONDS
    assert docker.IMAGE == settings.IMAGE


def test_file_and_image_names_are_written_once_in_the_package():
    """No module but settings.py spells a result file or image name as a string literal."""
    names = {settings.RESULT_FILE, settings.PRAIRIELEARN_FILE, settings.FEEDBACK_HTML, settings.FEEDBACK_MD, settings.GRADES_CSV,
             settings.BATCH_LOCK_FILE, settings.PARTIAL_SUFFIX, settings.IMAGE, settings.LOCAL_BASE_IMAGE, settings.DEFAULT_BASE_IMAGE}
    found = []
    for path in sorted((REPO / "autograder").rglob("*.py")):
        if path.name == "settings.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and node.value in names:
                found.append(f"{path.relative_to(REPO)}:{node.lineno}: {node.value!r}")
    assert not found
