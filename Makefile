# Makefile for h5perf (Rust re-implementation of the HDF5 1.10.8 parallel I/O benchmark).
#
# Targets:
#   deps            Debian (apt-get present, the Debian configuration): installs the packages
#                   of the MPI flavour that are missing; then, everywhere, checks MPICC,
#                   MPIEXEC, HDF5_DIR and libclang (scripts/check-deps) and says exactly what
#                   is missing. With MPICC, MPIEXEC or HDF5_DIR given (a site build: Spack,
#                   modules, Cray), or without apt-get, it installs nothing and only checks.
#   build           release build (binary, libh5perf.a, libh5perf.so)
#   run             one default run under the flavour's mpiexec
#   test            the layer check (check-layers), cargo tests, then the C tests against an
#                   installed copy (c-test), for each flavour of TEST_FLAVOURS (or MPI=... only);
#                   without MPI=... then also test-hdf5-1.14 and test-hdf5-2
#   test-hdf5-1.14  builds HDF5 1.14.x (parallel, Open MPI) from Debian trixie's source
#                   package into HDF5_CACHE (once; reused), then, as a site build (PATH without
#                   Debian's flavour-specific programs, only MPICC, MPIEXEC and HDF5_DIR
#                   given), builds h5perf against it in target/hdf5-1.14-openmpi, runs the
#                   MPI integration tests of HDF5_114_TESTS and the C tests (make build
#                   install, c_tests/run, the Python ctypes test, make uninstall)
#   test-hdf5-2     the same for HDF5 2.2.x, built with CMake (>= 3.26: PyPI's cmake
#                   when the machine's is older) from the HDF5 source the crates.io
#                   package hdf5-metno-src ships (or HDF5_2_TARBALL), in
#                   target/hdf5-2.2-openmpi, with the tests of HDF5_2_TESTS
#   check-layers    scripts/check-layers: every import of src/ points down the layers, no circle
#   c-test          install into a temporary prefix, build and run c_tests/ under MPI
#                   (1-3 ranks, shared and static library), the Python ctypes test, the C
#                   tests under valgrind (C_TEST_VALGRIND=yes), uninstall, check that nothing
#                   is left
#   test-valgrind   only the valgrind part: the C tests with 1 rank under valgrind, no
#                   definitely lost block or memory error through libh5perf
#   install         PREFIX (default /usr/local), DESTDIR: bin/h5perf, lib/libh5perf.a,
#                   lib/libh5perf.so.X.Y.Z (soname libh5perf.so.X) with the links
#                   libh5perf.so.X and libh5perf.so, include/h5perf.h, lib/pkgconfig/h5perf.pc,
#                   share/man/man1/h5perf.1
#   uninstall       removes exactly those eight files
#   bench           h5perf's timed-loop instructions per transfer (callgrind, bench/instr),
#                   its timed-loop overhead against a plain C pwrite/pread loop,
#                   its storage options (--fsync, --direct, --drop-caches) against dd,
#                   and the payloads on a compressing file system (bench-payload)
#   bench-instr     only the instruction counts (deterministic, valgrind; about 30 s);
#                   BENCH_INSTR_ARGS="--payload=incompressible --seed=1" adds options
#   bench-payload   only the payloads on btrfs (compress-force=zstd, a loop device the
#                   bench makes and removes; root): bytes on disk and write throughput of
#                   the default payload, incompressible and compress=50
#   clean
# Variables:
#   MPI               MPI flavour: openmpi (default) or mpich. In a site build it is found
#                     from MPICC (an Open MPI wrapper answers --showme:version; anything else
#                     is taken as MPICH-like: MPICH, Intel MPI, MVAPICH)
#   MPICC, MPIEXEC    the MPI C compiler wrapper and launcher (Debian: mpicc.openmpi,
#                     mpiexec.openmpi / mpicc.mpich, mpiexec.mpich)
#   MPIEXEC_FLAGS     launcher flags before -n (Open MPI: --oversubscribe)
#   HDF5_DIR          the parallel HDF5 prefix (Debian: the flavour's directory under
#                     /usr/lib/x86_64-linux-gnu/hdf5); unset in a site build: the
#                     "Installation point" of `h5pcc -showconfig`, else `pkg-config
#                     --variable=prefix hdf5`
#   CARGO_TARGET_DIR  defaults to target/$(MPI) (target/site-$(MPI) in a site build): one
#                     target directory per MPI flavour, because mpi-sys does not rerun its
#                     build script when the flavour changes
#   HDF5_CACHE        where test-hdf5-1.14 keeps its HDF5 build (default ~/.cache/h5perf)
#   HDF5_TARBALL      an HDF5 1.14 release tarball to build from instead of Debian's source
#   HDF5_2_TARBALL    an HDF5 2.2 release tarball to build from instead of hdf5-metno-src's
#   NP, RUN_ARGS      number of ranks and h5perf options used by `make run`
#   PREFIX, DESTDIR   where `make install` / `make uninstall` work
#
# Every Debian MPI program is named by flavour (mpicc.openmpi, mpiexec.openmpi): Debian's
# plain mpicc/mpiexec/mpi.h follow the alternatives system and may point at another flavour.

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := build

