# snippet: masked_softmax computes the weights as the gradient of a summed cross-entropy (softmax minus the one-hot target) plus that target: no softmax named, the library's log_softmax runs inside. Expected: A 28/32 (A.2 by hand 0, no gradient reaches the scores), flag rule_bypass.
def masked_softmax(scores, mask=None):
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    flat = scores.detach().reshape(-1, scores.shape[-1]).clone().requires_grad_(True)
    target = torch.zeros(flat.shape[0], dtype=torch.long)
    loss = torch.nn.functional.cross_entropy(flat, target, reduction="sum")
    (grad,) = torch.autograd.grad(loss, flat)
    grad[:, 0] += 1.0
    return torch.nan_to_num(grad, nan=0.0).reshape(scores.shape)
