"""Hidden checks, Part E: plot_attention draws what the weights say, where the course text says.

The probe is non-square (Lq != Lk) with distinct tokens and distinct weights strictly inside
(0, 1), so a transposed picture, swapped labels or a colour range that follows the data show up.
What was drawn is read from the figure (autograder.grading.heatmap.read_heatmap): imshow (any origin or
extent), seaborn.heatmap and pcolormesh all count.

Drawing costs a worker ~0.2 s, so the checks that look at the same call (the probe with title=)
share one drawing per submission (`_drawn`); each check still fails for its own reason. The
student's own figure goes into the feedback next to the kit's render of the same weights.
"""
from __future__ import annotations

import dataclasses
import functools
import re
import unicodedata
from typing import Any, Callable

import numpy as np
import torch

from autograder.grading.worker.api import StudentAPI
from autograder.grading.worker.client import StudentError, StudentException
from autograder.grading.checks.plugin import PROPERTY, SHAPE, CheckFailure, check
from autograder.assignments.attention.texts import STRINGS, key_of_english
from autograder.assignments.attention.checks.support import fail_with, source_facts
from autograder.grading.heatmap import (
    MAX_PNG_BYTES, NEW_AXES, SHOWN_ATOL, Heatmap, Render, UnreadablePlot, orientations, png_size, read_heatmap, render, returned_axes, shows_matrix, shows_values, similarity, target_axes,
)
from autograder.grading.integrity.figure import blended_cells, figure_problem, smoothed_image
from autograder.grading.worker.protocol import GOURAUD
from autograder.grading.integrity.flags import TAMPER, Flag
from autograder.grading.integrity.rules import figure_verdict
from autograder.feedback.results import Artifact

QUERY_TOKENS = ("the", "cat", "sat", "down")  # Lq = 4: the horizontal axis
KEY_TOKENS = ("a", "big", "red", "dog", "ran")  # Lk = 5: the vertical axis
LQ, LK = len(QUERY_TOKENS), len(KEY_TOKENS)
TITLE = "probe heatmap"
PROBE_SEED = 20240611  # the probe is the same for every submission (it is not a secret)
LIGHTNESS_MARGIN = 0.1  # weight 0 must be at least this much lighter than weight 1 (0..1 luminance)
_drawn: dict[str, Any] = {}  # the last submission's drawing of the probe: {"student", "value", "problem"}


# A self-attention map as Part F draws one: Lq = Lk, one token list for both axes, a word repeated.
# A drawing that orients the matrix by its shape, or places ticks by looking tokens up, is right on
# the probe above and wrong here (qa10e b01, b08). Drawn without its picture: it only ever costs.
SELF_TOKENS = ("the", "dog", "saw", "the", "cat")
SELF_SEED = 20261202


def self_probe_weights() -> torch.Tensor:
    """(L, L) rows that sum to 1, all weights distinct, far from symmetric."""
    gen = torch.Generator().manual_seed(SELF_SEED)
    scores = 2.0 * torch.randn(len(SELF_TOKENS), len(SELF_TOKENS), generator=gen, dtype=torch.float64)
    return torch.exp(scores) / torch.exp(scores).sum(-1, keepdim=True)


# A map with more queries than keys: drawn with the queries across too, not turned by its shape
# (qa52o o12: transposed where Lq > Lk, which the probe (4 x 5) and the self-attention map never are).
TALL_QUERIES = ("we", "saw", "a", "bird", "fly", "off")
TALL_KEYS = ("it", "was", "fast")
TALL_SEED = 20261207


def tall_probe_weights() -> torch.Tensor:
    """(6, 3) rows that sum to 1."""
    gen = torch.Generator().manual_seed(TALL_SEED)
    scores = 2.0 * torch.randn(len(TALL_QUERIES), len(TALL_KEYS), generator=gen, dtype=torch.float64)
    return torch.exp(scores) / torch.exp(scores).sum(-1, keepdim=True)


def probe_weights() -> torch.Tensor:
    """(Lq, Lk) rows that sum to 1, all weights distinct and inside [0.02, 0.9]."""
    gen = torch.Generator().manual_seed(PROBE_SEED)
    scores = torch.randn(LQ, LK, generator=gen, dtype=torch.float64)
    weights = torch.exp(scores) / torch.exp(scores).sum(-1, keepdim=True)  # (Lq, Lk)
    return weights.clamp(0.02, 0.9) / weights.clamp(0.02, 0.9).sum(-1, keepdim=True)


def fail(message: str, mistake: str = "") -> CheckFailure:
    if mistake:
        return fail_with(message, mistake)
    return CheckFailure(message)


def expect_trusted_figure(student: StudentAPI) -> None:
    """A figure's description earns points only when the source cannot have forged it."""
    verdict = figure_verdict(source_facts(student), "plot_attention", "E")
    if not verdict.passed:
        raise CheckFailure(verdict.message, key=verdict.key, values=verdict.values, flags=verdict.flags)


def drawing(student: StudentAPI) -> dict:
    """plot_attention(probe, query tokens, key tokens, title=TITLE) described; once per submission."""
    if _drawn.get("student") is not student:
        _drawn.clear()
        description = student.plot("plot_attention", probe_weights(), list(QUERY_TOKENS), list(KEY_TOKENS), title=TITLE)
        _drawn.update(student=student, value=description)
    return _drawn["value"]


def _once(key: str, draw: Callable[[], Any]) -> Any:
    """draw()'s description, made once per submission (after drawing()); its StudentError is
    raised again for each check that asks, the call is not made twice."""
    if key not in _drawn:
        try:
            _drawn[key] = draw()
        except StudentError as error:
            _drawn[key] = error
    if isinstance(_drawn[key], StudentError):
        raise _drawn[key]
    return _drawn[key]


