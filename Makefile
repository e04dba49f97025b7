# Makefile for h5perf (Rust re-implementation of the HDF5 1.10.8 parallel I/O benchmark).
#
# Targets:
#   deps            install the Debian packages of the MPI flavour if missing
#   build           release build (binary and libh5perf.a)
#   run             one default run under the flavour's mpiexec
#   test            the layer check (check-layers), cargo tests, then the C tests against an
#                   installed copy (c-test), for each flavour of TEST_FLAVOURS (or MPI=... only)
#   check-layers    scripts/check-layers: every import of src/ points down the layers, no circle
#   c-test          install into a temporary prefix, build and run c_tests/ under MPI
#                   (1-3 ranks) and under valgrind, uninstall, check that nothing is left
#   test-valgrind   only the valgrind part: the C tests with 1 rank under valgrind, no
#                   definitely lost block or memory error through libh5perf
#   install         PREFIX (default /usr/local), DESTDIR: bin/h5perf, lib/libh5perf.a,
#                   include/h5perf.h, lib/pkgconfig/h5perf.pc, share/man/man1/h5perf.1
#   uninstall       removes exactly those five files
#   bench           h5perf's timed-loop instructions per transfer (callgrind, bench/instr),
#                   its timed-loop overhead against a plain C pwrite/pread loop, and
#                   its storage options (--fsync, --direct, --drop-caches) against dd
#   bench-instr     only the instruction counts (deterministic, valgrind; about 30 s)
#   clean
# Variables:
#   MPI               MPI flavour: openmpi (default) or mpich
#   CARGO_TARGET_DIR  defaults to target/$(MPI): one target directory per MPI flavour,
#                     because mpi-sys does not rerun its build script when the flavour changes
#   NP, RUN_ARGS      number of ranks and h5perf options used by `make run`
#   PREFIX, DESTDIR   where `make install` / `make uninstall` work
#
# Every MPI program is named by flavour (mpicc.openmpi, mpiexec.openmpi): Debian's plain
# mpicc/mpiexec/mpi.h follow the alternatives system and may point at another flavour.

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := build

MPI ?= openmpi

# cargo may not be on PATH in CI.
CARGO_BIN_DIR := $(if $(CARGO_HOME),$(CARGO_HOME)/bin,$(HOME)/.cargo/bin)
export PATH := $(CARGO_BIN_DIR):$(PATH)
CARGO ?= cargo

ifeq ($(MPI),openmpi)
export MPICC := mpicc.openmpi
export HDF5_DIR := /usr/lib/x86_64-linux-gnu/hdf5/openmpi
DEB_PACKAGES := libhdf5-openmpi-dev libopenmpi-dev openmpi-bin libclang-dev pkg-config hdf5-tools
MPIEXEC := mpiexec.openmpi
MPIEXEC_FLAGS := --oversubscribe
# Compile and link flags of the flavour's MPI (for h5perf.pc).
MPI_CFLAGS_CMD := $(MPICC) --showme:compile
MPI_LIBS_CMD := $(MPICC) --showme:link
# Open MPI launcher environment: we run as root in CI; ranks are oversubscribed on 2 cores.
export OMPI_ALLOW_RUN_AS_ROOT := 1
export OMPI_ALLOW_RUN_AS_ROOT_CONFIRM := 1
export OMPI_MCA_btl_vader_single_copy_mechanism := none
export OMPI_MCA_rmaps_base_oversubscribe := 1
else ifeq ($(MPI),mpich)
export MPICC := mpicc.mpich
export HDF5_DIR := /usr/lib/x86_64-linux-gnu/hdf5/mpich
DEB_PACKAGES := libhdf5-mpich-dev libmpich-dev mpich libclang-dev pkg-config hdf5-tools
# hydra oversubscribes by default and refuses --oversubscribe
MPIEXEC := mpiexec.mpich
MPIEXEC_FLAGS :=
# mpicc.mpich -compile_info / -link_info print a whole compiler command line.
MPI_CFLAGS_CMD := $(MPICC) -compile_info | tr ' ' '\n' | grep -E '^-[ID]' | tr '\n' ' '
MPI_LIBS_CMD := $(MPICC) -link_info | tr ' ' '\n' | grep -E '^-(L|l|Wl,)' | tr '\n' ' '
else
$(error unsupported MPI flavour '$(MPI)' (supported: openmpi, mpich))
endif