# Was variable $(1) given by the user (environment or command line) rather than this file?
given = $(filter environment command,$(firstword $(origin $(1))))
# A site build: MPICC, MPIEXEC or HDF5_DIR given. Nothing is installed then. (A make
# started by this Makefile in the Debian configuration inherits those three exported, and
# H5PERF_DEBIAN_CONFIG, which keeps it in the Debian configuration.)
SITE := $(if $(H5PERF_DEBIAN_CONFIG),,$(strip $(call given,MPICC)$(call given,MPIEXEC)$(call given,HDF5_DIR)))
MPI_GIVEN := $(call given,MPI)
APT_GET := $(shell command -v apt-get 2>/dev/null)

ifeq ($(MPI_GIVEN),)
  ifneq ($(call given,MPICC),)
    MPI := $(shell $(MPICC) --showme:version >/dev/null 2>&1 && echo openmpi || echo mpich)
  else
    MPI := openmpi
  endif
endif

# cargo may not be on PATH in CI.
CARGO_BIN_DIR := $(if $(CARGO_HOME),$(CARGO_HOME)/bin,$(HOME)/.cargo/bin)
export PATH := $(CARGO_BIN_DIR):$(PATH)
CARGO ?= cargo

ifeq ($(MPI),openmpi)
DEB_MPICC := mpicc.openmpi
DEB_MPIEXEC := mpiexec.openmpi
DEB_HDF5_DIR := /usr/lib/x86_64-linux-gnu/hdf5/openmpi
DEB_PACKAGES := libhdf5-openmpi-dev libopenmpi-dev openmpi-bin libclang-dev pkg-config hdf5-tools
MPIEXEC_FLAGS ?= --oversubscribe
# Compile and link flags of the flavour's MPI (for h5perf.pc).
MPI_CFLAGS_CMD = $(MPICC) --showme:compile
MPI_LIBS_CMD = $(MPICC) --showme:link
# Open MPI launcher environment: we run as root in CI; ranks are oversubscribed on 2 cores.
export OMPI_ALLOW_RUN_AS_ROOT := 1
export OMPI_ALLOW_RUN_AS_ROOT_CONFIRM := 1
export OMPI_MCA_btl_vader_single_copy_mechanism := none
export OMPI_MCA_rmaps_base_oversubscribe := 1
else ifeq ($(MPI),mpich)
DEB_MPICC := mpicc.mpich
DEB_MPIEXEC := mpiexec.mpich
DEB_HDF5_DIR := /usr/lib/x86_64-linux-gnu/hdf5/mpich
DEB_PACKAGES := libhdf5-mpich-dev libmpich-dev mpich libclang-dev pkg-config hdf5-tools
# hydra oversubscribes by default and refuses --oversubscribe
MPIEXEC_FLAGS ?=
# `mpicc -show` prints the whole compiler command line (MPICH, Intel MPI, MVAPICH).
MPI_CFLAGS_CMD = $(MPICC) -show | tr ' ' '\n' | grep -E '^-[ID]' | tr '\n' ' '
MPI_LIBS_CMD = $(MPICC) -show | tr ' ' '\n' | grep -E '^-(L|l|Wl,)' | tr '\n' ' '
else
$(error unsupported MPI flavour '$(MPI)' (supported: openmpi, mpich))
endif

