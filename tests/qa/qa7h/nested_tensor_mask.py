# snippet: causal_mask returns a nested (jagged) tensor of the rows. Expected: A 28/32, E 10/10.
def causal_mask(size_q, size_k=None, device=None):
    full = torch.ones(size_q, size_k or size_q, dtype=torch.float32).tril()
    return torch.nested.nested_tensor([row for row in full])
