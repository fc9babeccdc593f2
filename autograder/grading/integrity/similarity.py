"""Code similarity across a batch: pairs of submissions ranked by how much of their answers they share.

Fingerprints are copydetect's (MOSS winnowing over pygments tokens with names, strings and comments
normalised away), so renamed variables, moved functions and changed comments do not hide a copy.
The release's starter code and the notebooks' given code are boilerplate: their fingerprints are
removed first, so two blank submissions are not "similar".

Measured unfit for one part: copydetect's pairwise `compare_files` takes ~4 ms a pair (125,000
pairs for 500 submissions: over 8 minutes), so every pair is ranked here by the overlap of the
winnowed fingerprint sets (the same measure, without the slices), and copydetect compares only the
top pairs to find the matching passages shown side by side.
"""
from __future__ import annotations

import io
import json
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from autograder.settings import SIMILARITY_JSON, SIMILARITY_MAX_CHARS

K_GRAM = 25  # tokens per fingerprinted k-gram (copydetect's default)
WINDOW = 1  # winnowing window (1 = every k-gram)
THRESHOLD = 0.60  # pairs at or above this are shown as suspicious (calibrated in tests/test_similarity.py)
TOP_PAIRS = 20  # pairs kept even below THRESHOLD (similarity.json's ranking)
PASSAGE_PAIRS = 100  # the best pairs whose matching passages are found (copydetect: ~4 ms a pair)
MAX_PAIRS = 2000  # pairs kept at most: every pair at or above THRESHOLD, up to this many
MAX_PASSAGES = 3
PASSAGE_CHARS = 600
SIMILARITY_FILE = SIMILARITY_JSON


@dataclass(frozen=True)
class Pair:
    a: str
    b: str
    score: float  # mean of the two shares of fingerprints in common, 0..1
    passages_a: tuple[str, ...] = ()
    passages_b: tuple[str, ...] = ()


def _fingerprint(name: str, text: str, boilerplate: np.ndarray | None):
    import copydetect

    return copydetect.CodeFingerprint(f"{name}.py", K_GRAM, WINDOW, boilerplate=boilerplate, fp=io.StringIO(text))


def boilerplate_hashes(texts: list[str]) -> np.ndarray:
    """The fingerprints of the given code (starter file, notebook code cells)."""
    hashes: set[int] = set()
    for number, text in enumerate(texts):
        hashes |= {int(h) for h in _fingerprint(f"given{number}", text, None).hashes}
    return np.array(sorted(hashes), dtype=np.int64)


def release_boilerplate() -> np.ndarray:
    """Starter code (the release's copy of the file students submit) and the code cells of the
    student notebooks of the release."""
    from autograder.assignment import current
    from autograder.grading.submission import notebook_chunks

    release = current().release_dir
    starter = release / current().student_file
    texts = [starter.read_text(encoding="utf-8")] if starter.is_file() else []
    for notebook in sorted(release.glob("*.ipynb")):
        texts.append("".join(text for _, text in notebook_chunks(notebook.read_bytes(), notebook.name)))
    return boilerplate_hashes(texts)


def _passages(text: str, slices: np.ndarray) -> tuple[str, ...]:
    """The longest shared passages, in the file's order, each widened to whole lines (copydetect's
    slices start and end mid-line: glued together they showed code nobody wrote, qa33p)."""
    if slices.size == 0:  # nothing shared: copydetect gives an empty 1-D array, not a 2 x 0 one
        return ()
    spans = sorted(((int(e) - int(s), int(s), int(e)) for s, e in zip(slices[0], slices[1])), reverse=True)[:MAX_PASSAGES]
    lines: list[tuple[int, int]] = []
    for _, s, e in sorted(spans, key=lambda span: span[1]):
        start, end = text.rfind("\n", 0, s) + 1, (text.find("\n", e) + 1 or len(text) + 1) - 1
        if lines and start <= lines[-1][1]:  # overlaps the passage before once widened: one passage
            lines[-1] = (lines[-1][0], max(end, lines[-1][1]))
        else:
            lines.append((start, end))
    return tuple(text[s:e][:PASSAGE_CHARS] for s, e in lines)


def _safe_fingerprint(name: str, text: str, boilerplate: np.ndarray | None):
    """The fingerprint of an answer's first SIMILARITY_MAX_CHARS, or None: a blank one, or one the
    tokenizer chokes on, is left out and never stops the report. (Whole, a 2 MB answer took 12 s and
    0.9 GB of the batch's main process, every other result waiting: qa24h.)"""
    text = text[:SIMILARITY_MAX_CHARS]
    if not text.strip():
        return None
    try:
        return _fingerprint(name, text, boilerplate)
    except Exception:  # noqa: BLE001 - any tokenizer failure leaves this answer out
        return None


def rank_pairs(texts: dict[str, str], boilerplate: np.ndarray | None = None, top: int = TOP_PAIRS) -> list[Pair]:
    """Pairs ranked by shared fingerprints: the `top` first, and after them every pair at or above
    THRESHOLD (at most MAX_PAIRS); the first PASSAGE_PAIRS with their matching passages."""
    prints = {name: _safe_fingerprint(name, text, boilerplate) for name, text in texts.items()}
    return rank_prints({name: fp for name, fp in prints.items() if fp is not None}, top)


