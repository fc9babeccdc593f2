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

from autograder.grading.integrity.figure import figure_problem  # noqa: E402
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
}


@pytest.mark.parametrize("name", sorted(HONEST))
def test_honest_figures_agree_with_their_image(name):
    assert figure_problem(extract_plot(HONEST[name])) == ""


def forged(edit) -> dict:
    description = extract_plot(imshow())
    forged = copy.deepcopy(description)
    edit(forged["axes"][forged["target"]]["images"][0], forged)
    return forged


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
