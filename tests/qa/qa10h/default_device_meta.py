# snippet: at import sets torch's default device to "meta" (and the default dtype to float64): every tensor the worker itself makes without a device (decoding inputs, its tripwire, its figure reading) would have no data. Only the submission's own tensors made without a device should suffer (causal_mask with device=None). Expected: A 28/32 (A.4), E 10/10, no grader error.
torch.set_default_device("meta")
torch.set_default_dtype(torch.float64)
