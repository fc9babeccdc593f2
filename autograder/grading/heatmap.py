"""Heatmaps on the grader's side: reading what `plot_attention` drew, and comparing renders.

Reading. `autograder.grading.worker.plotdata` describes a figure as plain data: per Axes its images
(imshow: array, extent, origin) and meshes (pcolormesh / seaborn.heatmap: array, cell edges),
ticks, tick labels and limits. `read_heatmap` turns the target Axes into a `Heatmap`: a grid of
cells in display order (columns left to right, rows top to bottom), each with its value, and the
tick label that sits under each column and beside each row. Every way of drawing the same picture
(imshow with any origin or extent, seaborn, pcolormesh, inverted axes) gives the same `Heatmap`.

The description comes from the student's process, so it is untrusted: `read_heatmap` checks its
types and sizes (MAX_* below: the work it does is bounded whatever arrives) and turns anything
malformed or too large into UnreadablePlot.

Comparing. `render` draws a matrix with the kit's pinned renderer (`autograder.grading.plotting`) and
notes where the cells are; `similarity(render_a, render_b)` is the mean SSIM (scikit-image's) of the
cell areas of two such renders in grayscale, resampled to a fixed size. `figure_similarity` is the
SSIM of two whole figures drawn by the same plotting code (Part F). The layout of a render depends
only on the shape, tokens and title, so the cells are the only pixels that change.
SIMILARITY_THRESHOLD is calibrated (CALIBRATION below; tests/test_heatmap.py re-measures it).
"""
from __future__ import annotations

import io
import math
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np
import torch

from autograder.errors import AttnkitError
from autograder.grading.worker.protocol import NEW_AXES  # noqa: F401  (checks ask for a fresh Axes with it)
from autograder.grading.worker.protocol import NOT_DRAWN_FIGURE, NOT_DRAWN_TEXT
from autograder.settings import PLOT_MAX_CELLS as MAX_CELLS
from autograder.settings import PLOT_MAX_DRAWINGS as MAX_DRAWINGS
from autograder.settings import PLOT_MAX_LABEL_CHARS as MAX_LABEL_CHARS
from autograder.settings import PLOT_MAX_PNG_BYTES as MAX_PNG_BYTES  # noqa: F401  (the checks keep at most this)
from autograder.settings import PLOT_MAX_PNG_PIXELS as MAX_PNG_PIXELS
from autograder.settings import PLOT_MAX_SIDE as MAX_SIDE
from autograder.settings import PLOT_MAX_TICKS as MAX_TICKS

CELL_TOLERANCE = 0.25  # a tick belongs to a column/row when within this fraction of a cell of its centre
SSIM_SIZE = 128  # the cells of both renders are resampled to SSIM_SIZE x SSIM_SIZE grayscale
SSIM_WINDOW = 7
# Why a figure past the bounds cannot be read (argument-free: checks/texts.py translates them).
TOO_LARGE = f"the heatmap is too large to read: at most {MAX_SIDE} rows or columns and {MAX_CELLS} cells"
TOO_MANY_DRAWINGS = f"the Axes holds more than {MAX_DRAWINGS} images and meshes: draw the heatmap once"
BAD_EDGES = f"the heatmap's cell edges are malformed or more than {MAX_SIDE + 1}"

# CALIBRATION (tests/test_heatmap.py::test_calibration_*, run with -s to print the figures).
# similarity() between the pinned render of a reference-model attention map (sentences 1-2 of the
# Part F probe, both heads: 4 maps) and the pinned render of the same map computed
#   (a) correctly in another way: float64 instead of float32 -> 1.0000 (pixel-identical);
#       every weight + up to 1e-3 noise -> 0.9997-0.9999 (+ up to 0.02: 0.996-0.997, shown only);
#       a correct student figure (seaborn/viridis, imshow/magma 9x4 in, pcolormesh) read back by
#       read_heatmap and re-rendered -> 1.0000;
#   (b) by a wrong block with the reference weights: scores not scaled 0.919-0.929, scaled by
#       sqrt(E) instead of sqrt(Dh) 0.982-0.991, pre-norm block 0.856-0.945; the map transposed
#       0.552-0.629.
# The threshold sits between the groups: above the closest wrong map (0.991), below every correct
# render with room for small renderer differences. Raw student figures are not compared by
# pixels with the kit's render: a correct figure in another style scores only 0.12-0.20 against it
# (whole-image SSIM), below the transposed map, so Part E grades what the figure holds instead.
# Part F compares a student's figure with the same plot_attention's figure of the reference map
# (figure_similarity; its threshold and calibration are in autograder/assignments/attention/checks/part_f.py).
SIMILARITY_THRESHOLD = 0.997


