"""Figure evidence where the figure covers its own tick labels (qa2 finding 2).

Large tick labels that run into each other, and a colorbar drawn over the rotated labels, are
layouts the contract allows: the picture still shows every label, partly under something the
description itself draws (another label, another Axes). Each label is judged on the ink left
visible; forgeries of the same figures (other words, another order, solid ink, everything covered)
are still caught. The figures are drawn with the worker's own code (plotdata.extract_plot).
"""
from __future__ import annotations

import copy
import io

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402

from autograder.grading.integrity.figure import LABEL_NOT_SHOWN, best_correlation, figure_problem, visible_correlation  # noqa: E402
from autograder.grading.worker.plotdata import extract_plot  # noqa: E402

Q, K = ["the", "cat", "sat", "down"], ["a", "big", "red", "dog", "ran"]
W = torch.softmax(torch.randn(4, 5, generator=torch.Generator().manual_seed(3), dtype=torch.float64), -1)  # (Lq, Lk)


def probe_axes():
    _, ax = plt.subplots(figsize=(1 + 0.6 * len(Q), 1 + 0.5 * len(K)))
    image = ax.imshow(W.T.numpy(), cmap="Blues", vmin=0, vmax=1, aspect="auto")  # (Lk, Lq)
    ax.set_xticks(range(len(Q)), labels=Q, rotation=45, ha="right")
    ax.set_yticks(range(len(K)), labels=K)
    ax.set_xlabel("query position")
    ax.set_ylabel("key position")
    return ax, image


def big_tick_font():
    """Tick labels at 22 pt: 'down' runs into 'sat' (qa2 followup5/st33)."""
    ax, image = probe_axes()
    ax.tick_params(labelsize=22)
    ax.figure.colorbar(image, ax=ax)
    return ax


def colorbar_bottom():
    """A colorbar below the Axes, over the end of the rotated 'down' (qa2 followup3/st26)."""
    ax, image = probe_axes()
    ax.figure.colorbar(image, ax=ax, location="bottom", shrink=0.7, label="weight")
    return ax


def unrotated_30pt():
    """Unrotated 30 pt labels: 'sat' lies mostly under 'cat' and 'down' (not judged), the others are seen."""
    ax, image = probe_axes()
    ax.set_xticks(range(len(Q)), labels=Q, rotation=0, ha="center")
    ax.tick_params(labelsize=30)
    ax.figure.colorbar(image, ax=ax, shrink=0.7)
    return ax


COVERING = {"big_tick_font": big_tick_font, "colorbar_bottom": colorbar_bottom, "unrotated_30pt": unrotated_30pt}


@pytest.mark.parametrize("name", sorted(COVERING))
def test_tick_labels_partly_covered_by_the_figure_itself_agree_with_their_image(name):
    assert figure_problem(extract_plot(COVERING[name])) == ""


def forged(name: str, edit) -> str:
    description = copy.deepcopy(extract_plot(COVERING[name]))
    edit(description, description["axes"][description["target"]])
    return figure_problem(description)


@pytest.mark.parametrize("name", sorted(COVERING))
def test_covered_tick_labels_reported_in_another_order_than_drawn_fail(name):
    def reverse(_, axes):
        axes["xticklabels"] = axes["xticklabels"][::-1]  # the picture shows Q from the left

    assert forged(name, reverse) == LABEL_NOT_SHOWN


@pytest.mark.parametrize("name", sorted(COVERING))
def test_a_covered_tick_label_that_shows_another_word_fails(name):
    def swap(_, axes):
        labels = axes["xticklabels"]
        labels[2], labels[3] = labels[3], labels[2]  # 'sat' and 'down', the two that touch

    assert forged(name, swap) == LABEL_NOT_SHOWN


def painted(description: dict, box: list[float], ink: int = 0) -> None:
    """The description's PNG with a box of solid ink (black, or `ink`) over `box` (left, top, right, bottom)."""
    from PIL import Image

    with Image.open(io.BytesIO(bytes(description["png"].numpy().tobytes()))) as image:
        pixels = np.array(image.convert("RGBA"))  # (h, w, 4)
    left, top, right, bottom = (int(round(v)) for v in box)
    pixels[top:bottom, left:right, :3] = ink
    out = io.BytesIO()
    Image.fromarray(pixels).save(out, format="PNG")
    description["png"] = torch.frombuffer(bytearray(out.getvalue()), dtype=torch.uint8).clone()


