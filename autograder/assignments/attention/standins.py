"""The attention assignment's trusted stand-ins, worker side (error carried forward).

The engine's machinery (autograder/grading/worker/standins.py) makes them: each is a proxy whose
value comes from the grader (`remote`: a callback answered by checks/carried.py's
`trusted_answer` with the reference), so this file holds no reference code. The worker template
imports it before it forks a worker (the manifest's `worker_standins`): a worker cannot read the
assignment's folder.

"block_shell" stands for AttentionBlock around the submission's own MultiHeadAttention (Part F
grades a wrong block again that way when the attention is right): the student's attention runs
in the worker, and the residual, dropout and norm are the grader's (one callback). plot_attention's
stand-in never reaches the worker (the manifest's `grader_side`: the kit's renderer draws in the
grader, which already holds the maps).
"""
from __future__ import annotations

import functools
from typing import Any, Callable

import torch
import torch.nn as nn
import torch.nn.functional as F

from autograder.grading.worker.standins import Channel, remote

NAMES = (
    "attention_scores", "masked_softmax", "scaled_dot_product_attention", "causal_mask",
    "split_heads", "merge_heads", "MultiHeadAttention", "AttentionBlock", "block_shell",
)
REPLACES = {"block_shell": "AttentionBlock"}  # stand-in -> the submission's name it replaces (default: its own)
MAX_SEQUENCE = 4096  # largest size a stand-in causal_mask may be asked for


def _dropout_seed(dropping: bool) -> int:
    return int(torch.randint(0, 2**31 - 1, ())) if dropping else 0  # the worker's RNG: seeded calls repeat


def _dropout_given(name: str, value: Any) -> Callable[[torch.Tensor], torch.Tensor] | None:
    """The dropout of the weights that a further argument of the submission's A.3 holds, passed by
    its C.3 as The Annotated Transformer does (`dropout=self.dropout`, a module) or as
    F.scaled_dot_product_attention does (`dropout_p=0.1`, applied whenever it is above 0); None
    for any other argument."""
    if "drop" not in name.lower():
        return None
    if isinstance(value, nn.Dropout):
        return value
    return functools.partial(F.dropout, p=value) if type(value) is float and 0.0 < value < 1.0 else None


def _dropout_acts(own: Any, name: str, value: Any, others: dict[str, Any]) -> tuple[bool, bool]:
    """Whether the submission's own A.3, given a dropout of this kind that drops every weight and
    its other further arguments of the call (`training=False` beside `dropout_p=`: qa53u u01),
    drops anything; and whether it returns the weights after dropout (as The Annotated Transformer
    does) rather than before it."""
    x = torch.ones(1, 2, 2)
    everything = nn.Dropout(1.0) if isinstance(value, nn.Dropout) else 1.0
    try:
        with torch.no_grad(), torch.random.fork_rng(devices=[]):
            output, weights = own(x, x, x, None, **{**others, name: everything})[:2]
    except Exception:  # noqa: BLE001 - its own A.3 fails (a bug of A.3): it drops, the weights from before dropout, as C.3 asks
        return True, False
    acts = not isinstance(output, torch.Tensor) or bool((output == 0).all())
    return acts, acts and isinstance(weights, torch.Tensor) and bool((weights == 0).all())


# A helper of the submission's own that two tasks share may be repaired (error carried forward: the
# grader's `_repaired`): replaced, for one request, by what the contract asks of it. Each kind: the
# fewest arguments it takes (besides `self`), and whether it is a method (it reads self.W_q...).
REPAIRS = {
    "module": (2, False),  # helper(layer, x) -> layer(x): a projection, a norm or a dropout
    "linear": (2, False),  # helper(x, weight, bias=None) -> F.linear(x, weight, bias)
    "dropout": (3, False),  # helper(t, p, training) -> F.dropout(t, p, training)
    "projections": (1, True),  # self.helper(x) or (query, key, value) -> (W_q(query), W_k(key), W_v(value))
    "attention": (3, False),  # helper(q, k, v, mask, dropout) -> (output, weights before dropout)
    "attention_swapped": (3, False),  # the same -> (weights, output)
    "attention_output": (3, False),  # helper(q, k, v, mask) -> output
    "weights": (2, False),  # helper(q, k, mask) -> masked_softmax(scores)
    "scores": (2, False),  # helper(q, k) -> scores
    "scores_keys_first": (2, False),  # helper(k, q) -> the same scores
    "weighted_sum": (2, False),  # helper(weights, v) -> weights @ v
}
# Where the result of a repair kind holds the attention weights (the grader's test of a helper
# handed a mask where the earlier task gave None); a kind not here has no weights to test.
WEIGHTS_AT = {"attention": 1, "attention_swapped": 0, "weights": 0}


