"""Read back what a plotting function drew, as plain data (runs on the student's side).

For every Axes of the figure: the images (imshow) and meshes (pcolormesh, seaborn.heatmap) with
their arrays, extents or cell edges and colour limits; tick positions and labels, each label's box
in PNG pixels and its font (for the grader to draw it again: grading/integrity/figure.py); axis
labels; limits; whether a colorbar belongs to the drawing. Plus a small PNG of the whole figure.

A figure the plotting function closed (plt.close: its canvas is then a bare FigureCanvasBase), or one
on another backend's canvas, is drawn on an Agg canvas of its own. When the kit's drawing fails, the
error is not the student's unless matplotlib's own plain draw (what plt.show and savefig do) fails
too: the description says so (`not_drawn`: NOT_DRAWN_TEXT when a text of the figure cannot be
encoded, which no backend can draw; NOT_DRAWN_FIGURE, with the `error`, when matplotlib cannot draw
the figure, e.g. a label with bad mathtext; else the kit's error) instead of raising.

`plot_call` is the entry point for a plot request: a keyword argument whose value is NEW_AXES
(plain text on the wire) becomes a fresh Axes made here, so a check can see whether a plotting
function draws on the Axes it is given (`given_axes` in the description). With `picture=False`
the figure is neither drawn nor saved: the description has no PNG and no tick label boxes or
fonts (for a check that looks only at which Axes holds the drawing).
"""
from __future__ import annotations

import io
import warnings
from typing import Any, Callable

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import torch  # noqa: E402
from matplotlib import font_manager  # noqa: E402
from matplotlib._pylab_helpers import Gcf  # noqa: E402
from matplotlib.axes import Axes  # noqa: E402
from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: E402
from matplotlib.collections import PolyQuadMesh, QuadMesh  # noqa: E402
from matplotlib.colorbar import Colorbar  # noqa: E402
from matplotlib.figure import Figure, SubFigure  # noqa: E402
from matplotlib.image import AxesImage, imsave  # noqa: E402
from matplotlib.ticker import FixedFormatter, FuncFormatter  # noqa: E402
from matplotlib.layout_engine import PlaceHolderLayoutEngine  # noqa: E402
from matplotlib.text import Text  # noqa: E402
from matplotlib.transforms import Bbox  # noqa: E402

from autograder.grading.worker.protocol import GOURAUD, NEW_AXES, NOT_DRAWN_FIGURE, NOT_DRAWN_TEXT  # noqa: E402
from autograder.settings import PLOT_MAX_CELLS as MAX_CELLS  # noqa: E402  (the grader reads no more)
from autograder.settings import PNG_DPI  # noqa: E402

try:  # savefig's own helper for bbox_inches (no public equivalent): without it, a figure is drawn twice
    from matplotlib import _tight_bbox
except ImportError:  # pragma: no cover (another matplotlib)
    _tight_bbox = None  # type: ignore[assignment]

MAX_PIXELS = 4_000_000
TIGHT_PAD = 0.1  # inches around the tight bounding box (matplotlib's default pad_inches)
FRAME_PAD = 1.0  # inches drawn around the figure, so that what reaches past its edge (rotated tick labels) is in the PNG
MAX_LABEL_BOXES = 200  # tick labels per axis whose box and font are sent (the grader checks a few)


def _tensor(array: Any) -> torch.Tensor:
    data = np.ma.filled(np.ma.asarray(array, dtype=np.float64), np.nan)
    if data.size > MAX_CELLS:
        raise ValueError(f"the drawing holds {data.size} cells, more than {MAX_CELLS}")
    return torch.from_numpy(np.ascontiguousarray(data))


MAX_COLORBARS = 8  # colorbars described per figure (a heatmap needs one)
CMAP_GRID = 33  # colours of a colour map sent, from its lowest value to its highest


def _clim(mappable: Any) -> list[float | None]:
    low, high = mappable.get_clim()
    return [None if low is None else float(low), None if high is None else float(high)]


def _cmap_ends(mappable: Any) -> list[list[float]]:
    """The RGBA colours of the lowest and the highest value (is darker = more weight?)."""
    cmap = mappable.get_cmap()
    return [[float(c) for c in cmap(0.0)], [float(c) for c in cmap(1.0)]]


def _cmap_grid(mappable: Any) -> list[list[float]]:
    """The RGBA colours of CMAP_GRID values evenly spaced from the lowest to the highest (does the
    map darken all the way, or only at its ends?)."""
    cmap = mappable.get_cmap()
    return [[float(c) for c in cmap(i / (CMAP_GRID - 1))] for i in range(CMAP_GRID)]


