"""Does the figure's description agree with its picture? Checked in the grader, on the PNG it received.

The description of a figure (arrays, colours, limits, where the Axes sits) is built in the
student's process, so it could be forged. The PNG comes from the same place, but a forger would
have to draw a PNG that shows what the description claims: so the heatmap the checks grade must
be visible in the PNG, cell by cell. For every cell of the graded drawing, the pixels inside the
cell (its middle half, clear of grid lines; the median, so an annotation does not matter; or, in
a smoothed image that blends cells into their neighbours, its centre) must have the cell's colour.
The cell's colour is the grader's own: the named colormap (in the number of steps the drawing
uses: plt.get_cmap("Blues", 8)) and the colour range of the description applied to the cell's
value (a linear norm); where the drawing uses a
colormap or a norm this grader does not recompute (LogNorm, a ListedColormap of its own, a map of
its own named like one of matplotlib's), the
description's colours are used: then the pixels are tied to those colours, and the colours must
tell the weights apart, but not to the values themselves.

The tick labels the checks read (the one at each row and column, as `heatmap.label_indices` finds
it) must be visible too, without OCR. The description gives each label's box in PNG pixels and its
font (resolved family names, size, weight, style, rotation; the alignment and spacing of its lines; its
path effects: outlines such as plt.xkcd()'s white one). (a) The box must lie outside the Axes
along one of its edges (within LABEL_GAP_PT) and overlap the row or column it names, whose place
in pixels comes from the cells just checked. (b) The grader draws the text again (Agg, that font,
PNG_DPI) at the box's subpixel phase and with the canvas's fractional height (`png_height_px`:
Agg places glyph rows by it), so the same text gives the same pixels; its box must have the
reported size (BOX_SIZE_SLACK_PX) and its ink must match the PNG's near the box (normalised
cross-correlation in numpy, any text colour, at least MIN_LABEL_MATCH). At most MAX_CHECKED_LABELS labels
are drawn (~3 ms each). Axis labels and the title are not compared with pixels.

A label the figure itself partly covers (large labels that run into each other, a colorbar over
rotated labels: layouts the contract allows) is judged, when the whole label does not match, on
the pixels that nothing else of the description covers: the other tick labels' ink (drawn again
the same way), the boxes of the other Axes that hold an opaque drawing (a colorbar) and the boxes
of the texts drawn on an Axes (cell annotations in a font too large for their cells). One with
less than MIN_VISIBLE_INK of its ink left to be seen where its box puts it is not judged (the
picture cannot tell); a figure with no label left to be seen fails. The other labels are drawn
again only for a label that does not match whole (MAX_COVERING_LABELS at most each; a checked
label drawn again is cached, so its neighbours share it): ~50 ms instead of ~30 ms for the probe
with 22 pt labels that run into each other.
"""
from __future__ import annotations

import collections
import functools
import io
import warnings
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

from autograder.grading.heatmap import _array, _cell_size, _drawings, _image_grid, _mesh_grid, _ticks, label_indices, png_size, target_axes
from autograder.grading.worker.protocol import GOURAUD
from autograder.settings import PLOT_MAX_PNG_PIXELS as MAX_PNG_PIXELS
from autograder.settings import PNG_DPI

COLOUR_TOLERANCE = 0.10  # largest difference per RGB channel, in [0, 1], between pixel and cell colour
MIN_SPREAD = 0.15  # the cells' colours must differ by at least this (RGB, one channel) somewhere
MIN_CELL_PIXELS = 2  # a cell smaller than this on screen cannot be checked
MIN_VISIBLE_CELL = 0.25  # a cell whose middle half is mostly under texts is judged on the rest of the cell
CELL_INSET = 0.85  # ... within this fraction of its half-size from its centre (clear of its edges and grid lines)
CENTRE_FRACTION = 0.1  # a cell whose middle half is off is judged again on its centre (this fraction of the cell each way)
MAX_CMAP_LEVELS = 1 << 16  # colours of a named colour map resampled (plt.get_cmap(name, N)) that the grader recomputes
MAX_CHECKED_LABELS = 64  # tick labels drawn again and compared per figure (the probe has 9)
LABEL_GAP_PT = 36.0  # largest gap between a tick label's box and the Axes' edge (ticks + pad are ~7 pt)
EDGE_SLACK_PX = 3.0  # a label's box may reach this far into the Axes (antialiasing, rounding)
BOX_SLACK_PX = 4  # the label is looked for this many pixels around its reported box
BOX_SIZE_SLACK_PX = 1.0  # the label drawn again has the reported box's size within this many pixels
MAX_FONT_PT = 200.0  # a larger reported font is not drawn again (the work stays bounded)
MAX_LABEL_BOX_PX = 1000  # nor a label whose box is longer than this (its canvas is twice that a side)
MAX_FAMILIES = 8
INK = 0.05  # a pixel this much darker than white is ink
LABEL_CACHE_SIZE = 512  # labels drawn again, kept per grader process (a class's figures share most of them)
LABEL_CACHE_BYTES = 32 << 20  # ... and their ink in bytes at most (a 200 pt label's is ~5 MB: qa21h c04 kept 512 of them, 2 GB)
MAX_LABEL_PIXELS = 40_000_000  # work on one figure's labels: canvas pixels drawn, template pixels compared per shift (~2 s)
CORRELATION_CHUNK = 1 << 21  # numbers per (shift, pixel) array of a label's correlation at once (16 MB)
MIN_LINESPACING, MAX_LINESPACING = 0.1, 10.0  # a multi-line label's lines: 'normal' (the font's line height) or this many font sizes apart
MAX_EFFECTS = 8  # path effects of a tick label drawn again
MAX_OUTLINE = 1.0  # an outline (plt.xkcd()'s white stroke: 4 pt) drawn again is at most this times the font size wide
MIN_LABEL_MATCH = 0.95  # normalised cross-correlation of the label drawn again with the PNG at its box
# Why the tick labels disagree with the image (argument-free: checks/texts.py translates them).
LABEL_MISSING = "a tick label of the description has no place in the image"
LABEL_OUTSIDE = "a tick label of the description lies outside the image"
LABEL_ASIDE = "a tick label of the description is not beside the row or column it names"
LABEL_NOT_SHOWN = "the image does not show a tick label where the description puts it"
CELLS_HIDDEN = "most cells of the heatmap are hidden under the texts the description puts on them"
# (measured: 1.000 for every correct style, the same text drawn at the same subpixel phase; the
# closest other token of the probe, 'sat' drawn where 'cat' is, 0.80)
MIN_VISIBLE_INK = 0.5  # share of a label's ink outside what covers it (other labels, Axes) needed to judge it
COVER_MARGIN_PX = 1  # what covers a label (another label's ink, another Axes' box) grows by this many pixels
MIN_COVER_ALPHA = 0.5  # another Axes covers what lies under it when its drawing is at least this opaque
MAX_COVERING_LABELS = 16  # other tick labels drawn to find what covers one label (the rest are not subtracted)
MAX_TEXT_BOXES = 400  # texts on one Axes (cell annotations) whose boxes cover what lies under them


