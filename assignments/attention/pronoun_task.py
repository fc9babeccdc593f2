"""Part F: a tiny language task whose right attention targets are known (指代消解).

Every sentence has the shape ``<name> <verb> <name> . <pronoun> <verb>``, for example
``alice met bob . she smiled``. The two names have different genders, so the pronoun has exactly
one antecedent (先行词): the name of its gender, which is the subject or the object at random.

The model is an embedding, your AttentionBlock and a linear head. It is trained to predict
  - at the pronoun: the antecedent's name. Only attention can bring a name to the pronoun's
    position, and the pronoun's gender says which name: its query should pick that key;
  - at the first verb: its subject (a verb attending to its subject, as in the course text).
    An average over all words loses which name stood first, so this query has to choose too.
Every other position has no target. Attention weights are (B, H, S, S) indexed
[batch, head, query, key]; a heatmap puts queries on the horizontal axis, keys on the vertical.

This file does not implement attention: every function takes your AttentionBlock class.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F

FEMALE = ("alice", "mary", "emma", "lucy", "sara", "anna")
MALE = ("bob", "john", "tom", "jack", "paul", "mike")
TRANSITIVE = ("met", "saw", "called", "helped")
INTRANSITIVE = ("smiled", "laughed", "left", "waved")
PRONOUN = {"she": FEMALE, "he": MALE}
TEMPLATE = (FEMALE + MALE, TRANSITIVE, FEMALE + MALE, (".",), tuple(PRONOUN), INTRANSITIVE)
VOCAB = (".", *FEMALE, *MALE, "she", "he", *TRANSITIVE, *INTRANSITIVE)
WORD_ID = {word: i for i, word in enumerate(VOCAB)}
SEQ_LEN = len(TEMPLATE)
SUBJECT, VERB, OBJECT, PRONOUN_POS = 0, 1, 2, 4  # positions in every sentence
IGNORE = -100  # target value of positions without a target (F.cross_entropy's ignore_index)
EVAL_SEED = 1234  # the evaluation batches never depend on the training seed


@dataclass(frozen=True)
class Batch:
    """Sentences with their known attention targets.

    tokens (B, S) word ids; targets (B, S) word ids to predict, IGNORE where none;
    pronoun, antecedent, verb, subject (B,): positions of each query and of its right key.
    """

    tokens: torch.Tensor
    targets: torch.Tensor
    pronoun: torch.Tensor
    antecedent: torch.Tensor
    verb: torch.Tensor
    subject: torch.Tensor


def is_heldout(female: int, male: int) -> bool:
    """One pair of names in six never appears in training; the held-out split is those pairs."""
    return (female + male) % 6 == 0


def _pairs(split: str) -> torch.Tensor:
    if split not in ("train", "heldout"):
        raise ValueError(f"split must be 'train' or 'heldout', not {split!r}")
    pairs = [
        (f, m)
        for f in range(len(FEMALE))
        for m in range(len(MALE))
        if is_heldout(f, m) == (split == "heldout")
    ]
    return torch.tensor(pairs)  # (P, 2)


def _batch(tokens: torch.Tensor) -> Batch:
    """Fill in targets and positions for well-formed sentences tokens (B, S)."""
    B = tokens.size(0)
    female_pronoun = tokens[:, PRONOUN_POS] == WORD_ID["she"]  # (B,)
    subject_is_female = tokens[:, SUBJECT] < WORD_ID[MALE[0]]  # (B,), female ids come first
    antecedent = torch.where(female_pronoun == subject_is_female, SUBJECT, OBJECT)  # (B,)
    rows = torch.arange(B)
    targets = torch.full_like(tokens, IGNORE)  # (B, S)
    targets[:, PRONOUN_POS] = tokens[rows, antecedent]
    targets[:, VERB] = tokens[:, SUBJECT]
    return Batch(
        tokens=tokens,
        targets=targets,
        pronoun=torch.full((B,), PRONOUN_POS),
        antecedent=antecedent,
        verb=torch.full((B,), VERB),
        subject=torch.full((B,), SUBJECT),
    )


def make_batch(n: int, generator: torch.Generator, split: str = "train") -> Batch:
    """n random sentences; the same generator state always gives the same batch."""
    pairs = _pairs(split)  # (P, 2)
    pick = pairs[torch.randint(len(pairs), (n,), generator=generator)]  # (n, 2)
    female = torch.tensor([WORD_ID[w] for w in FEMALE])[pick[:, 0]]  # (n,)
    male = torch.tensor([WORD_ID[w] for w in MALE])[pick[:, 1]]  # (n,)
    female_first = torch.randint(2, (n,), generator=generator).bool()  # (n,)
    she = torch.randint(2, (n,), generator=generator).bool()  # (n,)
    verb = torch.randint(len(TRANSITIVE), (n,), generator=generator) + WORD_ID[TRANSITIVE[0]]
    verb2 = torch.randint(len(INTRANSITIVE), (n,), generator=generator) + WORD_ID[INTRANSITIVE[0]]
    tokens = torch.stack(
        [
            torch.where(female_first, female, male),
            verb,
            torch.where(female_first, male, female),
            torch.full((n,), WORD_ID["."]),
            torch.where(she, WORD_ID["she"], WORD_ID["he"]),
            verb2,
        ],
        dim=1,
    )  # (n, S)
    return _batch(tokens)


def encode(sentences: list[str]) -> Batch:
    """Sentences written as text, e.g. ["alice met bob . she smiled"], as a Batch."""
    rows = []
    for sentence in sentences:
        words = sentence.split()
        unknown = [w for w in words if w not in WORD_ID]
        if unknown:
            raise ValueError(f"unknown words {unknown} in {sentence!r}; the vocabulary is {VOCAB}")
        fits = len(words) == SEQ_LEN and all(w in slot for w, slot in zip(words, TEMPLATE))
        if not fits or (words[SUBJECT] in FEMALE) == (words[OBJECT] in FEMALE):
            raise ValueError(
                f"{sentence!r} is not '<name> <verb> <name> . <he|she> <verb>' with one female "
                f"and one male name, e.g. 'alice met bob . she smiled'"
            )
        rows.append([WORD_ID[w] for w in words])
    return _batch(torch.tensor(rows))


def decode(tokens: torch.Tensor) -> list[list[str]]:
    """Word ids (B, S) back to words, for heatmap labels."""
    return [[VOCAB[i] for i in row] for row in tokens.tolist()]


PROBES = (
    "alice met bob . she smiled",
    "alice met bob . he smiled",
    "john helped mary . she laughed",
    "tom saw emma . he waved",
)


def probe_sentences() -> tuple[Batch, list[list[str]]]:
    """The fixed sentences of the heatmaps (used by the notebook and the grader) and their words."""
    batch = encode(list(PROBES))
    return batch, decode(batch.tokens)


class PronounModel(nn.Module):
    """Token embedding + learned positions -> your AttentionBlock -> a linear head over VOCAB."""

    def __init__(self, block_cls, vocab_size: int = len(VOCAB), seq_len: int = SEQ_LEN,
                 embed_dim: int = 32, num_heads: int = 2):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, embed_dim)
        self.pos = nn.Embedding(seq_len, embed_dim)
        self.block = block_cls(embed_dim, num_heads)
        self.head = nn.Linear(embed_dim, vocab_size)

    def block_input(self, tokens: torch.Tensor) -> torch.Tensor:
        """tokens (B, S) -> x (B, S, E), what the AttentionBlock receives."""
        positions = torch.arange(tokens.size(1), device=tokens.device)  # (S,)
        return self.embed(tokens) + self.pos(positions)  # (B, S, E)

    def forward(self, tokens: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """tokens (B, S) -> (logits (B, S, V), attention weights (B, H, S, S))."""
        y, weights = self.block(self.block_input(tokens))  # (B, S, E), (B, H, S, S)
        return self.head(y), weights  # (B, S, V), (B, H, S, S)


@dataclass(frozen=True)
class TargetAttention:
    """Mean weight that the queries put on their right key, per head, over a batch.

    uniform is what a head that spreads its attention evenly would put there: 1/S.
    """

    per_head: tuple[float, ...]
    best_head: int
    best: float
    uniform: float


def attention_on(
    weights: torch.Tensor, queries: torch.Tensor, keys: torch.Tensor
) -> TargetAttention:
    """weights (B, H, S, S) [query, key]; queries, keys (B,) positions -> TargetAttention."""
    rows = torch.arange(weights.size(0))
    on_target = weights[rows, :, queries, keys]  # (B, H)
    per_head = on_target.double().mean(dim=0)  # (H,)
    best_head = int(per_head.argmax())
    return TargetAttention(
        per_head=tuple(per_head.tolist()),
        best_head=best_head,
        best=float(per_head[best_head]),
        uniform=1.0 / weights.size(-1),
    )


def antecedent_attention(weights: torch.Tensor, batch: Batch) -> TargetAttention:
    """How much the pronoun queries attend to their antecedent keys."""
    return attention_on(weights, batch.pronoun, batch.antecedent)


def subject_attention(weights: torch.Tensor, batch: Batch) -> TargetAttention:
    """How much the verb queries attend to their subject keys."""
    return attention_on(weights, batch.verb, batch.subject)


def accuracy(logits: torch.Tensor, batch: Batch, position: str = "pronoun") -> float:
    """Share of right predictions at the pronoun ("pronoun") or the verb ("verb")."""
    if position not in ("pronoun", "verb"):
        raise ValueError(f"position must be 'pronoun' or 'verb', not {position!r}")
    where = batch.pronoun if position == "pronoun" else batch.verb  # (B,)
    rows = torch.arange(logits.size(0))
    predicted = logits[rows, where].argmax(dim=-1)  # (B,)
    return float((predicted == batch.targets[rows, where]).double().mean())


@dataclass(frozen=True)
class Evaluation:
    pronoun_accuracy: float
    verb_accuracy: float
    antecedent: TargetAttention
    subject: TargetAttention


@torch.no_grad()
def evaluate(model: PronounModel, batch: Batch) -> Evaluation:
    was_training = model.training
    model.eval()
    logits, weights = model(batch.tokens)  # (B, S, V), (B, H, S, S)
    model.train(was_training)
    return Evaluation(
        pronoun_accuracy=accuracy(logits, batch, "pronoun"),
        verb_accuracy=accuracy(logits, batch, "verb"),
        antecedent=antecedent_attention(weights, batch),
        subject=subject_attention(weights, batch),
    )


def evaluation_batches(n: int = 512) -> dict[str, Batch]:
    """The fixed batches every model is measured on: seen pairs of names and held-out pairs."""
    generator = torch.Generator().manual_seed(EVAL_SEED)
    return {split: make_batch(n, generator, split) for split in ("train", "heldout")}


@dataclass(frozen=True)
class TrainMetrics:
    seed: int
    steps: int
    batch_size: int
    lr: float
    final_loss: float
    seconds: float
    train: Evaluation
    heldout: Evaluation


def train_model(block_cls, steps: int = 300, seed: int = 0, batch_size: int = 64,
                lr: float = 1e-2) -> tuple[PronounModel, TrainMetrics]:
    """Train a PronounModel around block_cls; the same seed gives bit-identical weights.

    Runs on one CPU thread (a few seconds) and leaves the global random state untouched.
    """
    if steps < 1 or batch_size < 1:
        raise ValueError(f"steps and batch_size must be at least 1, not {steps} and {batch_size}")
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # the order of float sums, hence the weights, depends on threads
    try:
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)  # the initial weights
            model = PronounModel(block_cls)
        generator = torch.Generator().manual_seed(seed)  # the training sentences
        optimizer = torch.optim.Adam(model.parameters(), lr=lr)
        model.train()
        start = time.perf_counter()
        for _ in range(steps):
            batch = make_batch(batch_size, generator, "train")
            logits, _ = model(batch.tokens)  # (B, S, V)
            loss = F.cross_entropy(
                logits.flatten(0, 1), batch.targets.flatten(), ignore_index=IGNORE
            )  # mean over the B * 2 positions that have a target
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        seconds = time.perf_counter() - start
        batches = evaluation_batches()
        metrics = TrainMetrics(
            seed=seed,
            steps=steps,
            batch_size=batch_size,
            lr=lr,
            final_loss=loss.item(),
            seconds=seconds,
            train=evaluate(model, batches["train"]),
            heldout=evaluate(model, batches["heldout"]),
        )
    finally:
        torch.set_num_threads(threads)
    return model, metrics