def _colours(mappable: Any, array: Any, shape: tuple[int, int]) -> torch.Tensor:
    """The RGBA colour (rows, cols, 4) in [0, 1] that the mappable gives each cell (any norm, any cmap)."""
    data = np.ma.asarray(array, dtype=np.float64).reshape(shape)
    if data.size > MAX_CELLS:
        raise ValueError(f"the drawing holds {data.size} cells, more than {MAX_CELLS}")
    rgba = np.asarray(mappable.to_rgba(data), dtype=np.float64)
    alpha = mappable.get_alpha()
    if isinstance(alpha, (int, float)):
        rgba[..., 3] = float(alpha)
    return torch.from_numpy(np.ascontiguousarray(rgba))


def _norm_name(norm: Any) -> str:
    """The norm's class name ('Normalize', 'LogNorm'), with its module when it is not matplotlib's
    (a subclass of the student's own named Normalize is not matplotlib's plain norm)."""
    kind = type(norm)
    return kind.__name__ if str(kind.__module__).startswith("matplotlib.") else f"{kind.__module__}.{kind.__qualname__}"


def _image(image: AxesImage) -> dict:
    array = np.ma.asarray(image.get_array())
    return {
        "rgba": _colours(image, array, array.shape[:2]) if array.ndim == 2 else torch.empty(0),
        "norm": _norm_name(image.norm),
        "array": _tensor(image.get_array()),
        "extent": [float(v) for v in image.get_extent()],
        "origin": str(image.origin),
        "clim": _clim(image),
        "cmap": image.get_cmap().name,
        "cmap_levels": int(image.get_cmap().N),  # plt.get_cmap(name, 8), .resampled(8): the named map in 8 steps
        "cmap_ends": _cmap_ends(image),
        "cmap_grid": _cmap_grid(image),
        "colorbar": _colorbar_here(image),
        "interpolation": str(image.get_interpolation())[:40],
    }


def _around(centres: np.ndarray) -> np.ndarray:
    """Cell edges around the given centres: halfway between them, and half a step beyond each end."""
    if centres.size < 2:
        return np.concatenate([centres - 0.5, centres + 0.5])
    middles = (centres[:-1] + centres[1:]) / 2.0
    return np.concatenate([[2 * centres[0] - middles[0]], middles, [2 * centres[-1] - middles[-1]]])


def _mesh(mesh: QuadMesh | PolyQuadMesh) -> dict:
    """A mesh's values in their cells. pcolormesh(shading='gouraud') gives each vertex a value and
    blends the colours between them: its cells are described around the vertices (`smoothed`), as
    shading='nearest' would draw them, and the grader judges whether its picture can be read."""
    coordinates = np.asarray(mesh.get_coordinates(), dtype=np.float64)  # (ny+1, nx+1, 2); gouraud: (ny, nx, 2)
    array = np.ma.asarray(mesh.get_array())
    x_edges, y_edges = coordinates[0, :, 0], coordinates[:, 0, 1]
    rows, cols = coordinates.shape[0] - 1, coordinates.shape[1] - 1
    smoothed = array.size == coordinates.shape[0] * coordinates.shape[1]
    if smoothed:  # a value at each vertex
        rows, cols = coordinates.shape[0], coordinates.shape[1]
        x_edges, y_edges = _around(x_edges), _around(y_edges)
    return {
        "rgba": _colours(mesh, array, (rows, cols)) if array.size == rows * cols else torch.empty(0),
        "norm": _norm_name(mesh.norm),
        "array": _tensor(array.reshape(rows, cols)),
        "x_edges": _tensor(x_edges),
        "y_edges": _tensor(y_edges),
        "interpolation": GOURAUD if smoothed else "flat",
        "clim": _clim(mesh),
        "cmap": mesh.get_cmap().name,
        "cmap_levels": int(mesh.get_cmap().N),  # plt.get_cmap(name, 8), .resampled(8): the named map in 8 steps
        "cmap_ends": _cmap_ends(mesh),
        "cmap_grid": _cmap_grid(mesh),
        "colorbar": _colorbar_here(mesh),
    }


def _label_boxes(labels: list[Any], origin: tuple[float, float]) -> list[list[float]]:
    """Each tick label's box in PNG pixels (left, top, right, bottom); empty for an empty label."""
    boxes = []
    for text in labels[:MAX_LABEL_BOXES]:
        box = text.get_window_extent() if text.get_text().strip() else None
        boxes.append([] if box is None else [float(box.x0 - origin[0]), float(origin[1] - box.y1), float(box.x1 - origin[0]), float(origin[1] - box.y0)])
    return boxes