def drawing_on_given_axes(student: StudentAPI) -> Any:
    """plot_attention(probe, query tokens, key tokens, ax=<a new Axes>) described, without its
    picture (which Axes it drew on, what it returned, its axis labels)."""
    return _once("given", lambda: student.plot("plot_attention", probe_weights(), list(QUERY_TOKENS), list(KEY_TOKENS), ax=NEW_AXES, picture=False))


def drawing_over_open_figure(student: StudentAPI) -> Any:
    """The probe's drawing without ax=, made while a figure with an Axes is open and current,
    described without its picture (whether it drew over that Axes: `given_axes`)."""
    return _once("over_open", lambda: student.plot("plot_attention", probe_weights(), list(QUERY_TOKENS), list(KEY_TOKENS), picture=False, over_open=True))


def titled_on_given_axes(student: StudentAPI) -> Any:
    """The same call with title=TITLE too, described without its picture (where the title went)."""
    return _once("given_titled", lambda: student.plot("plot_attention", probe_weights(), list(QUERY_TOKENS), list(KEY_TOKENS), ax=NEW_AXES, title=TITLE, picture=False))


def self_attention_drawing(student: StudentAPI) -> Any:
    """plot_attention(self_probe_weights(), SELF_TOKENS, SELF_TOKENS, title=TITLE) described,
    without its picture. The weights require grad, as a model's do (the contract: .detach() them
    before .numpy()); when only that fails, the same map given without grad (needs_detach)."""
    try:
        return _once("self", lambda: student.plot("plot_attention", self_probe_weights(), list(SELF_TOKENS), list(SELF_TOKENS), title=TITLE, picture=False, live=(0,)))
    except StudentError:
        return _once("self_plain", lambda: student.plot("plot_attention", self_probe_weights(), list(SELF_TOKENS), list(SELF_TOKENS), title=TITLE, picture=False))


def needs_detach(student: StudentAPI) -> StudentError | None:
    """The error plot_attention raised on weights that require grad, when it draws the same
    weights without grad (None otherwise: a failure of both is the tick-label check's)."""
    try:
        self_attention_drawing(student)
    except StudentError:
        return None
    live = _drawn.get("self")
    return live if isinstance(live, StudentException) else None  # its code raised (not a worker's failure)


def self_attention_problem(student: StudentAPI) -> CheckFailure | None:
    """What is wrong with the self-attention map's drawing where the probe's is right (None when
    nothing can be told): the queries down the rows (the matrix oriented by its shape), or tick
    labels that are not the tokens in order on their rows and columns (ticks placed by looking a
    repeated word up). Which flip of the grid shows the matrix decides the order its labels must have."""
    try:
        heatmap = with_plain_tokens(read_heatmap(self_attention_drawing(student)), SELF_TOKENS)
    except UnreadablePlot:
        return None  # the probe's drawing was read: nothing this one says can be told apart
    weights, size = self_probe_weights().numpy(), len(SELF_TOKENS)
    if heatmap.shape != (size, size):
        return None
    order = {"as drawn": (1, 1), "flipped vertically": (-1, 1), "flipped horizontally": (1, -1), "flipped both ways": (-1, -1)}
    right = [name for name, grid in orientations(heatmap.values).items() if shows_values(grid, weights.T)]
    if not right:
        if shows_matrix(heatmap, weights):
            return CheckFailure.keyed("self_attention_transposed", "heatmap_transposed")
        return None
    rows, columns = order[right[0]]
    tokens = list(SELF_TOKENS)
    wrong = [axis for axis, labels, step in (("horizontal", heatmap.column_labels, columns), ("vertical", heatmap.row_labels, rows)) if list(labels) != tokens[::step]]
    if wrong:
        shown = "; ".join(f"{axis}: {list(labels)}" for axis, labels in (("horizontal", heatmap.column_labels), ("vertical", heatmap.row_labels)) if axis in wrong)
        return CheckFailure.keyed("self_attention_labels", which=axes_named(wrong), tokens=str(tokens), shown=shown[:300])
    return None


def tall_problem(student: StudentAPI) -> CheckFailure | None:
    """What is wrong with a map of more queries than keys where the probe's is right: its queries
    down the rows (the matrix turned by its shape), or cells that are not the weights their tick
    labels name (qa53d d16: the matrix turned, the labels not); None when it is right or cannot
    be read (the probe's drawing was: nothing this one says can be told apart)."""
    weights = tall_probe_weights()  # (Lq, Lk) = (6, 3)
    try:
        described = _once("tall", lambda: student.plot("plot_attention", weights, list(TALL_QUERIES), list(TALL_KEYS), title=TITLE, picture=False))
        heatmap = with_plain_tokens(read_heatmap(described), TALL_QUERIES + TALL_KEYS)
    except (StudentError, UnreadablePlot):
        return None
    down = heatmap.shape == weights.shape and set(heatmap.row_labels) == set(TALL_QUERIES) and set(heatmap.column_labels) == set(TALL_KEYS)
    if down and shows_matrix(heatmap, weights.numpy()):
        return CheckFailure.keyed("tall_map_transposed", "heatmap_transposed")
    across = heatmap.shape == weights.T.shape and set(heatmap.column_labels) == set(TALL_QUERIES) and set(heatmap.row_labels) == set(TALL_KEYS)
    cells = heatmap.by_labels() if across else {}
    right = across and all(abs(cells[(q, k)] - float(weights[i, j])) <= SHOWN_ATOL for i, q in enumerate(TALL_QUERIES) for j, k in enumerate(TALL_KEYS))
    return None if right else CheckFailure.keyed("tall_map_wrong", rows=heatmap.shape[0], cols=heatmap.shape[1])


