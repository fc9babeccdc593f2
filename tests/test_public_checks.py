"""The public checks of the student release (public_checks.py, test_public.py, conftest.py).

A release is generated into a temporary folder with build_release. Students run `pytest` there,
so the end-to-end tests do too, in subprocesses with a clean environment: the reference solution
passes every task, the blank release fails every task with a one-line "not implemented yet", and
single-bug variants of the reference fail the right task with a specific message. The bug
variants share one subprocess (torch is imported once): it runs pytest.main on each variant
folder in turn. The heatmap readers and check_all are tested in this process.
"""

from __future__ import annotations

import ast
import importlib.util
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import pytest

from autograder.paths import SOLUTION_DIR
from autograder.authoring.release import build_release
from autograder.authoring.stubs import solution_lines

TASKS = {  # test name in test_public.py -> the one-line failure of a stub
    "test_a1_attention_scores": "Task A.1 (attention_scores) is not implemented yet",
    "test_a2_masked_softmax": "Task A.2 (masked_softmax) is not implemented yet",
    "test_a3_scaled_dot_product_attention": "Task A.3 (scaled_dot_product_attention) is not implemented yet",
    "test_a4_causal_mask": "Task A.4 (causal_mask) is not implemented yet",
    "test_b1_self_attention": "Task B.1 (SelfAttention) is not implemented yet",
    "test_c1_split_heads": "Task C.1 (split_heads) is not implemented yet",
    "test_c2_merge_heads": "Task C.2 (merge_heads) is not implemented yet",
    "test_c3_multi_head_attention": "Task C.3 (MultiHeadAttention) is not implemented yet",
    "test_d1_attention_block": "Task D.1 (AttentionBlock) is not implemented yet",
    "test_e1_plot_attention": "Task E.1 (plot_attention) is not implemented yet",
}
PUBLIC_FILES = ("public_checks.py", "test_public.py", "conftest.py", "pytest.ini", "README.md")
ALLOWED_IMPORTS = {"torch", "numpy", "matplotlib", "pytest", "attention", "public_checks"}


@dataclass(frozen=True)
class Variant:
    """The reference solution with one bug: `edits` are (reference line, buggy line) pairs."""

    name: str
    edits: tuple[tuple[str, str], ...]
    fails: str  # the test of test_public.py that must fail
    message: str  # a regex its message must match
    passes: tuple[str, ...]  # tests that do not depend on the bug and must still pass
    also_fails: tuple[tuple[str, str], ...] = ()  # dependent tests and their message regex


