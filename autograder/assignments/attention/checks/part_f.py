"""Hidden checks, Part F: the trained pronoun model, run with the student's AttentionBlock and
drawn with the student's plot_attention.

The reference PronounModel (autograder/assignments/attention/reference/pronoun_model.pt) was trained with the reference
AttentionBlock. Its block parameters are loaded into the student's AttentionBlock, which then runs
on exactly the input the reference block saw (embedding + positions of the probe sentences and of
128 held-out sentences). What is graded, each for its own points:
  - the maps and the model's output equal the reference model's (numbers);
  - the student's plot_attention, given the student's map of a probe sentence, draws a heatmap
    that shows the reference model's weights (read back as Part E reads them) and looks like the
    reference model's heatmap drawn by the same plot_attention (SSIM of the two figures);
  - the pattern the course text asks students to look for: in the pronoun's column the darkest
    cell is its antecedent; in the verb's column it is its subject or object, not "the" or "a".
Orientation and labels of a drawing are Part E's to grade: F accepts any flip or transposition.

Part F has nothing new to write, so a failing check is graded again with trusted stand-ins for the
earlier tasks that failed (autograder.assignments.attention.checks.carried.plan): a wrong AttentionBlock becomes a
trusted shell (residual, dropout, norm; the contract's layer names) around the student's own
MultiHeadAttention, or a trusted block when that is wrong too; a wrong plot_attention becomes the
kit's renderer, here in the grader (the maps are here already). It pays only while the result
still comes through one of the student's own components: C's attention or D's block for F.1 and
F.3, D's block or E's plot_attention for F.2.

The student's block runs once per submission (`_ran`) and each map is drawn once (`_drawn`);
every check reads those runs, or the failure they ended in. plot_attention draws a map once per
submission (`_figures`): a run with stand-ins whose map is within SAME_PICTURE_ATOL of one already
drawn (the reference model's, drawn for the comparison) reads that figure again.
"""
from __future__ import annotations

import copy
import dataclasses
import functools
import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from autograder.assignments.attention.texts import english, key_of_english
from autograder.assignments.attention.checks.module_support import load_weights, norm_eps
from autograder.grading.checks.plugin import PROPERTY, CheckFailure, check
from autograder.assignments.attention.checks.support import expect_pair, expect_tensor
from autograder.assignment import current
from autograder.errors import AttnkitError
from autograder.grading.heatmap import (
    SHOWN_ATOL, Render, UnreadablePlot, figure_similarity, max_abs_difference, orientations, read_heatmap, render, returned_axes, shows_values,
)
from autograder.assignments.attention.mistakes import diagnose
from autograder.feedback.results import Artifact
from autograder.grading.worker.client import Student, StudentError
from autograder.grading.worker.protocol import Handle

MAP_ATOL = 1e-4  # float32 maps: a correct block in another style differs by ~1e-7
LOGIT_ATOL = 1e-3
SAME_PICTURE_ATOL = 1e-6  # maps this close get the same colours from an 8-bit colour map: not drawn twice
# FIGURE_SIMILARITY_THRESHOLD: SSIM of the student's figure of their map and of the reference map,
# both drawn by the same plot_attention. Calibrated by tests/test_heatmap.py::
# test_calibration_part_f_figures (-s prints the figures), with the reference plot_attention and a
# seaborn one: a correct map (+ up to 1e-3 noise) 0.9999-1.0; the maps of a block with the scores
# scaled by sqrt(E) instead of sqrt(Dh) 0.991-0.997, not scaled 0.955-0.977, pre-norm 0.947-0.974,
# uniform 0.85-0.93, transposed 0.81-0.88. The threshold sits above the closest wrong map.
FIGURE_SIMILARITY_THRESHOLD = 0.999
PATTERN_MIN_SHARE = 0.9  # the reference model: the right key is the darkest cell in every sentence
PATTERN_MARGIN = 1e-3  # "darkest" means darker than every other cell by at least this much
MAP_NOT_FINITE = english("map_not_finite")  # drawing problems: their keys give them in Chinese
NO_AXES = english("plot_no_axes")
_ran: dict[str, Any] = {}
_drawn: dict[str, Any] = {}
_figures: dict[str, Any] = {}  # {"student", "figures": [(sentence, head, matrix, (png, grid read or None, problem))]}


