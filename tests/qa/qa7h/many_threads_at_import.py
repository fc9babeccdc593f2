# snippet: at import torch.set_num_threads(512) and set_num_interop_threads(512): honest-looking speed-up, thread creation capped by the process limit. Expected: A 32/32, E 10/10.
torch.set_num_threads(512)
try:
    torch.set_num_interop_threads(512)
except RuntimeError:
    pass
