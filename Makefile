# Strata — the two commands of the quick start are `make run` and `make test`.
SHELL := /bin/bash
SWIFT ?= swift
JOBS ?= 2
PACKAGES := libsqlite3-dev libjemalloc-dev libpq-dev postgresql

.PHONY: deps run examples test stress stress-tsan stress-large stress-large-quick stress-negative-control bench bench-quick reliability reliability-quick fuzz fuzz-quick fuzz-build fuzz-store-seeds lint layers docs clean

# Installs the system libraries when pkg-config cannot find them, and PostgreSQL's server when its
# initdb is missing (the PostgreSQL tests run a throwaway server; needs root, as in CI).
deps:
	@if ! pkg-config --exists sqlite3 jemalloc libpq 2>/dev/null || ! scripts/postgres-test-server.sh check >/dev/null 2>&1; then \
		echo "Installing $(PACKAGES)…"; \
		SUDO=""; if [ "$$(id -u)" != "0" ]; then SUDO="sudo"; fi; \
		$$SUDO apt-get install -y $(PACKAGES) >/dev/null 2>&1 || \
		{ $$SUDO apt-get update >/dev/null && $$SUDO apt-get install -y $(PACKAGES); }; \
	fi

# Builds and runs the demo: a multi-context workload on a SQLite store in a temp folder.
run: deps
	$(SWIFT) build -j $(JOBS) --product strata-demo
	./.build/debug/strata-demo

# The runnable examples of the docs (docs/batch.md: a background importer with batch inserts and
# a view that follows by persistent history; docs/live-results.md: an editor's undo and redo);
# each exits 1 when what it shows does not hold.
examples: deps
	$(SWIFT) build -j $(JOBS) --product strata-history-importer
	./.build/debug/strata-history-importer
	$(SWIFT) build -j $(JOBS) --product strata-undo-editor
	./.build/debug/strata-undo-editor
	$(SWIFT) build -j $(JOBS) --product strata-live-results
	./.build/debug/strata-live-results

# Builds and runs every test. The PostgreSQL tests (Tests/PostgreSQLTests) need a server: a
# throwaway one (scripts/postgres-test-server.sh: initdb in a temporary folder, 127.0.0.1 on a free
# port) is started for the run and stopped after it, also when a test fails, unless
# STRATA_TEST_POSTGRESQL_URL already names one (.ci/run starts one for its whole run) or
# STRATA_SKIP_POSTGRESQL=1 skips those tests.
TEST_COMMAND = $(SWIFT) test --skip-build --parallel --num-workers $(JOBS)
test: deps
	$(SWIFT) build --build-tests -j $(JOBS)
	@if [ -n "$$STRATA_TEST_POSTGRESQL_URL" ] || [ "$$STRATA_SKIP_POSTGRESQL" = "1" ]; then \
		echo "$(TEST_COMMAND)"; $(TEST_COMMAND); \
	else \
		echo "scripts/postgres-test-server.sh run $(TEST_COMMAND)"; scripts/postgres-test-server.sh run $(TEST_COMMAND); \
	fi

# Seeded, time-bounded concurrent bank workload on 16 contexts (60 s by default; the seed is
# printed). Exit status 1 when an invariant fails. Examples:
#   make stress STRESS_ARGS="--quick"                 (20 s, as CI runs it)
#   make stress STRESS_ARGS="--seed 42 --seconds 120" (replay a seed, longer)
stress: deps
	$(SWIFT) build -c release -j $(JOBS) --product StrataStress
	./.build/release/StrataStress $(STRESS_ARGS)

# The same workload under ThreadSanitizer (quick mode). A TSan report alone does not change a
# program's exit status, so halt_on_error and exitcode make any report fail the run (66).
# -DSTRATA_TSAN makes StrataLock a pthread lock TSan can see instead of Synchronization.Mutex (see
# Sources/StrataSQLite/StrataLock.swift); the build lives in .build/tsan so it does not
# clobber the normal debug build.
TSAN_STRESS_ARGS ?= --quick
stress-tsan: deps
	$(SWIFT) build -j $(JOBS) --sanitize=thread -Xswiftc -DSTRATA_TSAN --scratch-path .build/tsan --product StrataStress
	TSAN_OPTIONS="halt_on_error=1 exitcode=66 second_deadlock_stack=1" ./.build/tsan/debug/StrataStress $(TSAN_STRESS_ARGS) $(STRESS_ARGS)

# The large-data mode (docs/stress.md): a store of 1,000,000 records built with raw SQLite, then
# pagers, faulters and a batched walker checking every row while root writers, a child pushing
# through its parent and a teller save, for 120 s. Prints throughput, p50/p99 latency and peak
# memory per operation; exit status 1 when an invariant (or a liveness minimum) fails. Examples:
#   make stress-large STRESS_ARGS="--quick"                   (45 s, as CI runs it)
#   make stress-large STRESS_ARGS="--seed 42 --rows 200000"   (replay a seed on fewer rows)
stress-large: deps
	$(SWIFT) build -c release -j $(JOBS) --product StrataStress
	./.build/release/StrataStress --large $(STRESS_ARGS)