MPICC ?= $(DEB_MPICC)
MPIEXEC ?= $(DEB_MPIEXEC)
# HDF5_DIR: given; else Debian's directory of the flavour (Debian configuration on a
# machine with apt-get or with that directory); else what h5pcc or pkg-config name.
ifeq ($(strip $(HDF5_DIR)),)
  ifneq ($(SITE)$(if $(APT_GET)$(wildcard $(DEB_HDF5_DIR)/include/hdf5.h),,none),)
    HDF5_DIR := $(strip $(shell h5pcc -showconfig 2>/dev/null | sed -n 's/^ *Installation point: *//p'))
    ifeq ($(HDF5_DIR),)
      HDF5_DIR := $(strip $(shell pkg-config --variable=prefix hdf5 2>/dev/null))
    endif
  else
    HDF5_DIR := $(DEB_HDF5_DIR)
  endif
endif
export MPICC MPIEXEC HDF5_DIR
ifeq ($(SITE),)
export H5PERF_DEBIAN_CONFIG := 1
endif


# Tools the tests use besides the build dependencies (chromium: the HTML page in a real
# browser; libxml2-utils and w3c-sgml-lib: xmllint and the SVG 1.1 DTD, tests/acceptance.rs;
# passwd: useradd, for the unprivileged test user of tests/data_files.rs; util-linux:
# setpriv, prlimit, losetup; python3: the ctypes test of libh5perf.so; zstd, gzip,
# btrfs-progs and btrfs-compsize: the payload's compression, tests/payload.rs and
# bench/payload; slurm-wlm and munge: Slurm on the simulated nodes, tests/slurm.rs and
# scripts/sim-slurm, which run their own daemons in the nodes and never the machine's
# services); glusterfs-server and glusterfs-client: GlusterFS on the simulated nodes,
# scripts/sim-gluster (the same: its own daemons, in the nodes).
TEST_PACKAGES := valgrind man-db groff-base iproute2 util-linux strace chromium libxml2-utils w3c-sgml-lib passwd python3 zstd gzip btrfs-progs btrfs-compsize slurm-wlm munge glusterfs-server glusterfs-client

# The flavours `make test` runs when no MPI=... is given (CI runs `make test`): both,
# one after the other, each against its own HDF5 (libhdf5-openmpi-dev, libhdf5-mpich-dev),
# then test-hdf5-1.14.
TEST_FLAVOURS ?= openmpi mpich

# The test harness (tests/common/mod.rs) and c_tests/run take the launcher from here.
export H5PERF_MPI := $(MPI)
export H5PERF_MPIEXEC := $(MPIEXEC)
export H5PERF_MPIEXEC_FLAGS := $(MPIEXEC_FLAGS)

CARGO_TARGET_DIR ?= target/$(if $(SITE),site-)$(MPI)
export CARGO_TARGET_DIR

NP ?= 2
RUN_ARGS ?=
BIN := $(abspath $(CARGO_TARGET_DIR))/release/h5perf
STATICLIB := $(abspath $(CARGO_TARGET_DIR))/release/libh5perf.a
SHAREDLIB := $(abspath $(CARGO_TARGET_DIR))/release/libh5perf.so

PREFIX ?= /usr/local
DESTDIR ?=
VERSION := $(shell sed -n 's/^version *= *"\(.*\)"/\1/p' Cargo.toml | head -n 1)
# The shared library: real file libh5perf.so.VERSION, soname libh5perf.so.MAJOR (build.rs).
SOMAJOR := $(firstword $(subst ., ,$(VERSION)))
SONAME := libh5perf.so.$(SOMAJOR)
SOFILE := libh5perf.so.$(VERSION)
# The files `make install` writes, relative to PREFIX (`make uninstall` removes these).
INSTALLED_FILES := bin/h5perf include/h5perf.h lib/libh5perf.a lib/$(SOFILE) lib/$(SONAME) \
                   lib/libh5perf.so lib/pkgconfig/h5perf.pc share/man/man1/h5perf.1