class Drawn(NamedTuple):
    """A label drawn again: its ink (h, w) in [0, 1] cropped to the ink, its box's size in pixels,
    and where the ink's top-left pixel lies from the box's top-left corner (x, y)."""

    ink: np.ndarray
    width: float
    height: float
    offset: tuple[int, int]


def _png(description: dict) -> np.ndarray:
    """The PNG as (h, w, 3) RGB in [0, 1], composited on white."""
    from PIL import Image

    png = description.get("png")
    data = bytes(png.numpy().tobytes()) if hasattr(png, "numpy") else b""
    width, height = png_size(data)
    if width * height > MAX_PNG_PIXELS:
        raise ValueError(f"the picture is {width}x{height} pixels, more than the grader decodes")
    with Image.open(io.BytesIO(data), formats=["PNG"]) as image:  # (0, 0) above: not a PNG, refused here
        rgba = image.convert("RGBA")
        flat = Image.alpha_composite(Image.new("RGBA", rgba.size, (255, 255, 255, 255)), rgba).convert("RGB")
    return np.asarray(flat, dtype=np.float64) / 255.0


def _expected(drawing: dict, values: np.ndarray) -> np.ndarray:
    """(rows, cols, 3) colours composited on white: the grader's own where it knows the colormap."""
    import matplotlib

    low, high = drawing.get("clim", [None, None])
    name = str(drawing.get("cmap", ""))
    rgba = _array(drawing.get("rgba", np.empty(0)))
    cmap = matplotlib.colormaps[name] if name in matplotlib.colormaps else None
    if cmap is not None and drawing.get("norm") == "Normalize" and low is not None and high is not None and float(high) > float(low) and _same_ends(cmap, drawing.get("cmap_ends")):
        levels = drawing.get("cmap_levels")
        if isinstance(levels, int) and not isinstance(levels, bool) and 2 <= levels <= MAX_CMAP_LEVELS and levels != cmap.N:
            cmap = cmap.resampled(levels)  # the named map in fewer (or more) steps: plt.get_cmap(name, 8)
        scaled = (values - float(low)) / (float(high) - float(low))
        ours = np.asarray(cmap(np.clip(scaled, 0.0, 1.0)), dtype=np.float64)
        if rgba.shape == ours.shape:
            ours[..., 3] = rgba[..., 3]  # the drawing's transparency (alpha=) is its own
        rgba = ours
    if rgba.shape != (*values.shape, 4):
        raise ValueError("the description gives no colour for each cell")
    return rgba[..., :3] * rgba[..., 3:4] + (1.0 - rgba[..., 3:4])


def _same_ends(cmap: Any, ends: Any) -> bool:
    """Whether the colour map the drawing says it used has the colours of matplotlib's map of that
    name at both ends. A map of the student's own may carry a name matplotlib has for another
    (LinearSegmentedColormap.from_list("Blues", ["white", "navy"]), qa10e c09): it is then not
    recomputed by its name but, like any map of the student's own, read from the description's
    colours. Unknown ends: it is matplotlib's map."""
    if not isinstance(ends, list) or len(ends) != 2:
        return True
    try:
        said = np.asarray(ends, dtype=np.float64)
    except (TypeError, ValueError):
        return True
    ours = np.asarray([cmap(0.0), cmap(1.0)], dtype=np.float64)
    return said.shape == ours.shape and bool(np.allclose(said, ours, atol=1e-6))


def _to_pixels(x: np.ndarray, y: np.ndarray, axes: dict) -> tuple[np.ndarray, np.ndarray]:
    left, top, right, bottom = (float(v) for v in axes["box_px"])
    x0, x1 = (float(v) for v in axes["xlim"])
    y0, y1 = (float(v) for v in axes["ylim"])
    return left + (x - x0) / (x1 - x0) * (right - left), top + (y1 - y) / (y1 - y0) * (bottom - top)


