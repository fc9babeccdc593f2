"""Returns objects whose unpickling would run code, and a numpy array, instead of tensors."""
import os

import numpy


class Payload:
    def __reduce__(self):
        return (os.system, ("touch @@MARKER@@",))


def attention_scores(q, k):
    return Payload()


def masked_softmax(scores, mask=None):
    return numpy.zeros(tuple(scores.shape))


def causal_mask(size_q, size_k=None, device=None):
    return {"__tensor__": Payload()}
