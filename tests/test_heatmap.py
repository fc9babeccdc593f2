"""Heatmap grading: reading plot descriptions, the calibrated image similarity, Parts E and F.

The reading tests draw in this process with trusted code (plotdata.extract_plot is the very code
the worker runs); the grading tests grade planted submissions through the real worker.
"""
from __future__ import annotations

import copy
import math

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402

from autograder.grading.heatmap import (  # noqa: E402
    NEW_AXES, SIMILARITY_THRESHOLD, UnreadablePlot, read_heatmap, render, returned_axes, shows_matrix, similarity, whole_image_similarity,
)
from autograder.grading.worker.plotdata import extract_plot, plot_call  # noqa: E402

Q = ["the", "cat", "sat", "down"]  # Lq = 4
K = ["a", "big", "red", "dog", "ran"]  # Lk = 5
W = torch.softmax(torch.randn(4, 5, generator=torch.Generator().manual_seed(3), dtype=torch.float64), -1)  # (Lq, Lk)


def _imshow(origin: str = "upper", extent=None, key_labels=K, y_positions=None, x_positions=None):
    def draw():
        _, ax = plt.subplots()
        image = ax.imshow(W.T.numpy(), origin=origin, extent=extent, vmin=0, vmax=1)
        ax.set_xticks(range(4) if x_positions is None else x_positions, labels=Q)
        ax.set_yticks(range(5) if y_positions is None else y_positions, labels=key_labels)
        ax.figure.colorbar(image, ax=ax)
        return ax
    return draw


def _seaborn():
    import seaborn

    _, ax = plt.subplots()
    return seaborn.heatmap(W.T.numpy(), xticklabels=Q, yticklabels=K, vmin=0, vmax=1, cmap="viridis", ax=ax)


def _pcolormesh():
    _, ax = plt.subplots()
    mesh = ax.pcolormesh(W.T.numpy(), vmin=0, vmax=1)
    ax.set_xticks(np.arange(4) + 0.5, labels=Q)
    ax.set_yticks(np.arange(5) + 0.5, labels=K)
    ax.invert_yaxis()
    ax.figure.colorbar(mesh, ax=ax)
    return ax


def _expect_reads_weights(draw) -> None:
    heatmap = read_heatmap(extract_plot(draw))
    cells = heatmap.by_labels()
    assert heatmap.shape == (5, 4)
    assert set(heatmap.column_labels) == set(Q) and set(heatmap.row_labels) == set(K)
    for i, q in enumerate(Q):
        for j, k in enumerate(K):
            assert cells[(q, k)] == pytest.approx(W[i, j].item(), abs=1e-12), (q, k)


# --------------------------------------------------------------------------------------------- reading
def test_reads_imshow_origin_upper():
    _expect_reads_weights(_imshow())
    assert read_heatmap(extract_plot(_imshow())).row_labels == tuple(K)  # first key at the top


def test_reads_imshow_origin_lower_first_key_at_bottom():
    _expect_reads_weights(_imshow(origin="lower"))
    assert read_heatmap(extract_plot(_imshow(origin="lower"))).row_labels == tuple(reversed(K))


def test_reads_imshow_with_custom_extent():
    # extent (0, 4, 0, 5) with origin upper: row 0 (the first key) is the top cell, centred at y = 4.5
    draw = _imshow(extent=(0, 4, 0, 5), key_labels=K[::-1], y_positions=np.arange(5) + 0.5, x_positions=np.arange(4) + 0.5)
    _expect_reads_weights(draw)


def test_reads_seaborn_heatmap():
    heatmap = read_heatmap(extract_plot(_seaborn))
    assert heatmap.kind == "mesh" and heatmap.clim == (0.0, 1.0) and heatmap.colorbar
    _expect_reads_weights(_seaborn)


def test_reads_pcolormesh_with_inverted_y_axis():
    _expect_reads_weights(_pcolormesh)
    assert read_heatmap(extract_plot(_pcolormesh)).row_labels == tuple(K)


def test_reads_pcolor():
    def draw():
        _, ax = plt.subplots()
        ax.pcolor(W.T.numpy(), vmin=0, vmax=1)
        ax.set_xticks(np.arange(4) + 0.5, labels=Q)
        ax.set_yticks(np.arange(5) + 0.5, labels=K)
        return ax

    _expect_reads_weights(draw)


def test_transposed_data_is_seen_as_one_row_per_query():
    def draw():
        _, ax = plt.subplots()
        ax.imshow(W.numpy(), vmin=0, vmax=1)
        ax.set_xticks(range(4), labels=Q)
        ax.set_yticks(range(5), labels=K)
        return ax

    heatmap = read_heatmap(extract_plot(draw))
    assert heatmap.shape == (4, 5)
    assert shows_matrix(heatmap, W.numpy()) and not shows_matrix(heatmap, W.T.numpy())


def test_rgb_picture_is_unreadable():
    def draw():
        _, ax = plt.subplots()
        ax.imshow(plt.get_cmap("Blues")(W.T.numpy()))
        return ax

    with pytest.raises(UnreadablePlot, match="RGB"):
        read_heatmap(extract_plot(draw))


def test_empty_axes_is_unreadable():
    with pytest.raises(UnreadablePlot, match="holds no heatmap"):
        read_heatmap(extract_plot(lambda: plt.subplots()[1]))


@pytest.mark.parametrize(
    "description",
    [
        {"axes": [{"images": [{"array": "not numbers"}]}], "target": 0},
        {"axes": [{"images": [], "meshes": [{"array": torch.zeros(2, 3), "x_edges": torch.arange(2.0), "y_edges": torch.arange(3.0)}]}], "target": 0},
        {"axes": ["not an axes"], "target": 0},
        {"axes": [], "target": 5},
        "not a description",
    ],
    ids=["bad_array", "edges_disagree", "bad_axes", "bad_target", "not_a_dict"],
)
def test_malformed_description_is_unreadable_not_a_crash(description):
    with pytest.raises(UnreadablePlot):
        read_heatmap(description)