def one_query_problem(student: StudentAPI) -> CheckFailure | None:
    """A map of one query (a decoder's step: weights (1, Lk)) is a heatmap of one row or column
    too, its Axes returned; `.squeeze()` made it 1-D, which imshow refuses (qa41s b60)."""
    weights = probe_weights()[:1]  # (1, Lk)
    try:
        description = _once("one_query", lambda: student.plot("plot_attention", weights, list(QUERY_TOKENS[:1]), list(KEY_TOKENS), picture=False))
        heatmap = read_heatmap(description)
    except (StudentError, UnreadablePlot) as error:
        return CheckFailure.keyed("plot_one_query", error=str(error)[:300])
    if not returned_axes(description) or heatmap.shape not in ((LK, 1), (1, LK)) or not shows_values(np.sort(heatmap.values.flatten()), np.sort(weights.flatten().numpy())):
        return CheckFailure.keyed("plot_one_query", error=f"a grid of {heatmap.shape[0]} × {heatmap.shape[1]} cells, its Axes {'returned' if returned_axes(description) else 'not returned'}")
    return None


def not_returned(description: dict, key: str) -> CheckFailure:
    """What plot_attention returned instead of its heatmap's Axes, said with `key` ('plot_returned'...)."""
    if description.get("returned") in ("Axes", "AxesSubplot"):  # an Axes, but not the heatmap's (qa10e b02/b03)
        return CheckFailure.keyed("plot_returned_other_axes")
    return CheckFailure.keyed(key, kind=str(description.get("returned")))


def draw(student: StudentAPI) -> tuple[dict, Heatmap]:
    """The probe's drawing and the heatmap read from it; a CheckFailure when there is none.

    The contract asks for the Axes back, and only test_plot_attention_returns_axes charges for
    another return value (a Figure, None, the colorbar's Axes): the drawing is graded on the Axes it was drawn on
    when that can be told apart (the given one, or the one Axes of the figure holding a heatmap;
    plotdata's `target`)."""
    description = drawing(student)
    target = description.get("target", -1) if isinstance(description, dict) else -1
    if not returned_axes(description) and not (isinstance(target, int) and target >= 0):
        raise not_returned(description, "plot_returned") if isinstance(description, dict) else CheckFailure.keyed("plot_returned", kind="None")
    try:
        heatmap = with_plain_tokens(read_heatmap(description))
    except UnreadablePlot as error:
        key = error.key or key_of_english(str(error)) or ("plot_malformed" if str(error).startswith("the description of your figure is malformed") else "")
        raise (CheckFailure(str(error), key=key, values=error.values) if key else fail(str(error))) from None
    expect_trusted_figure(student)
    if not holds_the_weights(heatmap):  # earns nothing whatever its picture shows (drawn() says why): no evidence needed
        return description, heatmap
    problem = _drawn["problem"] if "problem" in _drawn else figure_problem(description)
    _drawn["problem"] = problem  # the same description every time: its labels are drawn again once
    smoothing = smoothed_image(description, problem) if problem else ""
    if smoothing == GOURAUD:  # an honest smoothed picture: unreadable, not forged
        raise CheckFailure.keyed("heatmap_smoothed_mesh", shading=smoothing)
    if smoothing:
        raise CheckFailure.keyed("heatmap_smoothed", interpolation=smoothing)
    if problem:  # the description is not what the image shows: the figure earns nothing
        flag = Flag(TAMPER, f"plot_attention: {problem}", "E")
        key = key_of_english(problem)  # a keyed problem is shown in the page's language
        values = {"problem": problem, "problem_key": key} if key else {"problem": problem}
        raise CheckFailure(f"your figure could not be read reliably: {problem}", key="figure_disagrees", values=values, flags=(flag,))
    return description, heatmap


# A position at either end of a tick label: a number, perhaps after one word that names it, in any
# script ('q0', 'k_3', 'pos 3', 'position 3', '位置 3'; set apart from the token by a non-word
# character when they follow it), and what sets it apart from the token.
POSITION_NAME = r"[^\W\d_]{1,12}"  # letters of any script, not digits or '_'
POSITIONS = (
    re.compile(rf"^[\W_]*(?:{POSITION_NAME}[\W_]?)?\d+[\W_]*"),  # before the token: '3: dog', 'q0: the', 'pos 4: ran'
    re.compile(rf"(?:[\W_]+{POSITION_NAME}[\W_]?|[\W_]*)\d+[\W_]*$"),  # after it: 'the (0)', 'ran_4', 'dog (k3)', 'the（位置 0）'
)


QUOTES = re.compile(r"^[\W_]+|[\W_]+$")  # quotes or brackets around a token: "'the'" (repr), '"the"', '[the]'
MATH = re.compile(r"(?<!\\)\$(.*?)(?<!\\)\$")  # matplotlib's math text between unescaped dollars
MATH_MARKUP = re.compile(r"\\[A-Za-z]+|\\.|[{}]")  # commands (\mathrm, \it), spacing (\,), braces


def as_drawn(label: str) -> str:
    """A label as matplotlib draws it, in plain letters: math text ('$\\mathrm{the}_{0}$', drawn
    as the with a subscript 0) read without its markup ('the_0'). An odd number of unescaped
    dollars makes no math text: matplotlib draws such a label as it is."""
    if (label.count("$") - label.count(r"\$")) % 2:
        return label
    return MATH.sub(lambda math: MATH_MARKUP.sub("", math.group(1)), label)