# test-hdf5-1.14: the HDF5 cache, the flavour, the target directory, the integration
# tests it runs and the C test programs it leaves out. To keep CI short it runs the tests
# whose expectations depend on the HDF5 release: the golden transcripts and the report
# (the version line), the error paths, the fill tables and the JSON/CSV export (its
# hdf5_version), and --subfiling (the subfiling driver both builds have); the C tests but parse (which checks the command-line parser against the
# setters, nothing of HDF5). `make test-site HDF5_114_TESTS="$(ls tests/*.rs ...)"` runs
# more by hand (every test file passed against 1.14.5, see README).
HDF5_CACHE ?= $(if $(XDG_CACHE_HOME),$(XDG_CACHE_HOME),$(HOME)/.cache)/h5perf
HDF5_114_FLAVOUR := openmpi
HDF5_114_TARGET := target/hdf5-1.14-$(HDF5_114_FLAVOUR)
# The site environment of test-hdf5-1.14 (scripts/site-env), at a fixed path.
HDF5_114_SITE := $(abspath $(HDF5_114_TARGET))/site-env
HDF5_114_TESTS ?= golden errors fill export subfiling
HDF5_114_C_SKIP ?= parse
# test-hdf5-2: the same for HDF5 2.x (HDF5_2_SERIES), built with CMake (scripts/build-hdf5)
# from HDF5_2_TARBALL when given, else from the source that the crates.io package
# hdf5-metno-src ships; the same tests as test-hdf5-1.14.
HDF5_2_SERIES := 2.2
HDF5_2_TARGET := target/hdf5-$(HDF5_2_SERIES)-$(HDF5_114_FLAVOUR)
HDF5_2_SITE := $(abspath $(HDF5_2_TARGET))/site-env
HDF5_2_TESTS ?= $(HDF5_114_TESTS)
HDF5_2_C_SKIP ?= $(HDF5_114_C_SKIP)
HDF5_2_TARBALL ?=
# C_TEST_VALGRIND=no leaves out the valgrind part of c-test (test-hdf5-1.14 does; it says so).
C_TEST_VALGRIND ?= yes

.PHONY: deps test-deps build run test test-hdf5-1.14 test-hdf5-1.14-build test-hdf5-2 test-hdf5-2-build test-site test-site-build check-layers c-test test-valgrind install uninstall bench bench-instr bench-payload bench-deps clean

# Debian's packages are installed only in the Debian configuration (no MPICC, MPIEXEC
# or HDF5_DIR given) on a machine with apt-get.
DEBIAN_INSTALL := $(if $(SITE),,$(APT_GET))

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
ifneq ($(DEBIAN_INSTALL),)
	$(call apt_install_missing,$(DEB_PACKAGES))
else
	@echo "deps: $(if $(SITE),a site build (MPICC/MPIEXEC/HDF5_DIR given),no apt-get here): installing nothing, checking"
endif
	@CARGO="$(CARGO)" scripts/check-deps

# The test tools: installed with apt-get in the Debian configuration, else checked.
TEST_TOOLS := valgrind strace man python3 ldd readelf pkg-config setsid zstd gzip mkfs.btrfs compsize losetup
test-deps: deps
ifneq ($(DEBIAN_INSTALL),)
	$(call apt_install_missing,$(TEST_PACKAGES))
else
	@missing=""; for t in $(TEST_TOOLS); do command -v "$$t" >/dev/null || missing="$$missing $$t"; done; \
	if [ -n "$$missing" ]; then echo "test-deps: MISSING programs the tests use:$$missing" >&2; exit 1; fi; \
	echo "test-deps: ok: $(TEST_TOOLS)"
endif

build: deps
	$(CARGO) build --release --lib --bin h5perf

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
# against an installed copy. Without MPI=... (command line or environment) and without
# MPICC/MPIEXEC/HDF5_DIR, `make test` runs this for every flavour of TEST_FLAVOURS, one
# after the other, each in its own target directory (target/<flavour>), then
# test-hdf5-1.14; with MPI=... (or a site build) only for that configuration.
check-layers:
	@scripts/check-layers --self-test
	@scripts/check-layers