def _png_header(width: int, height: int) -> torch.Tensor:
    """The first bytes of a PNG of that size (its IHDR chunk): all the grader reads before refusing it."""
    ihdr = width.to_bytes(4, "big") + height.to_bytes(4, "big") + bytes([8, 6, 0, 0, 0])
    data = b"\x89PNG\r\n\x1a\n" + len(ihdr).to_bytes(4, "big") + b"IHDR" + ihdr + bytes(4)
    return torch.frombuffer(bytearray(data), dtype=torch.uint8).clone()


def test_a_picture_of_too_many_pixels_is_refused_before_it_is_decoded():
    """qa18 h01: a dot drawn far away grows the tight box; 11,000 pixels a side is 0.5 MB of PNG
    and gigabytes decoded. It is refused from its header, with a message, in every reader."""
    from autograder.errors import AttnkitError
    from autograder.grading.heatmap import png_gray
    from autograder.grading.integrity.figure import figure_problem
    from autograder.settings import PLOT_MAX_PNG_PIXELS

    def draw():
        _, ax = plt.subplots()
        ax.imshow(W.T.numpy(), cmap="Blues", vmin=0, vmax=1)
        return ax

    description = extract_plot(draw)
    read_heatmap(description)  # its own picture is read
    side = math.isqrt(PLOT_MAX_PNG_PIXELS) + 1
    description["png"] = _png_header(side, side)
    with pytest.raises(UnreadablePlot, match=f"your figure's picture is {side}x{side} pixels, more than the grader reads") as raised:
        read_heatmap(description)
    assert raised.value.key == "plot_picture_too_large"
    with pytest.raises(AttnkitError, match="more than the grader reads"):
        png_gray(bytes(description["png"].tolist()))
    assert "more than the grader decodes" in figure_problem(description)


def test_a_picture_that_is_not_a_png_is_refused_before_it_is_decoded():
    """qa20h h09: a forged description carried a 10 kB TIFF of 13,000 pixels a side for its PNG;
    the guard read only a PNG header (none: no refusal) and Pillow decoded it (6.2 GB)."""
    import io

    from PIL import Image

    from autograder.errors import AttnkitError
    from autograder.grading.heatmap import png_gray
    from autograder.grading.integrity.figure import figure_problem

    def draw():
        _, ax = plt.subplots()
        ax.imshow(W.T.numpy(), cmap="Blues", vmin=0, vmax=1)
        return ax

    description = extract_plot(draw)
    tiff = io.BytesIO()
    Image.new("1", (64, 64)).save(tiff, format="TIFF")  # small here: what matters is that it is not read
    description["png"] = torch.frombuffer(bytearray(tiff.getvalue()), dtype=torch.uint8).clone()
    with pytest.raises(UnreadablePlot, match="its picture is not a PNG image"):
        read_heatmap(description)
    with pytest.raises(AttnkitError, match="not a readable PNG image"):
        png_gray(tiff.getvalue())
    assert figure_problem(description)


def test_new_axes_keyword_becomes_a_fresh_axes():
    seen = []

    def plot(weights, ax=None):
        seen.append(ax)
        ax.imshow(weights.T.numpy())
        return ax

    description = plot_call(plot, [W], {"ax": NEW_AXES})
    assert isinstance(seen[0], matplotlib.axes.Axes)
    assert description["given_axes"] == description["target"] == 0


def test_new_axes_ignored_is_reported():
    def plot(weights, ax=None):
        _, own = plt.subplots()
        own.imshow(weights.T.numpy())
        return own

    assert plot_call(plot, [W], {"ax": NEW_AXES})["given_axes"] == -1


def test_new_axes_ignored_through_pyplot_is_reported():
    def plot(weights, ax=None):
        plt.imshow(weights.T.numpy())  # draws on the current Axes, whatever ax is
        return plt.gca()

    description = plot_call(plot, [W], {"ax": NEW_AXES})
    assert description["given_axes"] == -1 and description["target"] == 0


def _returns_colorbar_axes(weights, ax=None):
    if ax is None:
        _, ax = plt.subplots()
    image = ax.imshow(weights.T.numpy(), cmap="Blues", vmin=0, vmax=1)
    return ax.figure.colorbar(image, ax=ax).ax


def _returns_gca_after_add_axes(weights, ax=None):
    if ax is None:
        _, ax = plt.subplots()
    image = ax.imshow(weights.T.numpy(), cmap="Blues", vmin=0, vmax=1)
    ax.figure.colorbar(image, cax=ax.figure.add_axes((0.92, 0.1, 0.03, 0.8)))  # add_axes makes it the current Axes
    return plt.gca()


@pytest.mark.parametrize("plot", [_returns_colorbar_axes, _returns_gca_after_add_axes], ids=["cbar.ax", "gca"])
@pytest.mark.parametrize("given", [False, True], ids=["own", "given"])
def test_the_colorbars_axes_returned_is_said_and_the_heatmaps_axes_graded(plot, given):
    """qa10e b02/b03: a right drawing that returned the colorbar's Axes had the colorbar's own mesh
    read as the heatmap: every E.1 check failed (E 0/10), where a Figure returned costs the return
    check alone. The heatmap's Axes is graded; `returned_target` says another Axes came back."""
    description = plot_call(plot, [W], {"ax": NEW_AXES} if given else {})
    assert description["returned"] == "Axes" and description["returned_target"] is False
    assert not returned_axes(description)
    assert description["target"] == (description["given_axes"] if given else 0)
    assert np.allclose(read_heatmap(description).values, W.T.numpy())


def test_a_colorbar_in_an_axes_of_the_students_own_is_a_colorbar():
    """qa10e c11: fig.colorbar(ScalarMappable(the image's norm and cmap), cax=<make_axes_locatable's
    Axes>) is not labelled '<colorbar>' as fig.colorbar(..., ax=ax) makes it: it was not counted, so
    the heatmap had 'no colorbar' (E 9/10)."""
    from matplotlib.cm import ScalarMappable
    from matplotlib.colors import Normalize
    from mpl_toolkits.axes_grid1 import make_axes_locatable

    def plot(weights, ax=None):
        _, ax = plt.subplots()
        ax.imshow(weights.T.numpy(), cmap="Blues", norm=Normalize(0, 1))
        ax.figure.colorbar(ScalarMappable(Normalize(0, 1), "Blues"), cax=make_axes_locatable(ax).append_axes("right", "5%"))
        return ax

    description = plot_call(plot, [W], {})
    assert description["colorbars"] == 1 and read_heatmap(description).colorbar


