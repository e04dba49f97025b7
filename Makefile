# Makefile for h5perf (Rust re-implementation of the HDF5 1.10.8 parallel I/O benchmark).
#
# Targets: deps build run test bench clean
# Variables:
#   MPI               MPI flavour (only "openmpi" for now)
#   CARGO_TARGET_DIR  defaults to target/$(MPI): one target directory per MPI flavour,
#                     because mpi-sys does not rerun its build script when the flavour changes
#   NP, RUN_ARGS      number of ranks and h5perf options used by `make run`

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
MPIEXEC ?= mpiexec
MPIEXEC_FLAGS ?= --oversubscribe
# Open MPI launcher environment: we run as root in CI; ranks are oversubscribed on 2 cores.
export OMPI_ALLOW_RUN_AS_ROOT := 1
export OMPI_ALLOW_RUN_AS_ROOT_CONFIRM := 1
export OMPI_MCA_btl_vader_single_copy_mechanism := none
export OMPI_MCA_rmaps_base_oversubscribe := 1
else
$(error unsupported MPI flavour '$(MPI)' (supported: openmpi))
endif

CARGO_TARGET_DIR ?= target/$(MPI)
export CARGO_TARGET_DIR

NP ?= 2
RUN_ARGS ?=
BIN := $(abspath $(CARGO_TARGET_DIR))/release/h5perf

.PHONY: deps build run test bench clean

# Idempotent: only installs the Debian packages that are missing.
deps:
	@missing=""; \
	for p in $(DEB_PACKAGES); do \
	  if ! dpkg -s "$$p" 2>/dev/null | grep -q '^Status: install ok installed'; then \
	    missing="$$missing $$p"; \
	  fi; \
	done; \
	if [ -z "$$missing" ]; then \
	  echo "deps: all required Debian packages are installed ($(DEB_PACKAGES))"; \
	  exit 0; \
	fi; \
	echo "deps: missing Debian packages:$$missing"; \
	if [ "$$(id -u)" -ne 0 ]; then \
	  echo "deps: not root; install them with:"; \
	  echo "  apt-get update && apt-get install -y$$missing"; \
	  exit 1; \
	fi; \
	export DEBIAN_FRONTEND=noninteractive; \
	apt-get update && apt-get install -y$$missing

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

# Every test: unit tests and the MPI integration tests in tests/.
test: deps
	$(CARGO) test --release --no-fail-fast

bench:
	@echo "bench: there are no benchmarks yet"

clean:
	$(CARGO) clean
