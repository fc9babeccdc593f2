"""Figure evidence (issue 12): what the worker says about a figure must agree with its PNG.

Honest figures in every style the kit reads pass; descriptions that claim another matrix, another
colour range or a blank picture fail. The figures are drawn here with the worker's own code
(plotdata.extract_plot), then the description is edited the way a forger would.
"""
from __future__ import annotations

import copy

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402

from autograder.assignments.attention.texts import key_of_english, render_message  # noqa: E402
from autograder.grading.integrity.figure import CELLS_HIDDEN, LABEL_ASIDE, LABEL_MISSING, LABEL_NOT_SHOWN, LABEL_OUTSIDE, blended_cells, figure_problem, smoothed_image  # noqa: E402
from autograder.grading.worker.plotdata import extract_plot  # noqa: E402

Q, K = ["the", "cat", "sat", "down"], ["a", "big", "red", "dog", "ran"]
W = torch.softmax(torch.randn(4, 5, generator=torch.Generator().manual_seed(3), dtype=torch.float64), -1)  # (Lq, Lk)


def imshow(**options):
    def draw():
        _, ax = plt.subplots()
        image = ax.imshow(W.T.numpy(), vmin=0, vmax=1, **options)
        ax.set_xticks(range(4), labels=Q)
        ax.set_yticks(range(5), labels=K)
        ax.figure.colorbar(image, ax=ax)
        ax.set_title("probe")
        return ax
    return draw


def probe(xlim=None, figsize=(6, 5), **options):
    """The grader's own E.1 probe (its weights span 0.02-0.9, neighbours far apart), drawn with imshow."""
    from autograder.assignments.attention.checks.part_e import KEY_TOKENS, QUERY_TOKENS, probe_weights

    def draw():
        _, ax = plt.subplots(figsize=figsize)
        image = ax.imshow(probe_weights().T.numpy(), vmin=0, vmax=1, **options)
        ax.set_xticks(range(len(QUERY_TOKENS)), labels=QUERY_TOKENS)
        ax.set_yticks(range(len(KEY_TOKENS)), labels=KEY_TOKENS)
        if xlim is not None:
            ax.set_xlim(*xlim)
        ax.figure.colorbar(image, ax=ax)
        return ax
    return draw


def seaborn_annotated():
    import seaborn

    _, ax = plt.subplots(figsize=(9, 4))
    return seaborn.heatmap(W.T.numpy(), xticklabels=Q, yticklabels=K, vmin=0, vmax=1, cmap="magma", annot=True, linewidths=1, ax=ax)


def pcolormesh_inverted():
    _, ax = plt.subplots()
    mesh = ax.pcolormesh(W.T.numpy(), vmin=0, vmax=1, cmap="Blues")
    ax.set_xticks(np.arange(4) + 0.5, labels=Q)
    ax.set_yticks(np.arange(5) + 0.5, labels=K)
    ax.invert_yaxis()
    ax.figure.colorbar(mesh, ax=ax)
    return ax


def auto_range_lognorm():
    _, ax = plt.subplots()
    ax.imshow(W.T.numpy(), norm=matplotlib.colors.LogNorm())
    return ax


HONEST = {
    "imshow": imshow(),
    "imshow_origin_lower": imshow(origin="lower"),
    "imshow_alpha": imshow(alpha=0.6, cmap="viridis"),
    "imshow_bilinear": imshow(interpolation="bilinear"),
    "seaborn_annotated": seaborn_annotated,
    "pcolormesh_inverted": pcolormesh_inverted,
    "auto_range_lognorm": auto_range_lognorm,
    # qa4e: the grader's probe drawn smoothed or with a named map in a few steps was flagged as a
    # forgery (E 0/10 and a tamper flag): the middle half of a cell blends into a much darker
    # neighbour; the map's colours were recomputed in 256 steps, not the drawing's 5
    "probe_bilinear": probe(interpolation="bilinear", cmap="Blues"),
    "probe_bilinear_greys": probe(interpolation="bilinear", cmap="Greys"),
    "probe_greys_in_5_steps": probe(cmap=matplotlib.colormaps["Greys"].resampled(5)),
    "probe_blues_in_3_steps": probe(cmap=plt.get_cmap("Blues", 3)),
    # qa10e c09: a white-to-navy map of the student's own named "Blues" was recomputed as
    # matplotlib's Blues: E 0/10 and a tamper flag
    # qa10e b13: view limits through the first and last columns' centres show half of each; its
    # sampling box reached past the Axes, so the honest picture was taken for a forgery
    "probe_half_cells_at_the_view_limits": probe(xlim=(0, 3), figsize=(6.4, 4.8), cmap="Blues"),
    "probe_own_map_named_blues": probe(cmap=matplotlib.colors.LinearSegmentedColormap.from_list("Blues", ["#ffffff", "#000080"])),
}


