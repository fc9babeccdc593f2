# snippet: honest. A lambda forward hook stores the output with setattr on the module it is registered on. Expected: full marks, no flag (before qa8h: A 29, library_patch).
_layer = MultiHeadAttention(8, 2)
_layer.register_forward_hook(lambda mod, inp, out: setattr(mod, "output", out[1].detach()))
_layer(torch.randn(1, 3, 8))
