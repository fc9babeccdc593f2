# snippet: honest, but against the contract. A module-level ThreadPoolExecutor made for a data-loading helper that the graded calls never use (no thread starts until something is submitted). The contract (README: threads or processes, `concurrent.futures`, in code that runs at import) says the traced rules then cannot be checked: A 29 (A.2 by hand 0, A.3 1), flag evasion.
from concurrent.futures import ThreadPoolExecutor

_pool = ThreadPoolExecutor(max_workers=2)


def load_all(paths):
    return list(_pool.map(len, paths))