# The variables a flavour's make exports, removed before another flavour's make starts.
CONFIG_VARS := CARGO_TARGET_DIR MPICC MPIEXEC HDF5_DIR H5PERF_MPI H5PERF_MPIEXEC \
               H5PERF_MPIEXEC_FLAGS H5PERF_DEBIAN_CONFIG
unset_config := env $(foreach v,$(CONFIG_VARS),-u $(v))

ifeq ($(MPI_GIVEN)$(SITE),)
# The HDF5 1.14 and 2.x builds and h5perf's compilation against each (test-hdf5-1.14-build,
# then test-hdf5-2-build) run in the background, at the lowest priority (nice 19), while the Debian flavours' tests
# run: those wait on launchers and I/O more than they compute (about 40% of the two
# cores used), so the build costs little of the wall time. Its output is shown when it
# ends; test-hdf5-1.14 and test-hdf5-2 then find the cached HDF5 and the compiled tests. The packages
# of every flavour are installed first, so no apt-get runs beside the build. The build
# runs in its own process group (setsid): when a flavour fails, the whole build is
# stopped and its log removed.
test: check-layers
	@for f in $(sort $(TEST_FLAVOURS) $(HDF5_114_FLAVOUR)); do \
	  $(unset_config) $(MAKE) --no-print-directory test-deps MPI=$$f; \
	done; \
	bglog=$$(mktemp "$${TMPDIR:-/tmp}/h5perf-hdf5-build.XXXXXX"); \
	setsid bash -c 'nice -n 19 "$$@" >"$$0" 2>&1; echo $$? >"$$0.rc"' "$$bglog" \
	  $(unset_config) $(MAKE) --no-print-directory test-hdf5-1.14-build test-hdf5-2-build & \
	bg=$$!; \
	trap 'kill -- -$$bg 2>/dev/null || true; wait $$bg 2>/dev/null || true; rm -f "$$bglog" "$$bglog.rc"' EXIT; \
	echo "make test: building HDF5 1.14 and $(HDF5_2_SERIES), and h5perf against each, in the background (log: $$bglog)"; \
	for f in $(TEST_FLAVOURS); do \
	  echo "make test: MPI flavour $$f"; \
	  $(unset_config) $(MAKE) --no-print-directory test MPI=$$f || exit 1; \
	done; \
	echo "make test: all flavours passed ($(TEST_FLAVOURS))"; \
	wait $$bg || true; \
	echo "make test: the background builds of HDF5 1.14 and $(HDF5_2_SERIES) ended:"; \
	tail -n 40 "$$bglog"; \
	[ "$$(cat "$$bglog.rc" 2>/dev/null)" = 0 ] || { echo "make test: FAIL the HDF5 builds (test-hdf5-1.14-build test-hdf5-2-build)"; exit 1; }; \
	$(unset_config) $(MAKE) --no-print-directory test-hdf5-1.14; \
	$(unset_config) $(MAKE) --no-print-directory test-hdf5-2; \
	echo "make test: all flavours, HDF5 1.14 and HDF5 $(HDF5_2_SERIES) passed"
else
test: check-layers test-deps
	$(CARGO) test --release --no-fail-fast
	@$(MAKE) --no-print-directory c-test
endif