FLAT_INTERPOLATIONS = frozenset({"nearest", "none", "antialiased", "auto"})  # imshow's that draw each cell flat (at these sizes)
COLOUR_PROBLEM = "cells in the image do not have the colour"


def blended_cells(description: Any) -> str:
    """The interpolation of the graded drawing when it blends each cell into its neighbours
    (imshow's 'bilinear', 'bicubic', 'gaussian'...; GOURAUD for pcolormesh's shading='gouraud'),
    or '' when every cell is drawn in one flat colour, as the contract asks."""
    try:
        kind, drawing = max(_drawings(target_axes(description)), key=lambda d: _array(d[1]["array"]).size)
    except (KeyError, TypeError, ValueError, IndexError):
        return ""
    interpolation = str(drawing.get("interpolation", ""))
    if kind == "mesh":
        return GOURAUD if interpolation == GOURAUD else ""
    return interpolation if interpolation and interpolation not in FLAT_INTERPOLATIONS else ""


def smoothed_image(description: Any, problem: str) -> str:
    """The interpolation (as blended_cells says it) of a smoothed drawing whose cells the image
    does not show in their colours, or '': smoothing moves a cell's colour at its centre too
    ('bicubic', 'gaussian'), so such a picture cannot be read cell by cell, and says nothing about
    forgery either. A gouraud mesh has no flat cells at all (those at its edges are cut in half),
    so any problem of its picture is that. One that keeps each centre's colour ('bilinear') is read,
    and charged by part_e's flat-cells check alone."""
    blended = blended_cells(description) if problem else ""
    return blended if blended == GOURAUD or (blended and COLOUR_PROBLEM in problem) else ""


def figure_problem(description: Any) -> str:
    """'' when the PNG shows the graded heatmap's cells in their colours; else what disagrees.

    Its labels take at most MAX_LABEL_PIXELS pixels of work in all: the canvases of those drawn
    again (not in the cache) and, for each comparison with the PNG, the template's pixels times the
    shifts tried. Past that, like a label box too long to draw, the figure cannot be compared with
    its picture (qa21h c04: 200 pt labels of solid blocks, new on every call, each on a canvas 2656
    pixels a side and compared over 81 shifts of a 924 x 732 template: 20-33 s of the grader's CPU
    and 1.9 GB per submission; the honest figures of the tests take < 1 M)."""
    _pixels_left[0] = MAX_LABEL_PIXELS
    try:
        return _problem(description)
    except (KeyError, TypeError, ValueError, IndexError, ZeroDivisionError, OSError) as error:
        return f"the figure's description cannot be compared with its image ({type(error).__name__}: {error})"
    finally:
        _pixels_left[0] = None


_pixels_left: list[int | None] = [None]  # pixels of work left to the figure being checked (None: no figure, unbounded)


def _problem(description: dict) -> str:
    axes = target_axes(description)
    kind, drawing = max(_drawings(axes), key=lambda d: _array(d[1]["array"]).size)
    values, x, y = _image_grid(drawing) if kind == "image" else _mesh_grid(drawing)
    expected = _expected(drawing, values)
    if float(np.ptp(expected.reshape(-1, 3), axis=0).max()) < MIN_SPREAD:
        return "the cells' colours do not tell the weights apart"
    image = _png(description)
    px, py = _to_pixels(x, y, axes)
    half_w = abs(px[1] - px[0]) / 4 if px.size > 1 else abs(float(axes["box_px"][2]) - float(axes["box_px"][0])) / 4
    half_h = abs(py[1] - py[0]) / 4 if py.size > 1 else abs(float(axes["box_px"][3]) - float(axes["box_px"][1])) / 4
    if half_w < MIN_CELL_PIXELS / 2 or half_h < MIN_CELL_PIXELS / 2:
        return ""  # cells too small to check one by one; nothing to hold against the figure
    boxed = _text_cover(axes, image.shape[:2])
    inside = [float(v) for v in axes["box_px"]]  # (left, top, right, bottom): where the Axes shows its drawing
    gouraud = kind == "mesh" and drawing.get("interpolation") == GOURAUD
    wrong = hidden = 0
    for row in range(values.shape[0]):
        for col in range(values.shape[1]):
            cx, cy = px[col], py[row]
            x_lo, x_hi = int(round(cx - half_w)), int(round(cx + half_w)) + 1
            y_lo, y_hi = int(round(cy - half_h)), int(round(cy + half_h)) + 1
            if x_lo < 0 or y_lo < 0 or x_hi > image.shape[1] or y_hi > image.shape[0]:
                return "the heatmap's cells lie outside the image"
            # a cell cut by the view limits (its centre on them: ax.set_xlim(0, Lq - 1)) shows only its part inside the
            # Axes; not a gouraud mesh's, whose cells around its edge vertices are cut so (smoothed_image says why)
            if not gouraud:
                x_lo, x_hi = max(x_lo, int(np.ceil(inside[0]))), min(x_hi, int(np.floor(inside[2])))
                y_lo, y_hi = max(y_lo, int(np.ceil(inside[1]))), min(y_hi, int(np.floor(inside[3])))
            if x_hi - x_lo < MIN_CELL_PIXELS or y_hi - y_lo < MIN_CELL_PIXELS:
                hidden += 1
                continue
            shown = _visible_median(image, boxed, (y_lo, y_hi, x_lo, x_hi), MIN_VISIBLE_CELL)
            if shown is None:  # its middle under an opaque text box (a boxed annotation): the rest of the cell
                reach_w, reach_h = 2 * half_w * CELL_INSET, 2 * half_h * CELL_INSET
                area = (max(int(round(cy - reach_h)), 0), int(round(cy + reach_h)) + 1, max(int(round(cx - reach_w)), 0), int(round(cx + reach_w)) + 1)
                shown = _visible_median(image, boxed, area, 0.0)
                if shown is None:
                    hidden += 1
                    continue
            elif np.abs(shown - expected[row, col]).max() > COLOUR_TOLERANCE and _centre_agrees(image, (cx, cy), (half_w, half_h), expected[row, col]):
                continue
            if np.abs(shown - expected[row, col]).max() > COLOUR_TOLERANCE:
                wrong += 1
    if wrong:
        return f"{wrong} of {values.size} {COLOUR_PROBLEM} of the value the description gives them"
    if 2 * hidden > values.size:
        return CELLS_HIDDEN
    return _labels_problem(description, axes, image, x, y, px, py)


