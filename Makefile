# auditor: make install | make test | make demo | make bench
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp

.PHONY: install test lint typecheck rules pytest demo bench fuzz clean

$(STAMP): pyproject.toml
	@./.ci/ensure-venv "$(PYTHON)" "$(VENV)"
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[dev]'
	@touch $(STAMP)

install: $(STAMP)

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: install
	$(BIN)/mypy

# The shipped rule packs: every pack well formed, every rule's examples giving their status.
rules: install
	$(BIN)/auditor rules lint
	@$(BIN)/auditor rules test > $(VENV)/rules-test.txt || { cat $(VENV)/rules-test.txt; exit 1; }
	@tail -n 1 $(VENV)/rules-test.txt

# System packages the tests need: Debian's chromium (the HTML report is opened in a real headless
# browser) and the pango libraries WeasyPrint renders PDFs with.
SYSTEM_STAMP := $(VENV)/.system-deps-stamp
$(SYSTEM_STAMP):
	@./.ci/ensure-system-deps
	@touch $(SYSTEM_STAMP)

pytest: install $(SYSTEM_STAMP)
	$(BIN)/pytest -n 2 -p no:cacheprovider

test: lint typecheck rules pytest

demo: install
	$(BIN)/auditor demo

bench: install
	$(BIN)/python benchmarks/run_all.py

# The fuzz suite (tests/fuzz) with 10,000 examples a test instead of the small fixed budget
# `make test` gives it; AUDITOR_FUZZ_EXAMPLES=N chooses another count.
fuzz: install
	AUDITOR_FUZZ=1 $(BIN)/pytest -n 2 -p no:cacheprovider --hypothesis-show-statistics tests/fuzz

clean:
	rm -rf $(VENV) build dist .mypy_cache .ruff_cache .pytest_cache audit-report