@dataclass(frozen=True)
class Reference:
    """What the reference model gives on the probe and held-out sentences (grader side only).

    x (N, S, E): the block's input, probes first; weights (N, H, S, S); logits (N, S, V);
    words: the probe sentences' tokens; n_probes: how many of the N rows are probes;
    batch: the N sentences' known positions (pronoun_task.Batch); pronoun_head / verb_head: the
    heads that attend most to the antecedent / to the verb's subject and object.
    """

    state: dict[str, torch.Tensor]
    x: torch.Tensor
    weights: torch.Tensor
    logits: torch.Tensor
    words: list[list[str]]
    n_probes: int
    embed_dim: int
    num_heads: int
    model: Any
    batch: Any
    pronoun_head: int
    verb_head: int

    @property
    def drawn(self) -> tuple[tuple[int, int], ...]:
        """The (sentence, head) maps drawn with plot_attention: the first probe sentence in the
        pronoun's head. One drawing costs a worker ~0.2-0.7 s (more on a loaded machine), so one map
        is drawn; in the shipped model that head is also the verb's (test_pronoun_task.py)."""
        return ((0, self.pronoun_head),)


@functools.cache
def reference() -> Reference:
    from autograder.assignments.attention.training import load_reference_model, pronoun_task, reference_block_state

    task = pronoun_task()
    model = load_reference_model()
    probes, words = task.probe_sentences()
    heldout = task.evaluation_batches(128)["heldout"]
    batch = task.Batch(**{f.name: torch.cat([getattr(probes, f.name), getattr(heldout, f.name)]) for f in dataclasses.fields(task.Batch)})
    with torch.no_grad():
        x = model.block_input(batch.tokens)  # (N, S, E)
        y, weights = model.block(x)  # (N, S, E), (N, H, S, S)
        logits = model.head(y)  # (N, S, V)
    return Reference(
        state=reference_block_state(), x=x, weights=weights, logits=logits, words=words,
        n_probes=len(words), embed_dim=model.block.attn.embed_dim, num_heads=model.block.attn.num_heads,
        model=model, batch=batch,
        pronoun_head=task.antecedent_attention(weights, batch).best_head,
        verb_head=task.argument_attention(weights, batch).best_head,
    )


def problem_args(problem: str) -> dict[str, str]:
    """A drawing problem as message arguments: its English text, and its key when it has one
    (so that a Chinese page shows it in Chinese, or leaves it out)."""
    return {"problem": problem, "problem_key": key_of_english(problem)}


def load_into_student(student: Student) -> Handle:
    """A student AttentionBlock(E, H) holding the reference block's parameters, in eval mode."""
    ref = reference()
    student.start_private()  # a fresh worker holds the weights: what ran before keeps its output
    handle = student.new("AttentionBlock", ref.embed_dim, ref.num_heads)
    # float32 as the trained weights and inputs are, whatever default dtype the student's module set
    # (torch.set_default_dtype(torch.float64) made float64 parameters that float32 input cannot meet)
    handle = student.method(handle, "float", where="AttentionBlock(...).float()")
    if not isinstance(handle, Handle):
        raise CheckFailure.keyed("float_lost", where="AttentionBlock(...)")
    load_weights(student, handle, ref.state, "AttentionBlock", ("attn.W_q", "attn.W_k", "attn.W_v", "attn.W_o", "norm"), private=True)
    student.train(handle, False, "AttentionBlock.eval()")
    return handle


def once(cache: dict[str, Any], student: Student, compute: Any, in_worker_only: bool = False) -> Any:
    """compute() once per submission: its value, or the failure it raised, is kept in `cache`
    and given to every check that asks (a broken block or plot is not run again).
    A run with trusted stand-ins (error carried forward) has its own; `in_worker_only`: the
    grader-side stand-ins do not change what compute() gives."""
    mode = tuple(getattr(student, "stand_ins_active", ()))
    if in_worker_only:
        mode = tuple(name for name in mode if name not in current().grader_side)
    if cache.get("student") is not student:
        cache.clear()
        cache["student"] = student
    runs = cache.setdefault("modes", {})  # mode -> (value, None) or (None, error): a check run with
    if mode not in runs:  # stand-ins and then one without them again does not run the student's code again
        try:
            runs[mode] = (compute(), None)
        except (CheckFailure, StudentError) as failure:
            runs[mode] = (None, failure)
    value, failed = runs[mode]
    if failed is not None:
        raise failed
    return value


