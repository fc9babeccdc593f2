# snippet: masked_softmax hands its scores to a logging QueueListener, whose own thread runs a Handler that computes Categorical(...).probs (torch's softmax) outside the trace; no thread is named. Expected: A 30/32 (A.2 by hand 0: cannot be checked, a thread ran during the call), E 10/10, flag evasion.
import logging as _logging
import logging.handlers as _handlers
import queue as _queue


class _Compute(_logging.Handler):
    def __init__(self):
        super().__init__()
        self.out = []

    def handle(self, record):
        self.out.append(torch.distributions.Categorical(logits=record.msg, validate_args=False).probs)
        return True


def masked_softmax(scores, mask=None):
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    inbox, handler = _queue.Queue(), _Compute()
    listener = _handlers.QueueListener(inbox, handler)
    listener.start()
    inbox.put(_logging.makeLogRecord({"msg": scores}))
    listener.stop()
    return torch.nan_to_num(handler.out[0], nan=0.0)