def _text_boxes(texts: list[Any], origin: tuple[float, float]) -> list[list[float]]:
    """The box each non-empty text covers in PNG pixels: the text's, or the box drawn behind it (bbox=...)."""
    boxes = []
    for text in texts[:MAX_LABEL_BOXES]:
        if not text.get_text().strip():
            continue
        box, patch = text.get_window_extent(), text.get_bbox_patch()
        if patch is not None:
            box = Bbox.union([box, patch.get_window_extent()])
        boxes.append([float(box.x0 - origin[0]), float(origin[1] - box.y1), float(box.x1 - origin[0]), float(origin[1] - box.y0)])
    return boxes


def _label_fonts(labels: list[Any]) -> list[dict]:
    """Each tick label's font: what the grader needs to draw the same text (families resolved)."""
    fonts = []
    for text in labels[:MAX_LABEL_BOXES]:
        font = text.get_fontproperties()
        families = [name for name in (_font_name(font, family) for family in font.get_family()) if name] or [font_manager.get_font(font_manager.findfont(font)).family_name]
        fonts.append({
            "size": float(font.get_size_in_points()), "family": families, "weight": str(font.get_weight()),
            "style": str(font.get_style()), "rotation": float(text.get_rotation()),
            "align": str(text._get_multialignment()), "linespacing": _linespacing(text),  # lines of a multi-line label
            "effects": _path_effects(text), "colour": [float(c) for c in matplotlib.colors.to_rgba(text.get_color(), text.get_alpha())],
        })
    return fonts


def _linespacing(text: Text) -> str | float:
    """'normal' (the font's own line height, matplotlib >= 3.10's default) or a multiple of the font size."""
    spacing = text.get_linespacing()
    return "normal" if isinstance(spacing, str) else float(spacing)


def _path_effects(text: Text) -> list[dict]:
    """A text's path effects (plt.xkcd() outlines every text in white: withStroke), as the grader
    can draw them again: {"kind": "stroke", "width" (points), "colour" (RGBA)}, {"kind": "shadow",
    "offset" (points), "alpha", "rho", "colour" (RGB, or [] for the text's own darkened)} (a drop
    shadow: SimplePatchShadow) and {"kind": "normal"}; any other effect is {"kind": "other"} (the
    grader draws the text without it)."""
    from matplotlib import colors
    from matplotlib.patheffects import Normal, SimplePatchShadow, Stroke, withSimplePatchShadow, withStroke

    effects: list[dict] = []
    for effect in text.get_path_effects():
        gc = getattr(effect, "_gc", {})
        if isinstance(effect, SimplePatchShadow) and not gc:
            face = getattr(effect, "_shadow_rgbFace", None)
            effects.append({
                "kind": "shadow", "offset": [float(v) for v in getattr(effect, "_offset", (0.0, 0.0))],
                "alpha": float(getattr(effect, "_alpha", 0.3)), "rho": float(getattr(effect, "_rho", 0.3)),
                "colour": [] if face is None else [float(c) for c in colors.to_rgb(face)],
            })
            if isinstance(effect, withSimplePatchShadow):  # it draws the text over its shadow
                effects.append({"kind": "normal"})
            continue
        plain = isinstance(effect, Stroke) and set(gc) <= {"linewidth", "foreground"} and tuple(getattr(effect, "_offset", (1, 1))) == (0, 0)
        if plain:
            effects.append({"kind": "stroke", "width": float(gc.get("linewidth", 0.0)), "colour": [float(c) for c in colors.to_rgba(gc.get("foreground", text.get_color()))]})
            if isinstance(effect, withStroke):  # withStroke draws the text over its stroke
                effects.append({"kind": "normal"})
        else:
            effects.append({"kind": "normal"} if type(effect) is Normal else {"kind": "other"})
    return effects


def _font_name(font: Any, family: str) -> str:
    """The name of the installed font that `family` (a name or a generic family) stands for; '' when none."""
    wanted = font.copy()
    wanted.set_family(family)
    try:
        return str(font_manager.get_font(font_manager.findfont(wanted, fallback_to_default=False)).family_name)
    except ValueError:
        return ""


