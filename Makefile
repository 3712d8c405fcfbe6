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
	bash scripts/run.sh

services:
	bash scripts/services.sh

lint: venv
	.venv/bin/ruff check .
	.venv/bin/ruff format --check .
	.venv/bin/lint-imports
	.venv/bin/bandit -q -c pyproject.toml -r config profiles hub validation fleet sources accounts notifications vllmcheck
	.venv/bin/vulture  # dead code in the product's packages ([tool.vulture] in pyproject.toml)
	$(PY) manage.py check

test: venv services lint
	bash scripts/ensure-chromium.sh
	# Every page once on the embedded defaults that `make run` uses (SQLite, file-system broker) ...
	DATABASE_URL=sqlite:///$(CURDIR)/var/smoke.sqlite3 CELERY_BROKER_URL=filesystem:// .venv/bin/pytest -q tests/smoke
	# ... then the whole suite on the real PostgreSQL and Redis.
	DATABASE_URL=$(TEST_DATABASE_URL) CELERY_BROKER_URL=$(TEST_BROKER_URL) .venv/bin/pytest

# Every benchmark, one after the other; each prints its figures and writes them to var/bench/ (--json), and
# benchmarks/report.py writes benchmarks/RESULTS.md from that output with the machine, the dates, the commit and
# the commands (the record of earlier runs is benchmarks/HISTORY.md). The benchmark databases are created and
# filled on first use, then reused. Recording vLLM's own verdicts needs vLLM installed
# (benchmarks/conformance/README.md); the conformance step replays the recorded ones (vLLM's times per case are
# in them) against the product, whose stand-in models' configs come from benchmarks/conformance/setup_env.sh.
BENCH_OUT := var/bench
BENCH_RUN := $(PY) benchmarks/report.py run --out $(BENCH_OUT)
bench: venv services
	rm -rf $(BENCH_OUT) && mkdir -p $(BENCH_OUT)
	$(BENCH_RUN) engine -- $(PY) benchmarks/engine.py --json $(BENCH_OUT)/engine.json
	$(BENCH_RUN) lint -- $(PY) benchmarks/lint.py --json $(BENCH_OUT)/lint.json
	$(BENCH_RUN) admission -- $(PY) benchmarks/admission.py --json $(BENCH_OUT)/admission.json
	$(BENCH_RUN) api -- $(PY) benchmarks/api.py
	$(BENCH_RUN) pages -- $(PY) benchmarks/pages.py --json $(BENCH_OUT)/pages.json
	$(BENCH_RUN) pages_validation -- $(PY) benchmarks/pages_validation.py --json $(BENCH_OUT)/pages_validation.json
	$(BENCH_RUN) recheck -- $(PY) benchmarks/recheck.py --json $(BENCH_OUT)/recheck.json
	# vLLM's recorded verdicts and times against the product's, per release: agreement (the frozen hold-out
	# first) and the time ratio over the same cases (the full table goes to var/).
	$(BENCH_RUN) conformance -- $(PY) benchmarks/conformance/run.py --reuse-vllm \
		--results var/conformance-RESULTS.md --json $(BENCH_OUT)/conformance.json
	$(PY) benchmarks/report.py write --out $(BENCH_OUT) --results benchmarks/RESULTS.md