def rank_prints(prints: dict, top: int = TOP_PAIRS) -> list[Pair]:
    """rank_pairs on fingerprints already taken (name -> copydetect's CodeFingerprint)."""
    import copydetect

    names = [name for name, fp in sorted(prints.items()) if len(fp.hashes)]
    scored = _score_all_pairs(names, [frozenset(int(h) for h in prints[n].hashes) for n in names])
    kept = [pair for rank, pair in enumerate(scored[:MAX_PAIRS]) if rank < top or pair[0] >= THRESHOLD]
    pairs = []
    for rank, (score, a, b) in enumerate(kept):
        if rank >= PASSAGE_PAIRS:
            pairs.append(Pair(a, b, round(score, 4), (), ()))
            continue
        _, _, (slices_a, slices_b) = copydetect.compare_files(prints[a], prints[b])
        pairs.append(Pair(a, b, round(score, 4), _passages(prints[a].raw_code, slices_a), _passages(prints[b].raw_code, slices_b)))
    return pairs


def _score_all_pairs(names: list[str], sets: list[frozenset[int]]) -> list[tuple[float, str, str]]:
    """(score, a, b) for every pair, best first. Counted through an inverted index (hash -> the
    submissions that hold it), grouped by identical holder sets: a batch of near-copies shares
    most groups, and a fingerprint held by one submission costs nothing."""
    groups: dict[tuple[int, ...], int] = {}
    holders: dict[int, list[int]] = {}
    for number, hashes in enumerate(sets):
        for value in hashes:
            holders.setdefault(value, []).append(number)
    for members in holders.values():
        if len(members) > 1:
            key = tuple(members)
            groups[key] = groups.get(key, 0) + 1
    common = np.zeros((len(names), len(names)), dtype=np.int64)
    for members, weight in groups.items():
        rows = np.array(members)
        common[np.ix_(rows, rows)] += weight
    sizes = np.array([len(s) for s in sets], dtype=np.float64)
    score = (common / sizes[:, None] + common / sizes[None, :]) / 2.0
    first, second = np.triu_indices(len(names), 1)
    order = np.lexsort((second, first, -score[first, second]))
    return [(float(score[first[i], second[i]]), names[first[i]], names[second[i]]) for i in order]


def answer_text(path: Path) -> str:
    """What a submission answers: its entry chunks (the answer cells of a notebook) and helper files."""
    from autograder.grading.submission import load_submission

    submission = load_submission(path)
    return "".join(text for _, text in submission.chunks) + "".join(t for n, t in sorted(submission.files.items()) if n.endswith(".py"))


def source_fingerprint(name: str, path: Path, boilerplate: np.ndarray):
    """The fingerprint of a submission's answer, or None when it cannot be read or has none."""
    from autograder.errors import SubmissionError

    try:
        text = answer_text(Path(path))
    except (SubmissionError, OSError):
        return None
    return _safe_fingerprint(name, text, boilerplate)


def batch_similarity(sources: dict[str, Path], taken: dict | None = None) -> list[Pair]:
    """Rank the submissions of a batch (name -> path); unreadable ones are left out. taken: what a
    BatchFingerprints took while the batch was graded (name -> (path, fingerprint or None)), used
    where it is of the same file."""
    taken = {name: fp for name, (path, fp) in (taken or {}).items() if name in sources and Path(path) == Path(sources[name])}
    boilerplate = None if set(sources) <= set(taken) else release_boilerplate()
    prints = {name: taken[name] if name in taken else source_fingerprint(name, path, boilerplate) for name, path in sources.items()}
    return rank_prints({name: fp for name, fp in prints.items() if fp is not None})


class BatchFingerprints:
    """Fingerprints taken one by one as a batch's results come in, while the pool grades the rest,
    so that the class report ranks the pairs without taking them all at the end (about 15 ms a
    submission: 6 s of a 400-submission batch's wall time at --jobs 16 otherwise)."""

    def __init__(self) -> None:
        self.prints: dict = {}  # name -> (its source, its fingerprint or None: left out)
        self._boilerplate: np.ndarray | None = None

    def add(self, name: str, source: str) -> None:
        if not source or not Path(source).exists():
            return
        if self._boilerplate is None:
            self._boilerplate = release_boilerplate()
        self.prints[name] = (source, source_fingerprint(name, Path(source), self._boilerplate))


def write_similarity(path: Path, pairs: list[Pair]) -> None:
    from autograder.feedback.results import write_json_atomic

    write_json_atomic(path, {"threshold": THRESHOLD, "pairs": [asdict(p) for p in pairs]})


def read_similarity(path: Path) -> list[Pair]:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        return [Pair(p["a"], p["b"], float(p["score"]), tuple(p["passages_a"]), tuple(p["passages_b"])) for p in data["pairs"]]
    except (OSError, ValueError, KeyError, TypeError):
        return []