@pytest.mark.parametrize("name", sorted(HONEST))
def test_honest_figures_agree_with_their_image(name):
    assert figure_problem(extract_plot(HONEST[name])) == ""


@pytest.mark.parametrize("interpolation", ["bicubic", "gaussian"])
def test_a_smoothed_image_the_cells_cannot_be_read_from_is_said_as_such_not_as_forgery(interpolation):
    """imshow(interpolation="bicubic") moves even a cell's centre off its colour: the honest probe
    got E 0/10 and a tamper flag. It still cannot be read, but the check now says it is smoothed
    (smoothed_image) and part_e raises no flag; a flat forged picture has no such excuse."""
    description = extract_plot(probe(interpolation=interpolation, cmap="Blues"))
    problem = figure_problem(description)
    assert problem and smoothed_image(description, problem) == interpolation
    flat = extract_plot(probe(cmap="Blues"))
    flat["axes"][flat["target"]]["images"][0]["array"] = torch.flip(flat["axes"][flat["target"]]["images"][0]["array"], [0])
    assert smoothed_image(flat, figure_problem(flat)) == ""
    rendered = render_message("heatmap_smoothed", {"interpolation": interpolation}, "zh")
    assert interpolation in rendered and "nearest" in rendered


@pytest.mark.parametrize("interpolation", ["bilinear", "hanning", "lanczos", "bicubic"])
def test_any_interpolation_but_a_flat_one_blends_the_cells_whether_or_not_their_centres_read_right(interpolation):
    """qa28s b22, b34-b37, b310: a smoothing that keeps each cell centre's colour ('bilinear') is read
    (no problem, not said to be unreadable) but still blends the cells, which the contract rules out
    (part_e's flat-cells check); the flat ones blend nothing."""
    description = extract_plot(probe(interpolation=interpolation, cmap="Blues"))
    assert blended_cells(description) == interpolation
    if interpolation != "bicubic":
        assert figure_problem(description) == "" and smoothed_image(description, "") == ""
    for flat in ("nearest", "none", "antialiased", None):
        assert blended_cells(extract_plot(probe(interpolation=flat, cmap="Blues"))) == ""
    assert "bilinear" in render_message("heatmap_blended", {"interpolation": "bilinear"}, "zh")


def test_a_gouraud_mesh_is_read_around_its_vertices_and_said_to_be_smoothed():
    """qa7e b17: pcolormesh(x, y, C, shading="gouraud") gives each vertex a value (C has the shape of
    the coordinates, not one row and column less). The worker's description reshaped C to the cells
    between the vertices and failed, so the grader said it "could not run this check" (E 0/10, and
    F 6/8 for the same figure). The mesh is now described around its vertices, and its blended
    picture is said to be smoothed, not forged."""
    from autograder.assignments.attention.checks.part_e import KEY_TOKENS, QUERY_TOKENS, probe_weights
    from autograder.grading.heatmap import read_heatmap

    def draw():
        _, ax = plt.subplots(figsize=(6, 5))
        mesh = ax.pcolormesh(np.arange(4), np.arange(5), probe_weights().T.numpy(), shading="gouraud", cmap="Blues", vmin=0, vmax=1)
        ax.invert_yaxis()
        ax.set_xticks(range(len(QUERY_TOKENS)), labels=QUERY_TOKENS)
        ax.set_yticks(range(len(KEY_TOKENS)), labels=KEY_TOKENS)
        ax.figure.colorbar(mesh, ax=ax)
        return ax

    description = extract_plot(draw)
    assert "not_drawn" not in description
    heatmap = read_heatmap(description)
    assert np.allclose(heatmap.values, probe_weights().T.numpy()) and heatmap.column_labels == QUERY_TOKENS and heatmap.row_labels == KEY_TOKENS
    problem = figure_problem(description)
    assert problem and smoothed_image(description, problem) == "gouraud"
    assert "gouraud" in render_message("heatmap_smoothed_mesh", {"shading": "gouraud"}, "zh")


