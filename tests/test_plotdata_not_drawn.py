"""When the worker's drawing code cannot draw a figure as it is (qa2 findings 5 and 9).

A plotting function may close its figure before returning it (the contract is silent on closing):
the figure is drawn on an Agg canvas of its own and earns every point. A text that no font can
draw (a lone surrogate) gets a short message of its own, not a dump of a C++ signature. A figure
that matplotlib's plain draw cannot draw either (a label with bad mathtext: plt.show and savefig
fail the same way) is the student's, with matplotlib's error. Any other failure of the kit's own
drawing is the grader's error, never reported as the student's.
"""
from __future__ import annotations

import types
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402

from autograder.assignments.attention.texts import key_of_english  # noqa: E402
from autograder.grading.heatmap import TEXT_NOT_DRAWN, FigureNotDrawn, UnreadablePlot, read_heatmap  # noqa: E402
from autograder.grading.worker.protocol import NOT_DRAWN_FIGURE  # noqa: E402
from autograder.grading.integrity.figure import figure_problem  # noqa: E402
from autograder.grading.worker import plotdata  # noqa: E402

REFERENCE = Path(__file__).resolve().parents[1] / "solutions" / "attention" / "attention.py"
Q, K = ["the", "cat", "sat", "down"], ["a", "big", "red", "dog", "ran"]
W = torch.softmax(torch.randn(4, 5, generator=torch.Generator().manual_seed(3), dtype=torch.float64), -1)  # (Lq, Lk)


@pytest.fixture(autouse=True)
def _closed_figures():
    yield
    plt.close("all")


def heatmap(ylabel: str = "key position", close: bool = False):
    def draw():
        _, ax = plt.subplots(figsize=(3.4, 3.5))
        image = ax.imshow(W.T.numpy(), cmap="Blues", vmin=0, vmax=1, aspect="auto")
        ax.set_xticks(range(4), labels=Q, rotation=45, ha="right")
        ax.set_yticks(range(5), labels=K)
        ax.set_ylabel(ylabel)
        ax.figure.colorbar(image, ax=ax)
        if close:
            plt.close(ax.figure)  # its canvas is now a bare FigureCanvasBase: no renderer
        return ax
    return draw


def test_a_figure_closed_before_it_is_returned_is_drawn_and_agrees_with_its_png():
    description = plotdata.extract_plot(heatmap(close=True))
    assert "not_drawn" not in description and description["png"].numel() > 0
    assert read_heatmap(description).shape == (5, 4)
    assert figure_problem(description) == ""


def test_a_plot_attention_that_closes_its_figure_earns_every_point_of_part_e(grade):
    snippet = (
        "\n\n_drawn_plot_attention = plot_attention\n\n\n"
        "def plot_attention(weights, query_tokens, key_tokens, ax=None, title=None):\n"
        "    ax = _drawn_plot_attention(weights, query_tokens, key_tokens, ax=ax, title=title)\n"
        "    plt.close(ax.figure)\n"
        "    return ax\n"
    )
    result = grade(REFERENCE.read_text(encoding="utf-8") + snippet, name="closes_figure", parts={"E"})
    part_e = [c for c in result.checks if c.part == "E"]
    assert part_e and all(c.passed for c in part_e), [c.message for c in part_e if not c.passed]
    assert result.flags == ()


def test_a_text_no_font_can_draw_gets_a_short_message_of_its_own():
    description = plotdata.extract_plot(heatmap(ylabel="key\x00\ud800"))
    with pytest.raises(UnreadablePlot) as raised:
        read_heatmap(description)
    assert str(raised.value) == TEXT_NOT_DRAWN and key_of_english(TEXT_NOT_DRAWN) == "plot_text_not_drawn"
    assert "set_text" not in str(raised.value) and len(str(raised.value)) < 200