SAFE = ("test_a4_causal_mask", "test_c1_split_heads", "test_c2_merge_heads", "test_e1_plot_attention")
VARIANTS = (
    Variant(
        "no_sqrt_d",
        (("return q @ k.transpose(-2, -1) / math.sqrt(d)", "return q @ k.transpose(-2, -1)"),),
        "test_a1_attention_scores",
        r"^Task A\.1 \(attention_scores\): you did not scale the scores",
        # the later tasks are right: checked again with the checks' own attention_scores, they pass
        ("test_a2_masked_softmax", "test_a3_scaled_dot_product_attention", "test_b1_self_attention",
         "test_c3_multi_head_attention", "test_d1_attention_block", *SAFE),
    ),
    Variant(
        "softmax_sums_over_dim_0",
        (("total = exp.sum(dim=-1, keepdim=True)", "total = exp.sum(dim=0, keepdim=True)"),),
        "test_a2_masked_softmax",
        r"^Task A\.2 \(masked_softmax\): your weights sum to 1 over dim=0",
        ("test_a1_attention_scores", *SAFE),
    ),
    Variant(
        "mask_true_means_blocked",
        (
            (
                'scores.masked_fill(mask.logical_not(), float("-inf"))',
                'scores.masked_fill(mask, float("-inf"))',
            ),
        ),
        "test_a2_masked_softmax",
        r"^Task A\.2 \(masked_softmax\): you blocked the keys where the mask is True",
        ("test_a1_attention_scores", *SAFE),
    ),
    Variant(
        "mask_filled_with_minus_1e9",  # qa19p: the message said "blocked keys must get weight exactly 0", true only in the fully blocked row
        (
            (
                'scores.masked_fill(mask.logical_not(), float("-inf"))',
                "scores.masked_fill(mask.logical_not(), -1e9)",
            ),
        ),
        "test_a2_masked_softmax",
        r"^Task A\.2 \(masked_softmax\): query row 2 has every key blocked and your result gives those keys weight.*fill with -inf",
        ("test_a1_attention_scores", *SAFE),
    ),
    Variant(
        "library_softmax",
        (
            (
                "row_max = scores.amax(dim=-1, keepdim=True)",
                "return torch.softmax(scores, dim=-1).nan_to_num(0.0)",
            ),
        ),
        "test_a2_masked_softmax",
        r"^Task A\.2 \(masked_softmax\): your code calls torch\.softmax; .*write softmax by hand",
        ("test_a1_attention_scores", "test_a3_scaled_dot_product_attention", "test_b1_self_attention", *SAFE),
    ),
    Variant(
        "causal_mask_inverted",
        (("device=device).tril()", "device=device).triu(1)"),),
        "test_a4_causal_mask",
        r"^Task A\.4 \(causal_mask\): causal_mask\(5\) is inverted",
        (
            "test_a1_attention_scores",
            "test_a2_masked_softmax",
            "test_c1_split_heads",
            "test_e1_plot_attention",
        ),
    ),
    Variant(
        "split_heads_without_transpose",
        (
            (
                "return x.reshape(B, S, num_heads, E // num_heads).transpose(1, 2)",
                "return x.reshape(B, num_heads, S, E // num_heads)",
            ),
        ),
        "test_c1_split_heads",
        r"^Task C\.1 \(split_heads\): you reshaped straight to \(B, H, S, Dh\)",
        (
            "test_a1_attention_scores",
            "test_a2_masked_softmax",
            "test_c2_merge_heads",
            "test_e1_plot_attention",
        ),
    ),
    Variant(
        "split_heads_by_size_not_count",  # qa20s b07: "an axis is transposed or swapped" pointed at the interleaved bug
        (
            (
                "return x.reshape(B, S, num_heads, E // num_heads).transpose(1, 2)",
                "return torch.stack(torch.split(x, num_heads, dim=-1), dim=1)",
            ),
        ),
        "test_c1_split_heads",
        r"^Task C\.1 \(split_heads\): you returned \(2, 7, 5, 3\) = \(B, Dh, S, H\): Dh heads of num_heads features each",
        ("test_a1_attention_scores", "test_c2_merge_heads", "test_e1_plot_attention"),
    ),
    Variant(
        "heads_scaled_by_embed_dim",
        (
            (
                "weights = masked_softmax(attention_scores(q, k), mask)",
                "weights = masked_softmax(q @ k.transpose(-2, -1) / math.sqrt(self.embed_dim), mask)",
            ),
        ),
        "test_c3_multi_head_attention",
        r"^Task C\.3 \(MultiHeadAttention\): your scores are scaled by 1/√embed_dim",
        # D.1 passes: the block is right, checked again with the checks' own MultiHeadAttention
        ("test_c1_split_heads", "test_c2_merge_heads", "test_b1_self_attention", "test_d1_attention_block"),
    ),
    Variant(
        "block_pre_norm",
        (
            (
                "attended, weights = self.attn(x, mask=mask)",
                "attended, weights = self.attn(self.norm(x), mask=mask)",
            ),
            (
                "return self.norm(x + self.dropout(attended)), weights",
                "return x + self.dropout(attended), weights",
            ),
        ),
        "test_d1_attention_block",
        r"^Task D\.1 \(AttentionBlock\): you normalise before attention \(pre-norm\)",
        ("test_c3_multi_head_attention", *SAFE),
    ),
    Variant(
        "block_dropout_hard_coded",
        (("self.norm = nn.LayerNorm(embed_dim)\n        self.dropout = nn.Dropout(dropout)",
          "self.norm = nn.LayerNorm(embed_dim)\n        self.dropout = nn.Dropout(0.1)"),),
        "test_d1_attention_block",
        r"^Task D\.1 \(AttentionBlock\): AttentionBlock\(\d+, \d+, dropout=0\.5\) built self\.dropout with p=0\.1",
        ("test_c3_multi_head_attention", *SAFE),
    ),
    Variant(
        "block_dropout_shared",
        (("self.norm = nn.LayerNorm(embed_dim)\n        self.dropout = nn.Dropout(dropout)",
          "self.norm = nn.LayerNorm(embed_dim)\n        self.dropout = self.attn.dropout"),),
        "test_d1_attention_block",
        r"^Task D\.1 \(AttentionBlock\): self\.dropout is self\.attn\.dropout",
        ("test_c3_multi_head_attention", *SAFE),
    ),
    Variant(
        "block_residual_detached",
        (("return self.norm(x + self.dropout(attended)), weights", "return self.norm(x.detach() + self.dropout(attended)), weights"),),
        "test_d1_attention_block",
        r"^Task D\.1 \(AttentionBlock\): the values of y are right but its gradient is not",
        ("test_c3_multi_head_attention", *SAFE),
    ),
    Variant(
        "heatmap_not_transposed",
        (("image = ax.imshow(matrix.T.numpy(),", "image = ax.imshow(matrix.numpy(),"),),
        "test_e1_plot_attention",
        r"^Task E\.1 \(plot_attention\): the drawn matrix is 4x5 .*横轴是 Query 位置",
        tuple(test for test in TASKS if test != "test_e1_plot_attention"),
    ),
)

