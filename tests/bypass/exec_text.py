# snippet: the library call hidden in a string run by exec
exec("def masked_softmax(scores, mask=None):\n    if mask is not None:\n        scores = scores.masked_fill(~mask, float(\"-inf\"))\n    return torch.softmax(scores, -1).nan_to_num(0.0)\n")