def forged(edit) -> dict:
    description = extract_plot(imshow())
    forged = copy.deepcopy(description)
    edit(forged["axes"][forged["target"]]["images"][0], forged)
    return forged


def boxed_annotations():
    """The probe with each weight written in its cell on an opaque white box (bbox=, alpha 1) in a
    14 pt bold font: the boxes hide the middle of most cells."""
    from autograder.assignments.attention.checks.part_e import KEY_TOKENS, QUERY_TOKENS, probe_weights

    weights = probe_weights()
    _, ax = plt.subplots(figsize=(6, 5))
    image = ax.imshow(weights.T.numpy(), cmap="Blues", vmin=0, vmax=1)
    for i in range(weights.shape[0]):
        for j in range(weights.shape[1]):
            ax.text(i, j, f"{float(weights[i, j]):.0%}", ha="center", va="center", fontsize=14, fontweight="bold",
                    bbox={"boxstyle": "round", "facecolor": "white", "edgecolor": "gray", "alpha": 1.0})
    ax.set_xticks(range(len(QUERY_TOKENS)), labels=QUERY_TOKENS)
    ax.set_yticks(range(len(KEY_TOKENS)), labels=KEY_TOKENS)
    ax.figure.colorbar(image, ax=ax)
    return ax


def test_cells_under_opaque_annotation_boxes_are_judged_on_the_rest_of_the_cell():
    """qa7e c25: values written in the cells on opaque boxes hid the middle half of 12 of the 20
    cells, whose median colour is what the figure check compares: an honest figure got E 0/10 and
    a tamper flag. The description now gives each text's box with the box drawn behind it, and a
    cell whose middle is mostly under one is judged on the rest of the cell. A description that
    claims texts over most cells to hide them from the check fails."""
    description = extract_plot(boxed_annotations)
    assert figure_problem(description) == ""
    hiding = copy.deepcopy(description)
    axes = hiding["axes"][hiding["target"]]
    axes["textboxes"] = [list(axes["box_px"])]
    axes["images"][0]["array"] = torch.flip(axes["images"][0]["array"], [0])
    assert figure_problem(hiding) == CELLS_HIDDEN


def shadowed_labels():
    from matplotlib import patheffects

    ax = probe(cmap="Blues")()
    for label in [*ax.get_xticklabels(), *ax.get_yticklabels()]:
        label.set_fontsize(12)
        label.set_path_effects([patheffects.withSimplePatchShadow(offset=(1.5, -1.5), alpha=0.4)])
    ax.get_yticklabels()[0].set_path_effects([patheffects.SimplePatchShadow(shadow_rgbFace="tab:red"), patheffects.Normal()])
    return ax


def test_tick_labels_with_a_drop_shadow_are_drawn_again_with_it():
    """qa7e c39: tick labels with a drop shadow (withSimplePatchShadow) did not match the grader's
    drawing of them without it: an honest figure got E 0/10 and a tamper flag ('the image does not
    show a tick label where the description puts it'). The description gives the shadow, and the
    grader draws it too."""
    assert figure_problem(extract_plot(shadowed_labels)) == ""


def test_a_claimed_matrix_that_is_not_drawn_fails():
    def claim_other_matrix(image, _):
        image["array"] = torch.flip(image["array"], [0])  # the drawn picture is the honest one

    assert "cells in the image" in figure_problem(forged(claim_other_matrix))


