"""Bench: the time the static pass and the similarity ranking add to a batch (issue 12).

Submissions are made from the examples (every example, with renamed variables and a comment per
copy, so no two are identical), N in all. Measures:
  - the static pass (autograder.grading.integrity.static.analyze) per submission;
  - the similarity ranking of the whole batch (fingerprints + all pairs + passages of the top pairs),
    side by side with the alternative: copydetect's compare_files on every pair (timed on a sample of
    pairs and multiplied out, as it takes minutes at N=500);
  - the figure evidence per submission (autograder.grading.integrity.figure.figure_problem on Part
    E's probe figure): the cells against the pixels alone (the description without tick labels)
    and with the tick labels drawn again and compared, for the reference's imshow and a seaborn figure.

    .venv/bin/python bench/integrity.py --n 500      # the figure the README quotes
    .venv/bin/python bench/integrity.py --n 60       # a quick run
"""
from __future__ import annotations

import argparse
import functools
import itertools
import os
import random
import re
import statistics
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def make_batch(n: int) -> dict[str, str]:
    from autograder.grading.integrity.similarity import answer_text

    bases = [answer_text(p) for p in sorted((REPO / "examples" / "submissions").iterdir())]
    bases.append((REPO / "solutions" / "attention" / "attention.py").read_text(encoding="utf-8"))
    batch = {}
    for index in range(n):
        text = bases[index % len(bases)]
        text = re.sub(r"\bweights\b", f"w{index}", text)
        batch[f"s{index:04d}"] = f"# submission {index}\n" + text
    return batch


HEADING = "## 6. Integrity: the static pass and the similarity ranking (bench/integrity.py)"


def figure_times(repeats: int = 20) -> list[tuple[str, float, float]]:
    """(style, median seconds of figure_problem without tick labels, with them) on Part E's probe figure."""
    import copy
    import importlib.util

    from autograder.assignments.attention.checks.part_e import KEY_TOKENS, QUERY_TOKENS, probe_weights
    from autograder.grading.integrity.figure import figure_problem
    from autograder.grading.worker.plotdata import extract_plot

    rows = []
    for style, path in (("reference (imshow)", REPO / "solutions" / "attention" / "attention.py"), ("seaborn", REPO / "examples" / "submissions" / "einsum_style.py")):
        spec = importlib.util.spec_from_file_location(f"bench_figure_{path.stem}", path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        described = extract_plot(functools.partial(module.plot_attention, probe_weights(), list(QUERY_TOKENS), list(KEY_TOKENS), title="probe"))
        unlabelled = copy.deepcopy(described)
        for axes in unlabelled["axes"]:
            axes["xticklabels"], axes["yticklabels"] = [""] * len(axes["xticklabels"]), [""] * len(axes["yticklabels"])
        timings = {}
        for name, description in (("cells", unlabelled), ("labels", described)):
            assert figure_problem(description) == "", figure_problem(description)  # also warms up the imports
            times = []
            for _ in range(repeats):
                started = time.perf_counter()
                figure_problem(description)
                times.append(time.perf_counter() - started)
            timings[name] = statistics.median(times)
        rows.append((style, timings["cells"], timings["labels"]))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=500)
    parser.add_argument("--sample-pairs", type=int, default=200)
    parser.add_argument("--out", default=str(REPO / "bench" / "INTEGRITY.md"), help="the Markdown file to write")
    args = parser.parse_args()
    load_before = os.getloadavg()[0]
    import copydetect

    from autograder.assignment import current
    from autograder.grading.integrity import static
    from autograder.grading.integrity.similarity import _fingerprint, rank_pairs, release_boilerplate

    batch = make_batch(args.n)
    library = current().library_names()  # the assignment's rules' names (loading them is not the pass)
    times = []
    for text in batch.values():
        started = time.perf_counter()
        static._bounded.cache_clear()
        static.analyze([(1, text)], None, library)
        times.append(time.perf_counter() - started)
    boilerplate = release_boilerplate()
    started = time.perf_counter()
    rank_pairs(batch, boilerplate)
    ranking = time.perf_counter() - started
    started = time.perf_counter()
    prints = {name: _fingerprint(name, text, boilerplate) for name, text in batch.items()}
    fingerprints = time.perf_counter() - started
    pairs = list(itertools.combinations(sorted(prints), 2))
    sample = random.Random(0).sample(pairs, min(args.sample_pairs, len(pairs)))
    started = time.perf_counter()
    for a, b in sample:
        copydetect.compare_files(prints[a], prints[b])
    per_pair = (time.perf_counter() - started) / len(sample)
    all_pairs = per_pair * len(pairs)
    lines = [
        HEADING, "",
        f"Command: `.venv/bin/python bench/integrity.py --n {args.n}` (run by `make bench` before `bench/run.py`, "
        f"which copies this section into RESULTS.md); load average (1 min) before: {load_before:.2f}.", "",
        f"Together the static pass and the similarity ranking add {sum(times) + ranking:.1f} s to a batch of {args.n} "
        f"submissions ({(sum(times) + ranking) / args.n * 1000:.0f} ms a submission).", "",
        "| what | time |", "| --- | --- |",
        f"| static pass, per submission (median) | {statistics.median(times) * 1000:.1f} ms |",
        f"| static pass, {args.n} submissions | {sum(times):.2f} s |",
        f"| similarity ranking, {args.n} submissions ({len(pairs)} pairs) | {ranking:.2f} s |",
        f"| of which copydetect's fingerprints (pygments), measured apart | {fingerprints:.2f} s |",
        f"| alternative: copydetect `compare_files` on every pair ({per_pair * 1000:.2f} ms a pair, {len(sample)} sampled) | {all_pairs:.1f} s |",
        f"| ratio alternative / attnkit ranking | {all_pairs / ranking:.1f}x |",
    ]
    for style, cells, labels in figure_times():
        lines.append(f"| figure evidence per submission, {style}: cells vs pixels / + the 9 tick labels drawn again | {cells * 1000:.1f} ms / {labels * 1000:.1f} ms (+{(labels - cells) * 1000:.1f} ms) |")
    print("\n".join(lines))
    from autograder.feedback.results import write_atomic

    write_atomic(Path(args.out), "\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
