"""The kit's pinned renderer: matplotlib Agg figures that give byte-identical PNGs for the same input.

No pyplot and no global backend switch: figures are `matplotlib.figure.Figure` objects drawn on an
Agg canvas inside a pinned style (matplotlib defaults + STYLE), so a user's matplotlibrc, the
interactive backend, or another module's rc changes cannot alter the pixels.
"""
from __future__ import annotations

import io
import logging
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import matplotlib
import matplotlib.style
import numpy as np
from matplotlib import font_manager
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.gridspec import SubplotParams

from autograder.errors import AttnkitError
from autograder.assignment import words
from autograder.feedback.i18n import t, t_of

DPI = 100
HEATMAP_CMAP = "Blues"  # darker = higher weight, as the course text asks (颜色越深表示权重越高)
DIFFERENCE_CMAP = "RdBu_r"  # diverging: red = yours higher, blue = reference higher
BAD_COLOR = "#ff00ff"  # NaN / inf cells stand out in magenta
HISTOGRAM_SIZE = (6.4, 3.2)
FIGURE_CACHE_SIZE = 16  # heatmap figures kept per process for reuse (one per layout: shape, tokens, title, colours)
# CJK fallbacks are used only for glyphs DejaVu Sans lacks (Chinese tokens, titles, axis labels).
CJK_FONTS = ("Noto Sans CJK SC", "WenQuanYi Zen Hei", "Source Han Sans SC", "Droid Sans Fallback")


class _QuietCjkWeight(logging.Filter):
    """Drop matplotlib's note that a CJK fallback font has weight 500 where 400 was asked for."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        return not (message.startswith("findfont: Failed to find font weight") and
                    any(name in message for name in CJK_FONTS))


logging.getLogger("matplotlib.font_manager").addFilter(_QuietCjkWeight())


def _font_stack() -> list[str]:
    installed = {entry.name for entry in font_manager.fontManager.ttflist}
    return ["DejaVu Sans", *(name for name in CJK_FONTS if name in installed)]


STYLE: dict[str, Any] = {
    "font.family": _font_stack(),  # an explicit list: matplotlib falls back glyph by glyph along it
    "font.size": 10.0,
    "figure.dpi": DPI,
    "savefig.dpi": DPI,
    "savefig.format": "png",
    "savefig.bbox": None,
    "savefig.facecolor": "white",
    "figure.facecolor": "white",
    "svg.hashsalt": "attnkit",
    "image.interpolation": "nearest",
    "image.resample": False,
    "axes.unicode_minus": False,
    "text.hinting": "default",
    "text.antialiased": True,
    "path.simplify": True,
}


@contextmanager
def pinned_style() -> Iterator[None]:
    """matplotlib's own defaults plus STYLE, whatever the process or the user configured."""
    with matplotlib.style.context(["default", STYLE]):
        yield


def new_figure(figsize: tuple[float, float]) -> Figure:
    """A figure on an Agg canvas; create it (and draw on it) inside `pinned_style()`."""
    figure = Figure(figsize=figsize, dpi=DPI)
    FigureCanvasAgg(figure)
    return figure


def settle_layout(figure: Figure) -> None:
    """tight_layout once, then no layout engine: with one (tight_layout leaves a placeholder),
    savefig draws the whole figure an extra time before drawing it for the PNG (same pixels)."""
    figure.tight_layout()
    figure.set_layout_engine(None)  # None, not "none": rcParams are pinned, autolayout is off


def figure_png(fig: Figure) -> bytes:
    """The figure as PNG bytes, with no metadata that changes between runs."""
    buffer = io.BytesIO()
    with pinned_style():
        fig.savefig(buffer, format="png", dpi=DPI, metadata={"Software": None})
    return buffer.getvalue()


def _as_matrix(matrix: Any, what: str) -> np.ndarray:
    """A float64 (Lq, Lk) numpy array from a tensor / ndarray / nested list."""
    if hasattr(matrix, "detach"):  # a torch tensor, without importing torch here
        matrix = matrix.detach().to("cpu").double().numpy()
    array = np.asarray(matrix, dtype=np.float64)
    if array.ndim != 2 or 0 in array.shape:
        raise AttnkitError(f"{what} must be a non-empty 2-D (Lq, Lk) matrix, got shape {array.shape}")
    return array


def _labels(tokens: Sequence[str] | None, size: int, axis: str) -> list[str]:
    if tokens is None:
        return [str(i) for i in range(size)]
    labels = [str(token) for token in tokens]
    if len(labels) != size:
        raise AttnkitError(f"{len(labels)} {axis} tokens given for a matrix with {size} {axis} positions")
    return labels


def heatmap_figsize(n_queries: int, n_keys: int) -> tuple[float, float]:
    """Figure size from the matrix shape only, so same-shaped maps compare pixel for pixel."""
    width = min(max(2.8 + 0.45 * n_queries, 4.2), 14.0)
    height = min(max(2.0 + 0.38 * n_keys, 3.4), 12.0)
    return (round(width, 2), round(height, 2))


_figures: OrderedDict[tuple, Figure] = OrderedDict()  # matrix_figure(reuse=True)'s figures, by layout