def test_tokens_on_minor_ticks_at_the_cell_centres_are_read_and_agree_with_the_image():
    """qa10e c15: the tokens on minor ticks at the cell centres, unlabelled major ticks on the cell
    edges carrying a white grid: only the major ticks were described, so the heatmap's axes 'did
    not carry the tokens' (E 8/10)."""
    from autograder.grading.integrity.figure import figure_problem

    def plot(weights, ax=None):
        _, ax = plt.subplots()
        ax.imshow(weights.T.numpy(), cmap="Blues", vmin=0, vmax=1)
        ax.set_xticks(np.arange(5) - 0.5, labels=[""] * 5)
        ax.set_yticks(np.arange(6) - 0.5, labels=[""] * 6)
        ax.set_xticks(range(4), labels=Q, minor=True)
        ax.set_yticks(range(5), labels=K, minor=True)
        ax.grid(which="major", color="white", linewidth=2)
        return ax

    description = plot_call(plot, [W], {})
    heatmap = read_heatmap(description)
    assert heatmap.column_labels == tuple(Q) and heatmap.row_labels == tuple(K)
    assert figure_problem(description) == ""


def test_cells_the_view_limits_leave_off_the_picture_are_said_not_read():
    """qa10e b13: ax.set_xlim(-0.5, Lq - 1.5) leaves the last query off the picture; its cells were
    read from the array, and the picture that does not show them was flagged as a forgery (E 0/10 and a
    tamper flag). A cell whose centre is out of view makes the heatmap unreadable, said as such."""
    def plot(weights, ax=None):
        _, ax = plt.subplots()
        ax.imshow(weights.T.numpy(), cmap="Blues", vmin=0, vmax=1)
        ax.set_xlim(-0.5, weights.shape[0] - 1.5)
        return ax

    with pytest.raises(UnreadablePlot) as raised:
        read_heatmap(plot_call(plot, [W], {}))
    assert raised.value.key == "cells_out_of_view" and raised.value.values["columns"] == "1"


def test_the_heatmaps_axes_returned_is_the_one_graded():
    description = plot_call(_on_given_axes, [W], {"ax": NEW_AXES})
    assert description["returned_target"] is True and returned_axes(description)



def _on_given_axes(weights, ax=None):
    image = ax.imshow(weights.T.numpy(), cmap="Blues", vmin=0, vmax=1)
    ax.figure.colorbar(image, ax=ax)
    return ax


def _on_own_axes(weights, ax=None):
    _, own = plt.subplots()
    own.pcolormesh(weights.T.numpy())
    return own


def _through_pyplot(weights, ax=None):
    plt.imshow(weights.T.numpy())
    return plt.gca()


@pytest.mark.parametrize("plot", [_on_given_axes, _on_own_axes, _through_pyplot], ids=["given", "own", "pyplot"])
def test_description_without_picture_says_the_same_about_the_axes(plot):
    """picture=False (E.1's given-Axes check) skips the drawing and the PNG: which Axes is
    returned, given and a colorbar, and what each holds, are the same as with the picture."""
    full, lean = plot_call(plot, [W], {"ax": NEW_AXES}), plot_call(plot, [W], {"ax": NEW_AXES}, picture=False)
    for key in ("returned", "target", "returned_target", "given_axes", "colorbars", "colorbar_maps", "figures"):
        assert lean[key] == full[key], key
    assert len(lean["axes"]) == len(full["axes"])
    for ours, theirs in zip(lean["axes"], full["axes"]):
        assert [i["array"].tolist() for i in ours["images"]] == [i["array"].tolist() for i in theirs["images"]]
        assert [m["array"].tolist() for m in ours["meshes"]] == [m["array"].tolist() for m in theirs["meshes"]]
        assert ours["xtickboxes"] == ours["ytickboxes"] == []
    assert full["png"].numel() > 0 and lean["png"].numel() == 0

# --------------------------------------------------------------------------------------------- calibration
@pytest.fixture(scope="module")
def trained():
    from autograder.assignments.attention.checks import part_f as test_part_f

    return test_part_f


def _map_scores(part_f, maps: torch.Tensor) -> list[float]:
    """Similarity of each (sentence 1-2, head) map in `maps` (N, H, S, S) to the reference render."""
    ref = part_f.reference()
    scores = []
    for sentence in (0, 1):
        words = ref.words[sentence]
        for head in range(ref.num_heads):
            ours = render(maps[sentence, head].double(), words, words, part_f.map_title(sentence, head))
            scores.append(similarity(ours, part_f.reference_render(sentence, head)))
    return scores


def test_calibration_correct_maps_pass_and_wrong_maps_fail(trained, capsys):
    """The figures in autograder/grading/heatmap.py's CALIBRATION comment come from this test (pytest -s)."""
    ref = trained.reference()
    with torch.no_grad():
        model64 = copy.deepcopy(ref.model).double()
        maps64 = model64.block(ref.x.double())[1]  # the reference block in float64
    correct = {
        "float64 instead of float32": maps64.float(),
        "weights + 1e-3 noise": ref.weights + 1e-3 * torch.rand(ref.weights.shape, generator=torch.Generator().manual_seed(0)),
    }
    wrong = {**trained.map_variants(), "transposed maps": ref.weights.transpose(-2, -1)}
    between = {"weights + 2e-2 noise (shown only)": ref.weights + 2e-2 * torch.rand(ref.weights.shape, generator=torch.Generator().manual_seed(0))}
    figures = {name: _map_scores(trained, maps) for name, maps in {**correct, **between, **wrong}.items()}
    with capsys.disabled():
        for name, scores in figures.items():
            print(f"\n  similarity {name:28s} {min(scores):.4f} .. {max(scores):.4f}", end="")
    for name in correct:
        assert min(figures[name]) >= SIMILARITY_THRESHOLD, (name, figures[name])
    for name in wrong:
        assert max(figures[name]) < SIMILARITY_THRESHOLD, (name, figures[name])


