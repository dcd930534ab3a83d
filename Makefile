# The two commands of the README:
#   make run    installs what is missing, builds, and starts sandboxd (SQLite in data/sandboxd,
#               every built engine but the tests' kv); it prints the Playground's URL
#               (http://$(LISTEN)/)
#   make test   installs what is missing, builds, and runs every test
# and what CI (.ci/run) adds to them:
#   make test-asan   the unit and integration suites under ASan+UBSan (the asan preset)
#   make test-tsan   the server's concurrency tests under ThreadSanitizer (the tsan preset)
#   make fuzz        every libFuzzer target for FUZZ_SECONDS (default 20) against its corpus
#   make lint        clang-format (scripts/check_format.sh) and clang-tidy
#                    (scripts/run_clang_tidy.sh) over the project's own code, and eslint,
#                    prettier and tsc over the Playground's script (scripts/lint_playground.sh)
#   make ci          all of the above, as .ci/run does
# and, to find tests that fail only now and then before CI does (not part of CI):
#   make stress      builds asan and tsan, then runs their concurrency tests (and, under asan,
#                    the signal-driven wasm runtime tests) STRESS_REPEAT times (default 20)
#                    while a busy loop per core loads the machine (scripts/stress.sh)
JOBS ?= $(shell nproc)
# ccache: rewrite absolute paths under the checkout to relative ones and ignore the working
# directory, so a clone in another directory (CI) hits the cache that earlier builds filled.
export CCACHE_BASEDIR := $(CURDIR)
export CCACHE_NOHASHDIR := true
PRESET ?= default
BUILD := build/$(PRESET)
LISTEN ?= 127.0.0.1:8787
# Which tests test-asan and test-tsan run is the asan and tsan test presets' label filter
# (CMakePresets.json testPresets), so `ctest --preset asan` runs what `make test-asan` runs:
# under ASan, every suite but those that only check packaging or run for minutes without
# touching new host code paths (labels kit, load, crash, browser: the browser test drives
# chromium against sandboxd, playground: the Playground's unit tests run only node, and cluster:
# processes for minutes against PostgreSQL and nginx); under TSan, the tests that exercise the server's threads (label
# concurrency; labels are set in tests/*/CMakeLists.txt).

.PHONY: all bootstrap build run test bench bench-micro clean test-asan test-tsan fuzz lint ci stress

all: build

bootstrap:
	@./scripts/bootstrap.sh

build: bootstrap
	@cmake --preset $(PRESET) >/dev/null
	@cmake --build --preset $(PRESET) -j $(JOBS)

run: build
	$(BUILD)/tools/sandboxd/sandboxd --listen $(LISTEN)

test: build
	ctest --preset $(PRESET) -j $(JOBS)

test-asan: bootstrap
	@cmake --preset asan >/dev/null
	@cmake --build --preset asan -j $(JOBS)
	ctest --preset asan -j $(JOBS)

test-tsan: bootstrap
	@cmake --preset tsan >/dev/null
	@cmake --build --preset tsan -j $(JOBS)
	ctest --preset tsan -j $(JOBS)

fuzz: bootstrap
	scripts/run_fuzzers.sh

# Repeats the tests that depend on timing and threads under load (scripts/stress.sh says how to
# narrow it): STRESS_REPEAT rounds, STRESS_LOAD busy loops, STRESS_PRESETS, STRESS_REGEX.
stress: bootstrap
	@for p in $(or $(STRESS_PRESETS),asan tsan); do \
	  cmake --preset $$p >/dev/null && cmake --build --preset $$p -j $(JOBS) || exit 1; done
	scripts/stress.sh

# Style, as CI checks it: formatting of every tracked C/C++ file, then clang-tidy over src/ and
# tools/ (reads $(BUILD)/compile_commands.json, written by the configure step), then eslint,
# prettier and tsc over the Playground's JavaScript (the pinned versions that the target
# sandbox_playground_npm installs with npm ci). All run even if one fails, so one run lists
# everything to fix; `scripts/check_format.sh --fix` and `scripts/lint_playground.sh --fix`
# rewrite what they can.
lint: bootstrap
	@cmake --preset $(PRESET) >/dev/null
	@status=0; scripts/check_format.sh || status=1; \
	  scripts/run_clang_tidy.sh --preset $(PRESET) -j $(JOBS) || status=1; \
	  { cmake --build --preset $(PRESET) --target sandbox_playground_npm && \
	    scripts/lint_playground.sh --preset $(PRESET); } || status=1; exit $$status

# lint after the default build, so its compile database (and any generated header) exists.
ci: fuzz test-asan test-tsan build lint test

# The benchmark table of every built language against the node:wasi and native per-call
# baselines (about five minutes; BENCH_ARGS=--quick: about two), written to bench/results.md.
bench: build
	bench/run $(BUILD) $(BENCH_ARGS)

# The micro-benchmarks (wasm pipeline, snapshot internals, CPU workloads), about five minutes.
bench-micro: build
	bench/run.sh $(BUILD)

clean:
	rm -rf build