def _tick_lists(axis: Any) -> tuple[list[float], list[Any]]:
    """An axis' tick positions and their labels (Text): the major ones, then the minor ones when one
    of those is labelled (the tokens on minor ticks at the cell centres and unlabelled major ticks on
    the cell edges that carry a grid, qa10e c15), the i-th label that of the i-th tick."""
    ticks, labels = [float(v) for v in axis.get_majorticklocs()], list(axis.get_majorticklabels())
    if not _shown(axis):  # ax.axis("off"), xaxis.set_visible(False): ticks without labels on the page
        return ticks, []
    minor_labels = list(axis.get_minorticklabels())
    if not any(label.get_text().strip() for label in minor_labels):
        return ticks, labels
    minor_ticks = [float(v) for v in axis.get_minorticklocs()]
    return ticks + minor_ticks, labels[: len(ticks)] + minor_labels[: len(minor_ticks)]


def _shown(axis: Any) -> bool:
    """Whether an axis (ax.xaxis) is drawn: its Axes' axis lines are on and the axis is visible."""
    return bool(axis.axes.axison and axis.get_visible())


def _label_text(axis: Any) -> str:
    """An axis label as drawn: '' when it or its axis is not drawn. Read off the Text itself, as
    matplotlib draws it (an Axes subclass may answer get_xlabel() with any text)."""
    label = axis.label
    return str(Text.get_text(label)) if _shown(axis) and _inked(label) else ""


def _shown_text(text: Text) -> str:
    """A tick label's text as a reader sees it: '' when it is too small to read (its colour is
    not judged: an outline drawn around it, white in plt.xkcd(), may be what shows it)."""
    return str(text.get_text()) if _readable_size(text) else ""


def _readable_size(text: Text) -> bool:
    return float(text.get_fontsize()) >= MIN_TEXT_POINTS


def _faint(ax: Axes, xlabels: list[Text], ylabels: list[Text]) -> list[str]:
    """Which of an Axes' labels hold text that is drawn too small or faint to read (a wrong
    diagnosis said "no label" where there was one of 3 pt: qa43s b16, b22); tick labels by their
    size alone (_shown_text)."""
    axis_labels = {"xlabel": [ax.xaxis.label] if _shown(ax.xaxis) else [], "ylabel": [ax.yaxis.label] if _shown(ax.yaxis) else []}
    faint = [name for name, texts in axis_labels.items() if any(str(t.get_text()).strip() and t.get_visible() and matplotlib.colors.to_rgba(t.get_color(), t.get_alpha())[3] > 0 and not _inked(t) for t in texts)]  # (a transparent one: none)
    return faint + [name for name, texts in (("xticklabels", xlabels), ("yticklabels", ylabels)) if any(str(t.get_text()).strip() and not _readable_size(t) for t in texts)]


def _title(ax: Axes, loc: str) -> str:
    title = {"center": ax.title, "left": ax._left_title, "right": ax._right_title}[loc]
    return str(Text.get_text(title)) if _inked(title) else ""


MIN_TEXT_POINTS = 4.0  # a label or title smaller than this cannot be read (qa41h F6: 1 pt)
MIN_CONTRAST = 0.1  # the least difference of luminance between a text and what it is drawn on (white on white: 0)
MIN_STRIP_PIXELS = 2.0  # a colorbar strip narrower than this shows no colours (qa41h F6: a fraction of a pixel; qa43h c01: an honest slim one is 2.7)


def _inked(text: Text) -> bool:
    """Whether a Text is drawn so that it shows: visible, not transparent, at a readable size, in
    a colour that stands out from what it is drawn on (its own box, or the figure)."""
    colour = matplotlib.colors.to_rgba(text.get_color(), text.get_alpha())
    if not text.get_visible() or colour[3] <= 0 or not _readable_size(text):
        return False
    box, figure = text.get_bbox_patch(), text.get_figure()
    grounds = [box.get_facecolor() if box is not None and box.get_visible() else "none", figure.get_facecolor() if figure is not None else "none", "white"]
    ground = next(rgba for rgba in map(matplotlib.colors.to_rgba, grounds) if rgba[3] > 0)  # its box, else the figure, else (transparent) the page
    return abs(_luminance(colour) - _luminance(ground)) >= MIN_CONTRAST


def _luminance(rgba: Any) -> float:
    red, green, blue = rgba[:3]
    return 0.2126 * red + 0.7152 * green + 0.0722 * blue