def run_block(student: Student) -> tuple[torch.Tensor, torch.Tensor]:
    """(y (N, S, E), weights (N, H, S, S)) of the student's block with the reference weights."""
    y, weights, _ = _block_run(student)
    return y, weights


def _block_run(student: Student) -> tuple[torch.Tensor, torch.Tensor, float]:
    """run_block's (y, weights) and the eps of the block's LayerNorm (the reference's own when the
    contract does not allow the student's)."""

    def run() -> tuple[torch.Tensor, torch.Tensor, float]:
        ref = reference()
        handle = load_into_student(student)
        value = expect_pair(student.method(handle, "forward", ref.x, where="AttentionBlock.forward"), "AttentionBlock.forward")
        n, s, e = ref.x.shape
        y = expect_tensor(value[0], "AttentionBlock.forward (output y)", (n, s, e))
        weights = expect_tensor(value[1], "AttentionBlock.forward (weights)", (n, ref.num_heads, s, s))
        return y, weights, norm_eps(student, handle, ref.model.block.norm.eps)

    return once(_ran, student, run, in_worker_only=True)


@functools.lru_cache(maxsize=4)
@torch.no_grad()
def _logits_with_eps(eps: float) -> torch.Tensor:
    """The reference model's logits with its block's LayerNorm eps set to the student's, which
    the contract lets them choose (up to MAX_EPS), as Part D's reference does."""
    ref = reference()
    block = copy.deepcopy(ref.model.block)
    block.norm.eps = eps
    return ref.model.head(block(ref.x)[0])


