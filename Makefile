# The two commands of the README:
#   make run    installs what is missing, builds, and starts sandboxd (SQLite in data/sandboxd,
#               every built engine)
#   make test   installs what is missing, builds, and runs every test
JOBS ?= $(shell nproc)
# ccache: rewrite absolute paths under the checkout to relative ones and ignore the working
# directory, so a clone in another directory (CI) hits the cache that earlier builds filled.
export CCACHE_BASEDIR := $(CURDIR)
export CCACHE_NOHASHDIR := true
PRESET ?= default
BUILD := build/$(PRESET)
LISTEN ?= 127.0.0.1:8787

.PHONY: all bootstrap build run test bench clean

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

bench: build
	bench/run.sh $(BUILD)

clean:
	rm -rf build