@pytest.mark.parametrize("name", sorted(COVERING))
def test_solid_ink_over_the_covered_tick_labels_fails(name):
    def black_box(description, axes):
        boxes = [box for box in axes["xtickboxes"] if box]
        painted(description, [min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes)])

    assert forged(name, black_box) == LABEL_NOT_SHOWN


def test_labels_not_shown_and_all_claimed_to_lie_under_another_axes_fail():
    """No label shown (painted over in white), every one claimed to lie under an opaque Axes (a
    copy of the colorbar over the whole image): none is left to be seen, not a pass."""
    def blank_and_cover(description, axes):
        boxes = [box for box in axes["xtickboxes"] + axes["ytickboxes"] if box]
        for box in boxes:
            painted(description, box, ink=255)
        description["axes"].append({**copy.deepcopy(description["axes"][-1]), "box_px": [0.0, 0.0, 1e4, 1e4], "xticklabels": [], "yticklabels": []})

    assert forged("big_tick_font", blank_and_cover) == LABEL_NOT_SHOWN


def monospace_big_font(keys: list[str]):
    """big_tick_font in a monospace font: every three-letter key has the same box."""
    def draw():
        with plt.rc_context({"font.family": "monospace"}):
            ax, image = probe_axes()
            ax.set_yticks(range(len(keys)), labels=keys)
            ax.tick_params(labelsize=22)
            ax.figure.colorbar(image, ax=ax)
            return ax
    return draw


def another_word_shown(edit) -> str:
    """The description of the monospace figure with 'big'; the picture of the same figure with
    'bag' (same box, same font: only the pixels tell them apart); `edit` changes the description."""
    description = copy.deepcopy(extract_plot(monospace_big_font(K)))
    description["png"] = extract_plot(monospace_big_font(["a", "bag", "red", "dog", "ran"]))["png"]
    edit(description)
    return figure_problem(description)


def test_a_word_with_the_same_box_shown_instead_of_the_label_fails():
    assert another_word_shown(lambda _: None) == LABEL_NOT_SHOWN


def test_a_word_shown_instead_of_the_label_under_an_axes_that_hides_nothing_fails():
    """Another Axes covers a label only when it holds an opaque drawing (a colorbar): an empty
    overlay laid over the labels leaves them to be judged."""
    def overlay(description):
        empty = {**copy.deepcopy(description["axes"][-1]), "box_px": [0.0, 0.0, 1e4, 1e4], "xticklabels": [], "yticklabels": []}
        description["axes"].append({**empty, "images": [], "meshes": []})

    assert another_word_shown(overlay) == LABEL_NOT_SHOWN


def test_visible_correlation_is_best_correlation_on_the_visible_pixels():
    rng = np.random.default_rng(0)
    for case in range(40):
        h, w = (int(n) for n in rng.integers(2, 12, 2))
        image = rng.random((h + int(rng.integers(0, 6)), w + int(rng.integers(0, 6))))
        template = image[:h, :w] + rng.normal(0, 0.05, (h, w)) if case % 2 else rng.random((h, w))
        everything = np.ones(image.shape, dtype=bool)
        assert visible_correlation(image, template, everything) == pytest.approx(best_correlation(image, template), abs=1e-9)
        visible = rng.random(image.shape) > 0.3
        expected = []
        for row in range(image.shape[0] - h + 1):
            for col in range(image.shape[1] - w + 1):
                seen = visible[row: row + h, col: col + w]
                if template[seen].sum() >= 0.5 * template.sum():
                    a, b = image[row: row + h, col: col + w][seen], template[seen]
                    a, b = a - a.mean(), b - b.mean()
                    expected.append(float(a @ b / np.sqrt((a @ a) * (b @ b))))
        found = visible_correlation(image, template, visible)
        assert (found is None) if not expected else found == pytest.approx(max(expected), abs=1e-9)