def test_calibration_other_styles_compare_only_after_reading_back(capsys):
    """A correct plot in another style (seaborn, viridis, another size) is not pixel-comparable
    with the kit's render; read back and re-rendered by the kit it is identical."""
    from autograder.assignments.attention.checks.part_e import read_matrix

    reference = render(W, Q, K, "t")

    def styled():
        _, ax = plt.subplots(figsize=(9, 4))
        image = ax.imshow(W.T.numpy(), cmap="magma", vmin=0, vmax=1, aspect="auto")
        ax.set_xticks(range(4), labels=Q)
        ax.set_yticks(range(5), labels=K)
        ax.figure.colorbar(image, ax=ax)
        return ax

    raw, reread = {}, {}
    for name, draw in (("seaborn viridis", _seaborn), ("imshow magma 9x4", styled), ("pcolormesh", _pcolormesh)):
        description = extract_plot(draw)
        raw[name] = whole_image_similarity(bytes(description["png"].numpy().tobytes()), reference.png)
        shown = read_matrix(read_heatmap(description))
        assert shown is not None
        reread[name] = similarity(render(shown, Q, K, "t"), reference)
    with capsys.disabled():
        print(f"\n  raw whole-image SSIM of correct plots in other styles: {raw}\n  read back and re-rendered: {reread}", end="")
    assert all(value == 1.0 for value in reread.values())
    assert min(raw.values()) < SIMILARITY_THRESHOLD  # why raw pixels of student figures are not graded


def test_calibration_part_f_figures(trained, capsys):
    """The figures in test_part_f.py's FIGURE_SIMILARITY_THRESHOLD comment (pytest -s): the
    trained maps drawn by one plot_attention (the reference one, and a seaborn one), compared
    with the reference maps drawn by the same function."""
    from autograder.grading.heatmap import figure_similarity
    from autograder.assignments.attention.training import reference_attention

    ref = trained.reference()
    namespace: dict = {}
    exec(compile("import matplotlib.pyplot as plt\n" + SEABORN_PLOT, "seaborn_plot", "exec"), namespace)  # trusted test code
    noise = torch.rand(ref.weights.shape, generator=torch.Generator().manual_seed(0))
    correct = {"weights + 1e-3 noise": ref.weights + 1e-3 * noise}
    wrong = {**trained.map_variants(), "transposed maps": ref.weights.transpose(-2, -1), "uniform maps": torch.full_like(ref.weights, 0.1)}

    def figure(plot, matrix: torch.Tensor, sentence: int, head: int) -> bytes:
        words = ref.words[sentence]
        return bytes(plot_call(plot, [matrix, words, words], {"title": trained.map_title(sentence, head)})["png"].numpy().tobytes())

    figures = {}
    for style, plot in (("reference", reference_attention().plot_attention), ("seaborn", namespace["plot_attention"])):
        theirs = {(s, h): figure(plot, ref.weights[s, h], s, h) for s, h in ref.drawn}
        for name, maps in {**correct, **wrong}.items():
            figures[(style, name)] = [figure_similarity(figure(plot, maps[s, h], s, h), theirs[(s, h)]) for s, h in ref.drawn]
    with capsys.disabled():
        for (style, name), scores in figures.items():
            print(f"\n  figure similarity {style:9s} {name:28s} {min(scores):.4f} .. {max(scores):.4f}", end="")
    for (style, name), scores in figures.items():
        if name in correct:
            assert min(scores) >= trained.FIGURE_SIMILARITY_THRESHOLD, (style, name, scores)
        else:
            assert max(scores) < trained.FIGURE_SIMILARITY_THRESHOLD, (style, name, scores)


# --------------------------------------------------------------------------------------------- grading
def _with_plot(reference_source: str, body: str) -> str:
    start = reference_source.index("def plot_attention(")
    return reference_source[:start] + body


SEABORN_PLOT = '''
def plot_attention(weights, query_tokens, key_tokens, ax=None, title=None):
    import seaborn as sns
    if ax is None:
        _, ax = plt.subplots(figsize=(7, 5))
    sns.heatmap(weights.detach().cpu().numpy().T, xticklabels=query_tokens, yticklabels=key_tokens,
                vmin=0, vmax=1, cmap="rocket_r", cbar=True, ax=ax)
    ax.set_xlabel("query")
    ax.set_ylabel("key")
    if title:
        ax.set_title(title)
    return ax
'''


def _plot(matrix: str = "weights.T", ticks: bool = True, vmin: str = "vmin=0, vmax=1, ", colorbar: bool = True) -> str:
    lines = [
        "def plot_attention(weights, query_tokens, key_tokens, ax=None, title=None):",
        "    if ax is None:",
        "        _, ax = plt.subplots()",
        f"    image = ax.imshow({matrix}.detach().numpy(), {vmin}cmap='Blues')",
    ]
    if ticks:
        lines += ["    ax.set_xticks(range(len(query_tokens)), labels=query_tokens)", "    ax.set_yticks(range(len(key_tokens)), labels=key_tokens)"]
    if colorbar:
        lines.append("    ax.figure.colorbar(image, ax=ax)")
    lines += ["    ax.set_xlabel('query'); ax.set_ylabel('key')", "    if title:", "        ax.set_title(title)", "    return ax"]
    return "\n" + "\n".join(lines) + "\n"


# the right picture (rows = keys), but the keys named on the horizontal axis and the queries on the vertical one
_SWAPPED_LABELS = _plot(ticks=False).replace("    ax.figure.colorbar", (
    "    ax.set_xticks(range(len(key_tokens))[:len(query_tokens)], labels=key_tokens[:len(query_tokens)])\n"
    "    ax.set_yticks(range(len(query_tokens)), labels=query_tokens)\n"
    "    ax.figure.colorbar"
))