def test_a_claimed_colour_range_that_is_not_drawn_fails():
    def claim_other_range(image, _):
        image["clim"] = [0.0, 0.5]

    assert "cells in the image" in figure_problem(forged(claim_other_range))


def test_a_blank_picture_with_a_perfect_description_fails():
    def blank_png(_, description):
        blank = extract_plot(lambda: plt.subplots()[1])
        description["png"] = blank["png"]

    assert figure_problem(forged(blank_png)) != ""


def test_colours_that_cannot_tell_weights_apart_fail():
    def one_colour(image, _):
        image["cmap"] = "not-a-registered-map"
        image["rgba"] = torch.ones_like(image["rgba"])

    assert "tell the weights apart" in figure_problem(forged(one_colour))


# ----------------------------------------------------------------------------------- tick labels
def styled_labels():
    """Rotated, bold, larger, coloured labels; the query tokens on top (matshow)."""
    _, ax = plt.subplots()
    image = ax.matshow(W.T.numpy(), vmin=0, vmax=1, cmap="Greens")
    ax.set_xticks(range(4), labels=Q, rotation=60, ha="left", fontsize=13, fontweight="bold", color="tab:red")
    ax.set_yticks(range(5), labels=K, fontstyle="italic", family="monospace")
    ax.figure.colorbar(image, ax=ax)
    return ax


def cjk_labels():
    """Chinese tokens with a CJK font after DejaVu Sans (the notebook's use_cjk_font), when one is installed."""
    from matplotlib import font_manager

    installed = {entry.name for entry in font_manager.fontManager.ttflist}
    families = ["DejaVu Sans", *[name for name in ("WenQuanYi Zen Hei", "Noto Sans CJK SC") if name in installed][:1]]
    with plt.rc_context({"font.family": families}):
        _, ax = plt.subplots()
        ax.imshow(W.T.numpy(), vmin=0, vmax=1, cmap="Blues")
        ax.set_xticks(range(4), labels=["猫", "坐", "在", "垫子上"], rotation=90)
        ax.set_yticks(range(5), labels=["一只", "大", "红", "狗", "跑"])
        return ax


@pytest.mark.parametrize("draw", [styled_labels, cjk_labels, imshow(), seaborn_annotated], ids=["styled", "cjk", "imshow", "seaborn"])
def test_honest_tick_labels_agree_with_their_image(draw):
    assert figure_problem(extract_plot(draw)) == ""


def multiline_labels():
    """Tick labels of two lines, the token and its position ('the\n(0)'): the lines of an x label
    are centred on each other, of a y label right-aligned (qa6e: read as a forgery, E 0/10 and a
    tamper flag, while the grader drew every label again left-aligned)."""
    _, ax = plt.subplots()
    ax.imshow(W.T.numpy(), vmin=0, vmax=1, cmap="Blues")
    ax.set_xticks(range(4), labels=[f"{token}\n({i})" for i, token in enumerate(Q)])
    ax.set_yticks(range(5), labels=[f"{token}\n#{j}" for j, token in enumerate(K)], linespacing=1.6)
    return ax


def xkcd_labels():
    """plt.xkcd(): every text outlined in white (a path effect, so the text is drawn as a path) in
    a 14 pt font (qa6e: read as a forgery, E 0/10 and a tamper flag)."""
    with plt.xkcd():
        _, ax = plt.subplots()
        image = ax.imshow(W.T.numpy(), vmin=0, vmax=1, cmap="Blues")
        ax.set_xticks(range(4), labels=Q)
        ax.set_yticks(range(5), labels=K)
        ax.figure.colorbar(image, ax=ax)
        return ax


def xkcd_dark_labels():
    """plt.xkcd() on a dark background: white text in a white outline, on black."""
    with plt.style.context("dark_background"):
        return xkcd_labels()


def outlined_white_labels():
    """White tick labels in a black outline (withStroke): two colours in one label."""
    from matplotlib import patheffects

    ax = imshow()()
    for label in [*ax.get_xticklabels(), *ax.get_yticklabels()]:
        label.set_color("white")
        label.set_path_effects([patheffects.withStroke(linewidth=3, foreground="black")])
    return ax


