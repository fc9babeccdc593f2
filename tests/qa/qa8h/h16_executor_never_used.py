# snippet: honest but flagged (left for a decision). A module-level ThreadPoolExecutor made for a data-loading helper that the graded calls never use (no thread starts until something is submitted). Expected now: A 29 (A.2 by hand 0, A.3 1: cannot be checked), flag evasion: the static pass names ThreadPoolExecutor wherever it is.
from concurrent.futures import ThreadPoolExecutor

_pool = ThreadPoolExecutor(max_workers=2)


def load_all(paths):
    return list(_pool.map(len, paths))