# Tools the tests use besides the build dependencies.
TEST_PACKAGES := valgrind man-db groff-base iproute2 util-linux strace

# The flavours `make test` runs when no MPI=... is given (CI runs `make test`): both,
# one after the other, each against its own HDF5 (libhdf5-openmpi-dev, libhdf5-mpich-dev).
TEST_FLAVOURS ?= openmpi mpich

# The test harness (tests/common/mod.rs) and c_tests/run take the launcher from here.
export H5PERF_MPI := $(MPI)
export H5PERF_MPIEXEC := $(MPIEXEC)
export H5PERF_MPIEXEC_FLAGS := $(MPIEXEC_FLAGS)

CARGO_TARGET_DIR ?= target/$(MPI)
export CARGO_TARGET_DIR

NP ?= 2
RUN_ARGS ?=
BIN := $(abspath $(CARGO_TARGET_DIR))/release/h5perf
STATICLIB := $(abspath $(CARGO_TARGET_DIR))/release/libh5perf.a

PREFIX ?= /usr/local
DESTDIR ?=
# The files `make install` writes, relative to PREFIX (`make uninstall` removes these).
INSTALLED_FILES := bin/h5perf include/h5perf.h lib/libh5perf.a lib/pkgconfig/h5perf.pc \
                   share/man/man1/h5perf.1
VERSION := $(shell sed -n 's/^version *= *"\(.*\)"/\1/p' Cargo.toml | head -n 1)

.PHONY: deps test-deps build run test check-layers c-test test-valgrind install uninstall bench bench-instr clean

# Idempotent: only installs the Debian packages that are missing.
define apt_install_missing
	@missing=""; \
	for p in $(1); do \
	  if ! dpkg -s "$$p" 2>/dev/null | grep -q '^Status: install ok installed'; then \
	    missing="$$missing $$p"; \
	  fi; \
	done; \
	if [ -z "$$missing" ]; then \
	  echo "$@: all required Debian packages are installed ($(1))"; \
	  exit 0; \
	fi; \
	echo "$@: missing Debian packages:$$missing"; \
	if [ "$$(id -u)" -ne 0 ]; then \
	  echo "$@: not root; install them with:"; \
	  echo "  apt-get update && apt-get install -y$$missing"; \
	  exit 1; \
	fi; \
	export DEBIAN_FRONTEND=noninteractive; \
	apt-get update && apt-get install -y$$missing
endef

deps:
	$(call apt_install_missing,$(DEB_PACKAGES))

test-deps: deps
	$(call apt_install_missing,$(TEST_PACKAGES))

build: deps
	$(CARGO) build --release --bin h5perf

# One small default run (512 KiB per step) in a throw-away directory.
run: build
	@dir=$$(mktemp -d); \
	echo "make run: $(MPIEXEC) $(MPIEXEC_FLAGS) -n $(NP) $(BIN) $(RUN_ARGS)  (in $$dir)"; \
	set +e; \
	( cd "$$dir" && $(MPIEXEC) $(MPIEXEC_FLAGS) -n $(NP) "$(BIN)" $(RUN_ARGS) ); \
	rc=$$?; \
	rm -rf "$$dir"; \
	exit $$rc

# Every test: unit tests and the MPI integration tests in tests/, then the C tests
# against an installed copy. Without MPI=... (command line or environment) `make test`
# runs this for every flavour of TEST_FLAVOURS, one after the other, each in its own
# target directory (target/<flavour>); with MPI=... only for that flavour.
check-layers:
	@scripts/check-layers --self-test
	@scripts/check-layers

ifeq ($(origin MPI),file)
test: check-layers
	@for f in $(TEST_FLAVOURS); do \
	  echo "make test: MPI flavour $$f"; \
	  env -u CARGO_TARGET_DIR $(MAKE) --no-print-directory test MPI=$$f || exit 1; \
	done; \
	echo "make test: all flavours passed ($(TEST_FLAVOURS))"
else
test: check-layers test-deps
	$(CARGO) test --release --no-fail-fast
	@$(MAKE) --no-print-directory c-test
endif