def _text_cover(axes: dict, shape: tuple[int, int]) -> np.ndarray:
    """(h, w) True under the texts drawn on the Axes (cell annotations, with the box drawn behind
    each when it has one: bbox=...), grown by COVER_MARGIN_PX."""
    covered = np.zeros(shape, dtype=bool)
    for box in axes.get("textboxes", [])[:MAX_TEXT_BOXES]:
        if len(box) == 4:
            x0, y0, x1, y1 = (float(v) for v in box)
            covered[max(int(np.floor(y0)) - COVER_MARGIN_PX, 0): max(int(np.ceil(y1)) + COVER_MARGIN_PX + 1, 0),
                    max(int(np.floor(x0)) - COVER_MARGIN_PX, 0): max(int(np.ceil(x1)) + COVER_MARGIN_PX + 1, 0)] = True
    return covered


def _visible_median(image: np.ndarray, covered: np.ndarray, area: tuple[int, int, int, int], share: float) -> np.ndarray | None:
    """The median colour of the pixels of `area` (top, bottom, left, right) that no text covers;
    None when fewer than `share` of them (and fewer than MIN_CELL_PIXELS squared) are left."""
    top, bottom, left, right = area
    pixels = image[top:bottom, left:right].reshape(-1, 3)
    visible = ~covered[top:bottom, left:right].reshape(-1)
    if not visible.any() or visible.sum() < max(share * visible.size, MIN_CELL_PIXELS ** 2):
        return None
    return np.median(pixels[visible], axis=0)


def _centre_agrees(image: np.ndarray, centre: tuple[float, float], half: tuple[float, float], colour: np.ndarray) -> bool:
    """Whether the pixels right at a cell's centre have its colour: a smoothed image (imshow's
    interpolation="bilinear", "bicubic"...) blends each cell into its neighbours away from the
    centre, so its middle half can be off while the centre is exact."""
    (cx, cy), (half_w, half_h) = centre, half
    reach_x, reach_y = max(half_w * 2 * CENTRE_FRACTION, 0.5), max(half_h * 2 * CENTRE_FRACTION, 0.5)
    x_lo, x_hi = int(round(cx - reach_x)), int(round(cx + reach_x)) + 1
    y_lo, y_hi = int(round(cy - reach_y)), int(round(cy + reach_y)) + 1
    shown = np.median(image[y_lo:y_hi, x_lo:x_hi].reshape(-1, 3), axis=0)
    return bool(np.abs(shown - colour).max() <= COLOUR_TOLERANCE)


def _labels_problem(description: dict, axes: dict, image: np.ndarray, x: np.ndarray, y: np.ndarray, px: np.ndarray, py: np.ndarray) -> str:
    """'' when every tick label the checks read is drawn in the PNG where its box says, beside its
    cell. A label partly covered by what the description itself draws there (another tick label's
    ink, another Axes such as a colorbar) is judged on the ink left visible; one mostly covered is
    not judged (the picture cannot tell), unless every label is."""
    left, top, right, bottom = (float(v) for v in axes["box_px"])
    png_height = float(description.get("png_height_px", image.shape[0]))
    gap = LABEL_GAP_PT * PNG_DPI / 72.0
    gray = image @ np.array([0.299, 0.587, 0.114])  # (h, w)
    checked = hidden = 0
    for axis, centres, pixels in (("x", x, px), ("y", y, py)):
        ticks, labels = _ticks(axes, axis)
        boxes, fonts = axes.get(f"{axis}tickboxes", []), axes.get(f"{axis}tickfonts", [])
        half = abs(float(pixels[1] - pixels[0])) / 2 if pixels.size > 1 else (right - left if axis == "x" else bottom - top) / 2
        for cell, index in enumerate(label_indices(centres, ticks, labels, _cell_size(centres))):
            if index < 0:
                continue
            checked += 1
            if checked > MAX_CHECKED_LABELS:
                return ""
            if index >= len(boxes) or index >= len(fonts) or len(boxes[index]) != 4:
                return LABEL_MISSING
            x0, t, x1, b = (float(v) for v in boxes[index])
            if not (0 <= x0 <= x1 <= image.shape[1] and 0 <= t <= b <= image.shape[0]):
                return LABEL_OUTSIDE
            centre = float(pixels[cell])
            if axis == "x":
                beside = min(x1, centre + half) - max(x0, centre - half) > 0 and (0 <= t - bottom + EDGE_SLACK_PX <= gap or 0 <= top - b + EDGE_SLACK_PX <= gap)
            else:
                beside = min(b, centre + half) - max(t, centre - half) > 0 and (0 <= left - x1 + EDGE_SLACK_PX <= gap or 0 <= x0 - right + EDGE_SLACK_PX <= gap)
            if not beside:
                return LABEL_ASIDE
            match = _label_match(gray, (x0, t, x1, b), labels[index], fonts[index], png_height, functools.partial(_covered, description, (axes, axis, index), png_height=png_height))
            if match is None:
                hidden += 1
            elif match < MIN_LABEL_MATCH:
                return LABEL_NOT_SHOWN
    return LABEL_NOT_SHOWN if checked and hidden == checked else ""  # no label to be seen at all


