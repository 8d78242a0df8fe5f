# The commands users type. Everything real is in CMake (CMakePresets.json); this file installs
# missing Debian packages first, then configures, builds and runs.
#
#   make demo            build, then `opnn demo` (GPU when there is one, else CPU)
#   make test            build, then the whole suite (GPU tests skip themselves without a device)
#   make install         install into PREFIX (default /usr/local)
#   make clean           remove build/
#   make format-check    clang-format --dry-run over the sources, as CI does
#
# PRESET picks the CMake preset: default (Release), debug, asan, cpu (no CUDA).

PRESET ?= default
PREFIX ?= /usr/local
JOBS   ?= $(shell nproc 2>/dev/null || echo 2)
BUILD  := build/$(PRESET)
DEBS   := cmake ninja-build pkg-config uthash-dev libcmocka-dev libdlpack-dev

.PHONY: all deps configure build demo test install clean format-check

all: build

# Installs what is missing, as root directly or through sudo. Not on Debian: says what to get.
deps:
	@if ! command -v dpkg >/dev/null 2>&1; then \
	    echo "make: not a Debian system; make sure these are installed: $(DEBS)"; exit 0; \
	fi; \
	missing=""; \
	for p in $(DEBS); do \
	    dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; \
	done; \
	[ -z "$$missing" ] && exit 0; \
	if [ "$$(id -u)" = 0 ]; then sudo=""; \
	elif command -v sudo >/dev/null 2>&1; then sudo="sudo"; \
	else echo "make: need root to install:$$missing" >&2; exit 1; fi; \
	echo "make: installing$$missing"; \
	$$sudo apt-get update -q && \
	$$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $$missing

configure: deps
	cmake --preset $(PRESET)

build: configure
	cmake --build --preset $(PRESET) --parallel $(JOBS)

demo: build
	$(BUILD)/tools/opnn demo

test: build
	ctest --preset $(PRESET) --parallel $(JOBS)

install: build
	cmake --install $(BUILD) --prefix $(PREFIX)

clean:
	rm -rf build

FORMAT_DIRS := include core register kernel tools tests examples
format-check:
	@files=$$(find $(FORMAT_DIRS) -type f \( -name '*.c' -o -name '*.h' -o -name '*.cu' \
	    -o -name '*.cuh' \) 2>/dev/null | sort); \
	clang-format --dry-run --Werror $$files
