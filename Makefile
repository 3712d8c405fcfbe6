# Two commands on a fresh machine:  `make run` (the dashboard, a worker and beat) and `make test`.
PY := .venv/bin/python
TEST_DATABASE_URL ?= postgres://postgres@127.0.0.1:5432/vllm_profiles
TEST_BROKER_URL ?= redis://127.0.0.1:6379/15

.PHONY: run test lint bench venv services

# vllmcheck (the core and the linter, ./vllmcheck) is a distribution of its own that the dashboard depends on:
# both are installed by the one pip command, editable, so the venv runs the working tree. A venv made before
# the split has vllm-profiles owning the vllm-profiles-lint script: uninstalled first, so that replacing it
# does not delete the script vllmcheck has just written.
.venv/.installed: pyproject.toml vllmcheck/pyproject.toml
	test -x $(PY) || python3 -m venv .venv
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip uninstall -q -y vllm-profiles
	$(PY) -m pip install -q -e ./vllmcheck -e '.[dev]'
	touch $@

venv: .venv/.installed

run: venv
	$(PY) manage.py migrate --noinput
	$(PY) manage.py bootstrap_admin
	bash scripts/run.sh

services:
	bash scripts/services.sh

lint: venv
	.venv/bin/ruff check .
	.venv/bin/ruff format --check .
	.venv/bin/lint-imports
	.venv/bin/bandit -q -c pyproject.toml -r config profiles hub validation sources accounts vllmcheck
	.venv/bin/vulture  # dead code in the product's packages ([tool.vulture] in pyproject.toml)
	$(PY) manage.py check

test: venv services lint
	bash scripts/ensure-chromium.sh
	# Every page once on the embedded defaults that `make run` uses (SQLite, file-system broker) ...
	DATABASE_URL=sqlite:///$(CURDIR)/var/smoke.sqlite3 CELERY_BROKER_URL=filesystem:// .venv/bin/pytest -q tests/smoke
	# ... then the whole suite on the real PostgreSQL and Redis.
	DATABASE_URL=$(TEST_DATABASE_URL) CELERY_BROKER_URL=$(TEST_BROKER_URL) .venv/bin/pytest

# Every benchmark, one after the other; each prints its figures (benchmarks/RESULTS.md records them with the
# machine and the command). The benchmark databases are created and filled on first use, then reused.
# Recording vLLM's own verdicts needs vLLM installed (benchmarks/conformance/README.md); the ratio below
# reads the recorded ones.
bench: venv services
	$(PY) benchmarks/engine.py
	$(PY) benchmarks/lint.py
	$(PY) benchmarks/admission.py
	$(PY) benchmarks/api.py
	$(PY) benchmarks/pages.py
	$(PY) benchmarks/pages_validation.py
	$(PY) benchmarks/recheck.py
	# vLLM's recorded verdicts and times against the product's, per release: agreement and the time ratio
	# (the stand-in models' configs come from benchmarks/conformance/setup_env.sh; the table goes to var/).
	mkdir -p var && $(PY) benchmarks/conformance/run.py --reuse-vllm --results var/conformance-RESULTS.md