def _axes(ax: Axes, origin: tuple[float, float] = (0.0, 0.0), boxes: bool = True) -> dict:
    """One Axes; `origin` is the PNG's top-left corner in display pixels (x, y from the bottom);
    boxes=False: no tick label boxes or fonts (there is no PNG to place them in)."""
    box = ax.get_window_extent()
    (xticks, xlabels), (yticks, ylabels) = _tick_lists(ax.xaxis), _tick_lists(ax.yaxis)
    xlabels_boxed, ylabels_boxed = (xlabels, ylabels) if boxes else ([], [])
    return {
        "box_px": [float(box.x0 - origin[0]), float(origin[1] - box.y1), float(box.x1 - origin[0]), float(origin[1] - box.y0)],
        "images": [_image(i) for i in ax.images],
        "meshes": [_mesh(c) for c in ax.collections if isinstance(c, (QuadMesh, PolyQuadMesh))],  # pcolormesh, seaborn / pcolor
        "xticks": xticks,
        "xticklabels": [_shown_text(t) for t in xlabels],
        "xtickboxes": _label_boxes(xlabels_boxed, origin),
        "xtickfonts": _label_fonts(xlabels_boxed),
        "yticks": yticks,
        "yticklabels": [_shown_text(t) for t in ylabels],
        "ytickboxes": _label_boxes(ylabels_boxed, origin),
        "ytickfonts": _label_fonts(ylabels_boxed),
        "textboxes": _text_boxes(list(ax.texts) if boxes else [], origin),  # annotations (ax.text, seaborn's annot=True): they may run over tick labels and cover cells
        "xlabel": _label_text(ax.xaxis),
        "ylabel": _label_text(ax.yaxis),
        "faint": _faint(ax, xlabels, ylabels),
        "title": " ".join(text for text in (_title(ax, loc) for loc in ("center", "left", "right")) if text),
        "titles": [_title(ax, loc) for loc in ("center", "left", "right")],  # each on its own: a title and a panel letter "(a)" beside it
        "xlim": [float(v) for v in ax.get_xlim()],
        "ylim": [float(v) for v in ax.get_ylim()],
    }


def plot_call(target: Callable[..., Any], args: list, kwargs: dict, picture: bool = True, over_open: bool = False) -> dict:
    """Call a plotting function with NEW_AXES keyword values replaced by a fresh Axes; describe it.
    `over_open`: called without ax=, while a figure with an Axes is open and current; that Axes is
    described as the given one (drawn on: the function did not make a new figure)."""
    given: list[Axes] = []

    def draw() -> Any:
        if over_open:
            given.append(plt.figure().add_subplot())
            return target(*args, **kwargs)
        resolved = dict(kwargs)
        for name, value in kwargs.items():
            if isinstance(value, str) and value == NEW_AXES:
                given.append(plt.figure().add_subplot())
                resolved[name] = given[-1]
        if not given:
            return target(*args, **resolved)
        plt.figure()  # a decoy current figure: drawing on plt.gca() instead of on ax shows up
        with warnings.catch_warnings():  # ...but plt.colorbar(image, ax=ax) is right: no warning of the decoy's
            warnings.filterwarnings("ignore", message="Adding colorbar to a different Figure", category=UserWarning)
            return target(*args, **resolved)

    return extract_plot(draw, given, picture)


def _colorbar_here(mappable: Any) -> bool:
    """Whether a drawing's colorbar is in the drawing's own figure (with an Axes given, plt.gcf()
    is another one: a colorbar made there is not beside the heatmap)."""
    colorbar, axes = getattr(mappable, "colorbar", None), getattr(mappable, "axes", None)
    if not isinstance(colorbar, Colorbar) or not _colorbar_shown(colorbar.ax):  # drawn, not an attribute set
        return False
    return axes is None or colorbar.ax.get_figure(root=True) is axes.get_figure(root=True)


def _on_page(ax: Axes) -> bool:
    """Whether an Axes shows at all: visible, with an area (fig.add_axes([x, y, 0, 0]) has none)."""
    box = ax.get_position()
    return bool(ax.get_visible() and box.width > 0 and box.height > 0)


def _colorbar_shown(ax: Axes) -> bool:
    """Whether an Axes is a colorbar that shows on the page, with its strip of colours drawn (not
    hidden: bar.solids.set_visible(False), or transparent), at least MIN_STRIP_PIXELS wide."""
    box = ax.get_window_extent()
    return _colorbar_drawn(ax) and min(box.width, box.height) >= MIN_STRIP_PIXELS


def _colorbar_drawn(ax: Axes) -> bool:
    """Whether an Axes is a colorbar on the page whose strip of colours is drawn, however thin."""
    if not _is_colorbar(ax) or not _on_page(ax):
        return False
    colorbar = getattr(ax, "_colorbar", None)
    if colorbar is None:
        return True
    strip = [colorbar.solids] if colorbar.solids is not None else list(getattr(colorbar, "solids_patches", None) or [])
    return any(piece.get_visible() and piece.get_alpha() != 0 for piece in strip)


