"""Hidden checks, Part F: the student's AttentionBlock with the kit's trained reference weights.

The reference PronounModel (autograder/reference/pronoun_model.pt) was trained with the reference
AttentionBlock. Its block parameters are loaded into the student's AttentionBlock, which then runs
on exactly the input the reference block saw (embedding + positions of the probe sentences and of
the held-out evaluation sentences). The maps must match numerically and as images (the kit's
pinned renderer, SIMILARITY_THRESHOLD); the pronoun must still attend to its antecedent; the whole
model's output (the reference head on the student's block output) must match.

The student's block runs once per submission (`_ran`); every check reads that run.
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Any

import torch

from autograder.checks.module_support import load_weights
from autograder.checks.plugin import CheckFailure, check
from autograder.checks.support import expect_pair, expect_tensor
from autograder.heatmap import SIMILARITY_THRESHOLD, Render, max_abs_difference, render, similarity
from autograder.mistakes import MISTAKES, diagnose
from autograder.results import Artifact
from autograder.worker.client import Student
from autograder.worker.protocol import Handle

MAP_ATOL = 1e-4  # float32 maps: a correct block in another style differs by ~1e-7
LOGIT_ATOL = 1e-3
ANTECEDENT_MIN = 0.9  # the reference model puts 0.995 on the antecedent (pronoun_metrics.json)
IMAGE_PROBES = (0,)  # "alice met bob . she smiled": both heads are drawn (8 renders would cost ~1 s more)
_ran: dict[str, Any] = {}


@dataclass(frozen=True)
class Reference:
    """What the reference model gives on the probe and held-out sentences (grader side only).

    x (N, S, E): the block's input, probes first; weights (N, H, S, S); logits (N, S, V);
    words: the probe sentences' tokens; n_probes: how many of the N rows are probes.
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
    batch: Any  # the held-out pronoun_task.Batch


@functools.cache
def reference() -> Reference:
    from autograder.train_reference import load_reference_model, pronoun_task, reference_block_state, reference_probe

    task = pronoun_task()
    model = load_reference_model()
    probe = reference_probe()
    batch = task.evaluation_batches(128)["heldout"]
    with torch.no_grad():
        x = torch.cat([probe.x, model.block_input(batch.tokens)])  # (N, S, E)
        y, weights = model.block(x)  # (N, S, E), (N, H, S, S)
        logits = model.head(y)  # (N, S, V)
    return Reference(
        state=reference_block_state(), x=x, weights=weights, logits=logits, words=probe.words,
        n_probes=probe.x.size(0), embed_dim=model.block.attn.embed_dim, num_heads=model.block.attn.num_heads,
        model=model, batch=batch,
    )


def fail(message: str, mistake: str = "") -> CheckFailure:
    if mistake:
        return CheckFailure(f"{message}: {MISTAKES[mistake].en}", mistake, MISTAKES[mistake].en)
    return CheckFailure(message)


def load_into_student(student: Student) -> Handle:
    """A student AttentionBlock(E, H) holding the reference block's parameters, in eval mode."""
    ref = reference()
    handle = student.new("AttentionBlock", ref.embed_dim, ref.num_heads)
    load_weights(student, handle, ref.state, "AttentionBlock", ("attn.W_q", "attn.W_k", "attn.W_v", "attn.W_o", "norm"))
    student.train(handle, False, "AttentionBlock.eval()")
    return handle


def run_block(student: Student) -> tuple[torch.Tensor, torch.Tensor]:
    """(y (N, S, E), weights (N, H, S, S)) of the student's block with the reference weights."""
    if _ran.get("student") is not student:
        _ran.clear()
        ref = reference()
        handle = load_into_student(student)
        value = expect_pair(student.method(handle, "forward", ref.x, where="AttentionBlock.forward"), "AttentionBlock.forward")
        n, s, e = ref.x.shape
        y = expect_tensor(value[0], "AttentionBlock.forward (output y)", (n, s, e))
        weights = expect_tensor(value[1], "AttentionBlock.forward (weights)", (n, ref.num_heads, s, s))
        _ran.update(student=student, value=(y, weights))
    return _ran["value"]


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


def maps_differ(weights: torch.Tensor, message: str) -> CheckFailure:
    """trained_maps_differ, naming the Part C/D mistake whose maps match when one does."""
    key = diagnose(weights.double(), {k: v.double() for k, v in map_variants().items()})
    detail = f" Your maps match a known mistake: {MISTAKES[key].en}" if key else ""
    return CheckFailure(f"{message}: {MISTAKES['trained_maps_differ'].en}{detail}", "trained_maps_differ", MISTAKES["trained_maps_differ"].en)


# --------------------------------------------------------------------------------------------- F.1
@check("F.1", 1, "reference weights: load into your AttentionBlock", hint="parameter names come from Parts B-D: attn.W_q.weight, ..., norm.weight")
def test_reference_weights_load(student):
    load_into_student(student)


