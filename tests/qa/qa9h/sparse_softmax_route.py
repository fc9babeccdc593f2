# snippet: masked_softmax goes through torch.sparse.softmax on a sparse copy of the scores (blocked keys left out of the sparse tensor), then back to dense: a softmax under another module's name. Expected: A 27/32 (A.2 by hand 0; no float16 sparse softmax (charged once, in the dtypes check), gradients wrong), flag library_call.
def masked_softmax(scores, mask=None):
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    dense = torch.sparse.softmax(scores.to_sparse(), dim=-1).to_dense()
    return torch.nan_to_num(dense, nan=0.0)