def test_a_failure_of_the_kits_own_drawing_is_the_graders_error_not_the_students(monkeypatch):
    def broken(figure):
        raise AttributeError("the kit's drawing broke")

    monkeypatch.setattr(plotdata, "_drawn_once", broken)
    description = plotdata.extract_plot(heatmap())  # does not raise: the worker would report it as the student's
    with pytest.raises(FigureNotDrawn, match="the kit's drawing broke") as raised:
        read_heatmap(description)
    assert not isinstance(raised.value, UnreadablePlot)  # not a message about the student's figure


def test_an_error_of_the_students_own_code_called_while_the_figure_is_drawn_is_still_theirs():
    """A tick formatter of the student's runs when the kit draws: its error is the student's (a
    function of a student's module: its globals carry the dispatcher's __attnkit_student__ mark)."""
    from matplotlib.ticker import FuncFormatter

    def formatter(value, position):
        raise ValueError("the student's formatter")

    def draw(student: bool):
        def drawn():
            ax = heatmap()()
            globals_ = {"__attnkit_student__": True} if student else {}
            ax.yaxis.set_major_formatter(FuncFormatter(types.FunctionType(formatter.__code__, globals_)))
            return ax
        return drawn

    with pytest.raises(ValueError, match="the student's formatter"):
        plotdata.extract_plot(draw(student=True))
    kits = plotdata.extract_plot(draw(student=False))  # no student frame, but matplotlib's plain draw fails too: the figure's
    assert kits["not_drawn"] == NOT_DRAWN_FIGURE and "the student's formatter" in kits["error"]


def test_a_students_formatter_that_raises_at_draw_time_is_reported_as_theirs_by_the_worker(grade):
    snippet = (
        "\n\nfrom matplotlib.ticker import FuncFormatter\n_drawn_plot_attention = plot_attention\n\n\n"
        "def _tick(value, position):\n"
        "    raise ValueError('no tick for you')\n\n\n"
        "def plot_attention(weights, query_tokens, key_tokens, ax=None, title=None):\n"
        "    ax = _drawn_plot_attention(weights, query_tokens, key_tokens, ax=ax, title=title)\n"
        "    ax.yaxis.set_major_formatter(FuncFormatter(_tick))\n"
        "    return ax\n"
    )
    result = grade(REFERENCE.read_text(encoding="utf-8") + snippet, name="formatter_raises", parts={"E"})
    messages = [c.message for c in result.checks if c.part == "E" and not c.passed]
    assert messages and all("plot_attention raised ValueError: no tick for you" in m for m in messages if "raised" in m), messages
    assert any("plot_attention raised ValueError: no tick for you" in m for m in messages)


def test_a_figure_matplotlib_cannot_draw_is_the_students_with_matplotlibs_error():
    description = plotdata.extract_plot(heatmap(ylabel=r"key $\keyposition$"))  # unknown mathtext symbol
    with pytest.raises(UnreadablePlot) as raised:
        read_heatmap(description)
    assert raised.value.key == "plot_not_drawable" and "Unknown symbol" in raised.value.values["error"]
    assert "matplotlib cannot draw your figure" in str(raised.value)


def test_a_label_with_bad_mathtext_fails_part_e_and_is_not_charged_again_in_part_f(grade):
    source = REFERENCE.read_text(encoding="utf-8").replace('ax.set_xlabel("query position")', 'ax.set_xlabel(r"query $\\qposition$")')
    result = grade(source, name="bad_mathtext", parts={"E", "F"})
    part_e = [c for c in result.checks if c.part == "E"]
    assert part_e and not any(c.passed for c in part_e) and all(c.status == "failed" for c in part_e), [(c.status, c.message) for c in part_e]
    assert any("matplotlib cannot draw your figure" in c.message and "qposition" in c.message for c in part_e)
    scores = {p.part: (p.score, p.max_score) for p in result.parts}
    assert scores["F"][0] == scores["F"][1] > 0, [c.message for c in result.checks if c.part == "F" and not c.passed]