def warm_up() -> None:
    """Draw one label as the checks will (matplotlib's Agg canvas and a font: ~0.4 s CPU the first
    time): the grader does it while its worker template is still starting."""
    _drawn_label("warm-up", {"family": ["DejaVu Sans"], "size": 10.0, "weight": "normal", "style": "normal", "rotation": 0.0}, (0.0, 0.0, 40.0, 12.0), 100.0)


def _drawn_label(text: str, font: dict, box: tuple[float, float, float, float], png_height: float, background: float | None = None) -> Drawn:
    """The label drawn by this grader (Agg, the reported font, PNG_DPI): its ink in [0, 1], cropped
    to the ink, the width and height of its box in pixels, and where the ink lies in the box.

    Agg places glyphs to the subpixel (and rows by its canvas height, a fraction of a pixel apart
    from the lines'), so the canvas gets the PNG's fractional height and the text is moved until its
    box has the reported box's fractional position: then the same text comes out as the same pixels.
    The font is checked here, in this order (the error, if any, is the figure's problem); the
    drawing itself is cached per grader process (LABEL_CACHE_SIZE entries, LABEL_CACHE_BYTES of ink): the same text in the same font
    at the same place comes out as the same pixels, and a class's figures share most labels.

    A label drawn in black on white gives the shape of its ink, whatever its colour. An outlined
    label is two colours (plt.xkcd(): the text over a white outline, on a dark background too): with
    the gray level of the PNG around it (`background`), it is drawn in the gray levels of its own
    colours on that background, and its ink is how far each pixel is from the background, as the
    PNG's is.
    """
    from matplotlib.font_manager import FontProperties

    size = float(font["size"])
    if not 0 < size <= MAX_FONT_PT:
        raise ValueError("a tick label's font size is out of range")
    if not max(box[2] - box[0], box[3] - box[1]) <= MAX_LABEL_BOX_PX:
        raise ValueError(f"a tick label's box is more than {MAX_LABEL_BOX_PX} pixels long")
    families = tuple([str(f) for f in font["family"]][:MAX_FAMILIES])
    weight, style = str(font["weight"]), str(font["style"])
    FontProperties(family=list(families), size=size, weight=weight, style=style)  # refuses a bad weight or style
    align, spacing = str(font.get("align", "left")), font.get("linespacing", "normal")
    spacing = spacing if spacing == "normal" else float(spacing)
    if align not in ("left", "center", "right") or not (spacing == "normal" or MIN_LINESPACING <= spacing <= MAX_LINESPACING):
        raise ValueError("a tick label's alignment or line spacing is out of range")
    effects = _effects(font.get("effects", []), size)
    tones = None
    if background is not None and any(kind == "stroke" for kind, _, _ in effects):
        tones = (_gray(font.get("colour", (0.0, 0.0, 0.0, 1.0)), background), round(float(background), 3))
        effects = tuple((kind, width, (_gray(colour, background),) * 3 + (1.0,) if colour and kind == "stroke" else colour) for kind, width, colour in effects)
    return _label_ink(text, families, size, weight, style, float(font["rotation"]), tuple(box), png_height, align, spacing, effects, tones)


def _gray(colour: Any, background: float) -> float:
    """The gray level (the PNG's weights) of an RGBA colour over a `background` gray level, to 3 places."""
    red, green, blue, alpha = (float(c) for c in colour)
    if not all(0.0 <= c <= 1.0 for c in (red, green, blue, alpha)):
        raise ValueError("a tick label's colour is out of range")
    return round(alpha * (0.299 * red + 0.587 * green + 0.114 * blue) + (1.0 - alpha) * float(background), 3)


Effect = tuple[str, float, tuple[float, ...]]  # ("stroke", width in points, RGBA), ("shadow", alpha, (dx, dy in points, rho, *RGB)) or ("normal", 0.0, ())


def _effects(described: Any, size: float) -> tuple[Effect, ...]:
    """A label's path effects as the grader draws them again (plt.xkcd() outlines texts in white):
    outlines ("stroke") at most MAX_OUTLINE of the font size wide, and the text itself ("normal");
    an effect of another kind is left out (the label is drawn without it)."""
    if not isinstance(described, list) or not all(isinstance(effect, dict) for effect in described[:MAX_EFFECTS]):
        raise ValueError("a tick label's path effects are malformed")
    effects: list[Effect] = []
    for effect in described[:MAX_EFFECTS]:
        if effect.get("kind") == "normal":
            effects.append(("normal", 0.0, ()))
        elif effect.get("kind") == "stroke":
            width, colour = float(effect["width"]), effect["colour"]
            if not isinstance(colour, list) or len(colour) != 4:
                raise ValueError("a tick label's outline colour is malformed")
            colour = tuple(float(c) for c in colour)
            if not 0.0 <= width <= MAX_OUTLINE * size or not all(0.0 <= c <= 1.0 for c in colour):
                raise ValueError("a tick label's outline is out of range")
            effects.append(("stroke", width, colour))
        elif effect.get("kind") == "shadow":  # a drop shadow (SimplePatchShadow): the text again, offset, in a darkened or given colour
            (dx, dy), alpha, rho, face = (float(v) for v in effect["offset"]), float(effect["alpha"]), float(effect["rho"]), effect["colour"]
            if not isinstance(face, list) or len(face) not in (0, 3) or not all(0.0 <= float(c) <= 1.0 for c in face):
                raise ValueError("a tick label's shadow colour is malformed")
            if max(abs(dx), abs(dy)) > MAX_OUTLINE * size or not 0.0 <= alpha <= 1.0 or not 0.0 <= rho <= 1.0:
                raise ValueError("a tick label's shadow is out of range")
            effects.append(("shadow", alpha, (dx, dy, rho, *(float(c) for c in face))))
    return tuple(effects)


