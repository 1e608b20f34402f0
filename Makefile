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

# Seeded, time-bounded concurrent bank workload on 16 contexts (60 s by default; the seed is
# printed). Exit status 1 when an invariant fails. Examples:
#   make stress STRESS_ARGS="--quick"                 (20 s, as CI runs it)
#   make stress STRESS_ARGS="--seed 42 --seconds 120" (replay a seed, longer)
stress: deps
	$(SWIFT) build -c release -j $(JOBS) --product StrataStress
	./.build/release/StrataStress $(STRESS_ARGS)

# The same workload under ThreadSanitizer (quick mode). A TSan report alone does not change a
# program's exit status, so halt_on_error and exitcode make any report fail the run (66).
# -DSTRATA_TSAN swaps Synchronization.Mutex for a pthread lock TSan can see (see
# Sources/Strata/Concurrency/TSanMutex.swift); the build lives in .build/tsan so it does not
# clobber the normal debug build.
TSAN_STRESS_ARGS ?= --quick
stress-tsan: deps
	$(SWIFT) build -j $(JOBS) --sanitize=thread -Xswiftc -DSTRATA_TSAN --scratch-path .build/tsan --product StrataStress
	TSAN_OPTIONS="halt_on_error=1 exitcode=66 second_deadlock_stack=1" ./.build/tsan/debug/StrataStress $(TSAN_STRESS_ARGS) $(STRESS_ARGS)

# Benchmarks against raw SQLite in the same run.
bench: deps
	$(SWIFT) run -c release -j $(JOBS) StrataBenchmarks $(BENCH_ARGS)

bench-quick: deps
	$(SWIFT) run -c release -j $(JOBS) StrataBenchmarks --quick $(BENCH_ARGS)

lint:
	$(SWIFT) format lint --strict -r Sources Tests Stress Benchmarks

clean:
	rm -rf .build