def repair(kind: str, trusted: Callable[[str], Any], given: Callable[[tuple, dict], tuple[Any, list[Any]]]) -> Callable[..., Any]:
    """The function that stands in for a helper (REPAIRS[kind]); `trusted(name)`, the stand-in of
    that task's function in use (its values are the grader's); `given(args, kwargs)`, the helper's
    `self` (None for a function) and its other arguments, in the order of its own parameters."""

    def floats(values: list[Any], counts: tuple[int, ...]) -> list[torch.Tensor]:
        found = [v for v in values if isinstance(v, torch.Tensor) and v.is_floating_point()]
        if len(found) == 1 and kind == "projections":
            found *= 3  # self-attention: one input for all three
        if len(found) not in counts:
            raise TypeError(f"the repaired helper ({kind}) takes {' or '.join(map(str, counts))} float tensors, not {len(found)}")
        return found

    def mask(values: list[Any]) -> torch.Tensor | None:
        return next((v for v in values if isinstance(v, torch.Tensor) and v.dtype == torch.bool), None)

    def helper(*args: Any, **kwargs: Any) -> Any:
        owner, values = given(args, kwargs)
        if kind == "module":
            layers = [v for v in values if isinstance(v, nn.Module)]
            if len(layers) != 1:
                raise TypeError(f"the repaired helper (module) takes one module, not {len(layers)}")
            return layers[0](*floats(values, (1,)))
        if kind == "linear":
            x, weight, *bias = floats(values, (2, 3))
            return F.linear(x, weight, bias[0] if bias else None)
        if kind == "dropout":
            rates, modes = [v for v in values if type(v) is float], [v for v in values if type(v) is bool]
            if len(rates) != 1 or len(modes) != 1:
                raise TypeError("the repaired helper (dropout) takes one rate and one training flag")
            return F.dropout(floats(values, (1,))[0], rates[0], modes[0])
        if kind == "projections":
            q, k, v = floats(values, (3,))
            return owner.W_q(q), owner.W_k(k), owner.W_v(v)  # (..., L, E) each
        if kind in ("scores", "scores_keys_first"):
            q, k = floats(values, (2,))[::1 if kind == "scores" else -1]
            return trusted("attention_scores")(q, k)  # (..., Lq, Lk)
        if kind == "weighted_sum":
            weights, v = floats(values, (2,))
            return weights @ v  # (..., Lq, dv)
        tensors = floats(values, (2,) if kind == "weights" else (3,))
        weights = trusted("masked_softmax")(trusted("attention_scores")(tensors[0], tensors[1]), mask(values))  # (..., Lq, Lk)
        if kind == "weights":
            return weights
        dropout = next((d for d in values if isinstance(d, nn.Dropout)), None)  # C.3's, on the weights that multiply V
        output = (weights if dropout is None else dropout(weights)) @ tensors[2]  # (..., Lq, dv)
        return {"attention": (output, weights), "attention_swapped": (weights, output)}.get(kind, output)

    return helper