class _LabelCache:
    """functools.lru_cache's behaviour (cache_info, cache_clear) for _label_ink, bounded by its
    entries' ink in bytes too (LABEL_CACHE_BYTES: an entry larger than that is not kept)."""

    def __init__(self, draw: Callable[..., Drawn], size: int, nbytes: int) -> None:
        self.draw, self.size, self.nbytes = draw, size, nbytes
        self.entries: collections.OrderedDict[tuple, Drawn] = collections.OrderedDict()
        self.held = self.hits = self.misses = 0
        functools.update_wrapper(self, draw)

    def __call__(self, *args: Any) -> Drawn:
        found = self.entries.get(args)
        if found is not None:
            self.hits += 1
            self.entries.move_to_end(args)
            return found
        self.misses += 1
        drawn = self.draw(*args)
        if drawn.ink.nbytes <= self.nbytes:
            self.entries[args] = drawn
            self.held += drawn.ink.nbytes
            while len(self.entries) > self.size or self.held > self.nbytes:
                self.held -= self.entries.popitem(last=False)[1].ink.nbytes
        return drawn

    def cache_info(self) -> Any:
        return functools._CacheInfo(self.hits, self.misses, self.size, len(self.entries))

    def cache_bytes(self) -> int:
        """The bytes of ink the cache holds."""
        return self.held

    def cache_clear(self) -> None:
        self.entries.clear()
        self.held = self.hits = self.misses = 0


def _spend_pixels(pixels: int) -> None:
    """Count work about to be done on a label (a canvas, a comparison) against the figure's
    MAX_LABEL_PIXELS; ValueError past it."""
    left = _pixels_left[0]
    if left is None:
        return
    if pixels > left:
        raise ValueError(f"its tick labels take more than {MAX_LABEL_PIXELS} pixels to draw again and compare")
    _pixels_left[0] = left - pixels


def _draw_label_ink(
    text: str, families: tuple[str, ...], size: float, weight: str, style: str, rotation: float,
    box: tuple[float, float, float, float], png_height: float,
    align: str = "left", spacing: str | float = "normal", effects: tuple[Effect, ...] = (), tones: tuple[float, float] | None = None,
) -> Drawn:
    """_drawn_label's drawing, from checked arguments; its ink array is read-only (it is shared).
    tones: (the text's gray level, the background's), or None: black on white."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.font_manager import FontProperties
    from matplotlib.transforms import IdentityTransform

    properties = FontProperties(family=list(families), size=size, weight=weight, style=style)
    side = round(2 * max(box[2] - box[0], box[3] - box[1]) + 4 * size * PNG_DPI / 72.0) + 8  # pixels: the box twice over (a text larger than that cannot have that box)
    _spend_pixels(side * (side + 1))
    figure = Figure(figsize=(side / PNG_DPI, (side + png_height % 1.0) / PNG_DPI), dpi=PNG_DPI)
    canvas = FigureCanvasAgg(figure)
    middle = side / 2
    text_gray, background = tones if tones is not None else (0.0, 1.0)
    figure.patch.set_facecolor((background,) * 3)
    label = figure.text(
        middle, middle, text, fontproperties=properties, rotation=rotation, color=(text_gray,) * 3, transform=IdentityTransform(),
        multialignment=align, linespacing=spacing,
        path_effects=[_path_effect(kind, width, colour) for kind, width, colour in effects],
    )
    with warnings.catch_warnings():  # a glyph missing from every font is drawn as a box, here as in the PNG
        warnings.simplefilter("ignore")
        canvas.draw()
        drawn = label.get_window_extent()
        label.set_position((middle + (box[0] - drawn.x0) % 1.0, middle - (box[1] - (figure.bbox.height - drawn.y1)) % 1.0))
        canvas.draw()
        placed = label.get_window_extent()
    ink = np.abs(background - np.asarray(canvas.buffer_rgba())[..., :3].mean(axis=-1) / 255.0)  # (h, w); the mean of uint8 is float64
    rows, cols = np.nonzero(ink > INK)
    cropped = ink[:0, :0] if rows.size == 0 else ink[rows.min(): rows.max() + 1, cols.min(): cols.max() + 1].copy()
    cropped.setflags(write=False)
    offset = (0, 0) if rows.size == 0 else (round(cols.min() - placed.x0), round(rows.min() - (figure.bbox.height - placed.y1)))
    return Drawn(cropped, drawn.width, drawn.height, offset)


_label_ink = _LabelCache(_draw_label_ink, LABEL_CACHE_SIZE, LABEL_CACHE_BYTES)


def _path_effect(kind: str, value: float, numbers: tuple[float, ...]) -> Any:
    """One effect of `_effects` as matplotlib's path effect."""
    from matplotlib import patheffects

    if kind == "stroke":
        return patheffects.Stroke(linewidth=value, foreground=numbers)
    if kind == "shadow":
        return patheffects.SimplePatchShadow(offset=numbers[:2], alpha=value, rho=numbers[2], shadow_rgbFace=numbers[3:] or None)
    return patheffects.Normal()