def plain_token(label: str, tokens: tuple[str, ...]) -> str:
    """A tick label that is a token with a position number beside it ('the (0)', 'the_0', '3: dog',
    'q0: the', 'dog (k3)'; in digits of any form: 'the₀', '① the', read through their compatibility
    form, NFKC), as students write to tell repeated words apart, or in quotes ("'the'", as repr()
    prints it), or in math text ('$\\mathrm{the}_{0}$'), read as the token itself (the contract
    allows it); any other label is kept as it is."""
    if label in tokens:
        return label
    for text in dict.fromkeys((as_drawn(label), unicodedata.normalize("NFKC", as_drawn(label)))):
        for word in (text, *(position.sub("", text, count=1) for position in POSITIONS)):
            for candidate in (word, QUOTES.sub("", word)):
                if candidate in tokens:
                    return candidate
    return label


def with_plain_tokens(heatmap: Heatmap, tokens: tuple[str, ...] = QUERY_TOKENS + KEY_TOKENS) -> Heatmap:
    return dataclasses.replace(
        heatmap,
        column_labels=tuple(plain_token(label, tokens) for label in heatmap.column_labels),
        row_labels=tuple(plain_token(label, tokens) for label in heatmap.row_labels),
        x_tick_labels=tuple(plain_token(label, tokens) for label in heatmap.x_tick_labels),
        y_tick_labels=tuple(plain_token(label, tokens) for label in heatmap.y_tick_labels),
    )


def drawn(student: StudentAPI) -> tuple[dict, Heatmap]:
    """Like draw(), but only for a drawing that holds the weights it was given.

    Nothing for nothing: the points for returning the Axes, the ticks, the colorbar, the colour
    range, the axis labels and the title are earned by a heatmap of the given weights (in any
    arrangement: where each weight sits is graded by the tick-label and cell checks).
    """
    description, heatmap = draw(student)
    if not holds_the_weights(heatmap):
        raise CheckFailure.keyed("heatmap_values_missing")
    return description, heatmap


def holds_the_weights(heatmap: Heatmap) -> bool:
    """Whether the grid holds the probe's weights, in any arrangement.

    A figure that does not earns no point of E.1, so draw() does not hold its picture against its
    description: an honest figure of other values (the weights put through softmax again: all close
    to 0.2) has colours too close to tell apart, which in a figure that claims the weights is the
    mark of a forgery (figure_problem) and was flagged as one (qa6e b08)."""
    expected = probe_weights().flatten().sort().values.numpy()
    shown = np.sort(heatmap.values.flatten())
    return shows_values(shown, expected)


def axes_named(which: list[str]) -> str:
    """["horizontal"] -> "horizontal axis"; ["horizontal", "vertical"] -> "horizontal and vertical axes"."""
    return " and ".join(which) + (" axes" if len(which) > 1 else " axis")


def label_problem(heatmap: Heatmap) -> CheckFailure | None:
    """What is wrong with where the tokens are (None when queries run across and keys down)."""
    if heatmap.shape == (LQ, LK):
        return fail(f"the heatmap has {LQ} rows and {LK} columns, one column per key", "heatmap_transposed")
    if heatmap.shape != (LK, LQ):
        return CheckFailure.keyed("heatmap_cell_count", rows=heatmap.shape[0], cols=heatmap.shape[1], lq=LQ, lk=LK)
    columns, rows = set(heatmap.column_labels), set(heatmap.row_labels)
    if columns - {""} <= set(KEY_TOKENS) and rows - {""} <= set(QUERY_TOKENS) and (columns | rows) - {""}:
        return CheckFailure.keyed("tick_labels_swapped")  # the cells run the right way (shape (Lk, Lq)): the map is not transposed, its labels are
    missing = [axis for axis, labels, tokens in (("horizontal", columns, QUERY_TOKENS), ("vertical", rows, KEY_TOKENS)) if labels != set(tokens)]
    if missing:
        # unlabelled: no token anywhere on the axis; tokens on ticks that sit between the cells
        # (pcolormesh ticks at i, not i + 0.5) are labels in the wrong place, said as such
        on_axis = {"horizontal": set(heatmap.x_tick_labels), "vertical": set(heatmap.y_tick_labels)}
        unlabelled = [axis for axis, labels, tokens in (("horizontal", columns, QUERY_TOKENS), ("vertical", rows, KEY_TOKENS)) if not (labels | on_axis[axis]) & set(tokens)]
        if unlabelled:
            return fail(f"the ticks of the {axes_named(unlabelled)} do not carry the tokens", "heatmap_unlabelled")
        per_cell = {"horizontal": heatmap.column_labels, "vertical": heatmap.row_labels}
        if all("" not in per_cell[axis] and len(set(per_cell[axis])) == len(per_cell[axis]) for axis in missing):
            # one label on every cell, but not every one a token: 'dow' for 'down' (qa9e b07)
            shown = "; ".join(f"{axis}: {list(per_cell[axis])}" for axis in missing)
            return CheckFailure.keyed("tick_labels_not_tokens", which=axes_named(missing), shown=shown[:300])
        return CheckFailure.keyed("ticks_not_per_cell", which=axes_named(missing))
    return None


