"""The attention assignment's rules (the manifest's `rules`): which of its functions may not call
which library function, and where the device rule is probed.

The contract students read states them (write the softmax yourself; build attention from your
own functions; make new tensors on the inputs' device). The engine's machinery judges the first
from the worker's trace and the static pass, which looks for LIBRARY_NAMES in the source
(autograder/grading/integrity/rules.py), and notes breaches of the second, never for points
(autograder/grading/devicecheck.py, calling `device_probes`).
"""
from __future__ import annotations

import torch

from autograder.grading.integrity.rules import Rule

SOFTMAX_NAMES = frozenset({
    "softmax", "log_softmax", "softmin", "Softmax", "LogSoftmax", "Softmin", "Softmax2d", "gumbel_softmax",
    "_softmax", "_log_softmax", "_safe_softmax", "_masked_softmax", "special_softmax",
    # torch.distributions' softmax, written in Python with elementary operators (the trace sees only
    # exp, max, sum and a division): the transform, and transform_to, which maps constraints.simplex
    # (or Dirichlet.support) to it
    "SoftmaxTransform", "transform_to",
    # ...and the distributions that normalise their logits (`Categorical(logits=s).logits` is
    # s - logsumexp(s): the trace sees two elementary operations; qa25h)
    "Categorical", "OneHotCategorical", "OneHotCategoricalStraightThrough", "Multinomial", "ExpRelaxedCategorical", "RelaxedOneHotCategorical",
})
ATTENTION_NAMES = frozenset({
    "scaled_dot_product_attention", "multi_head_attention_forward", "MultiheadAttention", "_native_multi_head_attention",
    "Transformer", "TransformerEncoder", "TransformerDecoder", "TransformerEncoderLayer", "TransformerDecoderLayer",
    "flex_attention",
}) | frozenset(name for name in dir(torch) if "attention" in name)  # torch's private kernels: _scaled_dot_product_attention_math... (qa41h F5)
LIBRARY_NAMES = SOFTMAX_NAMES | ATTENTION_NAMES  # what the static pass records (autograder.grading.integrity.static)

SOFTMAX_BY_HAND = Rule(
    "A.2", "masked_softmax", frozenset({"masked_softmax"}), SOFTMAX_NAMES | ATTENTION_NAMES, frozenset({"softmax", "attention"}),
    elementary_only=True, advice="the task is to write the softmax yourself (exp, sums, division, max, masking)",
)
# A library softmax inside masked_softmax is charged once, by A.2. A.3 bans only the library
# attention, as the contract says ("A.3, B.1 and C.3: no library attention"): a softmax of the
# library's in A.3 itself is no rule's business, as in B.1 and C.3.
SDPA_OWN = Rule(
    "A.3", "scaled_dot_product_attention", frozenset({"scaled_dot_product_attention"}), ATTENTION_NAMES, frozenset({"attention"}),
    advice="build it from attention_scores and your masked_softmax", charged_elsewhere=frozenset({"masked_softmax"}),
)
# A library attention inside scaled_dot_product_attention is charged once, by A.3: B.1 and C.3,
# which may call it, are graded again with its stand-in (their trace is then clean), and their
# source is read without it; so is masked_softmax's source, A.2's (an evasion in it was charged
# again in C.3, which calls it itself: qa39h F5).
SELF_ATTENTION_OWN = Rule(
    "B.1", "SelfAttention.forward", frozenset({"SelfAttention"}), ATTENTION_NAMES, frozenset({"attention"}),
    advice="build it from your own attention functions", charged_elsewhere=frozenset({"scaled_dot_product_attention", "masked_softmax"}),
)
MHA_OWN = Rule(
    "C.3", "MultiHeadAttention.forward", frozenset({"MultiHeadAttention"}), ATTENTION_NAMES, frozenset({"attention"}),
    advice="build it from your own attention functions", charged_elsewhere=frozenset({"scaled_dot_product_attention", "masked_softmax"}),
)

# every call of what a rule covers runs under the trace (autograder.grading.worker.client: `look`)
RULES = (SOFTMAX_BY_HAND, SDPA_OWN, SELF_ATTENTION_OWN, MHA_OWN)


def device_probes() -> list[tuple[str, str, tuple, tuple]]:
    """(part, function or class, constructor args, call args) for every task whose code combines
    tensors; small: only where tensors are made matters. Each masked call is also made without its
    mask: a default mask is often made there (`if mask is None: mask = torch.ones(...)`)."""
    B, S, E, H = 2, 4, 6, 2
    gen = torch.Generator().manual_seed(0)
    x = torch.randn(B, S, E, generator=gen)  # (B, S, E)
    mask = torch.ones(S, S, dtype=torch.bool).tril()  # (S, S)
    q, k, v = (torch.randn(B, S, E, generator=gen) for _ in range(3))  # (B, S, E) each
    return [
        ("A", "attention_scores", (), (q, k)),
        ("A", "masked_softmax", (), (q @ k.transpose(-2, -1), mask)),
        ("A", "scaled_dot_product_attention", (), (q, k, v, mask)),
        ("B", "SelfAttention", (E,), (x, mask)),
        ("C", "MultiHeadAttention", (E, H), (x, x, x, mask)),
        ("D", "AttentionBlock", (E, H), (x, mask)),
        ("A", "masked_softmax", (), (q @ k.transpose(-2, -1),)),
        ("A", "scaled_dot_product_attention", (), (q, k, v)),
        ("B", "SelfAttention", (E,), (x,)),
        ("C", "MultiHeadAttention", (E, H), (x, x, x)),
        ("D", "AttentionBlock", (E, H), (x,)),
    ]