Area = tuple[int, int, int, int]  # (x0, y0, x1, y1): a crop of the PNG, in whole pixels
Covering = Callable[[Area], np.ndarray]


def _label_match(gray: np.ndarray, box: tuple[float, float, float, float], text: str, font: dict, png_height: float, covering: Covering) -> float | None:
    """Normalised cross-correlation (best shift) of the label drawn again with the PNG at its box;
    where the whole label does not match, on the ink that `covering` (a crop -> (h, w) bool, True
    where something else of the figure is drawn) leaves visible. None when too little is visible."""
    left, top, right, bottom = box
    x0, y0 = max(int(np.floor(left)) - BOX_SLACK_PX, 0), max(int(np.floor(top)) - BOX_SLACK_PX, 0)
    crop = gray[y0: int(np.ceil(bottom)) + BOX_SLACK_PX, x0: int(np.ceil(right)) + BOX_SLACK_PX]
    background = _background(crop, (x0, y0), box)
    template, width, height, (dx, dy) = _drawn_label(text, font, box, png_height, background)
    if abs(width - (right - left)) > BOX_SIZE_SLACK_PX or abs(height - (bottom - top)) > BOX_SIZE_SLACK_PX:
        return 0.0  # the text in that font does not fill that box: the box or the font is not the label's
    if template.size == 0:
        return 1.0  # nothing to see (a blank glyph): nothing to hold against the figure
    if crop.shape[0] < template.shape[0] or crop.shape[1] < template.shape[1]:
        return 0.0
    ink = np.abs(crop - background)  # the label's colour on any background
    _spend_pixels(_shifts(ink, template) * template.size)
    whole = best_correlation(ink, template)
    if whole >= MIN_LABEL_MATCH:
        return whole
    covered = covering((x0, y0, x0 + crop.shape[1], y0 + crop.shape[0]))
    if not covered.any():
        return whole
    col, row = round(left) + dx - x0, round(top) + dy - y0  # where the box puts the label's ink in the crop
    under = covered[row: row + template.shape[0], col: col + template.shape[1]]
    if under.shape == template.shape and float(template[~under].sum()) < MIN_VISIBLE_INK * float(template.sum()):
        return None  # mostly covered where its box puts it: the picture cannot tell
    _spend_pixels(_shifts(ink, template) * template.size)
    return visible_correlation(ink, template, ~covered)


def _background(crop: np.ndarray, corner: tuple[int, int], box: tuple[float, float, float, float]) -> float:
    """The gray level around a label: the median of the crop's pixels outside the label's box (a
    thick outlined label can fill more than half of its box), or of the whole crop when the box
    fills it."""
    if not crop.size:
        return 1.0
    rows, cols = np.ogrid[: crop.shape[0], : crop.shape[1]]
    inside = (rows >= np.floor(box[1]) - corner[1]) & (rows < np.ceil(box[3]) - corner[1]) & (cols >= np.floor(box[0]) - corner[0]) & (cols < np.ceil(box[2]) - corner[0])
    around = crop[~inside]
    return float(np.median(around if around.size else crop))


def _covered(description: dict, label: tuple[dict, str, int], area: Area, png_height: float) -> np.ndarray:
    """(h, w) True where, inside `area`, the description draws something other than `label` (the
    Axes' dict, "x" or "y", the index): another Axes holding an opaque drawing (a colorbar: its
    box), a text on an Axes (a cell annotation in a large font: its box), another tick label of
    any Axes (its ink, drawn again); each grown by COVER_MARGIN_PX."""
    x0, y0, x1, y1 = area
    covered = np.zeros((y1 - y0, x1 - x0), dtype=bool)
    own, own_axis, own_index = label
    drawn = 0
    for axes in description.get("axes", []):
        boxes = [axes["box_px"]] if axes is not own and _opaque(axes) else []
        for bx0, by0, bx1, by1 in (*boxes, *(box for box in axes.get("textboxes", [])[:MAX_TEXT_BOXES] if len(box) == 4)):
            covered[max(int(np.floor(float(by0))) - COVER_MARGIN_PX - y0, 0): max(int(np.ceil(float(by1))) + COVER_MARGIN_PX + 1 - y0, 0),
                    max(int(np.floor(float(bx0))) - COVER_MARGIN_PX - x0, 0): max(int(np.ceil(float(bx1))) + COVER_MARGIN_PX + 1 - x0, 0)] = True
        for axis in ("x", "y"):
            for index, (text, box, font) in enumerate(zip(axes.get(f"{axis}ticklabels", []), axes.get(f"{axis}tickboxes", []), axes.get(f"{axis}tickfonts", []))):
                if (axes is own and axis == own_axis and index == own_index) or len(box) != 4 or not str(text).strip():
                    continue
                left, top, right, bottom = (float(v) for v in box)
                if right < x0 - COVER_MARGIN_PX or left > x1 + COVER_MARGIN_PX or bottom < y0 - COVER_MARGIN_PX or top > y1 + COVER_MARGIN_PX:
                    continue
                drawn += 1
                if drawn > MAX_COVERING_LABELS:
                    continue  # not subtracted: the label is judged on more pixels, never fewer
                ink, _, _, (dx, dy) = _drawn_label(str(text), font, (left, top, right, bottom), png_height)
                _mark(covered, ink > INK, round(left) + dx - x0, round(top) + dy - y0)
    return covered