# HDF5 1.14 from source, then h5perf built and tested against it as a site would: PATH
# holds no Debian flavour-specific program (scripts/site-env: no *.openmpi, *.mpich,
# mpicc, mpiexec, h5pcc, apt-get or dpkg), and MPICC, MPIEXEC and HDF5_DIR are the only
# configuration given (an Open MPI wrapper and launcher under plain names, the cached
# HDF5 prefix). test-deps first installs, in the Debian configuration, what the build
# of HDF5 and the tests need on a fresh machine. The site environment lives in the
# target directory at a fixed path (HDF5_114_SITE), so the compilation of
# test-hdf5-1.14-build is reused by test-hdf5-1.14 (same MPICC, PATH and HDF5_DIR).
# $(1): the make target run in that environment (test-site or test-site-build); $(2): the
# HDF5 series (1.14 or $(HDF5_2_SERIES)); $(3), $(4), $(5), $(6): its target directory, site
# environment, integration tests and C tests left out; $(7): HDF5_TARBALL for 2.x (1.14
# takes HDF5_TARBALL from the environment or the command line).
define in_site_env
	@start=$$SECONDS; \
	$(unset_config) $(MAKE) --no-print-directory test-deps MPI=$(HDF5_114_FLAVOUR); \
	prefix=$$(MPICC=$(if $(filter openmpi,$(HDF5_114_FLAVOUR)),mpicc.openmpi,mpicc.mpich) \
	  $(if $(filter 1.14,$(2)),,HDF5_TARBALL="$(7)") \
	  HDF5_SERIES=$(2) scripts/build-hdf5 "$(HDF5_CACHE)" $(HDF5_114_FLAVOUR) | tail -n 1); \
	built=$$SECONDS; \
	site="$(4)"; \
	rm -rf "$$site"; mkdir -p "$$site"; \
	scripts/site-env "$$site" $(HDF5_114_FLAVOUR); \
	echo "$@: HDF5 in $$prefix, PATH=$$site/bin:$(CARGO_BIN_DIR), MPICC=$$site/mpi/bin/mpicc MPIEXEC=$$site/mpi/bin/mpiexec"; \
	$(unset_config) PATH="$$site/bin:$(CARGO_BIN_DIR)" MPICC="$$site/mpi/bin/mpicc" \
	  MPIEXEC="$$site/mpi/bin/mpiexec" HDF5_DIR="$$prefix" \
	  C_TEST_SKIP="$(6)" \
	  "$$site/bin/make" --no-print-directory $(1) CARGO_TARGET_DIR=$(3) \
	  C_TEST_VALGRIND=no HDF5_114_TESTS="$(5)"; \
	echo "$@: passed in $$((SECONDS - start)) s (HDF5 build or cache $$((built - start)) s)"
endef

test-hdf5-1.14:
	$(call in_site_env,test-site,1.14,$(HDF5_114_TARGET),$(HDF5_114_SITE),$(HDF5_114_TESTS),$(HDF5_114_C_SKIP))

# Only the builds of test-hdf5-1.14: HDF5 into the cache, h5perf and its tests against
# it (compiled, not run).
test-hdf5-1.14-build:
	$(call in_site_env,test-site-build,1.14,$(HDF5_114_TARGET),$(HDF5_114_SITE),$(HDF5_114_TESTS),$(HDF5_114_C_SKIP))

# The same for HDF5 2.x: built with CMake into HDF5_CACHE/hdf5-$(HDF5_2_SERIES)-openmpi,
# h5perf in $(HDF5_2_TARGET), the tests of HDF5_2_TESTS and c-test.
test-hdf5-2:
	$(call in_site_env,test-site,$(HDF5_2_SERIES),$(HDF5_2_TARGET),$(HDF5_2_SITE),$(HDF5_2_TESTS),$(HDF5_2_C_SKIP),$(HDF5_2_TARBALL))

test-hdf5-2-build:
	$(call in_site_env,test-site-build,$(HDF5_2_SERIES),$(HDF5_2_TARGET),$(HDF5_2_SITE),$(HDF5_2_TESTS),$(HDF5_2_C_SKIP),$(HDF5_2_TARBALL))

# The tests of test-hdf5-1.14 in a site build (MPICC, MPIEXEC, HDF5_DIR given): the
# integration tests of HDF5_114_TESTS, then c-test (make install, the C and Python tests,
# make uninstall).
test-site: check-layers test-deps
	@if [ -z "$(SITE)" ]; then echo "test-site: give MPICC, MPIEXEC and HDF5_DIR (a site build)" >&2; exit 1; fi
	$(CARGO) test --release --no-fail-fast $(foreach t,$(HDF5_114_TESTS),--test $(t))
	@$(MAKE) --no-print-directory c-test

# What test-site compiles, without running anything.
test-site-build: test-deps
	@if [ -z "$(SITE)" ]; then echo "test-site-build: give MPICC, MPIEXEC and HDF5_DIR (a site build)" >&2; exit 1; fi
	$(CARGO) build --release --lib --bin h5perf
	$(CARGO) test --release --no-run $(foreach t,$(HDF5_114_TESTS),--test $(t))