stress-large-quick: deps
	$(SWIFT) build -c release -j $(JOBS) --product StrataStress
	./.build/release/StrataStress --large --quick $(STRESS_ARGS)

# The negative control of the money checks: both modes run with one transfer in ten crediting
# without debiting. Each run must exit 1 (an invariant failed) and its report must show the
# ledger and the SQL oracle failing; anything else (a pass, a crash) fails this target.
stress-negative-control: deps
	$(SWIFT) build -c release -j $(JOBS) --product StrataStress
	@for mode in "" "--large --rows 20000 --staleness 0"; do \
		echo "negative control: StrataStress $$mode --negative-control --seconds 5 --seed 1"; \
		./.build/release/StrataStress $$mode --negative-control --seconds 5 --seed 1 > .build/negative-control.log 2>&1; status=$$?; \
		grep -E "NEGATIVE CONTROL|\[FAIL\]|^result" .build/negative-control.log | cut -c1-160; \
		if [ $$status -ne 1 ] || ! grep -q "\[FAIL\] .*ledger" .build/negative-control.log || ! grep -q "\[FAIL\] SQL oracle" .build/negative-control.log; then \
			echo "negative control NOT detected (exit status $$status): the money checks cannot see a broken transfer"; exit 1; \
		fi; \
		echo "negative control detected (exit status 1, as expected)"; \
	done

# Benchmarks against raw SQLite in the same run, and the "postgresql:" pairs against raw libpq
# on a PostgreSQL server. Both also write an HTML report with SVG charts (docs/benchmarks.md) to
# BENCH_HTML and print its path. The PostgreSQL pairs use the server STRATA_BENCH_POSTGRESQL_URL
# or STRATA_TEST_POSTGRESQL_URL names (.ci/run sets the latter); without either a throwaway one is
# started for the run and stopped after it (as `make test` does), unless STRATA_SKIP_POSTGRESQL=1
# (the pairs are then skipped with a note).
BENCH_HTML ?= .build/benchmark-report.html
BENCH_COMMAND = ./.build/release/StrataBenchmarks --html $(BENCH_HTML)
define run_bench
	@if [ -n "$$STRATA_BENCH_POSTGRESQL_URL$$STRATA_TEST_POSTGRESQL_URL" ] || [ "$$STRATA_SKIP_POSTGRESQL" = "1" ]; then \
		echo "$(1)"; $(1); \
	else \
		echo "scripts/postgres-test-server.sh run $(1)"; scripts/postgres-test-server.sh run $(1); \
	fi
endef
bench: deps
	$(SWIFT) build -c release -j $(JOBS) --product StrataBenchmarks
	$(call run_bench,$(BENCH_COMMAND) $(BENCH_ARGS))

bench-quick: deps
	$(SWIFT) build -c release -j $(JOBS) --product StrataBenchmarks
	$(call run_bench,$(BENCH_COMMAND) --quick $(BENCH_ARGS))

# Reliability harness (docs/reliability.md): SIGKILL crash loop, I/O-fault sweep, disk full,
# read-only media, several processes, several processes on PostgreSQL, negative controls.
# `reliability` is the full run (release build, at least 1,000 kills, every fault point);
# `reliability-quick` is what CI runs (debug build, shared with `make test`). Mount-based parts
# print SKIP unless run as root; the PostgreSQL part prints SKIP unless STRATA_TEST_POSTGRESQL_URL
# is set (.ci/run sets it; it restarts that server once with scripts/postgres-test-server.sh).
RELIABILITY_ARGS ?=
reliability: deps
	$(SWIFT) build -c release -j $(JOBS) --product StrataReliability
	./.build/release/StrataReliability full $(RELIABILITY_ARGS)

reliability-quick: deps
	$(SWIFT) build -j $(JOBS) --product StrataReliability
	./.build/debug/StrataReliability quick $(RELIABILITY_ARGS)

# libFuzzer over the predicate parser and over the model-file reader (Fuzz/README.md). Built with
# swiftc directly, not SwiftPM: -sanitize=fuzzer would be an unsafe flag in Package.swift.
# StrataLocks, StrataSQLite and Strata become static libraries with coverage (-sanitize=fuzzer,address
# on a library only instruments it), then each fuzzer links them. FUZZ_SECONDS bounds each
# target's run (`fuzz-quick`: 60 s each, for CI). Optimized (-O): several times more inputs a
# second than -Onone (Fuzz/README.md); -g keeps the sanitizer's reports readable.
FUZZ_DIR := .build/fuzz
FUZZ_SECONDS ?= 300
SWIFTC ?= swiftc
FUZZ_FLAGS := -swift-version 6 -package-name strata -parse-as-library -sanitize=fuzzer,address -O -g \
	-I Sources/CSQLite -I Sources/CStrataMemory/include -I $(FUZZ_DIR)
