"""Trusted stand-ins for a submission's earlier functions (error carried forward), worker side.

When a check of a later task fails with the submission's own earlier functions, the grader runs
it again with those functions replaced by these stand-ins. A stand-in holds no reference code: it
sends its tensors to the grader over the plain-data protocol (a callback during the request,
`{"status": "callback", "callback": {...}}`) and returns what the grader's reference computed.
Gradients go the same way: the backward of a stand-in is a second callback.

The callback's fields: kind ("forward" or "backward"), name (one of STAND_IN_NAMES), tensors
(the inputs, None where absent), options (ints, floats, bools), grads (backward only).

"block_shell" stands for AttentionBlock around the submission's own MultiHeadAttention (Part F
grades a wrong block again that way when the attention is right): the student's attention runs
here, and the residual, dropout and norm are the grader's (one callback). Stand-ins that never
reach the worker are the assignment's to name (its manifest's `grader_side`: plot_attention's is
the kit's renderer, in the grader, which already holds the maps it draws).
"""
from __future__ import annotations

from typing import Any, Callable

import torch
import torch.nn as nn

STAND_IN_NAMES = (
    "attention_scores", "masked_softmax", "scaled_dot_product_attention", "causal_mask",
    "split_heads", "merge_heads", "MultiHeadAttention", "AttentionBlock", "block_shell",
)
REPLACES = {"block_shell": "AttentionBlock"}  # stand-in -> the submission's name it replaces (default: its own)
MAX_CALLBACKS_PER_REQUEST = 512  # gradcheck of a module makes ~40 forward calls, each a request
MAX_CALLBACK_ELEMENTS = 1 << 22  # tensor elements in one callback (F's block input is ~10^5)
MAX_SEQUENCE = 4096  # largest size a stand-in causal_mask may be asked for

Channel = Callable[[dict], Any]  # sends one callback, returns the trusted value (or raises StandInError)


class StandInError(RuntimeError):
    """A stand-in could not give a trusted value (refused by the grader, or called out of turn)."""


class StandInRefused(ValueError):
    """Raised grader-side for a callback it will not answer; the text goes back to the worker."""


class _Remote(torch.autograd.Function):
    """A trusted function of tensors, computed by the grader; backward is a vector-Jacobian product."""

    @staticmethod
    def forward(ctx: Any, channel: Channel, name: str, options: dict, *tensors: torch.Tensor | None) -> Any:
        ctx.channel, ctx.name, ctx.options = channel, name, options
        ctx.save_for_backward(*tensors)
        value = channel({"kind": "forward", "name": name, "tensors": [_plain(t) for t in tensors], "options": options})
        outputs = value if isinstance(value, tuple) else (value,)
        if not outputs or not all(isinstance(o, torch.Tensor) for o in outputs):
            raise StandInError(f"the trusted {name} gave no tensor")
        return value

    @staticmethod
    def backward(ctx: Any, *grads: torch.Tensor) -> tuple:
        tensors = ctx.saved_tensors
        message = {"kind": "backward", "name": ctx.name, "tensors": [_plain(t) for t in tensors], "options": ctx.options, "grads": [_plain(g) for g in grads]}
        value = ctx.channel(message)
        if not isinstance(value, list) or len(value) != len(tensors):
            raise StandInError(f"the trusted {ctx.name} gave no gradients")
        needed = ctx.needs_input_grad[3:]
        return (None, None, None, *(g if isinstance(g, torch.Tensor) and need else None for g, need in zip(value, needed)))


def _plain(tensor: torch.Tensor | None) -> torch.Tensor | None:
    return None if tensor is None else tensor.detach()


def _remote(channel: Channel, name: str, options: dict, *tensors: torch.Tensor | None) -> Any:
    if not all(t is None or isinstance(t, torch.Tensor) for t in tensors):
        raise TypeError(f"{name} takes tensors here (got {', '.join(type(t).__name__ for t in tensors)})")
    return _Remote.apply(channel, name, options, *tensors)