def matrix_figure(
    matrix: np.ndarray,  # (Lq, Lk)
    query_tokens: Sequence[str] | None,
    key_tokens: Sequence[str] | None,
    title: str,
    *,
    cmap_name: str,
    vmin: float,
    vmax: float,
    colorbar_label: str,
    lang: str,
    reuse: bool = False,
) -> Figure:
    """The heatmap figure itself (for tests and graders that inspect it); PNG it with `figure_png`.

    reuse=True (the renders): the figure of an earlier call with the same layout, its values and
    colour range replaced and its layout done again from the defaults, which gives the same PNG
    as a new figure (tests/test_formats.py) for ~35 ms less. Such a figure is shared: PNG it at
    once and keep nothing of it."""
    n_queries, n_keys = matrix.shape
    x_labels = _labels(query_tokens, n_queries, "query")
    y_labels = _labels(key_tokens, n_keys, "key")
    layout = (n_queries, n_keys, tuple(x_labels), tuple(y_labels), title, cmap_name, colorbar_label, lang)
    masked = np.ma.masked_invalid(matrix.T)  # (Lk, Lq): rows = keys (vertical), columns = queries
    with pinned_style():
        kept = _figures.get(layout) if reuse else None
        if kept is not None:
            _figures.move_to_end(layout)
            image = kept.axes[0].images[0]
            image.set_data(masked)
            image.set_clim(vmin, vmax)  # the colorbar follows
            start = SubplotParams()  # matplotlib's defaults (pinned): where a new figure's layout starts from
            kept.subplots_adjust(left=start.left, right=start.right, bottom=start.bottom, top=start.top, wspace=start.wspace, hspace=start.hspace)
            settle_layout(kept)
            return kept
        figure = new_figure(heatmap_figsize(n_queries, n_keys))
        ax = figure.add_subplot()
        cmap = matplotlib.colormaps[cmap_name].with_extremes(bad=BAD_COLOR)
        image = ax.imshow(masked, cmap=cmap, vmin=vmin, vmax=vmax, aspect="auto")
        ax.set_xticks(range(n_queries), labels=x_labels, rotation=45, ha="right")
        ax.set_yticks(range(n_keys), labels=y_labels)
        ax.set_xlabel(t_of(words().strings, "plot.query_axis", lang))  # the assignment's axis words
        ax.set_ylabel(t_of(words().strings, "plot.key_axis", lang))
        if title:
            ax.set_title(title)
        figure.colorbar(image, ax=ax, label=colorbar_label)
        settle_layout(figure)
    if reuse:
        _figures[layout] = figure
        if len(_figures) > FIGURE_CACHE_SIZE:
            _figures.popitem(last=False)
    return figure


def heatmap_figure(
    matrix: Any, query_tokens: Sequence[str] | None, key_tokens: Sequence[str] | None, title: str = "",
    *, lang: str = "en", reuse: bool = False,
) -> Figure:
    array = _as_matrix(matrix, "the weight matrix")
    return matrix_figure(
        array, query_tokens, key_tokens, title,
        cmap_name=HEATMAP_CMAP, vmin=0.0, vmax=1.0, colorbar_label=t_of(words().strings, "plot.weight", lang), lang=lang, reuse=reuse,
    )


def difference_figure(
    student: Any, reference: Any, query_tokens: Sequence[str] | None, key_tokens: Sequence[str] | None,
    title: str = "", *, limit: float | None = None, lang: str = "en", reuse: bool = False,
) -> Figure:
    ours = _as_matrix(student, "the student's weight matrix")
    theirs = _as_matrix(reference, "the reference weight matrix")
    if ours.shape != theirs.shape:
        raise AttnkitError(
            f"cannot compare weight maps of shapes {ours.shape} (student) and {theirs.shape} (reference)"
        )
    difference = ours - theirs  # (Lq, Lk)
    bound = difference_limit(difference) if limit is None else float(limit)
    if not bound > 0:
        raise AttnkitError(f"the difference colour limit must be positive, got {limit!r}")
    return matrix_figure(
        difference, query_tokens, key_tokens, title,
        cmap_name=DIFFERENCE_CMAP, vmin=-bound, vmax=bound, colorbar_label=t("plot.difference", lang), lang=lang, reuse=reuse,
    )


def difference_limit(difference: np.ndarray) -> float:
    """Symmetric colour limit: at least 0.1 (so noise stays pale), at most 1, else the largest |diff|."""
    finite = np.abs(difference[np.isfinite(difference)])
    largest = float(finite.max()) if finite.size else 0.0
    return min(max(largest, 0.1), 1.0)


def render_heatmap(
    matrix: Any,
    query_tokens: Sequence[str] | None,
    key_tokens: Sequence[str] | None,
    title: str = "",
    *,
    lang: str = "en",
) -> bytes:
    """PNG of one (Lq, Lk) weight matrix: queries across, keys down, colour range fixed to [0, 1]."""
    return figure_png(heatmap_figure(matrix, query_tokens, key_tokens, title, lang=lang, reuse=True))


def render_difference(
    student: Any,
    reference: Any,
    query_tokens: Sequence[str] | None,
    key_tokens: Sequence[str] | None,
    title: str = "",
    *,
    limit: float | None = None,
    lang: str = "en",
) -> bytes:
    """PNG of student − reference on a diverging map with a symmetric range [-limit, limit]."""
    return figure_png(difference_figure(student, reference, query_tokens, key_tokens, title, limit=limit, lang=lang, reuse=True))


def render_histogram(percents: Sequence[float], title: str = "", *, lang: str = "en") -> bytes:
    """PNG histogram of submission scores in percent, ten bins from 0 to 100."""
    with pinned_style():
        figure = new_figure(HISTOGRAM_SIZE)
        ax = figure.add_subplot()
        ax.hist(list(percents), bins=np.linspace(0.0, 100.0, 11), color="#3b6ea8", edgecolor="white")
        ax.set_xlim(0, 100)
        ax.set_xticks(range(0, 101, 10))
        ax.set_xlabel(t("plot.histogram_x", lang))
        ax.set_ylabel(t("plot.histogram_y", lang))
        ax.yaxis.get_major_locator().set_params(integer=True)
        if title:
            ax.set_title(title)
        settle_layout(figure)
    return figure_png(figure)
