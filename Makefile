# attnkit: `make demo` and `make test` work on a fresh machine (they create .venv first).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: venv demo test check release bench docker clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[test]'
	touch $(STAMP)

venv: $(STAMP)

demo: $(STAMP)
	$(BIN)/attnkit demo --out demo-out

test: $(STAMP)
	$(BIN)/python -m pytest -q

release: $(STAMP)
	$(BIN)/attnkit release

bench: $(STAMP)
	$(BIN)/python bench/run.py

docker: $(STAMP)
	$(BIN)/attnkit docker build $(if $(BASE_IMAGE),--base-image $(BASE_IMAGE))

clean:
	rm -rf demo-out out build