def _checks(result) -> dict:
    return {c.check_id: c for c in result.checks}


def test_reference_gets_full_marks_in_e_and_f(grade, reference_source):
    result = grade(reference_source, parts={"E", "F"})
    failed = {c.check_id: c.message for c in result.checks if c.points < c.max_points}
    assert not failed
    assert sum(c.max_points for c in result.checks if c.part == "E") == 10
    assert sum(c.max_points for c in result.checks if c.part == "F") == 8
    names = {a.name: a for a in result.artifacts}
    assert names["plot-attention"].similarity == 1.0
    assert names["probe-1-head-0"].similarity == 1.0 and names["probe-1-head-0"].student.startswith("heatmaps/")


def test_seaborn_plot_gets_full_marks(grade, reference_source):
    result = grade(_with_plot(reference_source, SEABORN_PLOT), parts={"E"})
    assert {c.check_id: c.message for c in result.checks if c.points < c.max_points} == {}


@pytest.mark.parametrize("cmap", ["viridis", "rocket", "gray"])
def test_a_dark_to_light_colour_map_loses_only_the_colour_rule(grade, reference_source, cmap):
    """The contract: darker = more weight. imshow's default (viridis) and seaborn's (rocket) are
    dark-to-light, so the strongest cell would be the brightest."""
    result = grade(_with_plot(reference_source, SEABORN_PLOT.replace('cmap="rocket_r"', f'cmap="{cmap}"')), parts={"E"})
    lost = {c.check_id: c.message for c in result.checks if c.points < c.max_points}
    assert set(lost) == {"plot_attention_light_to_dark"}, lost
    assert "light" in lost["plot_attention_light_to_dark"] and cmap in lost["plot_attention_light_to_dark"]


def test_a_panel_letter_beside_the_title_keeps_the_title_point(grade, reference_source):
    """qa7e c34: ax.set_title(title) with a panel letter ax.set_title("(a)", loc="left") beside it
    lost the title check ('the Axes title is not the text given as title='): the check compared
    the given title with all the Axes' titles joined ("probe heatmap (a)")."""
    plot = _plot().replace("        ax.set_title(title)", "        ax.set_title(title)\n    ax.set_title('(a)', loc='left')")
    assert "loc='left'" in plot
    lost = {c.check_id: c.message for c in grade(_with_plot(reference_source, plot), parts={"E"}).checks if c.points < c.max_points}
    assert lost == {}


def test_other_values_in_a_reversed_map_are_not_called_dark_to_light(grade, reference_source):
    """qa7e b03: 1 - weights drawn with Blues_r shows the strongest weight darkest, yet the colour
    check said "the strongest cell is not the darkest one". A drawing that does not hold the weights
    earns no colour point, and its feedback says why (the values), not a colour rule it keeps."""
    plot = _plot().replace("image = ax.imshow(weights.T.detach().numpy()", "image = ax.imshow(1 - weights.T.detach().numpy()").replace("cmap='Blues'", "cmap='Blues_r'")
    lost = {c.check_id: c.message for c in grade(_with_plot(reference_source, plot), parts={"E"}).checks if c.points < c.max_points}
    assert "plot_attention_cell_values" in lost
    assert "dark" not in lost["plot_attention_light_to_dark"] and "weights it was given" in lost["plot_attention_light_to_dark"]


@pytest.mark.parametrize(
    ("plot", "mistake", "lost"),
    [
        (_plot(matrix="weights"), "heatmap_transposed", {"plot_attention_tick_labels"}),
        (_plot(ticks=False), "heatmap_unlabelled", {"plot_attention_tick_labels"}),
        (_SWAPPED_LABELS, "", {"plot_attention_tick_labels"}),  # the map runs the right way: not named transposed (qa13 b10)
        (_plot(vmin=""), "heatmap_auto_color_range", {"plot_attention_color_range"}),
        (_plot(colorbar=False), "heatmap_no_colorbar", {"plot_attention_colorbar"}),
    ],
    ids=["transposed", "unlabelled", "swapped_labels", "auto_color_range", "no_colorbar"],
)
def test_heatmap_mistake_is_named(grade, reference_source, plot, mistake, lost):
    checks = _checks(grade(_with_plot(reference_source, plot), parts={"E"}))
    failed = {name for name, c in checks.items() if c.points < c.max_points}
    # the mistake's own checks, plus (only when the drawn values are wrong) the properties they gate
    gated = {name for name in failed - lost if checks[name].message_key == "scoring_gated"}
    assert lost <= failed and failed == lost | gated
    assert not gated or "plot_attention_cell_values" in lost
    assert {checks[name].mistake for name in lost} == {mistake}



# qa4e b01/b02: a transposed picture (queries down the rows) is one mistake, charged by the
# tick-label check alone: its colorbar, colour range, colour map, axis labels and title are right
# whichever way the matrix lies. Before, the cell check failed too and gated every property: 0.5/10.
_KEYS_ACROSS = _plot(matrix="weights", ticks=False).replace("    ax.figure.colorbar", (
    "    ax.set_xticks(range(len(key_tokens)), labels=key_tokens)\n"
    "    ax.set_yticks(range(len(query_tokens)), labels=query_tokens)\n"
    "    ax.figure.colorbar"
)).replace("ax.set_xlabel('query'); ax.set_ylabel('key')", "ax.set_xlabel('key'); ax.set_ylabel('query')")


@pytest.mark.parametrize("plot", [_plot(matrix="weights"), _KEYS_ACROSS], ids=["transpose_forgotten", "keys_across_labelled_so"])
def test_a_transposed_heatmap_is_charged_once_by_the_tick_label_check(grade, reference_source, plot):
    checks = _checks(grade(_with_plot(reference_source, plot), parts={"E"}))
    lost = {name: c.message for name, c in checks.items() if c.points < c.max_points}
    assert set(lost) == {"plot_attention_tick_labels"}, lost
    assert checks["plot_attention_tick_labels"].mistake == "heatmap_transposed"
    assert sum(c.points for c in checks.values()) == 8

