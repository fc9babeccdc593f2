"""A student's figure costs one drawing (issue 15, item 5).

plotdata draws a figure once, on a canvas a frame larger than the figure, and crops it to its tight
box; the figure evidence must still find every tick label where the description puts it, also
the labels that reach past the figure's edge. A layout engine that runs at draw time keeps the
two draws. Part F draws a map once per submission: graded again with stand-ins, a map as close
to the reference model's as one already drawn reads that figure again.
"""
from __future__ import annotations

import io
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from PIL import Image  # noqa: E402

from autograder.grading.integrity.figure import figure_problem  # noqa: E402
from autograder.grading.worker import plotdata  # noqa: E402
from autograder.grading.worker.client import Student  # noqa: E402
from autograder.settings import PNG_DPI  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
Q, K = ["the", "cat", "sat", "down"], ["a", "big", "red", "dog", "ran"]
W = torch.softmax(torch.randn(4, 5, generator=torch.Generator().manual_seed(3), dtype=torch.float64), -1)  # (Lq, Lk)


def heatmap(layout: str | None = None):
    """The reference's layout: its rotated query labels and axis label reach below the figure."""
    def draw():
        figure = plt.figure(figsize=(3.4, 3.5), layout=layout)
        ax = figure.add_subplot()
        image = ax.imshow(W.T.numpy(), cmap="Blues", vmin=0, vmax=1, aspect="auto")
        ax.set_xticks(range(4), labels=Q, rotation=45, ha="right")
        ax.set_yticks(range(5), labels=K)
        ax.set_xlabel("query position")
        ax.set_ylabel("key position")
        figure.colorbar(image, ax=ax, label="attention weight")
        ax.set_title("probe")
        return ax
    return draw


def _draws(monkeypatch) -> list[int]:
    draws: list[int] = []
    real = Figure.draw

    def counted(self, renderer):
        draws.append(1)
        return real(self, renderer)

    monkeypatch.setattr(Figure, "draw", counted)
    return draws


def _png(description: dict) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(description["png"].numpy().tobytes())).convert("RGB"))


def test_a_figure_is_drawn_once_and_its_labels_past_the_edge_are_in_the_png(monkeypatch):
    draws = _draws(monkeypatch)
    description = plotdata.extract_plot(heatmap())
    assert len(draws) == 1
    assert figure_problem(description) == ""
    png = _png(description)
    assert png.shape[0] > 3.5 * PNG_DPI  # taller than the figure: what reaches below its edge is in the picture
    ink = np.nonzero((png < 200).any(axis=(1, 2)))[0]  # rows with ink
    pad = PNG_DPI * plotdata.TIGHT_PAD
    assert pad - 1 <= ink.min() and png.shape[0] - 1 - ink.max() <= 2 * pad  # cropped around it, nothing cut off


def test_a_figure_with_constrained_layout_is_drawn_twice_and_still_agrees_with_its_png(monkeypatch):
    draws = _draws(monkeypatch)
    description = plotdata.extract_plot(heatmap("constrained"))
    assert len(draws) > 1
    assert figure_problem(description) == ""


def test_part_f_draws_a_map_once_when_graded_again_with_stand_ins(grade, monkeypatch):
    """bug_pre_norm: its map and the reference model's map (the same plot_attention draws both);
    graded again with a trusted block shell, its map is the reference model's: read, not drawn."""
    titles: list[str] = []
    real = Student.plot

    def plot(self, name, *args, picture=True, **kwargs):
        titles.append(str(kwargs.get("title", "")))
        return real(self, name, *args, picture=picture, **kwargs)

    monkeypatch.setattr(Student, "plot", plot)
    result = grade(REPO / "examples" / "submissions" / "bug_pre_norm.py", seed=1)
    assert not result.grader_error, result.grader_error
    assert len([title for title in titles if title.startswith("“")]) == 2  # three before
    part_f = [c for c in result.checks if c.part == "F"]
    assert len(part_f) == 6 and all(c.passed for c in part_f)  # the pre-norm bug is charged in D only
    assert result.score == 89.0  # as before (bench/PROFILE.md, Round 4: results compared field by field)

@pytest.fixture(autouse=True)
def _closed_figures():
    yield
    plt.close("all")


def test_the_kits_own_draws_add_no_warnings_to_the_students_output_and_host_paths_are_cut():
    """QA: a figure with Chinese labels drew 'Glyph ... missing from font(s)' warnings from
    plotdata.py, with the grader's host path, under 'What your code printed'. The student's own
    warnings (raised while their function runs) are still theirs."""
    import warnings

    from autograder.grading.worker.client import HOST_PREFIXES, without_host_paths

    def draw():
        warnings.warn("the student's own warning")
        ax = plt.figure(figsize=(3, 3)).add_subplot()
        ax.imshow(W.T.numpy(), cmap="Blues", vmin=0, vmax=1)
        ax.set_xlabel("查询位置")  # no glyph for it in matplotlib's default font: a warning at draw time
        ax.set_ylabel("键位置")
        return ax

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        description = plotdata.extract_plot(draw)
    assert description["png"].numel() > 0
    assert [str(w.message) for w in caught] == ["the student's own warning"]
    kit_file = str(REPO / "autograder" / "grading" / "worker" / "plotdata.py")
    torch_file = f"{HOST_PREFIXES[0]}torch/nn/functional.py"
    shown = without_host_paths(f"{kit_file}:204: UserWarning: x\n{torch_file}:9: UserWarning: y\n/tmp/s/attention.py:3: z")
    assert shown == "autograder/grading/worker/plotdata.py:204: UserWarning: x\ntorch/nn/functional.py:9: UserWarning: y\n/tmp/s/attention.py:3: z"
