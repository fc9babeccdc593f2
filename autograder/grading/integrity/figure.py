"""Does the figure's description agree with its picture? Checked in the grader, on the PNG it received.

The description of a figure (arrays, colours, limits, where the Axes sits) is built in the
student's process, so it could be forged. The PNG comes from the same place, but a forger would
have to draw a PNG that shows what the description claims: so the heatmap the checks grade must
be visible in the PNG, cell by cell. For every cell of the graded drawing, the pixels inside the
cell (its middle half, clear of grid lines; the median, so an annotation does not matter) must
have the cell's colour. The cell's colour is the grader's own: the named colormap and the colour
range of the description applied to the cell's value (a linear norm); where the drawing uses a
colormap or a norm this grader does not recompute (LogNorm, a ListedColormap of its own), the
description's colours are used: then the pixels are tied to those colours, and the colours must
tell the weights apart, but not to the values themselves. Ticks and label texts are not compared with pixels (that would take OCR).
"""
from __future__ import annotations

import io
from typing import Any

import numpy as np

from autograder.grading.heatmap import _array, _drawings, _image_grid, _mesh_grid, target_axes

COLOUR_TOLERANCE = 0.10  # largest difference per RGB channel, in [0, 1], between pixel and cell colour
MIN_SPREAD = 0.15  # the cells' colours must differ by at least this (RGB, one channel) somewhere
MIN_CELL_PIXELS = 2  # a cell smaller than this on screen cannot be checked


def _png(description: dict) -> np.ndarray:
    """The PNG as (h, w, 3) RGB in [0, 1], composited on white."""
    from PIL import Image

    png = description.get("png")
    data = bytes(png.numpy().tobytes()) if hasattr(png, "numpy") else b""
    with Image.open(io.BytesIO(data)) as image:
        rgba = image.convert("RGBA")
        flat = Image.alpha_composite(Image.new("RGBA", rgba.size, (255, 255, 255, 255)), rgba).convert("RGB")
    return np.asarray(flat, dtype=np.float64) / 255.0


def _expected(drawing: dict, values: np.ndarray) -> np.ndarray:
    """(rows, cols, 3) colours composited on white: the grader's own where it knows the colormap."""
    import matplotlib

    low, high = drawing.get("clim", [None, None])
    name = str(drawing.get("cmap", ""))
    rgba = _array(drawing.get("rgba", np.empty(0)))
    if drawing.get("norm") == "Normalize" and name in matplotlib.colormaps and low is not None and high is not None and float(high) > float(low):
        scaled = (values - float(low)) / (float(high) - float(low))
        ours = np.asarray(matplotlib.colormaps[name](np.clip(scaled, 0.0, 1.0)), dtype=np.float64)
        if rgba.shape == ours.shape:
            ours[..., 3] = rgba[..., 3]  # the drawing's transparency (alpha=) is its own
        rgba = ours
    if rgba.shape != (*values.shape, 4):
        raise ValueError("the description gives no colour for each cell")
    return rgba[..., :3] * rgba[..., 3:4] + (1.0 - rgba[..., 3:4])


def _to_pixels(x: np.ndarray, y: np.ndarray, axes: dict) -> tuple[np.ndarray, np.ndarray]:
    left, top, right, bottom = (float(v) for v in axes["box_px"])
    x0, x1 = (float(v) for v in axes["xlim"])
    y0, y1 = (float(v) for v in axes["ylim"])
    return left + (x - x0) / (x1 - x0) * (right - left), top + (y1 - y) / (y1 - y0) * (bottom - top)


def figure_problem(description: Any) -> str:
    """'' when the PNG shows the graded heatmap's cells in their colours; else what disagrees."""
    try:
        return _problem(description)
    except (KeyError, TypeError, ValueError, IndexError, ZeroDivisionError, OSError) as error:
        return f"the figure's description cannot be compared with its image ({type(error).__name__}: {error})"


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
    wrong = 0
    for row in range(values.shape[0]):
        for col in range(values.shape[1]):
            cx, cy = px[col], py[row]
            x_lo, x_hi = int(round(cx - half_w)), int(round(cx + half_w)) + 1
            y_lo, y_hi = int(round(cy - half_h)), int(round(cy + half_h)) + 1
            if x_lo < 0 or y_lo < 0 or x_hi > image.shape[1] or y_hi > image.shape[0]:
                return "the heatmap's cells lie outside the image"
            shown = np.median(image[y_lo:y_hi, x_lo:x_hi].reshape(-1, 3), axis=0)
            if np.abs(shown - expected[row, col]).max() > COLOUR_TOLERANCE:
                wrong += 1
    if wrong:
        return f"{wrong} of {values.size} cells in the image do not have the colour of the value the description gives them"
    return ""