def stand_ins(channel: Channel, lookup: Callable[[str], Any]) -> dict[str, Any]:
    """Every stand-in of NAMES, calling the grader through `channel`; `lookup(name)` is the
    submission's own object of that name (block_shell wraps its MultiHeadAttention)."""

    def attention_scores(q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
        return remote(channel, "attention_scores", {}, q, k)  # (..., Lq, Lk)

    def masked_softmax(scores: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
        return remote(channel, "masked_softmax", {}, scores, mask)  # (..., Lq, Lk)

    def scaled_dot_product_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, mask: torch.Tensor | None = None, *,
                                     _dropout: Callable[[torch.Tensor], torch.Tensor] | None = None, _dropped_weights: bool = False) -> tuple[torch.Tensor, torch.Tensor]:
        output, weights = remote(channel, "scaled_dot_product_attention", {}, q, k, v, mask)  # (..., Lq, dv), (..., Lq, Lk)
        if _dropout is None:
            return output, weights
        dropped = _dropout(weights)  # on the weights that multiply V
        return dropped @ v, dropped if _dropped_weights else weights

    own_attention = lookup("scaled_dot_product_attention")  # now: once the stand-ins are in place, the name is theirs
    probed: dict[tuple, tuple[bool, bool]] = {}

    def takes(name: str, value: Any, others: dict[str, Any]) -> dict[str, Any] | None:
        """A.3's further argument that the stand-in takes (see `fitted`): a dropout, done as the
        submission's own A.3 does it with the call's other further arguments (whether it drops at
        all; the weights returned from before it, or after it); a plain setting beside such a
        dropout (`training=self.training`), which that probe answers for: nothing to add."""
        dropout = _dropout_given(name, value)
        if dropout is None:
            beside = any(_dropout_given(other, given) is not None for other, given in others.items())
            return {} if beside and type(value) in (bool, int, float) else None
        settings = tuple(sorted((k, v) for k, v in others.items() if type(v) in (bool, int, float, str, type(None))))
        kind = (name, isinstance(value, nn.Dropout), settings)
        if kind not in probed:
            probed[kind] = _dropout_acts(own_attention, name, value, others)
        acts, after = probed[kind]
        return {"_dropout": dropout, "_dropped_weights": after} if acts else {}

    scaled_dot_product_attention.takes = takes  # type: ignore[attr-defined]

    def causal_mask(size_q: int, size_k: int | None = None, device: Any = None) -> torch.Tensor:
        size_k = size_q if size_k is None else size_k
        if not all(type(s) is int and 0 <= s <= MAX_SEQUENCE for s in (size_q, size_k)):
            raise ValueError(f"causal_mask sizes must be ints in [0, {MAX_SEQUENCE}]")
        mask = channel({"kind": "forward", "name": "causal_mask", "tensors": [], "options": {"size_q": size_q, "size_k": size_k}})
        return mask if device is None else mask.to(device)  # (Lq, Lk)

    def split_heads(x: torch.Tensor, num_heads: int) -> torch.Tensor:
        return remote(channel, "split_heads", {"num_heads": int(num_heads)}, x)  # (B, H, S, Dh)

    def merge_heads(x: torch.Tensor) -> torch.Tensor:
        return remote(channel, "merge_heads", {}, x)  # (B, S, E)

    class MultiHeadAttention(nn.Module):
        """The contract's structure (W_q, W_k, W_v, W_o, dropout); the forward is the grader's."""

        def __init__(self, embed_dim: int, num_heads: int, dropout: float = 0.0, bias: bool = True):
            super().__init__()
            if num_heads <= 0 or embed_dim % num_heads:
                raise ValueError(f"embed_dim={embed_dim} is not divisible by num_heads={num_heads}")
            self.embed_dim, self.num_heads = embed_dim, num_heads
            self.W_q = nn.Linear(embed_dim, embed_dim, bias=bias)
            self.W_k = nn.Linear(embed_dim, embed_dim, bias=bias)
            self.W_v = nn.Linear(embed_dim, embed_dim, bias=bias)
            self.W_o = nn.Linear(embed_dim, embed_dim, bias=bias)
            self.dropout = nn.Dropout(dropout)

        def forward(self, query: torch.Tensor, key: torch.Tensor | None = None, value: torch.Tensor | None = None, mask: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor]:
            key = query if key is None else key
            value = key if value is None else value
            dropping = self.training and self.dropout.p > 0
            options = {"num_heads": self.num_heads, "dropout": float(self.dropout.p), "training": dropping, "seed": _dropout_seed(dropping)}
            layers = (self.W_q, self.W_k, self.W_v, self.W_o)
            params = [p for layer in layers for p in (layer.weight, layer.bias)]
            return remote(channel, "MultiHeadAttention", options, query, key, value, mask, *params)  # (B, Lq, E), (B, H, Lq, Lk)

    class AttentionBlock(nn.Module):
        """The contract's structure (attn with W_q..W_o, norm, dropout); the forward is the grader's."""

        def __init__(self, embed_dim: int, num_heads: int, dropout: float = 0.0):
            super().__init__()
            self.attn = MultiHeadAttention(embed_dim, num_heads, dropout)  # holds attn.W_*; never called
            self.norm = nn.LayerNorm(embed_dim)
            self.dropout = nn.Dropout(dropout)

        def forward(self, x: torch.Tensor, mask: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor]:
            dropping = self.training and self.dropout.p > 0
            options = {"num_heads": self.attn.num_heads, "dropout": float(self.dropout.p), "training": dropping, "seed": _dropout_seed(dropping)}
            layers = (self.attn.W_q, self.attn.W_k, self.attn.W_v, self.attn.W_o)
            params = [p for layer in layers for p in (layer.weight, layer.bias)] + [self.norm.weight, self.norm.bias]
            return remote(channel, "AttentionBlock", options, x, mask, *params)  # (B, S, E), (B, H, S, S)

    class BlockShell(nn.Module):
        """AttentionBlock's structure (attn, norm, dropout) around the submission's own
        MultiHeadAttention, which runs here; norm(x + dropout(attended)) is the grader's."""

        def __init__(self, embed_dim: int, num_heads: int, dropout: float = 0.0):
            super().__init__()
            own = lookup("MultiHeadAttention")
            if not isinstance(own, type) or not issubclass(own, nn.Module):
                raise NameError("MultiHeadAttention (an nn.Module class) is not defined in your file")
            self.attn = own(embed_dim, num_heads, dropout)
            self.norm = nn.LayerNorm(embed_dim)
            self.dropout = nn.Dropout(dropout)

        def forward(self, x: torch.Tensor, mask: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor]:
            attended, weights = self.attn(x, mask=mask)  # (B, S, E), (B, H, S, S): the submission's
            dropping = self.training and self.dropout.p > 0
            options = {"dropout": float(self.dropout.p), "training": dropping, "seed": _dropout_seed(dropping)}
            y = remote(channel, "block_shell", options, x, attended, self.norm.weight, self.norm.bias)  # (B, S, E)
            return y, weights

    return {
        "attention_scores": attention_scores, "masked_softmax": masked_softmax,
        "scaled_dot_product_attention": scaled_dot_product_attention, "causal_mask": causal_mask,
        "split_heads": split_heads, "merge_heads": merge_heads, "MultiHeadAttention": MultiHeadAttention,
        "AttentionBlock": AttentionBlock, "block_shell": BlockShell,
    }