def test_wrong_tick_placement_fails_values_without_a_false_mistake(grade, reference_source):
    # set_xticklabels without set_xticks: labels land on matplotlib's automatic tick positions
    plot = _plot(ticks=False).replace("    ax.figure.colorbar", "    ax.set_xticklabels(query_tokens)\n    ax.set_yticklabels(key_tokens)\n    ax.figure.colorbar")
    checks = _checks(grade(_with_plot(reference_source, plot), parts={"E"}))
    assert checks["plot_attention_tick_labels"].points == 0
    assert checks["plot_attention_cell_values"].points == checks["plot_attention_cell_values"].max_points


# qa3s e1_pcolormesh_ticks_off_by_half: pcolormesh cells are centred at i + 0.5; ticks set at i
# put every token on a cell edge. The tokens are on the axes, only between the cells: that is said
# (ticks_not_per_cell), not "the axes are not labelled with the tokens" (heatmap_unlabelled).
_TICKS_ON_CELL_EDGES = _plot().replace(
    "image = ax.imshow(weights.T.detach().numpy(), vmin=0, vmax=1, cmap='Blues')",
    "image = ax.pcolormesh(weights.T.detach().numpy(), vmin=0, vmax=1, cmap='Blues')\n    ax.invert_yaxis()",
)


def test_tokens_on_cell_edges_are_said_to_be_off_the_cells_not_missing(grade, reference_source):
    assert "pcolormesh" in _TICKS_ON_CELL_EDGES
    check = _checks(grade(_with_plot(reference_source, _TICKS_ON_CELL_EDGES), parts={"E"}))["plot_attention_tick_labels"]
    assert check.points == 0 and check.mistake == "", check.message
    assert check.message_key == "ticks_not_per_cell", check.message


# qa3s e1_axis_labels_swapped: the picture right (queries across), but the horizontal axis labelled
# "key" and the vertical one "query". The contract: the horizontal label names the queries.
def _labelled(xlabel: str, ylabel: str) -> str:
    return _plot().replace("ax.set_xlabel('query'); ax.set_ylabel('key')", f"ax.set_xlabel({xlabel!r}); ax.set_ylabel({ylabel!r})")


def test_axis_labels_that_name_the_other_axis_lose_the_label_point_only(grade, reference_source):
    checks = _checks(grade(_with_plot(reference_source, _labelled("key position", "query position")), parts={"E"}))
    lost = {name: c for name, c in checks.items() if c.points < c.max_points}
    assert set(lost) == {"plot_attention_axis_labels"}, {name: c.message for name, c in lost.items()}
    assert lost["plot_attention_axis_labels"].message_key == "axis_labels_swapped"


@pytest.mark.parametrize(("xlabel", "ylabel"), [("横轴：Query 位置", "纵轴：Key 位置"), ("查询", "被关注的位置"), ("position", "Keys (关键词)")])
def test_axis_labels_in_other_words_keep_the_label_point(grade, reference_source, xlabel, ylabel):
    checks = _checks(grade(_with_plot(reference_source, _labelled(xlabel, ylabel)), parts={"E"}))
    assert checks["plot_attention_axis_labels"].passed, checks["plot_attention_axis_labels"].message


# qa3s e1_vmin_vmax_swapped: a colour range fixed, but not to [0, 1], was explained as "the colour
# range follows the data" (heatmap_auto_color_range). That mistake is named only when an end of the
# range is the data's own (vmax=weights.max()); a range fixed elsewhere is said as it is.
@pytest.mark.parametrize(
    ("vmin", "mistake", "key"),
    [("vmin=0, vmax=0.5, ", "", "color_range_not_unit"), ("vmin=0, vmax=float(weights.max()), ", "heatmap_auto_color_range", "")],
    ids=["fixed_elsewhere", "follows_the_data"],
)
def test_a_wrong_colour_range_names_the_data_only_when_it_follows_the_data(grade, reference_source, vmin, mistake, key):
    check = _checks(grade(_with_plot(reference_source, _plot(vmin=vmin)), parts={"E"}))["plot_attention_color_range"]
    assert check.points == 0 and check.mistake == mistake, check.message
    assert check.message_key == key or key == "", check.message


PRE_NORM = ("attended, weights = self.attn(x, mask=mask)", "attended, weights = self.attn(self.norm(x), mask=mask)")
PRE_NORM_OUT = ("return self.norm(x + self.dropout(attended)), weights", "return x + self.dropout(attended), weights")
NO_SCALING = ("weights = masked_softmax(attention_scores(q, k), mask)", "weights = masked_softmax(q @ k.transpose(-2, -1), mask)")
NO_RESIDUAL = ("return self.norm(x + self.dropout(attended)), weights", "return self.norm(self.dropout(attended)), weights")


def _planted(source: str, *edits: tuple[str, str]) -> str:
    for old, new in edits:
        assert source.count(old) == 1, old
        source = source.replace(old, new)
    return source


F_NUMBER_CHECKS = ("trained_maps_match", "trained_heatmaps_match", "trained_heatmaps_look_alike")


def test_a_block_bug_graded_alone_in_f_is_paid_through_the_students_own_attention(grade, reference_source):
    """A Part D bug with Part F graded alone (as nbgrader grades, one part at a time): what F leans
    on is tried both ways, the student's own first; a trusted block shell around the student's
    own MultiHeadAttention gives the maps and the output, so F keeps its points (charged in D)."""
    checks = _checks(grade(_planted(reference_source, PRE_NORM, PRE_NORM_OUT), parts={"F"}))
    assert all(c.points == c.max_points for c in checks.values()), {n: c.message for n, c in checks.items() if not c.passed}
    for name in ("trained_maps_match", "pronoun_model_output", *F_NUMBER_CHECKS[1:]):
        assert checks[name].message_key == "scoring_carried_elsewhere" and "D.1" in checks[name].message_args["tasks"], name


