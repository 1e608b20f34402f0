# Strata — the two commands of the quick start are `make run` and `make test`.
SHELL := /bin/bash
SWIFT ?= swift
JOBS ?= 2
PACKAGES := libsqlite3-dev libjemalloc-dev

.PHONY: deps run test stress stress-tsan bench bench-quick reliability fuzz lint docs clean

# Installs the system libraries when pkg-config cannot find them (needs root, as in CI).
deps:
	@if ! pkg-config --exists sqlite3 jemalloc 2>/dev/null; then \
		echo "Installing $(PACKAGES)…"; \
		SUDO=""; if [ "$$(id -u)" != "0" ]; then SUDO="sudo"; fi; \
		$$SUDO apt-get install -y $(PACKAGES) >/dev/null 2>&1 || \
		{ $$SUDO apt-get update >/dev/null && $$SUDO apt-get install -y $(PACKAGES); }; \
	fi

# Builds and runs the demo: a multi-context workload on a SQLite store in a temp folder.
run: deps
	$(SWIFT) build -j $(JOBS) --product strata-demo
	./.build/debug/strata-demo

# Builds and runs every test.
test: deps
	$(SWIFT) build --build-tests -j $(JOBS)
	$(SWIFT) test --skip-build --parallel --num-workers $(JOBS)

# Seeded, time-bounded concurrent workload (SECONDS=60 by default).
stress: deps
	$(SWIFT) run -c release -j $(JOBS) StrataStress $(STRESS_ARGS)

stress-tsan: deps
	TSAN_OPTIONS=halt_on_error=1 $(SWIFT) run -j $(JOBS) --sanitize=thread StrataStress --quick $(STRESS_ARGS)

# Benchmarks against raw SQLite in the same run.
bench: deps
	$(SWIFT) run -c release -j $(JOBS) StrataBenchmarks $(BENCH_ARGS)

bench-quick: deps
	$(SWIFT) run -c release -j $(JOBS) StrataBenchmarks --quick $(BENCH_ARGS)

lint:
	$(SWIFT) format lint --strict -r Sources Tests Stress Benchmarks

clean:
	rm -rf .build