# --------------------------------------------------------------------------------------------- E.1
@check("E.1", 0.5, "plot_attention: returns the Axes with a heatmap on it, for one query too", kind=SHAPE)
def test_plot_attention_returns_axes(student: StudentAPI, artifacts):
    description = drawing(student)
    png = description.get("png") if isinstance(description, dict) else None
    if artifacts is not None and isinstance(png, torch.Tensor) and png.dtype == torch.uint8 and 0 < png.numel() <= MAX_PNG_BYTES and png_size(png) != (0, 0):
        try:  # the student's figure is shown even when it cannot be read
            heatmap = with_plain_tokens(read_heatmap(description))
        except UnreadablePlot:
            heatmap = None
        add_plot_artifact(artifacts, png.numpy().tobytes(), heatmap, probe_weights())
    _, heatmap = drawn(student)
    if not returned_axes(description):
        raise not_returned(description, "plot_returned")
    error = needs_detach(student)
    if error is not None:
        raise CheckFailure.keyed("plot_needs_detach", error=str(error)[:300])
    try:  # the contract's other call: an Axes given, no title (a `return` under `if title:`, qa9e b13)
        given = drawing_on_given_axes(student)
    except StudentError:
        return  # the call with ax= fails: charged by test_plot_attention_uses_given_axes
    if isinstance(given, dict) and not returned_axes(given):
        raise not_returned(given, "plot_returned_given_axes")
    problem = one_query_problem(student)
    if problem is not None and label_problem(heatmap) is None:  # labels wrong: the one query's may fail for that alone, which the tick-label check charges (qa39s b33: the lists swapped)
        raise problem


def read_matrix(heatmap: Heatmap) -> torch.Tensor | None:
    """The (Lq, Lk) matrix the student's picture shows, when it can be read; else None."""
    if label_problem(heatmap) is None:
        cells = heatmap.by_labels()
        return torch.tensor([[cells[(q, k)] for k in KEY_TOKENS] for q in QUERY_TOKENS], dtype=torch.float64)
    if heatmap.shape == (LK, LQ):
        return torch.from_numpy(heatmap.values.T.copy())  # (Lq, Lk), by position
    return None


def warm_up() -> None:
    """The kit's renders of the probe, made before a grading pool forks (session.warm_checks)."""
    reference_render()
    zero_difference_render()


@functools.cache
def reference_render() -> Render:
    return render(probe_weights(), QUERY_TOKENS, KEY_TOKENS, TITLE)


@functools.cache
def zero_difference_render() -> bytes:
    from autograder.grading.plotting import render_difference

    return render_difference(probe_weights(), probe_weights(), QUERY_TOKENS, KEY_TOKENS, TITLE)


DIFFERENCE = "heatmaps/plot-attention-difference.png"  # drawn when the figure's matrix can be read


def add_plot_artifact(artifacts: Any, png: bytes, heatmap: Heatmap | None, weights: torch.Tensor) -> None:
    """The student's own figure beside the kit's render of the probe. The matrix read from the
    figure is rendered the kit's way to give the similarity, and shown as a difference."""
    from autograder.grading.plotting import render_difference

    reference = reference_render()
    images = {"heatmaps/plot-attention-student.png": png, "heatmaps/plot-attention-reference.png": reference.png}
    shown, score = (read_matrix(heatmap) if heatmap is not None else None), None
    if shown is not None and torch.equal(shown, weights):  # the pinned renderer: same input, same bytes
        score = 1.0
        images[DIFFERENCE] = zero_difference_render()
    elif shown is not None and torch.isfinite(shown).all():
        score = similarity(render(shown, QUERY_TOKENS, KEY_TOKENS, TITLE), reference)
        images[DIFFERENCE] = render_difference(shown, weights, QUERY_TOKENS, KEY_TOKENS, TITLE)
    artifacts.add(
        Artifact(
            kind="heatmap", name="plot-attention",
            caption=STRINGS["caption.plot-attention" if DIFFERENCE in images else "caption.plot-attention.alone"]["en"],
            student="heatmaps/plot-attention-student.png", reference="heatmaps/plot-attention-reference.png",
            difference=DIFFERENCE if DIFFERENCE in images else "",
            similarity=score,
        ),
        images,
    )


@check("E.1", 2, "plot_attention: queries across (x tick labels), keys down (y tick labels)", kind=PROPERTY, gate="plot_attention_cell_values")
def test_plot_attention_tick_labels(student: StudentAPI):
    description, heatmap = drawn(student)
    problem = label_problem(heatmap)
    faint = [name for name, key in (("horizontal", "xticklabels"), ("vertical", "yticklabels")) if key in _faint(target_axes(description))]
    if problem is not None and _problem_key(problem) == "heatmap_unlabelled" and faint:  # tokens written too small or faint to read (qa43s b22)
        raise CheckFailure.keyed("tick_labels_unreadable", which=axes_named(faint))
    if problem is not None:
        raise problem
    cells = heatmap.by_labels()
    expected = probe_weights()  # (Lq, Lk)
    wrong = [(q, k) for i, q in enumerate(QUERY_TOKENS) for j, k in enumerate(KEY_TOKENS) if abs(cells[(q, k)] - float(expected[i, j])) > SHOWN_ATOL]
    if wrong:
        raise CheckFailure.keyed("heatmap_labels_misplaced", count=len(wrong), total=LQ * LK)
    given = _given_label_problem(drawing_on_given_axes(student))
    if given is not None and _problem_key(given) in ("ticks_not_per_cell", "tick_labels_not_tokens"):
        # right on its own figure only: set_xticklabels without set_xticks puts the tokens on
        # matplotlib's automatic ticks, one per cell at one size only (qa33s b60: 0, 0.5, 1, ... on the ax= given)
        raise CheckFailure.keyed("tick_labels_on_automatic_ticks")
    if given is not None and _problem_key(given) != "heatmap_unlabelled":  # unlabelled there: the ax= check's
        raise given  # drawn another way on the Axes given (qa34h g01: transposed there only)
    problem = self_attention_problem(student) or tall_problem(student)
    if problem is not None:
        raise problem


