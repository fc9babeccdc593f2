# snippet: honest. A dataclass config is changed by helpers that take it as a parameter: cfg.dropout, cfg.device, cfg.dtype, cfg.seed, cfg.size (names torch defines). Expected: full marks, no flag (before qa8h: A 29, library_patch).
from dataclasses import dataclass


@dataclass
class Config:
    embed_dim: int = 8
    num_heads: int = 2
    dropout: float = 0.1
    device: str = "cpu"
    dtype: torch.dtype = torch.float32
    seed: int = 0
    size: int = 4


def for_eval(cfg, device, dtype):
    cfg.dropout = 0.0 * cfg.dropout
    cfg.device = device
    cfg.dtype = dtype
    return cfg


def reseed(cfg, seed):
    cfg.seed = seed
    cfg.size = cfg.size * 2


CONFIG = for_eval(Config(), "cpu", torch.float32)
reseed(CONFIG, 1)