STRATA_LOCKS_SOURCES := $(shell find Sources/StrataLocks -name '*.swift' | sort)
STRATA_SQLITE_SOURCES := $(shell find Sources/StrataSQLite -name '*.swift' | sort)
STRATA_SOURCES := $(shell find Sources/Strata -name '*.swift' | sort)
FUZZER_SOURCES := $(wildcard Fuzz/PredicateOracle/*.swift) $(wildcard Fuzz/PredicateFuzzer/*.swift)
MODEL_FUZZER_SOURCES := $(wildcard Fuzz/ModelFileFuzzer/*.swift)
STORE_FUZZER_SOURCES := $(wildcard Fuzz/StoreFileOracle/*.swift) $(wildcard Fuzz/StoreFileFuzzer/*.swift)

$(FUZZ_DIR)/libStrataLocks.a: $(STRATA_LOCKS_SOURCES)
	@mkdir -p $(FUZZ_DIR)
	$(SWIFTC) $(FUZZ_FLAGS) -emit-library -static -emit-module -module-name StrataLocks \
		-emit-module-path $(FUZZ_DIR)/StrataLocks.swiftmodule $(STRATA_LOCKS_SOURCES) -o $@

$(FUZZ_DIR)/libStrataSQLite.a: $(STRATA_SQLITE_SOURCES)
	@mkdir -p $(FUZZ_DIR)
	$(SWIFTC) $(FUZZ_FLAGS) -emit-library -static -emit-module -module-name StrataSQLite \
		-emit-module-path $(FUZZ_DIR)/StrataSQLite.swiftmodule $(STRATA_SQLITE_SOURCES) -o $@

$(FUZZ_DIR)/libStrata.a: $(STRATA_SOURCES) $(FUZZ_DIR)/libStrataLocks.a $(FUZZ_DIR)/libStrataSQLite.a
	$(SWIFTC) $(FUZZ_FLAGS) -emit-library -static -emit-module -module-name Strata \
		-emit-module-path $(FUZZ_DIR)/Strata.swiftmodule $(STRATA_SOURCES) -o $@

$(FUZZ_DIR)/predicate-fuzzer: $(FUZZER_SOURCES) $(FUZZ_DIR)/libStrata.a
	$(SWIFTC) $(FUZZ_FLAGS) -module-name PredicateFuzzer $(FUZZER_SOURCES) \
		-L $(FUZZ_DIR) -lStrata -lStrataSQLite -lStrataLocks -lsqlite3 -use-ld=lld -o $@

$(FUZZ_DIR)/model-file-fuzzer: $(MODEL_FUZZER_SOURCES) $(FUZZ_DIR)/libStrata.a
	$(SWIFTC) $(FUZZ_FLAGS) -module-name ModelFileFuzzer $(MODEL_FUZZER_SOURCES) \
		-L $(FUZZ_DIR) -lStrata -lStrataSQLite -lStrataLocks -lsqlite3 -use-ld=lld -o $@

$(FUZZ_DIR)/store-file-fuzzer: $(STORE_FUZZER_SOURCES) $(FUZZ_DIR)/libStrata.a
	$(SWIFTC) $(FUZZ_FLAGS) -module-name StoreFileFuzzer $(STORE_FUZZER_SOURCES) \
		-L $(FUZZ_DIR) -lStrata -lStrataSQLite -lStrataLocks -lsqlite3 -use-ld=lld -o $@

fuzz-build: deps $(FUZZ_DIR)/predicate-fuzzer $(FUZZ_DIR)/model-file-fuzzer $(FUZZ_DIR)/store-file-fuzzer

# Regenerates the store-file fuzzer's seeds (Fuzz/corpus/store-files/seed-*.sqlite) with the
# fuzzer binary itself (Fuzz/StoreFileOracle/StoreFileSeeds.swift): the stores must be made
# with the fuzzer's model.
fuzz-store-seeds: $(FUZZ_DIR)/store-file-fuzzer
	rm -f Fuzz/corpus/store-files/seed-*.sqlite
	ASAN_OPTIONS=detect_leaks=0 STRATA_FUZZ_WRITE_SEEDS=Fuzz/corpus/store-files $(FUZZ_DIR)/store-file-fuzzer

# All targets run even if one finds a crash; the recipe fails if any did.
fuzz: fuzz-build
	status=0; Fuzz/run-fuzzer.sh $(FUZZ_SECONDS) predicate || status=1; \
	Fuzz/run-fuzzer.sh $(FUZZ_SECONDS) model-file || status=1; \
	Fuzz/run-fuzzer.sh $(FUZZ_SECONDS) store-file || status=1; exit $$status

fuzz-quick: fuzz-build
	status=0; Fuzz/run-fuzzer.sh 60 predicate || status=1; \
	Fuzz/run-fuzzer.sh 60 model-file || status=1; \
	Fuzz/run-fuzzer.sh 60 store-file || status=1; exit $$status

lint:
	$(SWIFT) format lint --strict -r Sources Tests Stress Benchmarks Fuzz Examples Plugins

# The DocC documentation (Sources/Strata/Strata.docc: articles, plus every public symbol's doc
# comment). No plugin: the symbol graph of the Strata module is extracted from the debug build's
# module (the build `make test` already made, so CI compiles nothing again), every public symbol
# must have a doc comment (scripts/check_doc_coverage.py), docc converts the catalog with
# warnings as errors (a symbol link that resolves nowhere fails), and the articles' Swift examples
# must type-check against the module (scripts/check_doc_snippets.py). The archive is
# .build/docs/Strata.doccarchive (`docc preview` serves it).
DOCS_DIR := .build/docs
# docc ships with the Swift toolchain, beside `swift`.
DOCC ?= $(shell command -v docc 2>/dev/null || echo "$$(dirname "$$(command -v $(SWIFT))")/docc")
docs: deps
	$(SWIFT) build -j $(JOBS) --target Strata
	rm -rf $(DOCS_DIR)/symbol-graphs $(DOCS_DIR)/Strata.doccarchive
	mkdir -p $(DOCS_DIR)/symbol-graphs
	$(SWIFT) symbolgraph-extract -module-name Strata -minimum-access-level public -emit-extension-block-symbols \
		-I "$$($(SWIFT) build --show-bin-path)/Modules" -I Sources/CSQLite -I Sources/CStrataMemory/include \
		-target "$$(uname -m)-unknown-linux-gnu" -output-dir $(DOCS_DIR)/symbol-graphs
	python3 scripts/check_doc_coverage.py $(DOCS_DIR)/symbol-graphs --module Strata --sources Sources/Strata
	$(SWIFT) build -j $(JOBS) --target StrataPostgreSQLStore
	rm -rf $(DOCS_DIR)/postgresql-symbol-graphs && mkdir -p $(DOCS_DIR)/postgresql-symbol-graphs
	$(SWIFT) symbolgraph-extract -module-name StrataPostgreSQLStore -minimum-access-level public -emit-extension-block-symbols \
		-I "$$($(SWIFT) build --show-bin-path)/Modules" -I Sources/CSQLite -I Sources/CStrataMemory/include -I Sources/CLibPQ -I "$$(pkg-config --variable=includedir libpq)" \
		-target "$$(uname -m)-unknown-linux-gnu" -output-dir $(DOCS_DIR)/postgresql-symbol-graphs
	python3 scripts/check_doc_coverage.py $(DOCS_DIR)/postgresql-symbol-graphs --module StrataPostgreSQLStore --sources Sources/StrataPostgreSQLStore
	$(DOCC) convert Sources/Strata/Strata.docc --additional-symbol-graph-dir $(DOCS_DIR)/symbol-graphs \
		--fallback-display-name Strata --fallback-bundle-identifier org.strata.Strata \
		--output-path $(DOCS_DIR)/Strata.doccarchive --warnings-as-errors
	python3 scripts/check_doc_snippets.py Sources/Strata/Strata.docc "$$($(SWIFT) build --show-bin-path)/Modules" \
		-I Sources/CSQLite -I Sources/CStrataMemory/include --swiftc "$$(dirname "$$(command -v $(SWIFT))")/swiftc"

# The folder layering of Sources/Strata (docs/internals.md, "Layers"), checked by type names with
# the team's folder_deps.py (beside the repository in ../shared/tools, as CI has it). The lower
# folders use no type of Context/, Coordinator/ or Container/; SQL/ none of Stores/; Model/ none
# of Objects/; no cycle spans more than two folders; no file is over 700 lines.
FOLDER_DEPS ?= ../shared/tools/folder_deps.py
layers:
	@if [ ! -f "$(FOLDER_DEPS)" ]; then echo "layers: $(FOLDER_DEPS) not found (set FOLDER_DEPS=…)"; exit 1; fi
	python3 $(FOLDER_DEPS) Sources/Strata --quiet \
		--below Stores,SQL,Query,Model,Predicates,Values,Support,Concurrency:Context,Coordinator,Container,Results,Migration \
		--below Context:Results,Migration --below Container:Migration \
		--below SQL:Stores --below Model,Predicates,Values:Objects,Query,SQL \
		--max-scc 2 --max-lines 700

clean:
	rm -rf .build