def build(names: list[str], channel: Channel, lookup: Callable[[str], Any] = lambda name: None) -> dict[str, Any]:
    """The stand-ins for `names`, by the submission's name each replaces, each calling the grader
    through `channel`; `lookup(name)` is the submission's own object of that name (block_shell)."""

    def attention_scores(q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
        return _remote(channel, "attention_scores", {}, q, k)

    def masked_softmax(scores: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
        return _remote(channel, "masked_softmax", {}, scores, mask)

    def scaled_dot_product_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, mask: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        return _remote(channel, "scaled_dot_product_attention", {}, q, k, v, mask)

    def causal_mask(size_q: int, size_k: int | None = None, device: Any = None) -> torch.Tensor:
        size_k = size_q if size_k is None else size_k
        if not all(type(s) is int and 0 <= s <= MAX_SEQUENCE for s in (size_q, size_k)):
            raise ValueError(f"causal_mask sizes must be ints in [0, {MAX_SEQUENCE}]")
        mask = channel({"kind": "forward", "name": "causal_mask", "tensors": [], "options": {"size_q": size_q, "size_k": size_k}})
        return mask if device is None else mask.to(device)

    def split_heads(x: torch.Tensor, num_heads: int) -> torch.Tensor:
        return _remote(channel, "split_heads", {"num_heads": int(num_heads)}, x)

    def merge_heads(x: torch.Tensor) -> torch.Tensor:
        return _remote(channel, "merge_heads", {}, x)

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
            seed = int(torch.randint(0, 2**31 - 1, ())) if dropping else 0  # the worker's RNG: seeded calls repeat
            options = {"num_heads": self.num_heads, "dropout": float(self.dropout.p), "training": dropping, "seed": seed}
            layers = (self.W_q, self.W_k, self.W_v, self.W_o)
            params = [p for layer in layers for p in (layer.weight, layer.bias)]
            return _remote(channel, "MultiHeadAttention", options, query, key, value, mask, *params)

    class AttentionBlock(nn.Module):
        """The contract's structure (attn with W_q..W_o, norm, dropout); the forward is the grader's."""

        def __init__(self, embed_dim: int, num_heads: int, dropout: float = 0.0):
            super().__init__()
            self.attn = MultiHeadAttention(embed_dim, num_heads, dropout)  # holds attn.W_*; never called
            self.norm = nn.LayerNorm(embed_dim)
            self.dropout = nn.Dropout(dropout)

        def forward(self, x: torch.Tensor, mask: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor]:
            dropping = self.training and self.dropout.p > 0
            seed = int(torch.randint(0, 2**31 - 1, ())) if dropping else 0
            options = {"num_heads": self.attn.num_heads, "dropout": float(self.dropout.p), "training": dropping, "seed": seed}
            layers = (self.attn.W_q, self.attn.W_k, self.attn.W_v, self.attn.W_o)
            params = [p for layer in layers for p in (layer.weight, layer.bias)] + [self.norm.weight, self.norm.bias]
            return _remote(channel, "AttentionBlock", options, x, mask, *params)

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
            seed = int(torch.randint(0, 2**31 - 1, ())) if dropping else 0
            options = {"dropout": float(self.dropout.p), "training": dropping, "seed": seed}
            y = _remote(channel, "block_shell", options, x, attended, self.norm.weight, self.norm.bias)  # (B, S, E)
            return y, weights

    made: dict[str, Any] = {
        "attention_scores": attention_scores, "masked_softmax": masked_softmax,
        "scaled_dot_product_attention": scaled_dot_product_attention, "causal_mask": causal_mask,
        "split_heads": split_heads, "merge_heads": merge_heads, "MultiHeadAttention": MultiHeadAttention,
        "AttentionBlock": AttentionBlock, "block_shell": BlockShell,
    }
    unknown = sorted(set(names) - set(made))
    if unknown:
        raise StandInError(f"no stand-in for {', '.join(unknown)}")
    replaced = [REPLACES.get(name, name) for name in names]
    if len(set(replaced)) != len(replaced):
        raise StandInError(f"two stand-ins for one name in {', '.join(names)}")
    return {REPLACES.get(name, name): made[name] for name in names}