# -------------------------------------------------------------------------- buggy variants (trusted)
def _maps(x: torch.Tensor, scale: float) -> torch.Tensor:
    """The reference block's attention maps on input x (N, S, E) with scores divided by `scale`."""
    ref = reference()
    attn = ref.model.block.attn
    n, s, e = x.shape
    h = ref.num_heads
    q = attn.W_q(x).view(n, s, h, e // h).transpose(1, 2)  # (N, H, S, Dh)
    k = attn.W_k(x).view(n, s, h, e // h).transpose(1, 2)  # (N, H, S, Dh)
    return torch.softmax(q @ k.transpose(-2, -1) / scale, dim=-1)  # (N, H, S, S)


@torch.no_grad()
def map_variants() -> dict[str, torch.Tensor]:
    ref = reference()
    dh = ref.embed_dim // ref.num_heads
    return {
        "scores_no_scaling": _maps(ref.x, 1.0),
        "mha_scaled_by_embed_dim": _maps(ref.x, math.sqrt(ref.embed_dim)),
        "block_pre_norm": _maps(ref.model.block.norm(ref.x), math.sqrt(dh)),
    }


@torch.no_grad()
def output_variants() -> dict[str, torch.Tensor]:
    ref = reference()
    block = ref.model.block
    attended = block.attn(ref.x)[0]  # (N, S, E)
    return {
        "block_no_residual": ref.model.head(block.norm(attended)),
        "block_no_norm": ref.model.head(ref.x + attended),
        "block_pre_norm": ref.model.head(ref.x + block.attn(block.norm(ref.x))[0]),
    }


def maps_differ(weights: torch.Tensor, key: str, **args: Any) -> CheckFailure:
    """The message `key`, naming the Part C/D mistake whose maps match when one does, and
    trained_maps_differ when none does."""
    like = diagnose(weights.double(), {k: v.double() for k, v in map_variants().items()})
    return CheckFailure.keyed(key, like or "trained_maps_differ", **args)


# --------------------------------------------------------------------------------------------- drawing
@dataclass(frozen=True)
class Drawn:
    """One trained map drawn by the student's plot_attention, and what was read from it.

    ours / theirs (S, S) [query, key]: the student's map and the reference model's; png: the
    student's figure of ours; shown (S, S): the map the figure shows, oriented like `ours` (None
    when it cannot be read or shows something else); reference_png / reference_shows: the same
    plot_attention's figure of theirs, and whether it shows theirs; problem: why there is no
    usable figure ('' when there is one); similarity: SSIM of the two figures (None: not measured).
    """

    sentence: int
    head: int
    ours: torch.Tensor
    theirs: torch.Tensor
    png: bytes
    shown: torch.Tensor | None
    reference_png: bytes
    reference_shows: bool
    problem: str
    similarity: float | None


def map_title(sentence: int, head: int) -> str:
    return f"“{' '.join(reference().words[sentence])}”, head {head}"


def _figure(student: Student, matrix: torch.Tensor, sentence: int, head: int) -> tuple[bytes, torch.Tensor | None, str]:
    """(png, the (S, S) map the figure shows oriented like `matrix` or None, problem) of
    plot_attention(matrix, words, words, title=...); with plot_attention's stand-in (a wrong
    Part E), the kit's renderer draws it here, and shows exactly `matrix`. A map is drawn once per
    submission (`_figures`)."""
    words = reference().words[sentence]
    if "plot_attention" in getattr(student, "stand_ins_active", ()):
        return render(matrix.double(), words, words, map_title(sentence, head)).png, matrix.double(), ""
    if _figures.get("student") is not student:
        _figures.clear()
        _figures.update(student=student, figures=[])
    for drawn_sentence, drawn_head, drawn_matrix, (png_bytes, grid, problem) in _figures["figures"]:
        if (drawn_sentence, drawn_head) == (sentence, head) and max_abs_difference(drawn_matrix, matrix) <= SAME_PICTURE_ATOL:
            return png_bytes, (None if grid is None else showing(grid, matrix)), problem  # the same colours: drawn already
    png_bytes, grid, problem = _drawing(student, matrix, words, map_title(sentence, head))
    _figures["figures"].append((sentence, head, matrix, (png_bytes, grid, problem)))
    return png_bytes, (None if grid is None else showing(grid, matrix)), problem


def _drawing(student: Student, matrix: torch.Tensor, words: list[str], title: str) -> tuple[bytes, np.ndarray | None, str]:
    """(png, the grid of values read from the figure or None, problem) of the student's
    plot_attention(matrix, words, words, title=title)."""
    description = student.plot("plot_attention", matrix, list(words), list(words), title=title)
    png = description.get("png") if isinstance(description, dict) else None
    png_bytes = png.numpy().tobytes() if isinstance(png, torch.Tensor) and png.dtype == torch.uint8 else b""
    if not returned_axes(description):  # Part E charges what it returned instead
        return png_bytes, None, NO_AXES
    try:
        # the values the drawing holds, even where its view limits leave some off the picture
        # (twiny's datalim aspect on a long sentence, qa9e c04): the picture is Part E's to grade
        heatmap = read_heatmap(description, in_view=False)
    except UnreadablePlot as error:
        return png_bytes, None, str(error)
    return png_bytes, heatmap.values, ""


def showing(values: np.ndarray, matrix: torch.Tensor) -> torch.Tensor | None:
    """The drawn grid `values` as a (Lq, Lk) map when some flip or transposition of it shows
    `matrix` (Lq, Lk); None when none does. Which one is right is Part E's to grade."""
    expected = matrix.double().numpy()
    for grid in (*orientations(values.T).values(), *orientations(values).values()):  # the flips of both
        if shows_values(grid, expected):
            return torch.from_numpy(np.ascontiguousarray(grid))
    return None


def draw_maps(student: Student) -> list[Drawn]:
    """The student's trained maps of reference().drawn, each drawn by plot_attention; once per
    submission. The reference map is drawn by the same function too unless the two maps are
    too close for any colour to differ (then the figures are the same)."""
    return once(_drawn, student, lambda: [draw_map(student, sentence, head) for sentence, head in reference().drawn])


def draw_map(student: Student, sentence: int, head: int) -> Drawn:
    _, weights = run_block(student)
    ours, theirs = weights[sentence, head].to(torch.float32), reference().weights[sentence, head]  # (S, S)
    if not torch.isfinite(ours).all():
        return Drawn(sentence, head, ours, theirs, b"", None, b"", False, MAP_NOT_FINITE, None)
    png, shown, problem = _figure(student, ours, sentence, head)
    reference_png, reference_shown, score = b"", None, None
    if not problem and shown is not None:
        if max_abs_difference(ours, theirs) <= SAME_PICTURE_ATOL:
            reference_png, reference_shown, score = png, theirs, 1.0
        else:
            reference_png, reference_shown, _ = _figure(student, theirs, sentence, head)
            if reference_shown is not None and png and reference_png:
                try:
                    score = figure_similarity(png, reference_png)
                except AttnkitError:  # a figure that is not a readable PNG
                    score = None
    return Drawn(sentence, head, ours, theirs, png, shown, reference_png, reference_shown is not None, problem, score)


def add_artifacts(artifacts: Any, drawn: list[Drawn]) -> None:
    """Per drawn map: the reference model's map, drawn by the kit's renderer, and, when the
    student's figure shows it, that figure redrawn (and a difference of zero). The student's own
    maps were computed, and their figures drawn, in the worker that holds the private reference
    weights: their values and pixels are the submission's to choose (qa6h pasted the weights'
    bytes in with figimage; qa19h put 100 weights a submission into the map's cells, read back
    from the redrawn colours), so a map that differs from the reference's is not drawn: Parts
    C-E show the student's maps of public inputs."""
    for item in drawn:
        name, title = f"probe-{item.sentence + 1}-head-{item.head}", map_title(item.sentence, item.head)
        images = {f"heatmaps/{name}-reference.png": reference_render(item.sentence, item.head).png}
        same = item.shown is not None and max_abs_difference(item.shown, item.theirs) <= SAME_PICTURE_ATOL
        if same:
            images[f"heatmaps/{name}-student.png"] = reference_render(item.sentence, item.head).png
            images[f"heatmaps/{name}-difference.png"] = zero_difference_render(item.sentence, item.head)
        artifacts.add(
            Artifact(
                kind="heatmap", name=name,
                caption=f"the trained model, {title}: the reference model's map, and what your plot_attention drew of your block's map when it shows that map (redrawn by the grader; a map that differs is not drawn: it was computed where the reference weights are loaded, and Parts C-E show your maps)",
                student=f"heatmaps/{name}-student.png" if same else "", reference=f"heatmaps/{name}-reference.png",
                difference=f"heatmaps/{name}-difference.png" if same else "",
                similarity=item.similarity if same and max_abs_difference(item.ours, item.theirs) <= SAME_PICTURE_ATOL else None,  # 1.0, not measured: one figure
            ),
            images,
        )


def warm_up() -> None:
    """The kit's renders of the reference maps, made before a grading pool forks (session.warm_checks)."""
    for sentence, head in reference().drawn:
        reference_render(sentence, head)
        zero_difference_render(sentence, head)


@functools.cache
def reference_render(sentence: int, head: int) -> Render:
    """The reference model's map, rendered once per grader process (the renderer is pinned)."""
    words = reference().words[sentence]
    return render(reference().weights[sentence, head].double(), words, words, map_title(sentence, head))


@functools.cache
def zero_difference_render(sentence: int, head: int) -> bytes:
    """The difference image of a map equal to the reference's (an all-zero difference)."""
    from autograder.grading.plotting import render_difference

    theirs = reference().weights[sentence, head].double()
    words = reference().words[sentence]
    return render_difference(theirs, theirs, words, words, map_title(sentence, head))


def drawing_problem(item: Drawn) -> CheckFailure | None:
    """Why the figure of one map cannot be graded (None when it can); Part E grades the drawing."""
    where = {"sentence": item.sentence + 1, "head": item.head}
    if item.problem:
        return CheckFailure.keyed("trained_heatmap_unreadable", **where, **problem_args(item.problem))
    if item.shown is None:
        return CheckFailure.keyed("trained_heatmap_not_the_map", **where)
    return None


# --------------------------------------------------------------------------------------------- F.1
@check("F.1", 3, "trained model: your block's attention maps equal the reference model's")
def test_trained_maps_match(student):
    _, weights = run_block(student)
    ref = reference()
    error = max_abs_difference(weights, ref.weights)
    if error > MAP_ATOL:
        raise maps_differ(weights, "trained_maps_differ_by", error=f"{error:.3g}")


@check("F.1", 1, "trained model: the whole model's output matches")
def test_pronoun_model_output(student):
    y, weights, eps = _block_run(student)
    ref = reference()
    with torch.no_grad():
        logits = ref.model.head(y.to(torch.float32))  # (N, S, V)
    error = max_abs_difference(logits, ref.logits if eps == ref.model.block.norm.eps else _logits_with_eps(eps))
    if error <= LOGIT_ATOL:
        return
    key = diagnose(logits.double(), {k: v.double() for k, v in output_variants().items()}, rtol=1e-3, atol=1e-3)
    maps_moved = max_abs_difference(weights, ref.weights) > MAP_ATOL  # otherwise the maps are not what differs
    raise CheckFailure.keyed("trained_output_differs", key or ("trained_maps_differ" if maps_moved else ""), error=f"{error:.3g}")


# --------------------------------------------------------------------------------------------- F.2
@check("F.2", 1, "trained model: your plot_attention's heatmaps show the reference model's weights")
def test_trained_heatmaps_match(student, artifacts):
    drawn = draw_maps(student)
    if artifacts is not None:
        add_artifacts(artifacts, drawn)
    _, weights = run_block(student)
    for item in drawn:
        problem = drawing_problem(item)
        if problem is not None:
            raise problem
        error = max_abs_difference(item.shown, item.theirs)
        if error > SHOWN_ATOL:  # the figure shows the map to a colour step; the block's own error is F.1's
            raise maps_differ(weights, "trained_heatmap_differs", sentence=item.sentence + 1, head=item.head, error=f"{error:.3g}")


@check("F.2", 1, "trained model: your heatmaps look like the reference model's heatmaps", kind=PROPERTY, gate="trained_heatmaps_match")
def test_trained_heatmaps_look_alike(student):
    _, weights = run_block(student)
    drawn = draw_maps(student)
    for item in drawn:
        problem = drawing_problem(item)
        if problem is not None:
            raise problem
        if not item.reference_shows:
            raise CheckFailure.keyed("trained_reference_figure_not_the_map", sentence=item.sentence + 1, head=item.head)
    worst = min(drawn, key=lambda item: item.similarity if item.similarity is not None else -1.0)
    score = worst.similarity if worst.similarity is not None else 0.0
    if score < FIGURE_SIMILARITY_THRESHOLD:
        raise maps_differ(weights, "trained_heatmap_unlike", sentence=worst.sentence + 1, head=worst.head, score=f"{score:.3f}", threshold=FIGURE_SIMILARITY_THRESHOLD)


# --------------------------------------------------------------------------------------------- F.3
def darkest_share(weights: torch.Tensor, queries: torch.Tensor, *keys: torch.Tensor) -> tuple[int, float]:
    """(head, share): the head in which the query's column (weights (N, H, S, S) [query, key]) most
    often has its darkest cell at one of `keys` (each (N,)), darker than every other cell by
    PATTERN_MARGIN, and the share of the N sentences where it does."""
    rows = torch.arange(weights.size(0))
    column = weights.double()[rows, :, queries, :]  # (N, H, S): the query's weights over the keys
    right = torch.zeros_like(column, dtype=torch.bool)  # (N, H, S)
    for k in keys:
        right[rows, :, k] = True
    best_right = column.masked_fill(~right, -math.inf).amax(dim=-1)  # (N, H)
    best_other = column.masked_fill(right, -math.inf).amax(dim=-1)  # (N, H)
    share = (best_right > best_other + PATTERN_MARGIN).double().mean(dim=0)  # (H,), NaN compares False
    head = int(share.argmax())
    return head, float(share[head])


@check("F.3", 1, "trained model: the pronoun attends to its antecedent")
def test_pronoun_attends_to_antecedent(student):
    _, weights = run_block(student)
    batch = reference().batch
    head, share = darkest_share(weights, batch.pronoun, batch.antecedent)
    if share < PATTERN_MIN_SHARE:
        raise maps_differ(weights, "pronoun_pattern_missing", share=f"{share:.0%}", head=head)


@check("F.3", 1, "trained model: the verb attends to its subject or object, not to 'the' or 'a'")
def test_verb_attends_to_its_arguments(student):
    _, weights = run_block(student)
    batch = reference().batch
    head, share = darkest_share(weights, batch.verb, batch.subject, batch.object)
    if share < PATTERN_MIN_SHARE:
        raise maps_differ(weights, "verb_pattern_missing", share=f"{share:.0%}", head=head)