def _is_colorbar(ax: Axes) -> bool:
    """Whether an Axes holds a colorbar: one made by fig.colorbar(..., ax=ax) (labelled so), or
    drawn in an Axes of the student's own (fig.colorbar(..., cax=fig.add_axes(...)) or
    make_axes_locatable's: not labelled, but matplotlib keeps the colorbar on it)."""
    return ax.get_label() == "<colorbar>" or getattr(ax, "_colorbar", None) is not None


def _holds_drawing(ax: Axes) -> bool:
    """Whether an Axes holds a heatmap (an image or a mesh) and is no colorbar (which holds a mesh of its own)."""
    return not _is_colorbar(ax) and (bool(ax.images) or any(isinstance(c, (QuadMesh, PolyQuadMesh)) for c in ax.collections))


def _target(axes: list[Axes], ax: Axes | None, given: list[Axes]) -> int:
    """The index of the Axes the function drew on: the one it returned; when it returned no Axes
    (a Figure, None) or one that holds no heatmap (the colorbar's: `return cbar.ax`, or plt.gca()
    after fig.add_axes made the colorbar's Axes current, qa10e b02/b03), the given Axes if it holds
    a drawing, else the one Axes of the figure that holds a heatmap; the returned Axes (or -1 when
    none came back) where that cannot be told apart. Whether it returned the heatmap's Axes is a
    check of its own (`returned_target`)."""
    if ax is not None and _holds_drawing(ax):
        return axes.index(ax) if ax in axes else (0 if axes else -1)
    if given and given[0] in axes and _holds_drawing(given[0]):
        return axes.index(given[0])
    holding = [index for index, candidate in enumerate(axes) if _holds_drawing(candidate)]
    if len(holding) == 1 or ax is None:
        return holding[0] if len(holding) == 1 else -1
    return axes.index(ax) if ax in axes else (0 if axes else -1)


def _returned_target(axes: list[Axes], ax: Axes | None, target: int) -> bool:
    """Whether the Axes returned is the one graded (an Axes holding the heatmap, perhaps an inset
    that is not among the figure's own Axes)."""
    if ax is None:
        return False
    return axes[target] is ax if ax in axes and 0 <= target < len(axes) else _holds_drawing(ax) or not axes


def _figure(returned: Any, given: list[Axes]) -> Figure | None:
    """The figure to describe: the returned Axes'; when no Axes came back, or one without a drawing
    (plt.gca() of another figure), the given Axes' if it was drawn on; else the returned Figure,
    else the given Axes', else the current one."""
    if isinstance(returned, Axes) and (_holds_drawing(returned) or not (given and _holds_drawing(given[0]))):
        return _root(returned.figure)
    if given and _holds_drawing(given[0]):
        return _root(given[0].figure)
    if isinstance(returned, Figure):
        return returned
    if given:
        return _root(given[0].figure)
    return plt.gcf() if plt.get_fignums() else None


def _root(figure: Figure | SubFigure) -> Figure:
    """The figure a (sub)figure is drawn in: a subfigure is saved with its whole figure."""
    while isinstance(figure, SubFigure):
        figure = figure.figure
    return figure


def _colorbar_map(cax: Axes) -> dict | None:
    """The colours and the range a colorbar shows (its mappable's colour map ends and clim); None
    when its mappable cannot be found (matplotlib keeps it on the colorbar's Axes)."""
    colorbar = getattr(cax, "_colorbar", None)
    mappable = getattr(colorbar, "mappable", None)
    if mappable is None:
        return None
    return {"cmap_ends": _cmap_ends(mappable), "clim": _clim(mappable)}


def _holders(returned_kind: str, axes: list[Axes], ax: Axes | None, given: list[Axes]) -> dict:
    """What was returned, and which of the figure's Axes is the returned one, the given one, a colorbar."""
    target = _target(axes, ax, given)
    return {
        "returned": returned_kind,
        "target": target,
        "returned_target": _returned_target(axes, ax, target),
        "colorbars": sum(1 for a in axes if _colorbar_shown(a)),  # a hidden one shows nothing
        "faint_colorbars": sum(1 for a in axes if _colorbar_drawn(a) and not _colorbar_shown(a)),  # drawn, but too thin to show its colours
        "colorbar_maps": [_colorbar_map(a) for a in axes if _colorbar_shown(a)][:MAX_COLORBARS],
        "given_axes": axes.index(given[0]) if given and given[0] in axes else -1,
        "figures": len(plt.get_fignums()),
    }