class UnreadablePlot(AttnkitError):
    """The drawing cannot be read as a heatmap; the text says why, in the student's terms (`key`
    and `values`: the message's key in the assignment's texts, where the text has arguments)."""

    def __init__(self, text: str, key: str = "", values: dict[str, str] | None = None) -> None:
        super().__init__(text)
        self.key, self.values = key, values or {}


class FigureNotDrawn(AttnkitError):
    """The worker's drawing code failed on a figure for a reason of the kit's own (not the student's)."""


CELLS_OUT_OF_VIEW = "the Axes' limits (set_xlim / set_ylim) leave {columns} of the heatmap's {total_columns} columns and {rows} of its {total_rows} rows off the picture: show every cell (leave the limits to imshow, or set them to the edges of the cells)"
TEXT_NOT_DRAWN = "your figure cannot be drawn: one of its texts holds a character that cannot be encoded (a lone surrogate such as \\ud800), which no font can draw"
FIGURE_TOO_LARGE = "your figure's picture is {width}x{height} pixels, more than the grader reads ({limit} pixels; a heatmap of a few dozen tokens needs far fewer): keep figsize moderate and draw nothing far from the Axes"
FIGURE_NOT_DRAWABLE = "matplotlib cannot draw your figure ({error}); plt.show() and savefig fail the same way: fix what that error names"


# ---------------------------------------------------------------------------------------------
# reading a plot description
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Heatmap:
    """A heatmap as seen on screen.

    values (rows, cols): rows top to bottom, columns left to right;
    column_labels / row_labels: the tick label at each column / row centre ('' when none);
    x_tick_labels / y_tick_labels: every label on the horizontal / vertical axis, wherever its tick
    sits (a label between two cells is on the axis but under no column or row);
    clim: the colour range (None where unset); colorbar: a colorbar reads the drawing (its own, or
    one made from a mappable with the same colours and range); colorbar_elsewhere: the figure has
    a colorbar, but of other colours or another range (a ScalarMappable with another cmap).
    """

    kind: str  # "image" or "mesh"
    values: np.ndarray
    column_labels: tuple[str, ...]
    row_labels: tuple[str, ...]
    clim: tuple[float | None, float | None]
    colorbar: bool
    cmap: str
    x_tick_labels: tuple[str, ...] = ()
    y_tick_labels: tuple[str, ...] = ()
    colorbar_elsewhere: bool = False

    @property
    def shape(self) -> tuple[int, int]:
        return (int(self.values.shape[0]), int(self.values.shape[1]))

    def by_labels(self) -> dict[tuple[str, str], float]:
        """{(column label, row label): value} for the cells whose column and row are labelled."""
        cells = {}
        for r, row_label in enumerate(self.row_labels):
            for c, column_label in enumerate(self.column_labels):
                if row_label and column_label:
                    cells[(column_label, row_label)] = float(self.values[r, c])
        return cells


def _array(value: Any) -> np.ndarray:
    if isinstance(value, torch.Tensor):
        return value.detach().to(torch.float64).numpy()
    return np.asarray(value, dtype=np.float64)


def _centres(edges: np.ndarray) -> np.ndarray:
    return (edges[:-1] + edges[1:]) / 2.0


