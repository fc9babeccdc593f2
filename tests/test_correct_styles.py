"""What the contract allows earns full marks in any style (issue 11, item 3).

Each submission here is correct but written differently from the reference: buffers, extra
parameters and submodules, float64 inside and the input's dtype out, imshow / matshow /
pcolormesh / seaborn, other figure layouts. Each must get 100/100 over every part, Part F included.
"""
from __future__ import annotations

import json
import re
import sys
import subprocess
from pathlib import Path

import pytest

from autograder.feedback.results import SubmissionResult

REPO = Path(__file__).resolve().parents[1]
STYLES = REPO / "tests" / "styles"
REFERENCE = REPO / "solutions" / "attention" / "attention.py"
EXAMPLES = REPO / "examples" / "submissions"


def _matshow_layout() -> str:
    """The reference's Parts A-D with the matshow plot_attention of tests/styles/matshow_layout.py."""
    reference = REFERENCE.read_text(encoding="utf-8")
    parts_a_to_d = reference[: reference.index("def plot_attention(")]
    style = (STYLES / "matshow_layout.py").read_text(encoding="utf-8")
    plot = style[style.index("def plot_attention("):]
    return parts_a_to_d + "\n" + plot


def _failures(result) -> list[str]:
    return [f"{c.part} {c.check_id}: {c.message}" for c in result.checks if not c.passed]


@pytest.mark.parametrize("name", ["buffers_extras", "matshow_layout", "einsum_seaborn"])
def test_correct_style_gets_full_marks(name, grade):
    if name == "buffers_extras":
        submission = STYLES / "buffers_extras.py"
    elif name == "einsum_seaborn":
        submission = EXAMPLES / "einsum_style.py"
    else:
        submission = _matshow_layout()
    result = grade(submission, name=name)
    assert not result.grader_error, result.grader_error
    assert {p.part for p in result.parts} >= set("ABCDEF")
    assert not _failures(result), f"{name} lost points: {_failures(result)}"
    assert result.score == result.max_score == 100


def test_a_float64_default_dtype_keeps_part_f(grade):
    """torch.set_default_dtype(torch.float64) at the top of the file makes float64 parameters:
    Part F loads its float32 weights and feeds float32 input, so it turns the block to float32
    first (B-D turn it to float64). Before, F raised a dtype mismatch and scored 0 of 8."""
    source = REFERENCE.read_text(encoding="utf-8").replace("import torch\n", "import torch\n\ntorch.set_default_dtype(torch.float64)\n", 1)
    assert "set_default_dtype" in source
    result = grade(source, name="default_float64", parts={"D", "F"})
    assert not _failures(result), _failures(result)
    assert {p.part: p.score for p in result.parts} == {"D": 12, "F": 8}


LOGSUMEXP_SOFTMAX = '''
def masked_softmax(scores, mask=None):
    """exp(s - logsumexp(s)), blocked keys filled with the dtype's lowest value."""
    allowed = torch.ones_like(scores, dtype=torch.bool) if mask is None else mask.broadcast_to(scores.shape)
    filled = scores.masked_fill(~allowed, torch.finfo(scores.dtype).min)  # (..., Lq, Lk)
    weights = torch.exp(filled - torch.logsumexp(filled, dim=-1, keepdim=True))  # (..., Lq, Lk)
    return torch.where(allowed, weights, torch.zeros_like(weights))
'''


def test_a_logsumexp_softmax_keeps_the_dtype_points_at_every_seed(grade):
    """A stable softmax through logsumexp rounds the log-sum to bfloat16 (8 bits of mantissa): on
    scores of scale 20 its weights were 4-6 % off and it lost A.2's dtype point on 3 seeds of 8."""
    reference = REFERENCE.read_text(encoding="utf-8")
    start = reference.index("def masked_softmax(")
    end = reference.index("\ndef ", start + 1)
    source = reference[:start] + LOGSUMEXP_SOFTMAX.lstrip("\n") + reference[end:]
    for seed in range(300, 312):
        result = grade(source, name=f"logsumexp_{seed}", seed=seed, parts={"A"})
        assert not _failures(result), (seed, _failures(result))


def test_matshow_style_really_differs_from_the_reference():
    source = _matshow_layout()
    assert "matshow(" in source and "add_gridspec" in source and "imshow(" not in source
    assert len(re.findall(r"^def plot_attention\(", source, re.MULTILINE)) == 1


def test_the_title_rule_the_checks_grade_is_in_the_contract():
    """E.1 grades the title on the heatmap's Axes: the docstring and the student README say so."""
    docstring = REFERENCE.read_text(encoding="utf-8").split("def plot_attention(")[1].split('"""')[1]
    readme = (REPO / "solutions" / "attention" / "README.md").read_text(encoding="utf-8")
    assert "ax.set_title(title)" in docstring and "suptitle" in docstring
    assert "ax.set_title" in readme