def test_an_earlier_bug_costs_nothing_in_f(grade, reference_source):
    """A Part C bug (scores not scaled inside MultiHeadAttention's path) is charged in its own task."""
    checks = _checks(grade(_planted(reference_source, NO_SCALING), parts={"F"}))
    assert {name for name, c in checks.items() if c.points < c.max_points} == set()
    assert checks["trained_maps_match"].message_key == "scoring_carried_elsewhere"


def test_missing_residual_keeps_the_maps_and_the_output_is_charged_in_d(grade, reference_source):
    result = grade(_planted(reference_source, NO_RESIDUAL), parts={"D", "F"})
    checks = _checks(result)
    assert {c.mistake for c in result.checks if c.part == "D" and not c.passed} >= {"block_no_residual"}
    for name in (*F_NUMBER_CHECKS, "pronoun_attends_to_antecedent", "verb_attends_to_its_arguments"):
        assert checks[name].points == checks[name].max_points and not checks[name].message, (name, checks[name].message)
    assert checks["pronoun_model_output"].points == 1
    assert checks["pronoun_model_output"].message == "correct given your Part D; that mistake is charged in D.1"


def test_renamed_parameters_are_named_in_d_and_cost_nothing_in_f(grade, reference_source):
    source = reference_source.replace("self.norm", "self.ln")
    result = grade(source, parts={"D", "F"})
    named = " ".join(c.message for c in result.checks if c.part == "D" and not c.passed)
    assert "ln.weight" in named and "norm.weight" in named
    f_checks = [c for c in result.checks if c.part == "F"]
    assert all(c.passed for c in f_checks), [c.message for c in f_checks if not c.passed]
    assert {c.message for c in f_checks if c.check_id in ("trained_maps_match", "pronoun_model_output")} == {"correct given your Part D; that mistake is charged in D.1"}


def test_f_draws_with_the_students_own_plot_attention(grade, reference_source):
    # a seaborn plot in another style: F reads it back and compares it with its own figure of the reference
    result = grade(_with_plot(reference_source, SEABORN_PLOT), parts={"F"})
    assert {c.check_id: c.message for c in result.checks if c.points < c.max_points} == {}
    artifacts = {a.name: a for a in result.artifacts}
    assert artifacts["probe-1-head-0"].similarity == 1.0


def test_f_heatmap_checks_are_paid_through_the_block_when_plot_attention_ignores_its_weights(grade, reference_source):
    blank = _plot(matrix="(weights * 0)")  # draws zeros, labelled and coloured right: charged in E
    checks = _checks(grade(_with_plot(reference_source, blank), parts={"F"}))
    for name in ("trained_heatmaps_match", "trained_heatmaps_look_alike"):
        assert checks[name].points == checks[name].max_points, (name, checks[name].message)
        assert checks[name].message_key == "scoring_carried_elsewhere" and "E.1" in checks[name].message_args["tasks"], name
    for name in ("trained_maps_match", "pronoun_model_output", "pronoun_attends_to_antecedent", "verb_attends_to_its_arguments"):
        assert checks[name].points == checks[name].max_points and not checks[name].message, name


def test_f_heatmap_checks_fail_with_the_error_when_plot_attention_raises(grade, reference_source):
    # right in Part E, raising only on Part F's titles (“the king ...”, head 0): F's own failure
    broken = _plot().replace("    if ax is None:", "    if title and title.startswith('“'):\n        raise ValueError('no plot today')\n    if ax is None:", 1)
    result = grade(_with_plot(reference_source, broken), parts={"E", "F"})
    checks = _checks(result)
    assert all(c.passed for c in result.checks if c.part == "E"), [c.message for c in result.checks if c.part == "E" and not c.passed]
    # the worker that holds the reference weights shows neither the message nor the exception's
    # type (which builtin it raises could carry bits of the weights: qa18h a03)
    for name in ("trained_heatmaps_match", "trained_heatmaps_look_alike"):
        message = checks[name].message
        assert checks[name].points == 0 and "raised Exception" in message and "ValueError" not in message and "not shown" in message, (name, message)
    assert checks["trained_maps_match"].points == checks["trained_maps_match"].max_points


def test_f_accepts_any_orientation_of_the_drawing(grade, reference_source):
    # a transposed picture is Part E's to charge (E.1); F still reads the trained weights from it
    checks = _checks(grade(_with_plot(reference_source, _plot(matrix="weights")), parts={"F"}))
    assert {name for name, c in checks.items() if c.points < c.max_points} == set()


BLOCK_RETURN = "return self.norm(x + self.dropout(attended)), weights  # (B, S, E), (B, H, S, S)"


@pytest.mark.parametrize(
    "body",
    [
        "B, S, _ = x.shape; return x, torch.full((B, self.attn.num_heads, S, S), 1.0 / S)",
        "B, S, _ = x.shape; return torch.zeros_like(x), torch.zeros(B, self.attn.num_heads, S, S)",
        "B, S, _ = x.shape; return x, torch.eye(S).expand(B, self.attn.num_heads, S, S).clone()",
    ],
    ids=["uniform_weights", "zeros", "each_word_attends_to_itself"],
)
def test_a_block_that_does_not_attend_earns_nothing_of_its_own_in_f(grade, reference_source, body):
    """Its own maps solve nothing: every F point is paid only through a stand-in for the block
    (a trusted shell around the student's right MultiHeadAttention), with the block charged in D."""
    checks = _checks(grade(_planted(reference_source, (BLOCK_RETURN, body)), parts={"F"}))
    notes = {name: (c.message_key, c.message_args.get("tasks", "")) for name, c in checks.items()}
    assert all(key == "scoring_carried_elsewhere" and "D.1" in tasks for key, tasks in notes.values()), notes


def test_similarity_of_identical_renders_is_one_and_layouts_must_match():
    a = render(W, Q, K, "t")
    assert similarity(a, render(W, Q, K, "t")) == 1.0
    assert math.isclose(similarity(a, render(W * 0.5, Q, K, "t")), similarity(render(W * 0.5, Q, K, "t"), a))
    with pytest.raises(ValueError, match="different layouts"):
        similarity(a, render(W, Q, [f"much-longer-key-{k}" for k in K], "t"))