def _opaque(axes: dict) -> bool:
    """Whether an Axes holds a drawing that hides what lies under its box (a colorbar, an inset
    heatmap); an Axes without one (an empty overlay) covers nothing."""
    for drawing in (*axes.get("images", []), *axes.get("meshes", [])):
        rgba = _array(drawing.get("rgba", np.empty(0)))
        if rgba.ndim == 3 and rgba.shape[-1] == 4 and rgba.size and float(rgba[..., 3].min()) >= MIN_COVER_ALPHA:
            return True
    return False


def _mark(covered: np.ndarray, ink: np.ndarray, col: int, row: int) -> None:
    """Set `covered` True where `ink` (placed with its top-left pixel at (col, row)), grown by COVER_MARGIN_PX, falls."""
    m = COVER_MARGIN_PX
    grown = np.zeros((ink.shape[0] + 2 * m, ink.shape[1] + 2 * m), dtype=bool)
    for dy in range(2 * m + 1):
        for dx in range(2 * m + 1):
            grown[dy: dy + ink.shape[0], dx: dx + ink.shape[1]] |= ink
    row, col = row - m, col - m
    top, left = max(row, 0), max(col, 0)
    bottom, right = min(row + grown.shape[0], covered.shape[0]), min(col + grown.shape[1], covered.shape[1])
    if top < bottom and left < right:
        covered[top:bottom, left:right] |= grown[top - row: bottom - row, left - col: right - col]


def _shifts(image: np.ndarray, template: np.ndarray) -> int:
    """How many shifts of `template` inside `image` a correlation tries."""
    return max(image.shape[0] - template.shape[0] + 1, 0) * max(image.shape[1] - template.shape[1] + 1, 0)


def _shift_rows(image: np.ndarray, template: np.ndarray) -> list[slice]:
    """The shifts of `template` over `image` in slices of rows of shifts, each holding at most
    CORRELATION_CHUNK numbers per (shift, pixel) array: a label's template 1000 pixels a side over
    81 shifts would be 650 MB an array at once (qa21h c04: 1.9 GB in the grader)."""
    rows = image.shape[0] - template.shape[0] + 1
    per_row = max((image.shape[1] - template.shape[1] + 1) * template.size, 1)
    step = max(CORRELATION_CHUNK // per_row, 1)
    return [slice(start, start + step) for start in range(0, rows, step)]


def visible_correlation(image: np.ndarray, template: np.ndarray, visible: np.ndarray) -> float | None:
    """best_correlation counting only the pixels where `visible` (the image's shape) is True, over
    the shifts that leave at least MIN_VISIBLE_INK of the template's ink visible; None when none does."""
    all_windows = np.lib.stride_tricks.sliding_window_view(image, template.shape)  # (H-h+1, W-w+1, h, w)
    all_masks = np.lib.stride_tricks.sliding_window_view(visible.astype(np.float64), template.shape)  # (H-h+1, W-w+1, h, w)
    best: float | None = None
    for rows in _shift_rows(image, template):
        windows, masks = all_windows[rows], all_masks[rows]
        count = masks.sum(axis=(-2, -1))
        seen = masks * windows
        sum_i, sum_t = seen.sum(axis=(-2, -1)), np.einsum("ijkl,kl->ij", masks, template)
        shown = sum_t / float(template.sum())  # the share of the template's ink left visible
        safe = np.maximum(count, 1.0)
        covariance = np.einsum("ijkl,kl->ij", seen, template) - sum_i * sum_t / safe
        spread_i = np.einsum("ijkl,ijkl->ij", seen, windows) - sum_i * sum_i / safe
        spread_t = np.einsum("ijkl,kl->ij", masks, template * template) - sum_t * sum_t / safe
        denominator = np.sqrt(np.maximum(spread_i * spread_t, 0.0))
        defined = denominator > np.finfo(np.float64).eps  # a flat window (solid ink): no correlation (0)
        correlation = np.where(defined, covariance / np.where(defined, denominator, 1.0), 0.0)
        judged = shown >= MIN_VISIBLE_INK
        if judged.any():
            found = float(correlation[judged].max())
            best = found if best is None else max(best, found)
    return best


def best_correlation(image: np.ndarray, template: np.ndarray) -> float:
    """The largest normalised cross-correlation of `template` (h, w) with `image` (H >= h, W >= w)
    over every shift that keeps it inside: scikit-image's match_template(image, template).max(), in
    numpy (match_template imports scipy.signal: 0.8 s CPU on a cold `attnkit check`; here there
    are a few dozen shifts of a small template)."""
    all_windows = np.lib.stride_tricks.sliding_window_view(image, template.shape)  # (H-h+1, W-w+1, h, w)
    shape = template - template.mean()  # (h, w)
    norm = float(np.sum(shape * shape))
    best = -np.inf
    for rows in _shift_rows(image, template):
        windows = all_windows[rows]
        centred = windows - windows.mean(axis=(-2, -1), keepdims=True)
        numerator = np.einsum("ijkl,kl->ij", centred, shape)
        denominator = np.sqrt(np.maximum(np.einsum("ijkl,ijkl->ij", centred, centred) * norm, 0.0))
        defined = denominator > np.finfo(np.float64).eps  # a flat window or template: no correlation (0)
        best = max(best, float(np.where(defined, numerator / np.where(defined, denominator, 1.0), 0.0).max()))
    return best
