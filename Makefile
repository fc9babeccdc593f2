# attnkit: `make demo` and `make test` work on a fresh machine (they create .venv first).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: venv demo test test-under-load soak check release bench docker clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[test]'
	touch $(STAMP)

venv: $(STAMP)

demo: $(STAMP)
	$(BIN)/attnkit demo --out demo-out

test: $(STAMP)
	$(BIN)/ruff check autograder tests/test_assignment.py tests/assignments
	$(BIN)/mypy
	$(BIN)/python -m pytest -q

# The timing-sensitive tests (marker `timing`) with one CPU burner per core; PYTEST_ARGS narrows them.
test-under-load: $(STAMP)
	$(BIN)/python scripts/under_load.py -- $(BIN)/python -m pytest -q -m timing $(PYTEST_ARGS)

# 1,000 submissions (correct, buggy, hostile): grader memory, time per submission, leftovers.
SOAK_N ?= 1000
soak: $(STAMP)
	$(BIN)/python bench/soak.py --n $(SOAK_N)

release: $(STAMP)
	$(BIN)/attnkit release

bench: $(STAMP)
	$(BIN)/python bench/integrity.py --n 500
	$(BIN)/python bench/run.py

docker: $(STAMP)
	$(BIN)/attnkit docker build $(if $(BASE_IMAGE),--base-image $(BASE_IMAGE))

clean:
	rm -rf demo-out out build