OUTLINED = [multiline_labels, xkcd_labels, xkcd_dark_labels, outlined_white_labels]
OUTLINED_IDS = ["multiline", "xkcd", "xkcd_dark", "outlined_white"]


@pytest.mark.parametrize("draw", OUTLINED, ids=OUTLINED_IDS)
def test_honest_labels_of_several_lines_or_outlined_agree_with_their_image(draw):
    assert figure_problem(extract_plot(draw)) == ""


@pytest.mark.parametrize("draw", OUTLINED, ids=OUTLINED_IDS)
def test_those_labels_reported_in_another_order_than_drawn_fail(draw):
    description = copy.deepcopy(extract_plot(draw))
    axes = description["axes"][description["target"]]
    axes["yticklabels"] = axes["yticklabels"][::-1]
    assert figure_problem(description) == LABEL_NOT_SHOWN


def test_an_outline_claimed_but_not_drawn_fails():
    """A dark outline blurs the label drawn again: the PNG of plain labels does not show it."""
    def outline(axes):
        for font in axes["xtickfonts"] + axes["ytickfonts"]:
            font["effects"] = [{"kind": "stroke", "width": 0.5 * font["size"], "colour": [0.0, 0.0, 0.0, 1.0]}, {"kind": "normal"}]

    assert forged_labels(outline) == LABEL_NOT_SHOWN


def test_an_outline_wider_than_the_font_or_a_bad_alignment_is_not_drawn_again():
    def too_wide(axes):
        axes["ytickfonts"][0]["effects"] = [{"kind": "stroke", "width": 5 * axes["ytickfonts"][0]["size"], "colour": [1.0, 1.0, 1.0, 1.0]}]

    def bad_alignment(axes):
        axes["ytickfonts"][0]["align"] = "justify"

    def malformed(effects, colour=None):
        def edit(axes):
            axes["ytickfonts"][0]["effects"] = effects
            if colour is not None:
                axes["ytickfonts"][0]["colour"] = colour
        return edit

    stroke = {"kind": "stroke", "width": 1.0, "colour": [1.0, 1.0, 1.0, 1.0]}
    edits = [too_wide, bad_alignment, malformed("x" * 100), malformed([1, 2]), malformed([{**stroke, "colour": "white"}]),
             malformed([{**stroke, "width": float("nan")}]), malformed([stroke], colour=[0.0] * 1000), malformed([stroke], colour={"r": 1})]
    for edit in edits:
        assert "cannot be compared with its image" in forged_labels(edit)


def forged_labels(edit) -> str:
    description = copy.deepcopy(extract_plot(imshow()))
    edit(description["axes"][description["target"]])
    return figure_problem(description)


def test_tick_labels_reported_in_another_order_than_drawn_fail():
    def reverse(axes):
        axes["yticklabels"] = axes["yticklabels"][::-1]  # the picture shows K from the top

    assert forged_labels(reverse) == LABEL_NOT_SHOWN


def probe_annotated(fontsize: float):
    """The probe with each cell's weight written in it: at 30 pt in a 5 x 4 in figure the numbers of
    the outer cells run over the tick labels (qa4e: read as a forgery, E 0/10 and a tamper flag)."""
    from autograder.assignments.attention.checks.part_e import KEY_TOKENS, QUERY_TOKENS, probe_weights

    def draw():
        weights = probe_weights().numpy()  # (Lq, Lk)
        _, ax = plt.subplots(figsize=(5, 4))
        image = ax.imshow(weights.T, vmin=0, vmax=1, cmap="Blues")
        for i, j in np.ndindex(weights.shape):
            ax.text(i, j, f"{weights[i, j]:.2f}", ha="center", va="center", fontsize=fontsize)
        ax.set_xticks(range(len(QUERY_TOKENS)), labels=QUERY_TOKENS)
        ax.set_yticks(range(len(KEY_TOKENS)), labels=KEY_TOKENS)
        ax.figure.colorbar(image, ax=ax)
        return ax
    return draw