def extract_plot(draw: Callable[[], Any], given: list[Axes] | None = None, picture: bool = True) -> dict:
    """Run `draw` on a clean pyplot state and describe the Axes it returned (and its figure).

    `given` holds the Axes handed to the plotting function (filled while `draw` runs), if any:
    `given_axes` is its index among the described axes, -1 when it is not in that figure. An error
    while the kit draws the figure is raised only when it passed through the student's code (a
    tick formatter of theirs called at draw time); else the description says it (`not_drawn`).
    """
    plt.close("all")
    given = given if given is not None else []
    try:
        returned = draw()
        elsewhere = {"elsewhere": _texts_elsewhere(given[0])} if given else {}
        try:
            with warnings.catch_warnings():  # the kit's own draws (missing glyphs...) are not the student's output
                warnings.simplefilter("ignore")
                return {**_describe(returned, given, picture), **elsewhere}
        except Exception as error:  # noqa: BLE001 - the kit's drawing failed: said in the description, not raised as the student's
            if _through_student_code(error):
                raise  # the student's own code, called while the figure is drawn
            return _not_drawn(returned, given, error)
    finally:
        plt.close("all")


def _labels_set(axis: Any) -> bool:
    """Whether tick labels were given to an axis (plt.xticks(ticks, labels), ax.set_xticklabels:
    matplotlib wraps them in a FuncFormatter; a FixedFormatter set by hand), not its numbers."""
    if not isinstance(axis.get_major_formatter(), (FixedFormatter, FuncFormatter)):
        return False
    try:  # a formatter of the student's own runs here
        return any(label.get_text().strip() for label in axis.get_majorticklabels())
    except Exception:  # noqa: BLE001 - one that fails shows no label
        return False


def _texts_elsewhere(given: Axes) -> list[str]:
    """With an Axes given: which of a title, axis labels, tick labels and a colorbar were drawn in
    another figure (plt.title, plt.xlabel, plt.xticks, plt.colorbar act on the current figure, not on ax's)."""
    home = given.get_figure(root=True)
    figures = [manager.canvas.figure for manager in Gcf.get_all_fig_managers() if manager.canvas.figure is not home]
    axes = [a for figure in figures for a in figure.axes]
    plain = [a for a in axes if not _is_colorbar(a)]
    found = {
        "title": any(_title(a, loc) for a in plain for loc in ("center", "left", "right")) or any(f._suptitle is not None and _inked(f._suptitle) for f in figures),
        "xlabel": any(_label_text(a.xaxis) for a in plain),
        "ylabel": any(_label_text(a.yaxis) for a in plain),
        "colorbar": any(_colorbar_shown(a) for a in axes),
        "tick labels": any(_labels_set(a.xaxis) or _labels_set(a.yaxis) for a in plain),
    }
    return [name for name, there in found.items() if there]


def _through_student_code(error: BaseException) -> bool:
    """Whether a frame of the error's traceback runs in a student's module (the dispatcher marks
    each with __attnkit_student__)."""
    frame = error.__traceback__
    while frame is not None:
        if frame.tb_frame.f_globals.get("__attnkit_student__") is True:
            return True
        frame = frame.tb_next
    return False


def _not_drawn(returned: Any, given: list[Axes], error: Exception) -> dict:
    """The description of a figure the kit could not draw: no Axes, and why (`not_drawn`)."""
    figure: Figure | None = None
    try:
        figure = _figure(returned, given)
        texts = [] if figure is None else [text.get_text() for text in figure.findobj(Text)]
    except Exception:  # noqa: BLE001 - the figure cannot even be walked: the kit's error stands
        figure, texts = None, []
    said = f"{type(error).__name__}: {str(error)[:200]}"
    description = {"returned": type(returned).__name__, "axes": [], "target": -1, "png": torch.empty(0, dtype=torch.uint8), "colorbars": 0, "given_axes": -1, "figures": 0, "not_drawn": said}
    if not all(_encodable(text) for text in texts):
        description["not_drawn"] = NOT_DRAWN_TEXT
    elif figure is not None and (plain := _plain_draw_error(figure)):
        description.update(not_drawn=NOT_DRAWN_FIGURE, error=plain)
    return description


def _plain_draw_error(figure: Figure) -> str:
    """Why matplotlib's plain draw of the figure on an Agg canvas fails ('' when it draws): such a
    figure cannot be shown or saved either, so its error is the student's."""
    try:
        FigureCanvasAgg(figure).draw()
    except Exception as error:  # noqa: BLE001 - any error of the plain draw is the figure's own
        return f"{type(error).__name__}: {str(error)[:200]}"
    return ""


