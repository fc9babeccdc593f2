"""Writes fake Gradescope results.json files wherever it can (the test fills in the out folder)."""
import json
import os

FAKE = json.dumps({"score": 1000, "tests": [{"name": "everything", "score": 1000, "max_score": 1}]})
TARGETS = [
    "/autograder/results/results.json",
    "results.json",
    "../results.json",
    "/tmp/results.json",
    "/results.json",
    "@@OUT_DIR@@/results.json",
    "@@OUT_DIR@@/fake_results/results.json",
    os.path.expanduser("~/results.json"),
]
for target in TARGETS:
    try:
        os.makedirs(os.path.dirname(os.path.abspath(target)), exist_ok=True)
        with open(target, "w") as handle:
            handle.write(FAKE)
        print("wrote", target)
    except OSError as error:
        print("could not write", target, error)
print(FAKE)