def test_every_reason_a_figure_cannot_be_read_has_a_translated_message():
    """heatmap.py raises UnreadablePlot with English texts; checks/texts.py translates them by their
    English text, so each argument-free one must be there word for word."""
    import ast
    import inspect

    from autograder.assignments.attention.texts import key_of_english
    from autograder.grading import heatmap

    reasons = [heatmap.TOO_LARGE, heatmap.TOO_MANY_DRAWINGS, heatmap.BAD_EDGES]
    for node in ast.walk(ast.parse(inspect.getsource(heatmap))):
        if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "UnreadablePlot" and node.args:
            if isinstance(node.args[0], ast.Constant):
                reasons.append(node.args[0].value)
    assert len(reasons) >= 8
    missing = [text for text in reasons if not key_of_english(text)]
    assert not missing


@pytest.mark.parametrize(
    ("label", "token"),
    [("the (0)", "the"), ("the_0", "the"), ("3: dog", "dog"), ("[0] the", "the"), ("down2", "down"),
     ("q0: the", "the"), ("k4: ran", "ran"), ("dog (k3)", "dog"), ("Key 3: dog", "dog"), ("q_0 the", "the"), ("the\n(0)", "the"),
     ("the (position 0)", "the"), ("index 4: ran", "ran"), ("the（位置 0）", "the"), ("位置 3：dog", "dog"), ("cat (第1)", "cat"),
     ("'the'", "the"), ('"dog"', "dog"), ("[ran]", "ran"), ("'sat' (2)", "sat"),
     (r"$\mathrm{the}_{0}$", "the"), ("$dog$", "dog"), (r"$\mathbf{ran}^{4}$", "ran"), (r"$\it{cat}\,(1)$", "cat"),
     ("the₀", "the"), ("ran₁₂", "ran"), ("dog³", "dog"), ("① the", "the"), ("⑤ran", "ran"), ("cat（１）", "cat")],
)
def test_a_tick_label_of_a_token_and_its_position_reads_as_the_token(label, token):
    """The contract lets a tick label add the token's position ('the (0)'); qa6e: a position named
    with a letter ('q0: the', 'k4: ran') was not read as the token, so a correct heatmap lost the
    tick-label check (E 8/10) as one whose ticks 'do not carry the tokens'. qa7e: the same for a
    position named by a longer word or in Chinese ('the (position 0)', 'the（位置 0）', qa7e c19), and
    for a token in quotes ("'the'", as repr() prints it, qa7e c36). qa9e: the same for a label in
    math text, the position as a subscript ('$\\mathrm{the}_{0}$', drawn as the₀, qa9e c19). qa10e: the
    same for a position in digits of another form: subscripts ('the₀', c07), circled ('① the', c08)."""
    from autograder.assignments.attention.checks.part_e import KEY_TOKENS, QUERY_TOKENS, plain_token

    assert plain_token(label, QUERY_TOKENS + KEY_TOKENS) == token


@pytest.mark.parametrize("label", ["k0", "q3", "abcd0x the", "dog3x", "d0g", "the dog", "位置3", r"$\mathrm{dog}$ $"])
def test_a_tick_label_that_is_not_a_token_and_a_position_is_kept(label):
    from autograder.assignments.attention.checks.part_e import KEY_TOKENS, QUERY_TOKENS, plain_token

    assert plain_token(label, QUERY_TOKENS + KEY_TOKENS) == label


@pytest.mark.parametrize(
    ("xlabel", "ylabel", "swapped"),
    [("query", "key", False), ("key", "query", True), ("Key 位置", "Query 位置", True), ("position", "query", True),
     ("query", "query", False), ("键", "查询", True), ("query (the word that looks)", "the word each query looks at", False),
     ("查询（当前词）", "每个查询所关注的词", False), ("query → key", "weight", False), ("Key", "Position", True),
     ("attending token (position i)", "token each query looks at", False), ("当前词（发出注意力）", "每个查询所关注的词", False),
     ("token attending to the keys", "key token", False), ("关注各个键的词（当前位置）", "键", False)],
)
def test_a_vertical_label_that_mentions_the_queries_under_one_that_names_them_is_not_swapped(xlabel, ylabel, swapped):
    """qa7e c41, c42: 'query (the word that looks)' across and 'the word each query looks at' down
    (or '查询（当前词）' and '每个查询所关注的词') lost the axis-label check as labels that 'name the
    wrong axes': any vertical label that mentions the queries and not the keys was read as naming them.
    qa37s c28, c29, c31, c32: the same for a label beside one that names neither side, or a
    horizontal label that describes the queries through the keys. "query" twice is told as the
    same label on both axes (axis_labels_same), not as a swap."""
    from autograder.assignments.attention.checks.part_e import labels_swapped

    assert labels_swapped(xlabel, ylabel) is swapped


@pytest.mark.parametrize(
    ("cmap", "vmax", "reads"),
    [("Blues", 1.0, True), ("Reds", 1.0, False), ("Blues", 0.5, False)],
    ids=["same colours and range", "other colours", "other range"],
)
def test_a_colorbar_reads_the_heatmap_only_when_it_shows_its_colours_and_range(cmap, vmax, reads):
    """A colorbar made from a ScalarMappable of its own counts when it shows the map's colours
    and range (qa9e c01: the same Blues and Normalize(0, 1)); one in Reds beside a map in Blues
    shows colours the map does not have (qa9e b03: it earned 'has a colorbar', E 10/10), and one
    of another range reads the wrong weights. The figure has a colorbar, but not the heatmap's."""
    import matplotlib.cm as cm
    import matplotlib.colors as mcolors

    def draw():
        _, ax = plt.subplots()
        ax.imshow(W.T.numpy(), cmap="Blues", vmin=0, vmax=1)
        ax.figure.colorbar(cm.ScalarMappable(norm=mcolors.Normalize(0, vmax), cmap=cmap), ax=ax)
        return ax

    heatmap = read_heatmap(extract_plot(draw))
    assert (heatmap.colorbar, heatmap.colorbar_elsewhere) == (reads, not reads)
