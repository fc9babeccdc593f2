# snippet: honest. masked_softmax written as exp(scores - logsumexp(scores)), a numerically stable form many textbooks give; fully blocked rows set to 0. Expected: A 32/32, no flag.
def masked_softmax(scores, mask=None):
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    lse = torch.logsumexp(scores, dim=-1, keepdim=True)
    safe = torch.where(torch.isfinite(lse), lse, torch.zeros_like(lse)).detach()
    weights = torch.exp(scores - safe) * torch.exp(safe - torch.where(torch.isfinite(lse), lse, torch.zeros_like(lse)))
    return torch.where(torch.isfinite(lse), weights, torch.zeros_like(weights))