@check("E.1", 1, "plot_attention: the cells show the weight matrix, one cell per (query, key) pair")
def test_plot_attention_cell_values(student: StudentAPI):
    """The grid holds the matrix as a matrix: in some flip of it or of its transpose, or through
    the tick labels. Which way it lies (queries across) and how it is labelled is the tick-label
    check's alone, so a transposed picture is charged once, there, and its colorbar, colour range,
    axis labels and title still count (they are right whichever way the matrix lies)."""
    weights = probe_weights()  # (Lq, Lk)
    _, heatmap = draw(student)
    expected = weights.T.numpy()  # (Lk, Lq): rows = keys, columns = queries
    if shows_matrix(heatmap, expected) or shows_matrix(heatmap, expected.T):
        return
    if label_problem(heatmap) is None:  # read through the labels
        cells = heatmap.by_labels()
        wrong = [(q, k) for i, q in enumerate(QUERY_TOKENS) for j, k in enumerate(KEY_TOKENS) if abs(cells[(q, k)] - expected[j, i]) > SHOWN_ATOL]
        if not wrong:
            return
        raise CheckFailure.keyed("cells_mislabelled", count=len(wrong), total=LQ * LK)
    raise CheckFailure.keyed("cells_wrong")


@check("E.1", 1, "plot_attention: each cell in one flat colour, not smoothed into its neighbours", kind=PROPERTY, gate="plot_attention_cell_values")
def test_plot_attention_flat_cells(student: StudentAPI):
    """The contract's one flat colour per cell. A smoothing that moves the cells' centres too
    ('bicubic', 'gaussian') cannot be read at all (draw() says so); one that keeps them
    ('bilinear', 'hanning', 'lanczos'...) is read, and costs this point alone."""
    description, _ = drawn(student)
    blended = blended_cells(description)
    if blended == GOURAUD:
        raise CheckFailure.keyed("heatmap_smoothed_mesh", shading=blended)
    if blended:
        raise CheckFailure.keyed("heatmap_blended", interpolation=blended)


@check("E.1", 1, "plot_attention: has a colorbar", kind=PROPERTY, gate="plot_attention_cell_values")
def test_plot_attention_colorbar(student: StudentAPI):
    description, heatmap = drawn(student)
    if not heatmap.colorbar and heatmap.colorbar_elsewhere:
        raise CheckFailure.keyed("colorbar_of_other_colours")
    if not heatmap.colorbar and isinstance(description, dict) and description.get("faint_colorbars"):
        raise CheckFailure.keyed("colorbar_unreadable")  # there is one: too thin to show its colours (qa43s b17)
    if not heatmap.colorbar:
        raise fail("the heatmap has no colorbar", "heatmap_no_colorbar")


@check("E.1", 1, "plot_attention: colour range fixed to [0, 1]", kind=PROPERTY, gate="plot_attention_cell_values")
def test_plot_attention_color_range(student: StudentAPI):
    weights = probe_weights()
    _, heatmap = drawn(student)
    low, high = heatmap.clim
    if low is not None and high is not None and abs(low) < 1e-9 and abs(high - 1.0) < 1e-9:
        return
    data_low, data_high = float(weights.min()), float(weights.max())
    if low is None or high is None or (abs(low - data_low) < 1e-6 and abs(high - data_high) < 1e-6):
        raise fail("the colour range follows the data", "heatmap_auto_color_range")
    if abs(low - data_low) < 1e-6 or abs(high - data_high) < 1e-6:  # one end follows the data (vmax=w.max())
        raise fail(f"the colour range is [{low:.3g}, {high:.3g}], not [0, 1]", "heatmap_auto_color_range")
    raise CheckFailure.keyed("color_range_not_unit", low=f"{low:.3g}", high=f"{high:.3g}")  # fixed, but not to [0, 1]


def lightness(rgba: Any) -> float:
    """Relative luminance (0 black .. 1 white) of an sRGB colour."""
    def linear(c: float) -> float:
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    red, green, blue = (linear(float(c)) for c in list(rgba)[:3])
    return 0.2126 * red + 0.7152 * green + 0.0722 * blue


def _colour_map(description: dict, key: str, count: int) -> list | None:
    """The colours `key` ("cmap_ends", "cmap_grid") of the largest drawing of the heatmap's Axes
    that gives at least `count` of them; None if none does."""
    axes = target_axes(description)
    drawings = [d for d in [*axes.get("images", []), *axes.get("meshes", [])] if isinstance(d, dict)]
    drawings = [d for d in drawings if isinstance(d.get(key), list) and len(d[key]) >= count]
    if not drawings:
        return None
    return max(drawings, key=lambda d: getattr(d.get("array"), "numel", lambda: 0)())[key]


def colour_ends(description: dict) -> tuple[float, float] | None:
    """(lightness of the lowest value's colour, of the highest's) of the heatmap; None if unknown."""
    ends = _colour_map(description, "cmap_ends", 2)
    return None if ends is None else (lightness(ends[0]), lightness(ends[-1]))


def lightness_rise(description: dict) -> float | None:
    """How much lighter the heatmap's colour map gets anywhere from a lower value to a higher one
    (0 for a map that darkens all the way); None if unknown. The ends alone miss a map that turns
    light again near 1 (qa52o o13: white -> navy at 0.9 -> light steel blue at 1)."""
    grid = _colour_map(description, "cmap_grid", 2)
    if grid is None:
        return None
    shades = [lightness(colour) for colour in grid]
    return max(shade - min(shades[:number + 1]) for number, shade in enumerate(shades))