def _image_grid(image: dict) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(array (rows, cols), column centres x, row centres y) of an imshow image, in data units."""
    array = _array(image["array"])
    if array.ndim == 2 and 0 in array.shape:
        raise UnreadablePlot("the heatmap is empty")
    if array.ndim != 2:
        raise UnreadablePlot(
            "the heatmap is drawn as an RGB(A) picture, so its values cannot be read: pass the weight "
            "matrix itself to imshow (with cmap=...), not colours"
        )
    rows, cols = array.shape
    left, right, bottom, top = (float(v) for v in image["extent"])
    x = left + (np.arange(cols) + 0.5) * (right - left) / cols
    if image.get("origin", "upper") == "upper":  # row 0 at `top`
        y = top + (np.arange(rows) + 0.5) * (bottom - top) / rows
    else:  # row 0 at `bottom`
        y = bottom + (np.arange(rows) + 0.5) * (top - bottom) / rows
    return array, x, y


def _mesh_grid(mesh: dict) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    for edges in (mesh["x_edges"], mesh["y_edges"]):
        if len(edges) > MAX_SIDE + 1:
            raise UnreadablePlot(BAD_EDGES)
    array = _array(mesh["array"])
    if array.ndim != 2:
        raise UnreadablePlot("the heatmap mesh holds colours, not values: pass the weight matrix itself")
    return array, _centres(_array(mesh["x_edges"])), _centres(_array(mesh["y_edges"]))


def _drawings(axes: dict) -> list[tuple[str, dict]]:
    drawings = [("image", i) for i in axes.get("images", [])] + [("mesh", m) for m in axes.get("meshes", [])]
    if len(drawings) > MAX_DRAWINGS:
        raise UnreadablePlot(TOO_MANY_DRAWINGS)
    for _, drawing in drawings:
        _check_size(drawing.get("array"))
    return drawings


def _check_size(array: Any) -> None:
    """Refuse a drawing larger than the bounds before any work on it (it came from the worker)."""
    shape = tuple(array.shape) if isinstance(array, torch.Tensor) else np.shape(_array(array))  # lists: bounded by the JSON limit
    if math.prod(shape) > MAX_CELLS or any(side > MAX_SIDE for side in shape):
        raise UnreadablePlot(TOO_LARGE)


def _labels_at(centres: np.ndarray, ticks: Sequence[float], labels: Sequence[str], cell: float) -> tuple[str, ...]:
    """The tick label at each centre ('' when no labelled tick lies within CELL_TOLERANCE of a cell):
    the first labelled tick in the list that is close enough. At most MAX_SIDE x MAX_TICKS work."""
    return tuple(labels[i].strip() if i >= 0 else "" for i in label_indices(centres, ticks, labels, cell))


def label_indices(centres: np.ndarray, ticks: Sequence[float], labels: Sequence[str], cell: float) -> list[int]:
    """The index (into ticks and labels) of the label `_labels_at` reads at each centre; -1 where none."""
    labelled = [i for i, (_, text) in enumerate(zip(ticks, labels)) if text.strip()]
    if not labelled:
        return [-1] * len(centres)
    positions = np.array([float(ticks[i]) for i in labelled])  # (T,)
    close = np.abs(positions[None, :] - np.asarray(centres, dtype=np.float64)[:, None]) <= CELL_TOLERANCE * cell  # (C, T)
    first = close.argmax(axis=1)  # (C,) the first close tick, 0 where none
    return [labelled[f] if close[c, f] else -1 for c, f in enumerate(first)]


def _cell_size(centres: np.ndarray) -> float:
    return float(np.abs(np.diff(centres)).min()) if centres.size > 1 else 1.0


def _colorbar_maps(description: dict) -> list[dict | None]:
    """What each colorbar of the figure shows (None: unknown); a description that does not say
    (one from before colorbar_maps) has one unknown entry per colorbar."""
    maps = description.get("colorbar_maps")
    if isinstance(maps, list):
        return maps[:8]
    return [None] * min(int(description.get("colorbars", 0)), 8)


def _reads(drawing: dict, shown: dict | None) -> bool:
    """Whether a colorbar that shows `shown` reads the drawing: the same colours at both ends of its
    colour map and the same range (a ScalarMappable made with the drawing's cmap and norm does;
    one in Reds beside a map in Blues does not, qa9e b03). Unknown: it does."""
    if shown is None:
        return True
    ends, clim = drawing.get("cmap_ends"), drawing.get("clim")
    if not isinstance(ends, list) or not isinstance(clim, list):
        return True  # the drawing does not say which colours it uses: nothing to hold against it
    same_ends = np.allclose(np.asarray(shown["cmap_ends"], dtype=np.float64), np.asarray(ends, dtype=np.float64), atol=1e-6)
    same_range = all(
        (mine is None and theirs is None) or (mine is not None and theirs is not None and abs(float(mine) - float(theirs)) <= 1e-9)
        for mine, theirs in zip(shown["clim"], clim)
    )
    return bool(same_ends and same_range)


def png_size(png: Any) -> tuple[int, int]:
    """(width, height) of a PNG (bytes or a uint8 tensor) from its header, without decoding it;
    (0, 0) when it has no PNG header (its decoder then says what is wrong)."""
    head = bytes(png[:24].tolist()) if isinstance(png, torch.Tensor) else bytes(png[:24])
    if len(head) < 24 or head[:8] != b"\x89PNG\r\n\x1a\n" or head[12:16] != b"IHDR":
        return 0, 0
    return int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big")


def refuse_large_png(png: Any) -> None:
    """UnreadablePlot when a picture is not a PNG (the worker saves PNGs: another format is a
    forged description, which Pillow would decode whatever its size: qa20h's 10 kB TIFF of
    13,000 pixels a side took 6 GB) or has more pixels than the grader decodes (a dot drawn far
    away grows the tight box: 11,000 pixels a side is 0.5 MB of PNG and gigabytes decoded)."""
    if len(png) and png_size(png) == (0, 0):
        raise UnreadablePlot("the description of your figure is malformed (its picture is not a PNG image)")
    width, height = png_size(png)
    if width * height > MAX_PNG_PIXELS:
        said = {"width": str(width), "height": str(height), "limit": f"{MAX_PNG_PIXELS:,}"}
        raise UnreadablePlot(FIGURE_TOO_LARGE.format(**said), "plot_picture_too_large", said)


def read_heatmap(description: Any, in_view: bool = True) -> Heatmap:
    """The heatmap on the Axes the plotting function returned (`target`), in display order.
    in_view: refuse one whose view limits leave cells off the picture (Part E grades the picture;
    Part F reads the values the drawing holds)."""
    try:
        return _read(description, in_view)
    except UnreadablePlot:
        raise
    except (KeyError, TypeError, ValueError, IndexError, AttributeError, RuntimeError) as error:
        raise UnreadablePlot(f"the description of your figure is malformed ({type(error).__name__}); was the plotting code patched?") from None


def returned_axes(description: Any) -> bool:
    """Whether the plotting function returned the Axes its heatmap is on (not a Figure, None, or
    another Axes of the figure such as the colorbar's: the description's `returned_target`)."""
    return isinstance(description, dict) and description.get("returned") in ("Axes", "AxesSubplot") and description.get("returned_target", True) is not False


def target_axes(description: Any) -> dict:
    """The description of the Axes that the plotting function returned."""
    not_drawn = description.get("not_drawn") if isinstance(description, dict) else None
    if not_drawn == NOT_DRAWN_TEXT:
        raise UnreadablePlot(TEXT_NOT_DRAWN)
    if not_drawn == NOT_DRAWN_FIGURE:  # matplotlib's own plain draw fails too: the figure is the student's
        said = {"error": str(description.get("error", ""))[:300]}
        raise UnreadablePlot(FIGURE_NOT_DRAWABLE.format(**said), "plot_not_drawable", said)
    if not_drawn is not None:  # the kit's drawing failed: an internal error, never the student's
        raise FigureNotDrawn(f"the grader could not draw the figure ({str(not_drawn)[:300]})")
    axes_list = description.get("axes", []) if isinstance(description, dict) else []
    target = description.get("target", -1) if isinstance(description, dict) else -1
    if not isinstance(axes_list, list) or not axes_list or not isinstance(target, int) or not 0 <= target < len(axes_list):
        raise UnreadablePlot("nothing was drawn: your function must draw on a matplotlib Axes and return it")
    axes = axes_list[target]
    if not isinstance(axes, dict):
        raise UnreadablePlot("the description of your figure is malformed")
    return axes


def _read(description: dict, in_view: bool = True) -> Heatmap:
    refuse_large_png(description.get("png", b""))
    axes = target_axes(description)
    drawings = _drawings(axes)
    if not drawings:
        raise UnreadablePlot(
            "the Axes your function returned holds no heatmap: draw with ax.imshow(...) or "
            "seaborn.heatmap(..., ax=ax) on that Axes"
        )
    kind, drawing = max(drawings, key=lambda d: _array(d[1]["array"]).size)
    array, x, y = _image_grid(drawing) if kind == "image" else _mesh_grid(drawing)
    if array.shape != (y.size, x.size):
        raise UnreadablePlot("the heatmap's cells and its grid do not agree")
    if in_view:
        _expect_in_view(x, y, axes)
    # Display order: columns by increasing screen x, rows from the top of the screen down.
    x_left_to_right = float(axes["xlim"][0]) <= float(axes["xlim"][1])
    y_up = float(axes["ylim"][0]) <= float(axes["ylim"][1])  # True: larger y is higher on screen
    column_order = np.argsort(x if x_left_to_right else -x, kind="stable")
    row_order = np.argsort(-y if y_up else y, kind="stable")
    values = array[np.ix_(row_order, column_order)]
    columns, rows = x[column_order], y[row_order]
    xticks, xlabels = _ticks(axes, "x")
    yticks, ylabels = _ticks(axes, "y")
    column_labels = _labels_at(columns, xticks, xlabels, _cell_size(columns))
    row_labels = _labels_at(rows, yticks, ylabels, _cell_size(rows))
    low, high = drawing.get("clim", [None, None])
    colorbar = bool(drawing.get("colorbar")) or any(_reads(drawing, shown) for shown in _colorbar_maps(description))
    return Heatmap(
        kind=kind,
        values=values,
        column_labels=column_labels,
        row_labels=row_labels,
        clim=(None if low is None else float(low), None if high is None else float(high)),
        colorbar=colorbar,
        colorbar_elsewhere=not colorbar and int(description.get("colorbars", 0)) > 0,
        cmap=str(drawing.get("cmap", "")),
        x_tick_labels=tuple(label.strip() for label in xlabels if label.strip()),
        y_tick_labels=tuple(label.strip() for label in ylabels if label.strip()),
    )


def _expect_in_view(x: np.ndarray, y: np.ndarray, axes: dict) -> None:
    """Refuse a heatmap whose view limits (set_xlim / set_ylim) leave cells out: a cell whose centre
    lies outside them is not on screen (qa10e b13: ax.set_xlim(-0.5, Lq - 1.5) hid the last query,
    and the picture, which does not show that column, was taken for a forgery of its description)."""
    hidden = []
    for centres, limits in ((x, axes["xlim"]), (y, axes["ylim"])):
        low, high = sorted(float(v) for v in limits)
        slack = 1e-6 * _cell_size(centres)
        hidden.append(int(((centres < low - slack) | (centres > high + slack)).sum()))
    if any(hidden):
        said = {"columns": str(hidden[0]), "total_columns": str(x.size), "rows": str(hidden[1]), "total_rows": str(y.size)}
        raise UnreadablePlot(CELLS_OUT_OF_VIEW.format(**said), "cells_out_of_view", said)


def _ticks(axes: dict, axis: str) -> tuple[list[float], list[str]]:
    ticks = [float(t) for t in axes[f"{axis}ticks"][:MAX_TICKS]]
    labels = [str(t)[:MAX_LABEL_CHARS] for t in axes[f"{axis}ticklabels"][:MAX_TICKS]]
    return ticks, labels


def orientations(matrix: np.ndarray) -> dict[str, np.ndarray]:
    """The four ways one (rows, cols) grid can be flipped, by name."""
    return {
        "as drawn": matrix,
        "flipped vertically": matrix[::-1, :],
        "flipped horizontally": matrix[:, ::-1],
        "flipped both ways": matrix[::-1, ::-1],
    }


# A 256-colour map draws values closer than half its step in one colour: a grid that holds the
# weights that closely shows them, cast to float16 or bfloat16 on the way or not.
SHOWN_ATOL = 0.5 / 256


def shows_values(grid: np.ndarray, expected: np.ndarray) -> bool:
    """Whether `grid` holds `expected`, value for value, as closely as a colour map can show."""
    return grid.shape == expected.shape and bool(np.allclose(grid, expected, rtol=0.0, atol=SHOWN_ATOL))


def shows_matrix(heatmap: Heatmap, expected: np.ndarray) -> bool:
    """Whether the grid shows `expected` (rows, cols) in some flip of its axes (ticks aside)."""
    return any(shows_values(grid, expected) for grid in orientations(heatmap.values).values())


# ---------------------------------------------------------------------------------------------
# rendering and comparing renders
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Render:
    """A PNG of the kit's pinned renderer and where its heatmap cells are: box = (left, top,
    right, bottom) in pixels. The box depends only on the shape, tokens and title."""

    png: bytes
    box: tuple[int, int, int, int]


def render(matrix: Any, query_tokens: Sequence[str], key_tokens: Sequence[str], title: str = "") -> Render:
    """One (Lq, Lk) map drawn by autograder.grading.plotting (queries across, keys down, range [0, 1])."""
    from autograder.grading.plotting import figure_png, heatmap_figure

    figure = heatmap_figure(matrix, query_tokens, key_tokens, title, reuse=True)
    png = figure_png(figure)  # draws the figure, so the axes position below is final
    extent = figure.axes[0].get_window_extent()
    height = figure.bbox.height
    box = (round(extent.x0), round(height - extent.y1), round(extent.x1), round(height - extent.y0))
    return Render(png=png, box=(int(box[0]), int(box[1]), int(box[2]), int(box[3])))


def png_gray(
    png: bytes, box: tuple[int, int, int, int] | None = None, size: int | None = SSIM_SIZE,
    shape: tuple[int, ...] | None = None,
) -> np.ndarray:
    """A PNG (cropped to `box`) as a float64 grayscale array in [0, 1]: (size, size), area-averaged;
    at its own size when size is None, resized to (rows, cols) = shape when that is given."""
    from PIL import Image

    try:
        refuse_large_png(png)
        with Image.open(io.BytesIO(png), formats=["PNG"]) as image:
            rgba = image.convert("RGBA")
            flat = Image.alpha_composite(Image.new("RGBA", rgba.size, (255, 255, 255, 255)), rgba).convert("L")
            if box is not None:
                flat = flat.crop(box)
            if shape is not None and (flat.height, flat.width) != tuple(shape):
                flat = flat.resize((shape[1], shape[0]), Image.Resampling.BOX)
            elif shape is None and size is not None:
                flat = flat.resize((size, size), Image.Resampling.BOX)
    except Exception as error:  # noqa: BLE001 - any decoding problem is a bad image
        raise AttnkitError(f"not a readable PNG image ({type(error).__name__}: {error})") from None
    return np.asarray(flat, dtype=np.float64) / 255.0


def ssim(a: np.ndarray, b: np.ndarray, window: int = SSIM_WINDOW) -> float:
    """Mean structural similarity (Wang et al. 2004) of two same-shaped grayscale images in [0, 1]:
    scikit-image's, with a uniform window x window filter and population (co)variances."""
    from skimage.metrics import structural_similarity  # imports scipy.ndimage (~0.5 s): only when needed

    if a.shape != b.shape:
        raise ValueError(f"images of different shapes {a.shape} and {b.shape}")
    return float(structural_similarity(a, b, win_size=window, data_range=1.0, use_sample_covariance=False))