def test_a_whole_release_folder_with_a_finished_attention_py_gets_full_marks(grade, tmp_path):
    folder = tmp_path / "handed_in_folder"
    folder.mkdir()
    release = REPO / "assignments" / "attention"
    for name in ("attention.ipynb", "public_checks.py", "pronoun_task.py"):
        (folder / name).write_bytes((release / name).read_bytes())
    (folder / "attention.py").write_bytes((STYLES / "buffers_extras.py").read_bytes())
    result = grade(folder, name="handed_in_folder")
    assert not _failures(result), _failures(result)
    assert result.score == result.max_score == 100


@pytest.mark.parametrize("returned", ["ax.figure", "None", "plt.gcf()"])
def test_returning_something_other_than_the_axes_costs_only_the_return_check(grade, returned):
    """The contract asks for the Axes back: a Figure (or nothing) returned is charged once, by the
    check of the return value; the drawing is graded on the Axes it was drawn on (the given ax=,
    or the one Axes of the figure holding the heatmap). QA's b41_e1_returns_figure lost all of E."""
    reference = REFERENCE.read_text(encoding="utf-8")
    body = reference[reference.index("def plot_attention("):]
    end = reference.index("def plot_attention(") + body.index("    return ax\n")
    source = reference[:end] + f"    return {returned}\n" + reference[end + len("    return ax\n"):]
    result = grade(source, name="returns_" + returned.split(".")[-1].strip("()"), parts={"E"})
    assert [c.check_id for c in result.checks if not c.passed] == ["plot_attention_returns_axes"], _failures(result)
    assert next(p for p in result.parts if p.part == "E").score == 9.5


def test_a_thousand_threads_cost_nothing(grade):
    """torch.set_num_threads(1000) (or OMP_NUM_THREADS set in the file) runs on a student's
    machine; in the worker, libgomp could not start that many threads under the sandbox's limits
    (processes, address space), printed "libgomp: Thread creation failed" and exited with code 1 in
    the first call that ran in parallel: a correct file lost 62 of 100 points to "the worker
    exited with code 1". The contract says nothing about threads: the worker's OpenMP is held to
    one thread (OMP_THREAD_LIMIT, read when the template loads it), whatever the file asks."""
    reference = REFERENCE.read_text(encoding="utf-8")
    source = reference.replace(
        "import torch\n", 'import os\n\nimport torch\n\nos.environ["OMP_NUM_THREADS"] = "1000"\ntorch.set_num_threads(1000)\n', 1,
    ).replace("    def forward(self, query, key=None, value=None, mask=None):\n",
              "    def forward(self, query, key=None, value=None, mask=None):\n        torch.set_num_threads(10**6)\n", 1)
    assert source.count("set_num_threads") == 2
    result = grade(source, name="threads", seed=1)
    assert not result.grader_error and not _failures(result), _failures(result)
    assert result.score == result.max_score == 100


def test_stdout_reconfigured_for_chinese_output_is_no_crash(tmp_path):
    """`sys.stdout.reconfigure(encoding="utf-8")` at the top of the file (what Windows users write
    to print Chinese) stopped the import with "OSError: [Errno 29] Illegal seek" wherever the
    grader's own output went to a file (`grade-batch > log`): the worker's sys.stdout still took
    fd 1 for that file, now the keeper's pipe. 0 of 100 (qa5f). Graded here by the CLI with its
    output in a file, as an instructor's logged batch runs."""
    reference = REFERENCE.read_text(encoding="utf-8")
    source = reference.replace("import torch\n", 'import sys\n\nimport torch\n\nsys.stdout.reconfigure(encoding="utf-8")\nsys.stderr.reconfigure(encoding="utf-8")\nprint("注意力")\n', 1)
    submission = tmp_path / "utf8_stdout.py"
    submission.write_text(source, encoding="utf-8")
    with open(tmp_path / "log.txt", "w", encoding="utf-8") as log:
        done = subprocess.run([sys.executable, "-m", "autograder.cli", "grade", str(submission), "--out", str(tmp_path / "out"), "--parts", "A", "--seed", "1"],
                              stdout=log, stderr=subprocess.STDOUT, cwd=REPO, timeout=600)
    assert done.returncode == 0, (tmp_path / "log.txt").read_text(encoding="utf-8")
    result = SubmissionResult.from_dict(json.loads((tmp_path / "out" / "utf8_stdout" / "attnkit.json").read_text(encoding="utf-8")))
    assert {p.part: p.score for p in result.parts} == {"A": 32}, _failures(result)
    assert "注意力" in result.output