# Installs into a temporary prefix, checks the installed file list, the man page and
# the installed program, builds and runs c_tests/ with pkg-config (1-3 ranks), runs them
# again under valgrind (1 rank, about 40 s), uninstalls and checks that no file is left.
c-test: build test-deps
	@prefix=$$(mktemp -d "$${TMPDIR:-/tmp}/h5perf-prefix.XXXXXX"); \
	trap 'rm -rf "$$prefix"' EXIT; \
	$(MAKE) --no-print-directory install PREFIX="$$prefix" DESTDIR=; \
	$(call check_installed,$$prefix); \
	export MPIEXEC="$(MPIEXEC)" MPIEXEC_FLAGS="$(MPIEXEC_FLAGS)"; \
	c_tests/run tests "$$prefix"; \
	C_TEST_TIMEOUT=600 c_tests/run valgrind "$$prefix"; \
	$(MAKE) --no-print-directory uninstall PREFIX="$$prefix" DESTDIR=; \
	left=$$(cd "$$prefix" && find . ! -type d | sort); \
	if [ -n "$$left" ]; then echo "c-test: FAIL uninstall left files: $$left"; exit 1; fi; \
	echo "c-test: PASS uninstall removed every installed file"

test-valgrind: build test-deps
	@prefix=$$(mktemp -d "$${TMPDIR:-/tmp}/h5perf-prefix.XXXXXX"); \
	trap 'rm -rf "$$prefix"' EXIT; \
	$(MAKE) --no-print-directory install PREFIX="$$prefix" DESTDIR=; \
	MPIEXEC="$(MPIEXEC)" MPIEXEC_FLAGS="$(MPIEXEC_FLAGS)" C_TEST_TIMEOUT=600 \
	  c_tests/run valgrind "$$prefix"

# $(1): a prefix just installed into. Exactly the installed files, a pkg-config file
# that answers, a man page that renders without warnings, a program that starts.
define check_installed
	got=$$(cd "$(1)" && find . ! -type d | sed 's|^\./||' | sort | tr '\n' ' '); \
	want=$$(printf '%s\n' $(INSTALLED_FILES) | sort | tr '\n' ' '); \
	if [ "$$got" != "$$want" ]; then \
	  echo "c-test: FAIL install: files are [$$got], expected [$$want]"; exit 1; fi; \
	echo "c-test: PASS install wrote exactly: $$want"; \
	v=$$(PKG_CONFIG_PATH="$(1)/lib/pkgconfig" pkg-config --modversion h5perf); \
	if [ "$$v" != "$(VERSION)" ]; then \
	  echo "c-test: FAIL pkg-config --modversion h5perf = '$$v', expected $(VERSION)"; exit 1; fi; \
	echo "c-test: PASS pkg-config --modversion h5perf = $$v"; \
	warn=$$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings=all -l "$(1)/share/man/man1/h5perf.1" 2>&1 >/dev/null || echo "man failed: $$?"); \
	if [ -n "$$warn" ]; then echo "c-test: FAIL man page: $$warn"; exit 1; fi; \
	echo "c-test: PASS man -l share/man/man1/h5perf.1 renders without warnings"; \
	vf=$$(mktemp); \
	(cd "$(1)" && timeout 60 $(MPIEXEC) $(MPIEXEC_FLAGS) -n 1 "$(1)/bin/h5perf" --version </dev/null >"$$vf"); \
	ver=$$(head -n 1 "$$vf" | tr -d '\000'); nul=$$(tr -cd '\000' <"$$vf" | wc -c); rm -f "$$vf"; \
	case "$$ver" in "h5perf $(VERSION) "*) ;; \
	  *) echo "c-test: FAIL installed bin/h5perf --version: $$ver"; exit 1;; esac; \
	if [ "$$nul" -ne 0 ]; then echo "c-test: FAIL bin/h5perf --version prints $$nul NUL bytes"; exit 1; fi; \
	echo "c-test: PASS installed bin/h5perf --version"
endef