# Runs pytest.main on each variant folder in turn, in one process; the student modules are
# dropped between runs so each run imports the attention.py of its own folder.
DRIVER = """
import contextlib, io, os, sys
import pytest
for folder in sys.argv[1:]:
    for name in ("conftest", "attention", "public_checks", "test_public"):
        sys.modules.pop(name, None)
    os.chdir(folder)
    output = io.StringIO()
    with contextlib.redirect_stdout(output):
        code = pytest.main(["-vv", "-p", "no:cacheprovider"])
    with open(folder + ".out", "w", encoding="utf-8") as handle:
        handle.write(f"{int(code)}\\n{output.getvalue()}")
"""


@dataclass(frozen=True)
class Run:
    """What one pytest run in a release folder printed (with -vv)."""

    code: int
    output: str

    def outcomes(self) -> dict[str, str]:
        return dict(re.findall(r"^test_public\.py::(\w+) (PASSED|FAILED|ERROR)", self.output, re.M))

    def message(self, test: str) -> str:
        found = re.search(rf"^FAILED test_public\.py::{test} - (.*)$", self.output, re.M)
        return found.group(1) if found else ""


def _clean_env() -> dict[str, str]:
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": os.environ.get("HOME", "/tmp"),
        "LANG": "C.UTF-8",
        "PYTHONDONTWRITEBYTECODE": "1",
    }


def _pytest_in(folder: Path) -> Run:
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-vv", "-p", "no:cacheprovider"],
        cwd=folder,
        env=_clean_env(),
        capture_output=True,
        text=True,
        timeout=300,
    )
    return Run(done.returncode, done.stdout + done.stderr)


def _buggy_source(variant: Variant) -> str:
    source = (SOLUTION_DIR / "attention.py").read_text(encoding="utf-8")
    for old, new in variant.edits:
        assert (
            source.count(old) == 1
        ), f"variant {variant.name}: the reference no longer has {old!r} once; update it"
        source = source.replace(old, new)
    return source