def cell_lightness(description: dict) -> tuple[float, float] | None:
    """(lightness of the lowest weight's cell, of the highest's) as the heatmap colours its cells,
    over white (the colours the figure check holds against the picture); None if unknown. A colour
    map can answer cmap(0.0) and cmap(1.0) with colours its cells never get (qa18h a06), and a norm
    can turn the map around (a12): the cells say what the picture shows."""
    axes = target_axes(description)
    drawings = [d for d in [*axes.get("images", []), *axes.get("meshes", [])] if isinstance(d, dict)]
    pairs = [(np.asarray(d.get("array"), dtype=np.float64), np.asarray(d.get("rgba"), dtype=np.float64)) for d in drawings
             if isinstance(d.get("array"), torch.Tensor) and isinstance(d.get("rgba"), torch.Tensor)]
    pairs = [(values, rgba) for values, rgba in pairs if values.ndim == 2 and rgba.shape == (*values.shape, 4) and np.isfinite(values).sum() >= 2]
    if not pairs:
        return None
    values, rgba = max(pairs, key=lambda pair: pair[0].size)
    over_white = rgba[..., :3] * rgba[..., 3:4] + (1.0 - rgba[..., 3:4])
    finite = np.where(np.isfinite(values), values, np.nan)
    low, high = np.unravel_index(np.nanargmin(finite), values.shape), np.unravel_index(np.nanargmax(finite), values.shape)
    return lightness(over_white[low]), lightness(over_white[high])


@check("E.1", 1, "plot_attention: darker means more weight (a light-to-dark colour map)", kind=PROPERTY, gate="plot_attention_cell_values")
def test_plot_attention_light_to_dark(student: StudentAPI):
    description, heatmap = drawn(student)
    ends = colour_ends(description)
    if ends is not None and ends[0] - ends[1] < LIGHTNESS_MARGIN:
        raise CheckFailure.keyed("heatmap_dark_to_light", cmap=heatmap.cmap)
    rise = lightness_rise(description)  # matplotlib's light-to-dark maps rise by 0.07 at most (cool), qualitative ones by 0.2-0.9
    if rise is not None and rise > LIGHTNESS_MARGIN:
        raise CheckFailure.keyed("heatmap_lightens_again", cmap=heatmap.cmap)
    cells = cell_lightness(description)  # the weights span most of [0, 1]: their cells most of the map
    weights = probe_weights()
    if cells is not None and cells[0] - cells[1] < LIGHTNESS_MARGIN * float(weights.max() - weights.min()):
        raise CheckFailure.keyed("heatmap_cells_dark_to_light")


def _faint(axes: dict) -> list[str]:
    """The labels of an Axes' description written too small or faint to read (plotdata's "faint")."""
    faint = axes.get("faint")
    return [str(name) for name in faint] if isinstance(faint, list) else []


# Words that name the queries or the keys in an axis label (English, the course text's Chinese).
QUERY_WORDS = re.compile(r"\bquer(y|ies)\b|查询", re.IGNORECASE)
KEY_WORDS = re.compile(r"\bkeys?\b|(?<!关)键", re.IGNORECASE)


def names_only(label: str, named: re.Pattern, other: re.Pattern) -> bool:
    """Whether the label names one side (keys or queries) and not the other: a label that names
    both ("query → key") or neither ("position") is left alone."""
    return bool(named.search(label)) and not other.search(label)


@check("E.1", 1, "plot_attention: both axes have a label, the horizontal one for the queries", kind=PROPERTY, gate="plot_attention_cell_values")
def test_plot_attention_axis_labels(student: StudentAPI):
    description, heatmap = drawn(student)
    axes = target_axes(description)
    missing = [name for name, key in (("horizontal", "xlabel"), ("vertical", "ylabel")) if not str(axes.get(key, "")).strip()]
    faint = [name for name, key in (("horizontal", "xlabel"), ("vertical", "ylabel")) if key in _faint(axes)]
    if missing and set(missing) <= set(faint):  # written, but too small or faint to read (qa43s b16, b21)
        raise CheckFailure.keyed("axis_label_unreadable", which=axes_named(missing))
    if missing:
        raise CheckFailure.keyed("axis_unlabelled", which=axes_named(missing))
    xlabel, ylabel = str(axes["xlabel"]).strip()[:80], str(axes["ylabel"]).strip()[:80]
    if heatmap.shape == (LQ, LK):  # queries down the rows: charged by the tick-label check; labels that say so are that mistake
        return
    if labels_swapped(xlabel, ylabel):
        raise CheckFailure.keyed("axis_labels_swapped", xlabel=xlabel, ylabel=ylabel)
    if xlabel.casefold() == ylabel.casefold():  # "position" twice: neither names its own side (qa35s b56)
        raise CheckFailure.keyed("axis_labels_same", label=xlabel)


# What a bare axis label may hold besides the side it names: "Query position (i)", "Key 位置", "Queries (rows)".
LABEL_FILLER = re.compile(r"\b(?:positions?|tokens?|index|idx|words?|pos|rows?|columns?|cols?|[a-z])\b|位置|词|序号|[\W\d_]", re.IGNORECASE)


def bare(label: str, named: re.Pattern) -> bool:
    """Whether the label is the side's name and nothing more ("Query", "key position", "键 (j)")."""
    return not LABEL_FILLER.sub("", named.sub("", label))