def similarity(a: Render, b: Render) -> float:
    """Mean SSIM of the heatmap cells of two renders of the same layout: 1.0 = identical.

    Only the cells are compared (the axes box): labels, colorbar and margins are the same in
    both renders and would only dilute the score."""
    if a.box != b.box:
        raise ValueError(f"the renders have different layouts ({a.box} and {b.box}): render the same tokens and title")
    if a.png == b.png:
        return 1.0
    return round(ssim(png_gray(a.png, a.box), png_gray(b.png, b.box)), 6)


def figure_similarity(png_a: bytes, png_b: bytes) -> float:
    """Mean SSIM of two figures drawn by the same plotting code (same style and layout), in
    grayscale at the first one's size: 1.0 = identical. For Part F, where the student's
    plot_attention draws both the student's map and the reference map."""
    if png_a == png_b:
        return 1.0
    a = png_gray(png_a, size=None)
    if min(a.shape) < SSIM_WINDOW:  # a figure a few pixels wide: compare at the fixed size
        a, b = png_gray(png_a), png_gray(png_b)
    else:
        b = png_gray(png_b, size=None, shape=a.shape)
    return round(ssim(a, b), 6)


def whole_image_similarity(png_a: bytes, png_b: bytes) -> float:
    """Mean SSIM of two whole images resampled to the same square: only for the calibration
    figures (renders in different styles and layouts cannot be graded this way)."""
    return round(ssim(png_gray(png_a), png_gray(png_b)), 6)


def max_abs_difference(a: torch.Tensor, b: torch.Tensor) -> float:
    difference = (a.to(torch.float64) - b.to(torch.float64)).abs()
    return math.inf if not torch.isfinite(difference).all() else float(difference.max())