@check("F.1", 3, "reference weights: your block's attention maps equal the reference model's", hint="with the same weights and input, a correct block gives the same maps")
def test_trained_maps_match(student):
    _, weights = run_block(student)
    ref = reference()
    error = max_abs_difference(weights, ref.weights)
    if error > MAP_ATOL:
        raise maps_differ(weights, f"the attention maps differ from the reference model's (largest difference {error:.3g})")


@check("F.1", 2, "reference weights: your heatmaps look like the reference heatmaps", hint="the images are compared after rendering both with the kit's renderer")
def test_trained_heatmaps_look_alike(student, artifacts):
    from autograder.plotting import render_difference

    _, weights = run_block(student)
    ref = reference()
    scores = {}
    for sentence in IMAGE_PROBES:
        words = ref.words[sentence]
        for head in range(ref.num_heads):
            ours, theirs = weights[sentence, head].double(), ref.weights[sentence, head].double()  # (S, S)
            name, title = f"probe-{sentence + 1}-head-{head}", map_title(sentence, head)
            theirs_render = reference_render(sentence, head)
            images = {f"heatmaps/{name}-reference.png": theirs_render.png}
            if torch.equal(ours, theirs):  # the pinned renderer gives the same bytes for the same input
                scores[(sentence, head)] = 1.0
                images[f"heatmaps/{name}-student.png"] = theirs_render.png
                images[f"heatmaps/{name}-difference.png"] = zero_difference_render(sentence, head)
            elif torch.isfinite(ours).all():
                ours_render = render(ours, words, words, title)
                scores[(sentence, head)] = similarity(ours_render, theirs_render)
                images[f"heatmaps/{name}-student.png"] = ours_render.png
                images[f"heatmaps/{name}-difference.png"] = render_difference(ours, theirs, words, words, title)
            else:
                scores[(sentence, head)] = 0.0  # NaN or inf weights: nothing to draw
            if artifacts is not None:
                drawn = f"heatmaps/{name}-student.png" in images
                artifacts.add(
                    Artifact(
                        kind="heatmap", name=name,
                        caption=f"reference weights, {title}: your block, the reference model, and yours − reference",
                        student=f"heatmaps/{name}-student.png" if drawn else "", reference=f"heatmaps/{name}-reference.png",
                        difference=f"heatmaps/{name}-difference.png" if drawn else "", similarity=scores[(sentence, head)],
                    ),
                    images,
                )
    (sentence, head), worst = min(scores.items(), key=lambda item: item[1])
    if worst < SIMILARITY_THRESHOLD:
        raise maps_differ(weights, f"your heatmap of sentence {sentence + 1}, head {head} does not look like the reference (similarity {worst:.3f}, at least {SIMILARITY_THRESHOLD} needed)")


@check("F.1", 1, "reference weights: the pronoun attends to its antecedent", hint="the trained head should put most of the pronoun's attention on the name it refers to")
def test_pronoun_attends_to_antecedent(student):
    from autograder.train_reference import pronoun_task

    _, weights = run_block(student)
    ref = reference()
    found = pronoun_task().antecedent_attention(weights[ref.n_probes:], ref.batch)
    if not math.isfinite(found.best) or found.best < ANTECEDENT_MIN:
        raise maps_differ(weights, f"with the reference weights, your block's best head puts {found.best:.2f} of the pronoun's attention on its antecedent (the reference model: above {ANTECEDENT_MIN})")


@check("F.1", 1, "reference weights: the whole model's output matches", hint="y = norm(x + dropout(attn(x))): post-norm with the residual")
def test_pronoun_model_output(student):
    y, _ = run_block(student)
    ref = reference()
    with torch.no_grad():
        logits = ref.model.head(y.to(torch.float32))  # (N, S, V)
    error = max_abs_difference(logits, ref.logits)
    if error <= LOGIT_ATOL:
        return
    key = diagnose(logits.double(), {k: v.double() for k, v in output_variants().items()}, rtol=1e-3, atol=1e-3)
    message = f"with the reference weights, the model's predictions built on your block differ from the reference model's (largest logit difference {error:.3g})"
    raise fail(message, key) if key else fail(message, "trained_maps_differ")


def map_title(sentence: int, head: int) -> str:
    return f"“{' '.join(reference().words[sentence])}”, head {head}"


@functools.cache
def reference_render(sentence: int, head: int) -> Render:
    """The reference model's map, rendered once per grader process (the renderer is pinned)."""
    ref = reference()
    words = ref.words[sentence]
    return render(ref.weights[sentence, head].double(), words, words, map_title(sentence, head))


@functools.cache
def zero_difference_render(sentence: int, head: int) -> bytes:
    """The difference image of a map equal to the reference's (an all-zero difference)."""
    from autograder.plotting import render_difference

    theirs = reference().weights[sentence, head].double()
    return render_difference(theirs, theirs, reference().words[sentence], reference().words[sentence], map_title(sentence, head))