def _encodable(text: Any) -> bool:
    """Whether a text can be drawn at all (a lone surrogate, '\\ud800', cannot be encoded: no font gets it)."""
    try:
        str(text).encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _describe(returned: Any, given: list[Axes], picture: bool) -> dict:
    """The description of what `draw` returned and drew (extract_plot)."""
    returned_kind = "Axes" if isinstance(returned, Axes) else type(returned).__name__  # a subclass of the student's is one too
    ax = returned if isinstance(returned, Axes) else None
    figure = _figure(returned, given)
    if figure is None:
        return {"returned": returned_kind, "axes": [], "target": -1, "png": torch.empty(0, dtype=torch.uint8), "colorbars": 0, "given_axes": -1, "figures": 0}
    if not picture:  # which Axes holds what: not drawn, no PNG (saves the figure's two draws)
        axes = list(figure.axes)
        return {**_holders(returned_kind, axes, ax, given), "axes": [_axes(a, boxes=False) for a in axes], "png": torch.empty(0, dtype=torch.uint8)}
    width, height = figure.get_size_inches()
    if width * height * 72 * 72 > MAX_PIXELS:
        figure.set_size_inches(8, 6)
    figure.set_dpi(PNG_DPI)
    if not isinstance(figure.canvas, FigureCanvasAgg):  # closed (plt.close) or another backend's
        FigureCanvasAgg(figure)
    axes = list(figure.axes)
    described = _drawn_once(figure) or _drawn_twice(figure)
    return {**_holders(returned_kind, axes, ax, given), **described}


def _described(figure: Figure, png: bytes, origin: tuple[float, float], canvas_height: float) -> dict:
    """The figure's Axes and PNG; `origin`: the PNG's top-left corner in display pixels;
    `canvas_height`: from that corner down to the bottom of the canvas Agg drew on, in pixels."""
    return {
        "axes": [_axes(a, origin) for a in figure.axes],
        "png": torch.frombuffer(bytearray(png), dtype=torch.uint8).clone(),
        "png_height_px": float(canvas_height),  # where glyphs fall within a pixel depends on its fraction
    }


def _drawn_once(figure: Figure) -> dict | None:
    """The figure drawn once, on a canvas FRAME_PAD larger on every side (the layout kept as at its
    own size, as savefig does for bbox_inches), and cropped to its tight box: one layout and one
    render instead of a draw for the tight box and a second one for the PNG. None when it cannot:
    a layout engine that runs at draw time (constrained layout), a canvas other than Agg's (not
    after _describe), or a tight box past the frame."""
    if _tight_bbox is None or not isinstance(figure.canvas, FigureCanvasAgg) or not isinstance(figure.get_layout_engine(), (type(None), PlaceHolderLayoutEngine)):
        return None
    renderer = figure.canvas.get_renderer()
    for ax in figure.axes:
        if ax.get_axes_locator() is None:
            ax.apply_aspect()  # where a draw would put it (savefig draws first for the same reason)
    width, height = figure.get_size_inches()
    restore = _tight_bbox.adjust_bbox(figure, Bbox.from_extents(-FRAME_PAD, -FRAME_PAD, width + FRAME_PAD, height + FRAME_PAD), renderer, PNG_DPI)
    try:
        figure.canvas.draw()
        renderer = figure.canvas.get_renderer()
        tight = figure.get_tightbbox(renderer).padded(TIGHT_PAD)  # inches on the framed canvas, as Jupyter crops
        pixels = np.asarray(renderer.buffer_rgba())  # (rows, cols, 4)
        left, right = round(tight.x0 * PNG_DPI), round(tight.x1 * PNG_DPI)
        top, bottom = round(renderer.height - tight.y1 * PNG_DPI), round(renderer.height - tight.y0 * PNG_DPI)
        if left < 0 or top < 0 or right > pixels.shape[1] or bottom > pixels.shape[0] or left >= right or top >= bottom:
            return None
        png = io.BytesIO()
        imsave(png, pixels[top:bottom, left:right], format="png", dpi=PNG_DPI)
        return _described(figure, png.getvalue(), (float(left), float(renderer.height - top)), renderer.height - top)
    finally:
        restore()


def _drawn_twice(figure: Figure) -> dict:
    """The figure drawn at its own size (layout, tight box), then saved cropped to its tight box."""
    figure.canvas.draw()
    png = io.BytesIO()
    tight = figure.get_tightbbox(figure.canvas.get_renderer()).padded(TIGHT_PAD)  # inches, as Jupyter crops
    figure.savefig(png, format="png", dpi=PNG_DPI, bbox_inches=tight)
    return _described(figure, png.getvalue(), (tight.x0 * PNG_DPI, tight.y1 * PNG_DPI), tight.height * PNG_DPI)