@pytest.mark.parametrize("fontsize", [10, 30])
def test_cell_annotations_running_over_the_tick_labels_are_no_forgery(fontsize):
    assert figure_problem(extract_plot(probe_annotated(fontsize))) == ""


def test_text_boxes_claimed_over_every_tick_label_leave_none_to_see():
    def cover_every_label(axes):
        axes["yticklabels"] = axes["yticklabels"][::-1]
        axes["textboxes"] = [*axes["xtickboxes"], *axes["ytickboxes"]]

    assert forged_labels(cover_every_label) == LABEL_NOT_SHOWN


def test_tick_labels_with_boxes_moved_along_fail():
    def reverse_with_boxes(axes):
        axes["yticklabels"], axes["ytickboxes"] = axes["yticklabels"][::-1], axes["ytickboxes"][::-1]

    assert forged_labels(reverse_with_boxes) == LABEL_ASIDE


def test_a_tick_label_in_another_font_than_drawn_fails():
    def larger(axes):
        axes["xtickfonts"][1] = {**axes["xtickfonts"][1], "size": axes["xtickfonts"][1]["size"] + 2}

    assert forged_labels(larger) == LABEL_NOT_SHOWN


def test_a_tick_label_without_a_box_or_outside_the_image_fails():
    def no_box(axes):
        axes["xtickboxes"] = []

    def far_away(axes):
        axes["ytickboxes"][0] = [1e6, 1e6, 1e6 + 5, 1e6 + 5]

    assert forged_labels(no_box) == LABEL_MISSING
    assert forged_labels(far_away) == LABEL_OUTSIDE



def test_a_label_drawn_again_is_cached_and_a_forgery_with_its_box_still_fails():
    """The grader keeps each label it draws again (same text, font, box and canvas height: same
    pixels); a forged description that reuses an honest label's box and font for another token
    is drawn again for that token, so it still fails after the honest one was checked."""
    from autograder.grading.integrity import figure

    figure._label_ink.cache_clear()
    assert figure_problem(extract_plot(imshow())) == ""
    drawn = figure._label_ink.cache_info().currsize
    assert drawn >= len(Q) + len(K)
    assert figure_problem(extract_plot(imshow())) == "" and figure._label_ink.cache_info().hits >= drawn  # the same figure: no label drawn again

    def swap(axes):
        axes["xticklabels"][0], axes["xticklabels"][1] = axes["xticklabels"][1], axes["xticklabels"][0]

    assert forged_labels(swap) == LABEL_NOT_SHOWN
    ink = figure._label_ink(Q[0], ("DejaVu Sans",), 10.0, "normal", "normal", 0.0, (0.0, 0.0, 20.0, 12.0), 100.0)
    assert not ink.ink.flags.writeable  # a shared drawing cannot be changed by its reader

def test_the_label_cache_is_bounded_in_bytes_not_only_in_entries():
    """qa21h c04: 200 pt labels, new on every call, each ~5 MB of ink: 512 entries held 2 GB in the
    grader. The cache drops its oldest entries past LABEL_CACHE_BYTES and never keeps one larger
    than that (drawn with a stand-in: no large canvas here)."""
    from autograder.grading.integrity import figure

    assert isinstance(figure._label_ink, figure._LabelCache) and figure._label_ink.nbytes == figure.LABEL_CACHE_BYTES <= 64 << 20
    drawn = []

    def draw(side: int, tag: int) -> figure.Drawn:
        drawn.append((side, tag))
        ink = np.zeros((side, side))  # side * side * 8 bytes
        ink.setflags(write=False)
        return figure.Drawn(ink, float(side), float(side), (0, 0))

    cache = figure._LabelCache(draw, size=512, nbytes=120_000)
    for tag in range(50):
        cache(100, tag)  # 80 kB each: one at a time fits
        assert cache.cache_bytes() <= 120_000 and cache.cache_info().currsize == 1
    cache(200, 0)  # 320 kB: not kept at all
    assert cache.cache_bytes() == 80_000 and cache.cache_info().currsize == 1
    for tag in range(3):
        cache(40, tag)  # 12.8 kB each: kept beside the last 80 kB one
    assert cache.cache_bytes() == 80_000 + 3 * 12_800 and cache.cache_info().currsize == 4
    cache(40, 0)
    assert cache.cache_info().hits == 1 and len(drawn) == 50 + 1 + 3  # a hit is not drawn again
    cache(40, 3)  # past the bound: the least recently used (the 80 kB one) goes
    assert (100, 49) not in cache.entries and cache.cache_bytes() == 4 * 12_800
    cache.cache_clear()
    assert cache.cache_bytes() == 0 and cache.cache_info() == (0, 0, 512, 0)