# The static library's native dependencies as rustc reports them for a staticlib
# (e.g. -lhdf5 -lmpi -lgcc_s -lutil -lrt -lpthread -lm -ldl -lc). This also (re)builds
# libh5perf.a from the current sources.
install: build
	@log=$$(mktemp); trap 'rm -f "$$log"' EXIT; \
	if ! $(CARGO) rustc --release --lib --crate-type staticlib -- --print native-static-libs >"$$log" 2>&1; then \
	  cat "$$log"; echo "install: building libh5perf.a failed"; exit 1; fi; \
	native=$$(sed -n 's/^note: native-static-libs: //p' "$$log" | tail -n 1); \
	if [ -z "$$native" ]; then cat "$$log"; \
	  echo "install: rustc did not print the native libraries of libh5perf.a"; exit 1; fi; \
	mpi_cflags=$$($(MPI_CFLAGS_CMD)); \
	mpi_libs=$$($(MPI_LIBS_CMD)); \
	rest=""; \
	for w in $$native; do \
	  case " -lhdf5 $$mpi_libs $$rest " in *" $$w "*) ;; *) rest="$$rest $$w";; esac; \
	done; \
	d="$(DESTDIR)$(PREFIX)"; \
	install -d "$$d/bin" "$$d/lib/pkgconfig" "$$d/include" "$$d/share/man/man1"; \
	install -m 755 "$(BIN)" "$$d/bin/h5perf"; \
	install -m 644 "$(STATICLIB)" "$$d/lib/libh5perf.a"; \
	strip --strip-debug "$$d/lib/libh5perf.a"; \
	install -m 644 include/h5perf.h "$$d/include/h5perf.h"; \
	install -m 644 man/h5perf.1 "$$d/share/man/man1/h5perf.1"; \
	sed -e "s|@PREFIX@|$(PREFIX)|g" -e "s|@VERSION@|$(VERSION)|g" -e "s|@MPI@|$(MPI)|g" \
	    -e "s|@MPI_CFLAGS@|$$mpi_cflags|g" -e "s|@HDF5_CFLAGS@|-I$(HDF5_DIR)/include|g" -e "s|@HDF5_LIBS@|-L$(HDF5_DIR)/lib -lhdf5|g" \
	    -e "s|@MPI_LIBS@|$$mpi_libs|g" -e "s|@NATIVE_LIBS@|$${rest# }|g" \
	    h5perf.pc.in >"$$log"; \
	install -m 644 "$$log" "$$d/lib/pkgconfig/h5perf.pc"; \
	echo "install: $(INSTALLED_FILES) -> $$d ($(MPI))"

uninstall:
	@d="$(DESTDIR)$(PREFIX)"; \
	n=0; for f in $(INSTALLED_FILES); do \
	  if [ -e "$$d/$$f" ] || [ -L "$$d/$$f" ]; then rm -f "$$d/$$f"; n=$$((n + 1)); fi; \
	done; \
	echo "uninstall: removed $$n of the installed files ($(INSTALLED_FILES)) from $$d"

# The instructions per transfer of h5perf's timed loop for POSIX, MPI-IO and PHDF5 and
# of the plainest C loop (bench/instr: deterministic, goals there), h5perf's POSIX raw
# throughput against that C loop (bench/run: goals and knobs there), its storage
# options against dd on this machine's disk (bench/storage), then the cost of gathering
# every rank's times after each iteration at 1-4 ranks (bench/gather). Not part of
# `make test`: timing needs a quiet machine. Every part runs; the status is that of the
# first failure.
bench: build
	@rc=0; \
	MPIEXEC="$(MPIEXEC)" MPIEXEC_FLAGS="$(MPIEXEC_FLAGS)" bench/instr "$(BIN)" || rc=$$?; \
	MPIEXEC="$(MPIEXEC)" MPIEXEC_FLAGS="$(MPIEXEC_FLAGS)" bench/run "$(BIN)" || { r=$$?; [ $$rc -ne 0 ] || rc=$$r; }; \
	MPIEXEC="$(MPIEXEC)" MPIEXEC_FLAGS="$(MPIEXEC_FLAGS)" bench/storage "$(BIN)" || { r=$$?; [ $$rc -ne 0 ] || rc=$$r; }; \
	MPIEXEC="$(MPIEXEC)" MPIEXEC_FLAGS="$(MPIEXEC_FLAGS)" bench/gather "$(BIN)" || { r=$$?; [ $$rc -ne 0 ] || rc=$$r; }; \
	exit $$rc

bench-instr: build
	@MPIEXEC="$(MPIEXEC)" MPIEXEC_FLAGS="$(MPIEXEC_FLAGS)" bench/instr "$(BIN)"

clean:
	$(CARGO) clean
