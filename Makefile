# npu-doctor: `make run` and `make test` work on a fresh Debian machine.
# The real build is CMake; this file drives it.

BUILD       ?= build
ASAN_BUILD  ?= build-asan
FUZZ_BUILD  ?= build-fuzz
JOBS        ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=

PREFIX      ?= /usr/local
A64_BUILD   ?= build-aarch64
# The aarch64 tests under qemu: unit tests, fuzz replays, rule examples, and
# the e2e checks and explain corpus. Left out: whatever forks a guarded child
# that runs our code after fork (vendor queries and device sessions: check
# --level 2, ps and run on simulated devices, the spawn/device/footprint/proc
# unit tests): under qemu-user such a child spins in the emulator and never
# answers. A real aarch64 machine runs all of them in `make test`.
A64_TESTS   ?= ^(unit_|fuzz_.*_replay|rules_examples|e2e_(check_(ascend|badinput|cuda|dev)|explain_corpus))$$
A64_SKIP    ?= ^unit_test_(core|device_ascend|device_nvidia|footprint|proc)$$

.PHONY: all deps build run test test-plain test-asan fuzz-smoke bench clean install uninstall \
        cross-aarch64 test-aarch64 dist deb

all: build

deps:
	@scripts/install-deps.sh test

build: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

run: build
	@./$(BUILD)/npu-doctor check; status=$$?; echo "(npu-doctor check exited $$status)"

test: deps
	@$(MAKE) --no-print-directory test-plain
	@$(MAKE) --no-print-directory test-asan

test-plain:
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)
	@echo "== tests (plain build) =="
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# The sanitizer build uses clang, so every test run also proves the code is
# warning-clean under both compilers (the plain build uses gcc).
test-asan:
	@CC=clang cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DND_SANITIZE=ON $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(ASAN_BUILD) -j $(JOBS)
	@echo "== tests (ASan+UBSan build) =="
	@cd $(ASAN_BUILD) && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ctest --output-on-failure -j $(JOBS)

# Each libFuzzer target for FUZZ_SECONDS (default 30), seeded from fuzz/corpus/.
FUZZ_SECONDS ?= 30
fuzz-smoke:
	@scripts/install-deps.sh fuzz
	@CC=clang cmake -S . -B $(FUZZ_BUILD) -DCMAKE_BUILD_TYPE=Debug -DND_FUZZ=ON >/dev/null
	@cmake --build $(FUZZ_BUILD) -j $(JOBS)
	@set -e; for t in $(FUZZ_BUILD)/fuzz/fuzz_*; do \
	  name=$$(basename $$t); work=$$(mktemp -d); \
	  cp -r fuzz/corpus/$$name/. $$work/ 2>/dev/null || true; \
	  echo "== $$name ($(FUZZ_SECONDS) s) =="; \
	  $$t -max_total_time=$(FUZZ_SECONDS) -max_len=65536 $$work >/dev/null 2>$$work.log \
	    || { tail -50 $$work.log; exit 1; }; \
	  tail -1 $$work.log; rm -rf $$work $$work.log; \
	done

bench: build
	@scripts/install-deps.sh bench
	@for b in bench/*.sh; do echo "== $$b =="; bash $$b || exit 1; done

# aarch64 (Kunpeng) from this machine: Debian's cross compiler and the :arm64
# libraries through multiarch; the tests run under qemu-aarch64.
cross-aarch64:
	@scripts/install-deps.sh aarch64
	@cmake -S . -B $(A64_BUILD) -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake \
	  -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(A64_BUILD) -j $(JOBS)
	@file $(A64_BUILD)/npu-doctor

test-aarch64: cross-aarch64
	@echo "== tests (aarch64 under qemu) =="
	@cd $(A64_BUILD) && ctest --output-on-failure -j $(JOBS) -R '$(A64_TESTS)' -E '$(A64_SKIP)'

# Release tarballs for x86_64 and aarch64 (static but for glibc); prints the
# glibc floor of each binary.
dist:
	@scripts/install-deps.sh aarch64
	@scripts/dist.sh

# Debian packages of the same binaries (amd64, arm64) in dist/.
deb: dist
	@scripts/deb.sh

# DESTDIR is honoured (packaging): make install PREFIX=/usr DESTDIR=/tmp/stage
install: build
	@cmake --install $(BUILD) --prefix $(PREFIX)

uninstall:
	@scripts/uninstall.sh $(BUILD)

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(FUZZ_BUILD)

# Applies .clang-format to the C sources (scripts/dev/format.sh --check only
# counts the lines it would change).
.PHONY: format
format:
	@scripts/dev/format.sh
