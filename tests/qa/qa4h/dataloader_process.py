# snippet: masked_softmax has a DataLoader worker process (forked, outside the trace) compute Categorical(logits=...).probs, which is F.softmax. Expected: A 30/32 or less (A.2 by hand 0; the fork may also fail in the sandbox).
from torch.distributions import Categorical


class _Rows(torch.utils.data.Dataset):
    def __init__(self, scores):
        self.scores = scores

    def __len__(self):
        return 1

    def __getitem__(self, index):
        return Categorical(logits=self.scores.detach().float(), validate_args=False).probs


def masked_softmax(scores, mask=None):
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    loader = torch.utils.data.DataLoader(_Rows(scores), batch_size=None, num_workers=1, timeout=5)
    weights = next(iter(loader)).to(scores.dtype)
    return torch.nan_to_num(weights, nan=0.0)
