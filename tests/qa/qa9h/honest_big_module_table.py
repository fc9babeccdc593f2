# snippet: honest. A module-level lookup table of 3 million Python floats (a precomputed table, as a data-heavy notebook keeps), and masked_softmax ignores the mask (A.2's bug), so A.3 is graded again with the trusted stand-ins; the stand-ins' walk over the submission's objects (rebind) looks at every item of the list in each such request (an atom costs no visit of its budget). Expected: A 22/32 (A.2's own), D 12/12, E 10/10, no flag (before qa9h: A 15, D 8, resource_limit: A.3 and D timed out when graded again).
_TABLE = [float(i % 7) for i in range(3_000_000)]
_honest_softmax = masked_softmax


def masked_softmax(scores, mask=None):
    return _honest_softmax(scores)