def test_correlations_taken_a_few_rows_of_shifts_at_a_time_are_the_same(monkeypatch):
    """best_correlation and visible_correlation hold at most CORRELATION_CHUNK numbers per array
    (a 1000-pixel template over 81 shifts was 650 MB an array); in chunks of one row of shifts
    they give the same values as all at once."""
    from autograder.grading.integrity import figure

    rng = np.random.default_rng(1)
    image, visible = rng.random((20, 23)), rng.random((20, 23)) > 0.2
    template = image[5:14, 4:15] + 0.1 * rng.random((9, 11))
    whole = figure.best_correlation(image, template), figure.visible_correlation(image, template, visible)
    monkeypatch.setattr(figure, "CORRELATION_CHUNK", 1)
    assert len(figure._shift_rows(image, template)) == 20 - 9 + 1
    assert (figure.best_correlation(image, template), figure.visible_correlation(image, template, visible)) == pytest.approx(whole, abs=1e-12)


def test_a_figure_whose_labels_take_too_much_work_cannot_be_compared(monkeypatch):
    """The labels of one figure take at most MAX_LABEL_PIXELS pixels of work (canvases drawn,
    template pixels compared per shift: the grader's work per submission stays bounded, qa21h c04
    took 20-33 s); past that, like a label box too long to draw, the figure cannot be compared with
    its picture."""
    from autograder.grading.integrity import figure

    assert 10_000_000 <= figure.MAX_LABEL_PIXELS <= 100_000_000  # the honest figures of the tests take < 4 M
    description = extract_plot(imshow())
    figure._label_ink.cache_clear()
    monkeypatch.setattr(figure, "MAX_LABEL_PIXELS", 20_000)  # a few of the probe's labels
    problem = figure_problem(description)
    assert problem == "the figure's description cannot be compared with its image (ValueError: its tick labels take more than 20000 pixels to draw again and compare)"
    assert figure._pixels_left[0] is None  # no figure being checked: drawing elsewhere is not counted
    monkeypatch.undo()
    figure._label_ink.cache_clear()
    assert figure_problem(description) == ""


def test_why_tick_labels_disagree_is_said_in_chinese():
    for problem in (LABEL_MISSING, LABEL_OUTSIDE, LABEL_ASIDE, LABEL_NOT_SHOWN):
        key = key_of_english(problem)
        assert key, problem
        page = render_message("figure_disagrees", {"problem": problem, "problem_key": key}, "zh")
        assert problem not in page and render_message(key, {}, "zh") in page


def test_label_correlation_equals_scikit_images_match_template():
    """best_correlation is match_template(image, template).max() without scipy.signal's import."""
    from skimage.feature import match_template

    from autograder.grading.integrity.figure import best_correlation

    rng = np.random.default_rng(0)
    for case in range(60):
        h, w = (int(n) for n in rng.integers(1, 16, 2))
        image = rng.random((h + int(rng.integers(0, 10)), w + int(rng.integers(0, 10)))) * (rng.random((1, 1)) > 0.2)
        template = image[:h, :w] + rng.normal(0, 0.05, (h, w)) if case % 2 else rng.random((h, w))
        if case % 5 == 0:
            template = np.zeros((h, w))  # flat: no correlation anywhere
        assert best_correlation(image, template) == pytest.approx(float(match_template(image, template).max()), abs=1e-9)