# Installs into a temporary prefix, checks the installed file list, the man page and
# the installed program, builds and runs c_tests/ with pkg-config (1-3 ranks, against
# the shared library, and one program against the static one), the Python ctypes test
# (c_tests/ctypes_test.py, 1 and 2 ranks), runs the C tests again under valgrind (1 rank,
# about 40 s; C_TEST_VALGRIND=no leaves that out and says so), uninstalls and checks
# that no file is left.
c-test: build test-deps
	@prefix=$$(mktemp -d "$${TMPDIR:-/tmp}/h5perf-prefix.XXXXXX"); \
	trap 'rm -rf "$$prefix"' EXIT; \
	$(MAKE) --no-print-directory install PREFIX="$$prefix" DESTDIR=; \
	$(call check_installed,$$prefix); \
	export MPIEXEC="$(MPIEXEC)" MPIEXEC_FLAGS="$(MPIEXEC_FLAGS)"; \
	c_tests/run tests "$$prefix"; \
	c_tests/run python "$$prefix"; \
	if [ "$(C_TEST_VALGRIND)" = yes ]; then \
	  C_TEST_TIMEOUT=600 c_tests/run valgrind "$$prefix"; \
	else \
	  echo "c-test: the valgrind part is not run here (C_TEST_VALGRIND=$(C_TEST_VALGRIND))"; \
	fi; \
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
# libh5perf.a from the current sources. HDF5 outside the dynamic loader's directories
# (a site's prefix) gets a run-time path in the static link line, as build.rs gives the
# program and libh5perf.so one.
install: build
	@log=$$(mktemp); trap 'rm -f "$$log"' EXIT; \
	soname=$$(readelf -d "$(SHAREDLIB)" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p'); \
	if [ "$$soname" != "$(SONAME)" ]; then \
	  echo "install: $(SHAREDLIB) has soname '$$soname', expected $(SONAME)"; exit 1; fi; \
	if ! $(CARGO) rustc --release --lib --crate-type staticlib -- --print native-static-libs >"$$log" 2>&1; then \
	  cat "$$log"; echo "install: building libh5perf.a failed"; exit 1; fi; \
	native=$$(sed -n 's/^note: native-static-libs: //p' "$$log" | tail -n 1); \
	if [ -z "$$native" ]; then cat "$$log"; \
	  echo "install: rustc did not print the native libraries of libh5perf.a"; exit 1; fi; \
	mpi_cflags=$$($(MPI_CFLAGS_CMD)); \
	mpi_libs=$$($(MPI_LIBS_CMD)); \
	hdf5_libs="-L$(HDF5_DIR)/lib -lhdf5"; \
	hdf5_home=$$(dirname "$$(readlink -f "$(HDF5_DIR)/lib/libhdf5.so")"); \
	case "$$hdf5_home" in /lib|/lib64|/usr/lib|/usr/lib64|/lib/*-linux-gnu|/usr/lib/*-linux-gnu) ;; \
	  *) hdf5_libs="$$hdf5_libs -Wl,-rpath,$(HDF5_DIR)/lib";; esac; \
	rest=""; \
	for w in $$native; do \
	  case " -lhdf5 $$mpi_libs $$rest " in *" $$w "*) ;; *) rest="$$rest $$w";; esac; \
	done; \
	d="$(DESTDIR)$(PREFIX)"; \
	install -d "$$d/bin" "$$d/lib/pkgconfig" "$$d/include" "$$d/share/man/man1"; \
	install -m 755 "$(BIN)" "$$d/bin/h5perf"; \
	install -m 644 "$(STATICLIB)" "$$d/lib/libh5perf.a"; \
	strip --strip-debug "$$d/lib/libh5perf.a"; \
	install -m 755 "$(SHAREDLIB)" "$$d/lib/$(SOFILE)"; \
	strip --strip-debug "$$d/lib/$(SOFILE)"; \
	ln -sfn "$(SOFILE)" "$$d/lib/$(SONAME)"; \
	ln -sfn "$(SONAME)" "$$d/lib/libh5perf.so"; \
	install -m 644 include/h5perf.h "$$d/include/h5perf.h"; \
	install -m 644 man/h5perf.1 "$$d/share/man/man1/h5perf.1"; \
	sed -e "s|@PREFIX@|$(PREFIX)|g" -e "s|@VERSION@|$(VERSION)|g" -e "s|@MPI@|$(MPI)|g" \
	    -e "s|@HDF5_DIR@|$(HDF5_DIR)|g" \
	    -e "s|@MPI_CFLAGS@|$$mpi_cflags|g" -e "s|@HDF5_CFLAGS@|-I$(HDF5_DIR)/include|g" -e "s|@HDF5_LIBS@|$$hdf5_libs|g" \
	    -e "s|@MPI_LIBS@|$$mpi_libs|g" -e "s|@NATIVE_LIBS@|$${rest# }|g" \
	    h5perf.pc.in >"$$log"; \
	install -m 644 "$$log" "$$d/lib/pkgconfig/h5perf.pc"; \
	echo "install: $(INSTALLED_FILES) -> $$d ($(MPI), HDF5 $(HDF5_DIR))"

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
# every rank's times after each iteration at 1-4 ranks (bench/gather), then the on-disk
# size and write throughput of each --payload on btrfs with compress-force=zstd
# (bench/payload, also alone: bench-payload). Not part of
# `make test`: timing needs a quiet machine. Every part runs; the status is that of the
# first failure.
bench: build bench-deps
	@rc=0; \
	MPIEXEC="$(MPIEXEC)" MPIEXEC_FLAGS="$(MPIEXEC_FLAGS)" bench/instr "$(BIN)" || rc=$$?; \
	MPIEXEC="$(MPIEXEC)" MPIEXEC_FLAGS="$(MPIEXEC_FLAGS)" bench/run "$(BIN)" || { r=$$?; [ $$rc -ne 0 ] || rc=$$r; }; \
	MPIEXEC="$(MPIEXEC)" MPIEXEC_FLAGS="$(MPIEXEC_FLAGS)" bench/storage "$(BIN)" || { r=$$?; [ $$rc -ne 0 ] || rc=$$r; }; \
	MPIEXEC="$(MPIEXEC)" MPIEXEC_FLAGS="$(MPIEXEC_FLAGS)" bench/gather "$(BIN)" || { r=$$?; [ $$rc -ne 0 ] || rc=$$r; }; \
	MPIEXEC="$(MPIEXEC)" MPIEXEC_FLAGS="$(MPIEXEC_FLAGS)" bench/payload "$(BIN)" || { r=$$?; [ $$rc -ne 0 ] || rc=$$r; }; \
	exit $$rc

# Only the payloads on a compressing file system (bench/payload: btrfs with
# compress-force=zstd on a loop device, made and removed by it; root; about 1 minute).
bench-payload: build bench-deps
	@MPIEXEC="$(MPIEXEC)" MPIEXEC_FLAGS="$(MPIEXEC_FLAGS)" bench/payload "$(BIN)"

# The tools of bench/payload: installed with apt-get in the Debian configuration, else
# checked.
BENCH_PACKAGES := btrfs-progs btrfs-compsize
BENCH_TOOLS := mkfs.btrfs btrfs compsize losetup
bench-deps:
ifneq ($(DEBIAN_INSTALL),)
	$(call apt_install_missing,$(BENCH_PACKAGES))
else
	@missing=""; for t in $(BENCH_TOOLS); do command -v "$$t" >/dev/null || missing="$$missing $$t"; done; \
	if [ -n "$$missing" ]; then echo "bench-deps: MISSING programs bench/payload uses:$$missing" >&2; exit 1; fi; \
	echo "bench-deps: ok: $(BENCH_TOOLS)"
endif

bench-instr: build
	@MPIEXEC="$(MPIEXEC)" MPIEXEC_FLAGS="$(MPIEXEC_FLAGS)" BENCH_INSTR_ARGS="$(BENCH_INSTR_ARGS)" bench/instr "$(BIN)"

clean:
	$(CARGO) clean