def _load(name: str, path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def release(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("release") / "attention"
    build_release(SOLUTION_DIR, folder)
    return folder


@pytest.fixture(scope="module")
def with_reference(release: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The release with the reference attention.py copied over the stubs."""
    folder = tmp_path_factory.mktemp("reference") / "attention"
    shutil.copytree(release, folder)
    shutil.copyfile(SOLUTION_DIR / "attention.py", folder / "attention.py")
    return folder


@pytest.fixture(scope="module")
def variant_runs(release: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Run]:
    root = tmp_path_factory.mktemp("variants")
    folders = []
    for variant in VARIANTS:
        folder = root / variant.name
        shutil.copytree(release, folder)
        (folder / "attention.py").write_text(_buggy_source(variant), encoding="utf-8")
        folders.append(str(folder))
    done = subprocess.run(
        [sys.executable, "-c", DRIVER, *folders],
        cwd=root,
        env=_clean_env(),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    runs = {}
    for variant in VARIANTS:
        code, output = (root / f"{variant.name}.out").read_text(encoding="utf-8").split("\n", 1)
        runs[variant.name] = Run(int(code), output)
    return runs


def test_reference_solution_passes_every_public_check(with_reference: Path) -> None:
    run = _pytest_in(with_reference)
    assert run.code == 0, run.output
    assert run.outcomes() == dict.fromkeys(TASKS, "PASSED"), run.output
    assert GRADER_LACKS not in run.output


GRADER_LACKS = "which the grader does not promise to have"


def test_an_import_the_grader_may_lack_is_named_and_an_optional_or_demo_one_is_not(
    with_reference: Path, tmp_path: Path
) -> None:
    """einops installed here (a package of its own on PYTHONPATH) but not promised in the grader:
    pytest names it after the checks; `try: import tqdm` and a demo's `import pandas` it does not."""
    folder = tmp_path / "attention"
    shutil.copytree(with_reference, folder)
    source = (folder / "attention.py").read_text(encoding="utf-8")
    source = source.replace("import torch\n", "import torch\nimport einops.layers\ntry:\n    import tqdm\nexcept ImportError:\n    tqdm = None\n", 1)
    (folder / "attention.py").write_text(source + '\nif __name__ == "__main__":\n    import pandas\n', encoding="utf-8")
    packages = tmp_path / "site" / "einops" / "layers"
    packages.mkdir(parents=True)
    (packages.parent / "__init__.py").write_text("", encoding="utf-8")
    (packages / "__init__.py").write_text("", encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-m", "task_a4"],
        cwd=folder,
        env={**_clean_env(), "PYTHONPATH": str(tmp_path / "site")},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    named = [line for line in done.stdout.splitlines() if GRADER_LACKS in line]
    assert len(named) == 1 and named[0].startswith("attention.py imports einops, which"), done.stdout
    assert "tqdm" not in named[0] and "pandas" not in named[0]


def test_blank_release_fails_every_task_as_not_implemented_without_traceback(release: Path) -> None:
    run = _pytest_in(release)
    assert run.code == 1, run.output
    assert run.outcomes() == dict.fromkeys(TASKS, "FAILED"), run.output
    assert {test: run.message(test) for test in TASKS} == TASKS, run.output
    for noise in ("Traceback", "public_checks.py:", "NotImplementedError", "raise ", "Error"):
        assert noise not in run.output, f"{noise!r} in the output of the blank release:\n{run.output}"
    assert "pytest -m task_a2" in run.output  # the header says how to run one task


@pytest.mark.parametrize("variant", VARIANTS, ids=[variant.name for variant in VARIANTS])
def test_single_bug_fails_its_task_with_a_specific_message(
    variant: Variant, variant_runs: dict[str, Run]
) -> None:
    run = variant_runs[variant.name]
    outcomes = run.outcomes()
    assert len(outcomes) == len(TASKS), run.output
    assert outcomes[variant.fails] == "FAILED", run.output
    assert re.search(variant.message, run.message(variant.fails)), run.message(variant.fails)
    for test, message in variant.also_fails:
        assert re.search(message, run.message(test)), run.output
    assert {test: outcomes[test] for test in variant.passes} == dict.fromkeys(
        variant.passes, "PASSED"
    ), run.output
    assert "Traceback" not in run.output and "public_checks.py:" not in run.output, run.output


# ---------------------------------------------------------------------------------------------
# In this process: the notebook's entry points and the heatmap readers
# ---------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def checks(release: Path) -> ModuleType:
    return _load("attnkit_test_public_checks", release / "public_checks.py")


def test_check_all_passes_the_reference_and_prints_each_task(checks: ModuleType, capsys) -> None:
    reference = _load("attnkit_test_reference_attention", SOLUTION_DIR / "attention.py")
    assert checks.check_all(reference) is True
    printed = capsys.readouterr().out
    assert "Task A.1 (attention_scores) passed" in printed and "Task E.1 (plot_attention) passed" in printed
    assert printed.rstrip().endswith("10/10 public checks passed")


def test_check_all_reports_each_stub_in_one_line(checks: ModuleType, release: Path, capsys) -> None:
    blank = _load("attnkit_test_blank_attention", release / "attention.py")
    assert checks.check_all(blank) is False
    printed = capsys.readouterr().out.splitlines()
    assert printed == [f"FAILED {message}" for message in TASKS.values()] + ["0/10 public checks passed"]


def test_a_check_names_the_task_a_dependency_is_missing_for(checks: ModuleType) -> None:
    def uses_a_stub(q, k, v, mask=None):
        raise NotImplementedError("Task A.1: attention_scores is not implemented yet")

    with pytest.raises(
        checks.NotImplementedYet, match=r"^Task A\.3 \(scaled_dot_product_attention\) needs Task A\.1 first"
    ):
        checks.check_scaled_dot_product_attention(uses_a_stub)


def _seaborn(weights, query_tokens, key_tokens, ax):
    import seaborn

    seaborn.heatmap(
        weights.detach().T.numpy(), xticklabels=query_tokens, yticklabels=key_tokens, vmin=0, vmax=1, cmap="rocket_r", ax=ax
    )


def _pcolormesh(weights, query_tokens, key_tokens, ax):
    mesh = ax.pcolormesh(weights.detach().T.numpy(), vmin=0, vmax=1, cmap="Greys")  # cell (row j, col i) centred at (i + .5, j + .5)
    ax.set_xticks([i + 0.5 for i in range(len(query_tokens))], labels=query_tokens)
    ax.set_yticks([j + 0.5 for j in range(len(key_tokens))], labels=key_tokens)
    ax.figure.colorbar(mesh, ax=ax)


def _matshow(weights, query_tokens, key_tokens, ax):
    image = ax.matshow(weights.detach().T.numpy(), vmin=0, vmax=1, cmap="viridis_r")
    ax.set_xticks(range(len(query_tokens)), labels=query_tokens)
    ax.set_yticks(range(len(key_tokens)), labels=key_tokens)
    ax.figure.colorbar(image, ax=ax)


def _imshow_origin_lower(weights, query_tokens, key_tokens, ax):
    image = ax.imshow(
        weights.detach().T.numpy(), vmin=0, vmax=1, cmap="Blues", origin="lower", extent=(0, len(query_tokens), 0, len(key_tokens))
    )
    ax.set_xticks([i + 0.5 for i in range(len(query_tokens))], labels=query_tokens)
    ax.set_yticks([j + 0.5 for j in range(len(key_tokens))], labels=key_tokens)
    ax.figure.colorbar(image, ax=ax)


def _pcolor(weights, query_tokens, key_tokens, ax):
    """ax.pcolor (a PolyQuadMesh, not a QuadMesh): qa6e, the public check found no heatmap."""
    mesh = ax.pcolor(weights.detach().T.numpy(), vmin=0, vmax=1, cmap="Purples")
    ax.set_xticks([i + 0.5 for i in range(len(query_tokens))], labels=query_tokens)
    ax.set_yticks([j + 0.5 for j in range(len(key_tokens))], labels=key_tokens)
    ax.invert_yaxis()
    ax.figure.colorbar(mesh, ax=ax)


def _token_and_position_labels(weights, query_tokens, key_tokens, ax):
    """Tick labels that add the token's position, as the contract allows ('le (0)', 'k1: cat'):
    qa6e, the public check failed them as 'expected the tokens'."""
    image = ax.imshow(weights.detach().T.numpy(), vmin=0, vmax=1, cmap="Blues")
    ax.set_xticks(range(len(query_tokens)), labels=[f"{token} ({i})" for i, token in enumerate(query_tokens)])
    ax.set_yticks(range(len(key_tokens)), labels=[f"k{j}: {token}" for j, token in enumerate(key_tokens)])
    ax.figure.colorbar(image, ax=ax)


def _math_text_labels(weights, query_tokens, key_tokens, ax):
    """Tick labels in math text, the position as a subscript ('$\\mathrm{le}_{0}$', drawn as le₀):
    qa9e c19, the public check failed them as 'expected the tokens' while the grader paid them."""
    image = ax.imshow(weights.detach().T.numpy(), vmin=0, vmax=1, cmap="Blues")
    ax.set_xticks(range(len(query_tokens)), labels=[rf"$\mathrm{{{t}}}_{{{i}}}$" for i, t in enumerate(query_tokens)])
    ax.set_yticks(range(len(key_tokens)), labels=[rf"$\mathrm{{{t}}}_{{{j}}}$" for j, t in enumerate(key_tokens)])
    ax.figure.colorbar(image, ax=ax)


def _colorbar_of_a_scalar_mappable(weights, query_tokens, key_tokens, ax):
    """The colorbar made from a ScalarMappable with the image's colour map and range (qa9e c01):
    the public check said 'the heatmap has no colorbar' while the grader paid it."""
    import matplotlib.cm as cm
    import matplotlib.colors as mcolors

    ax.imshow(weights.detach().T.numpy(), cmap="Blues", norm=mcolors.Normalize(0, 1))
    ax.figure.colorbar(cm.ScalarMappable(norm=mcolors.Normalize(0, 1), cmap="Blues"), ax=ax)
    ax.set_xticks(range(len(query_tokens)), labels=query_tokens)
    ax.set_yticks(range(len(key_tokens)), labels=key_tokens)


@pytest.mark.parametrize(
    "draw",
    [_seaborn, _pcolormesh, _matshow, _imshow_origin_lower, _pcolor, _token_and_position_labels, _math_text_labels,
     _colorbar_of_a_scalar_mappable],
    ids=["seaborn", "pcolormesh", "matshow", "imshow-origin-lower", "pcolor", "token-and-position-labels", "math-text-labels",
         "colorbar-of-a-scalar-mappable"],
)
def test_heatmap_check_accepts_other_correct_drawings(checks: ModuleType, draw) -> None:
    import matplotlib.pyplot as plt

    def plot_attention(weights, query_tokens, key_tokens, ax=None, title=None):
        ax = plt.subplots()[1] if ax is None else ax
        draw(weights, query_tokens, key_tokens, ax)
        ax.set_xlabel("query")
        ax.set_ylabel("key")
        ax.set_title(title or "")
        return ax

    checks.check_plot_attention(plot_attention)


def test_heatmap_check_rejects_keys_labelled_in_reverse(checks: ModuleType) -> None:
    import matplotlib.pyplot as plt

    def plot_attention(weights, query_tokens, key_tokens, ax=None, title=None):
        ax = plt.subplots()[1] if ax is None else ax
        image = ax.imshow(weights.detach().T.numpy(), vmin=0, vmax=1, cmap="Blues")
        ax.set_xticks(range(len(query_tokens)), labels=query_tokens)
        ax.set_yticks(range(len(key_tokens)), labels=key_tokens[::-1])
        ax.figure.colorbar(image, ax=ax)
        ax.set_xlabel("query")
        ax.set_ylabel("key")
        return ax

    with pytest.raises(
        checks.CheckFailure, match=r"^Task E\.1 \(plot_attention\): the cell at \(query 'le', key 'here'\)"
    ):
        checks.check_plot_attention(plot_attention)


def _plot_with(draw_on):
    """A correct plot_attention, except that draw_on(ax) says where the image goes."""
    import matplotlib.pyplot as plt

    def plot_attention(weights, query_tokens, key_tokens, ax=None, title=None, cmap="Blues"):
        ax = plt.subplots()[1] if ax is None else ax
        image = draw_on(ax).imshow(weights.detach().T.numpy(), vmin=0, vmax=1, cmap=cmap)
        ax.set_xticks(range(len(query_tokens)), labels=query_tokens)
        ax.set_yticks(range(len(key_tokens)), labels=key_tokens)
        ax.figure.colorbar(image, ax=ax)
        ax.set_xlabel("query")
        ax.set_ylabel("key")
        ax.set_title(title or "")
        return ax

    return plot_attention


def test_heatmap_check_rejects_drawing_with_plt_on_the_current_axes(checks: ModuleType) -> None:
    """plt.imshow draws on the current Axes; the check passes an `ax` that is not the current one."""
    import matplotlib.pyplot as plt

    with pytest.raises(checks.CheckFailure, match=r"drawn on the current Axes instead of on `ax`"):
        checks.check_plot_attention(_plot_with(lambda ax: plt))


def test_heatmap_check_rejects_a_colorbar_of_other_colours(checks: ModuleType) -> None:
    """A colorbar in Reds beside a map in Blues does not read the map (qa9e b03, as the grader)."""
    import matplotlib.cm as cm
    import matplotlib.colors as mcolors

    def plot_attention(weights, query_tokens, key_tokens, ax=None, title=None):
        import matplotlib.pyplot as plt

        ax = plt.subplots()[1] if ax is None else ax
        ax.imshow(weights.detach().T.numpy(), vmin=0, vmax=1, cmap="Blues")
        ax.figure.colorbar(cm.ScalarMappable(norm=mcolors.Normalize(0, 1), cmap="Reds"), ax=ax)
        ax.set_xticks(range(len(query_tokens)), labels=query_tokens)
        ax.set_yticks(range(len(key_tokens)), labels=key_tokens)
        ax.set_xlabel("query")
        ax.set_ylabel("key")
        return ax

    with pytest.raises(checks.CheckFailure, match=r"the heatmap has no colorbar"):
        checks.check_plot_attention(plot_attention)


def test_heatmap_check_rejects_a_dark_to_light_colour_map(checks: ModuleType) -> None:
    import functools

    for cmap in ("viridis", "gray", "magma"):
        plot = functools.partial(_plot_with(lambda ax: ax), cmap=cmap)
        with pytest.raises(checks.CheckFailure, match=rf"the colour map '{cmap}' does not go from light"):
            checks.check_plot_attention(plot)
    checks.check_plot_attention(functools.partial(_plot_with(lambda ax: ax), cmap="magma_r"))


def test_public_files_hold_no_solution_line_and_import_only_the_allowed_packages(release: Path) -> None:
    secret = solution_lines((SOLUTION_DIR / "attention.py").read_text(encoding="utf-8"))
    for name in PUBLIC_FILES:
        text = (release / name).read_text(encoding="utf-8")
        leaked = secret.intersection(line.strip() for line in text.splitlines())
        assert not leaked, f"{name} contains lines of the reference solution: {sorted(leaked)}"
        if name.endswith(".py"):
            for node in ast.walk(ast.parse(text)):
                names = (
                    [alias.name for alias in node.names]
                    if isinstance(node, ast.Import)
                    else ([node.module] if isinstance(node, ast.ImportFrom) and node.level == 0 else [])
                )
                for module in names:
                    top = module.split(".")[0]
                    assert (
                        top in ALLOWED_IMPORTS or top in sys.stdlib_module_names
                    ), f"{name} imports {module}"


def test_causal_mask_check_requires_the_mask_on_the_given_device(checks: ModuleType) -> None:
    """The meta device holds no values: a mask made with the device it is given lands there."""
    import torch

    def ignores_device(size_q, size_k=None, device=None):
        return torch.ones(size_q, size_q if size_k is None else size_k, dtype=torch.bool).tril()

    with pytest.raises(checks.CheckFailure, match=r"device='meta'\) gave a mask on cpu"):
        checks.check_causal_mask(ignores_device)
    checks.check_causal_mask(lambda size_q, size_k=None, device=None: ignores_device(size_q, size_k).to(device))


def test_heatmap_check_gives_weights_that_require_grad(checks: ModuleType) -> None:
    """The contract: a model's weights still require grad, .detach() them before .numpy()."""
    import matplotlib.pyplot as plt

    def plot_attention(weights, query_tokens, key_tokens, ax=None, title=None):
        ax = plt.subplots()[1] if ax is None else ax
        image = ax.imshow(weights.T.numpy(), vmin=0, vmax=1, cmap="Blues")
        ax.set_xticks(range(len(query_tokens)), labels=query_tokens)
        ax.set_yticks(range(len(key_tokens)), labels=key_tokens)
        ax.figure.colorbar(image, ax=ax)
        ax.set_xlabel("query")
        ax.set_ylabel("key")
        ax.set_title(title or "")
        return ax

    with pytest.raises(checks.CheckFailure, match=r"given weights that require grad .* raised RuntimeError: .*Hint: \.detach\(\) the weights"):
        checks.check_plot_attention(plot_attention)


def test_jupyter_shows_a_failed_check_as_its_message_alone(checks: ModuleType) -> None:
    """qa21p: a failed check cell showed a traceback through public_checks.py (the checker's own
    source lines) above the message; IPython renders an exception by its _render_traceback_."""
    failure = checks.CheckFailure("Task A.1 (attention_scores): you divided by d instead of √d.")
    assert failure._render_traceback_() == ["CheckFailure: Task A.1 (attention_scores): you divided by d instead of √d."]