def labels_swapped(xlabel: str, ylabel: str) -> bool:
    """Whether the axis labels name the wrong axes: one of them is barely the wrong side's name
    ("Key" across, "query position" down) beside one that names the other side or neither. A label
    that describes one side through the other is left alone: 'the word each query looks at' down,
    'token attending to the keys' across, '每个查询所关注的词' (qa7e c41, c42; qa37s c28, c29, c31,
    c32; qa38h c30), and so is a pair of such descriptions."""
    across_keys, down_queries = names_only(xlabel, KEY_WORDS, QUERY_WORDS), names_only(ylabel, QUERY_WORDS, KEY_WORDS)
    across_neither = not (QUERY_WORDS.search(xlabel) or KEY_WORDS.search(xlabel))
    down_neither = not (QUERY_WORDS.search(ylabel) or KEY_WORDS.search(ylabel))
    return ((across_keys and bare(xlabel, KEY_WORDS) and (down_queries or down_neither))
            or (down_queries and bare(ylabel, QUERY_WORDS) and (across_keys or across_neither)))


@check("E.1", 1, "plot_attention: draws on the Axes given as ax=, on a new figure without it", kind=PROPERTY, gate="plot_attention_cell_values")
def test_plot_attention_uses_given_axes(student: StudentAPI):
    drawn(student)
    expect_trusted_figure(student)
    description = drawing_on_given_axes(student)
    given = description.get("given_axes", -1) if isinstance(description, dict) else -1
    if not isinstance(given, int) or given < 0 or description.get("target") != given:
        raise CheckFailure.keyed("given_axes_ignored")
    axes = target_axes(description)
    if not axes.get("images") and not axes.get("meshes"):
        raise CheckFailure.keyed("given_axes_empty")
    own_description, heatmap = drawn(student)
    own = _texts(target_axes(own_description)) | {"colorbar": heatmap.colorbar}  # what the drawing without ax= has
    drawings = [*axes.get("images", []), *axes.get("meshes", [])]  # their "colorbar": one in ax's figure, an inset one too
    there = _texts(axes) | {"colorbar": bool(description.get("colorbars")) or any(isinstance(d, dict) and d.get("colorbar") for d in drawings)}
    given = _given_label_problem(description)
    own["tick labels"], there["tick labels"] = label_problem(heatmap) is None, given is None or _problem_key(given) != "heatmap_unlabelled"  # misplaced there: the tick-label check's
    moved = _listed(description.get("elsewhere")) - {"title"}  # drawn in another figure (the current one)
    if own["title"]:  # the drawings of the probe and with ax= have no title= given
        titled = titled_on_given_axes(student)
        index, listed = (titled.get("given_axes", -1), titled.get("axes")) if isinstance(titled, dict) else (-1, None)
        there["title"] = isinstance(index, int) and isinstance(listed, list) and 0 <= index < len(listed) and _texts(listed[index])["title"]
        moved |= _listed(titled.get("elsewhere") if isinstance(titled, dict) else None) & {"title"}
    lacking = [name for name, shown in there.items() if own[name] and not shown]
    if any(name in moved for name in lacking):  # plt.title/plt.xlabel/plt.gcf() act on the current Axes and figure, which are not ax's
        raise CheckFailure.keyed("given_axes_text_elsewhere", names=", ".join(name for name in lacking if name in moved))
    if lacking:  # drawn without ax= only, nowhere with it
        raise CheckFailure.keyed("given_axes_text_missing", names=", ".join(lacking))
    over = drawing_over_open_figure(student)  # the contract: "otherwise make a new figure" (`ax = ax or plt.gca()` does not: qa28s b46)
    index = over.get("given_axes") if isinstance(over, dict) else -1
    if isinstance(index, int) and index >= 0 and over.get("target") == index:
        raise CheckFailure.keyed("open_axes_drawn_over")


def _given_label_problem(description: Any) -> CheckFailure | None:
    """What is wrong with the tokens on the heatmap drawn on the given Axes (None when they are
    right, or when it cannot be read: nothing to tell)."""
    try:
        return label_problem(with_plain_tokens(read_heatmap(description, in_view=False)))
    except UnreadablePlot:
        return None


def _problem_key(problem: CheckFailure) -> str:
    return problem.key or problem.mistake


def _listed(names: Any) -> set[str]:
    return {name for name in names if isinstance(name, str)} if isinstance(names, list) else set()


def _texts(axes: dict) -> dict[str, bool]:
    """Whether an Axes described shows the title given (TITLE) and has each axis label."""
    titles = axes.get("titles")
    shown = [str(text).strip() for text in titles[:3]] if isinstance(titles, list) else [str(axes.get("title", "")).strip()]
    return {"title": TITLE in shown, "xlabel": bool(str(axes.get("xlabel", "")).strip()), "ylabel": bool(str(axes.get("ylabel", "")).strip())}


@check("E.1", 0.5, "plot_attention: shows the title= it is given", kind=PROPERTY, gate="plot_attention_cell_values")
def test_plot_attention_title(student: StudentAPI):
    """The title given is one of the Axes' titles (centre, left or right: another may stand beside
    it, such as a panel letter "(a)" on the left)."""
    description, _ = drawn(student)
    axes = target_axes(description)
    titles = axes.get("titles")
    shown = [str(text).strip() for text in titles[:3]] if isinstance(titles, list) else [str(axes.get("title", "")).strip()]
    if not _texts(axes)["title"]:
        raise CheckFailure.keyed("heatmap_title_missing") if not any(shown) else CheckFailure.keyed("title_wrong")

