# snippet: honest. masked_softmax as exp(scores - max) normalised with F.normalize(p=1) (the L1 normalisation of positive numbers is the division by their sum); fully blocked rows give 0. Expected: A 31/32 (a real float16 bug: normalize's eps underflows, a fully blocked row gives 0/0), no flag (the by-hand rule passes).
def masked_softmax(scores, mask=None):
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    row_max = scores.amax(dim=-1, keepdim=True)
    row_max = torch.where(torch.isfinite(row_max), row_max, torch.zeros_like(row_max)).detach()
    return torch.nn.functional.normalize(torch.exp(scores - row_max), p=1.0, dim=-1)
