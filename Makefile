# ftcoll — two commands do all set-up on a fresh Debian 12 machine:
#
#   make test   installs what is missing, builds, runs the whole test suite
#               (Debian's MPICH first, then ULFM Open MPI: unit, MPI,
#               sanitizer and valgrind tests), ending with ctest's summary
#   make run    installs what is missing, builds, runs the main job: three
#               unmodified MPI programs under ftcrun on $(RANKS) ranks while
#               ranks are killed, with ftcrun's summary; then the
#               fault-tolerant allreduce through ftcoll's API (make run-api)
#   make bench  the benchmarks against native Open MPI (native: back-to-back
#               calls through the PMPI layer, as users time them; allgather,
#               allreduce, allreduce recovery, guard), the layer's overhead (pmpi)
#               and the thesis's broadcast-tree experiments (tree);
#               bench-allgather etc. run one of them
#   make install PREFIX=DIR   installs the library, headers, ftcrun, the
#               CMake package and the pkg-config files under DIR (default
#               /usr/local); the tree may be moved afterwards
#   make package  the Debian package $(BUILD)/ftcoll_<version>_amd64.deb
#               (installs under /usr)
#   make torture  SIGKILLs ranks from outside during back-to-back fault-
#               tolerant allreduce calls, $(TORTURE_JOBS) jobs at p = 2..16,
#               and judges every survivor's results (tests/torture/README.md);
#               `make torture TORTURE_JOBS=1000` runs long (about 2 s a job)
#
# FTCOLL_MPI_PREFIX picks the ULFM Open MPI (built or unpacked there by
# scripts/install-mpi.sh if it holds none); FTCOLL_MPI_TARBALL names a prebuilt one.
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c

FTCOLL_MPI_PREFIX ?= $(HOME)/.cache/ftcoll/openmpi-5.0.7-ulfm
MPI := $(FTCOLL_MPI_PREFIX)
export FTCOLL_MPI_PREFIX
# The ULFM tree is relocatable: these tell it where it lives.
export OPAL_PREFIX := $(MPI)
export PRTE_PREFIX := $(MPI)
export PMIX_PREFIX := $(MPI)
export LD_LIBRARY_PATH := $(MPI)/lib$(if $(LD_LIBRARY_PATH),:$(LD_LIBRARY_PATH))
# Open MPI refuses to start as root without these (containers, CI).
export OMPI_ALLOW_RUN_AS_ROOT := 1
export OMPI_ALLOW_RUN_AS_ROOT_CONFIRM := 1

BUILD ?= build
BUILD_MPICH ?= build-mpich
JOBS ?= $(shell nproc)
RANKS ?= 8
PREFIX ?= /usr/local
# make torture: jobs, and more driver options (e.g. --seed 7 --job 12)
TORTURE_JOBS ?= 100
TORTURE_ARGS ?=

.PHONY: all deps build build-mpich test test-ulfm test-mpich run bench bench-allgather \
        bench-allreduce bench-recovery bench-guard bench-tree bench-native torture install package clean

all: build

deps:
	scripts/install-mpi.sh

build: deps
	cmake -S . -B $(BUILD) -DMPI_C_COMPILER=$(MPI)/bin/mpicc -DMPIEXEC_EXECUTABLE=$(MPI)/bin/mpirun
	cmake --build $(BUILD) -j$(JOBS)

# The same library and MPI tests against Debian's stock MPICH (no ULFM).
build-mpich: deps
	cmake -S . -B $(BUILD_MPICH) -DMPI_C_COMPILER=/usr/bin/mpicc.mpich \
	  -DMPIEXEC_EXECUTABLE=/usr/bin/mpiexec.mpich \
	  -DFTCOLL_SANITIZERS=OFF -DFTCOLL_VALGRIND=OFF -DFTCOLL_BUILD_BENCH=OFF
	cmake --build $(BUILD_MPICH) -j$(JOBS)

test-mpich: build-mpich
	@echo "== ftcoll on Debian's MPICH: MPI tests =="
	cd $(BUILD_MPICH) && ctest --output-on-failure -L mpi

test-ulfm: build
	@echo "== ftcoll on ULFM Open MPI: unit, MPI, sanitizer and valgrind tests =="
	cd $(BUILD) && ctest --output-on-failure

# MPICH first, so that the output ends with the main suite's summary.
test: test-mpich
	$(MAKE) --no-print-directory test-ulfm

# The main demonstration: ftc_allreduce on $(RANKS) ranks while two of them
# are killed mid-call (examples/ft_allreduce_demo.c).
run: build
	@echo "== an unmodified Monte Carlo program; ranks 2 and 5 killed =="
	FTCOLL_MPIRUN_ARGS="--oversubscribe --bind-to none" $(BUILD)/ftcrun -n $(RANKS) \
	  --inject "kill rank=5 call=4 step=0; kill rank=2 call=7 step=1" \
	  -- $(BUILD)/tests/app_monte_carlo 10 20000
	@echo "== an unmodified heat solver (halo exchange, then collectives); rank 3 killed =="
	FTCOLL_MPIRUN_ARGS="--oversubscribe --bind-to none" $(BUILD)/ftcrun -n $(RANKS) \
	  --algorithm allgather=ring --inject "kill rank=3 call=33 step=0" \
	  -- $(BUILD)/tests/app_heat 32 30 5
	@echo "== an unmodified census (every collective ftcoll survives in, each round); ranks 3, 6 and 1 killed, rank 1 entering a scan =="
	FTCOLL_MPIRUN_ARGS="--oversubscribe --bind-to none" $(BUILD)/ftcrun -n $(RANKS) \
	  --inject "kill rank=3 call=20 step=0; kill rank=6 call=34 step=1; kill rank=1 call=57 step=0" \
	  -- $(BUILD)/tests/app_census 20
	$(MAKE) --no-print-directory run-api

# ftc_allreduce through ftcoll's API (examples/ft_allreduce_demo.c).
run-api: build
	$(MPI)/bin/mpirun --with-ft ulfm --oversubscribe --bind-to none -n $(RANKS) \
	  $(BUILD)/ftcoll-demo

# The benchmarks against native Open MPI (results in bench-results/).
bench: bench-native bench-allgather bench-allreduce bench-recovery bench-guard bench-pmpi bench-tree

# As users time collectives: back-to-back calls through the PMPI layer
# against MPI's own in the same run, p = 2 4 8 (CSV and chart in bench-results/).
bench-native: build
	FTCOLL_BENCH_NATIVE=$(BUILD)/bench/ftcoll-bench-native scripts/bench-native.sh

bench-allgather: build
	scripts/bench-allgather.sh $(RANKS) $(BUILD)/bench/ftcoll-bench

bench-allreduce: build
	FTCOLL_BENCH=$(BUILD)/bench/ftcoll-bench scripts/bench-allreduce.sh

bench-recovery: build
	FTCOLL_BENCH=$(BUILD)/bench/ftcoll-bench FTCOLL_BENCH_ARGS="--step 1" \
	  scripts/bench-allreduce-recovery.sh

bench-guard: build
	FTCOLL_BENCH=$(BUILD)/bench/ftcoll-bench scripts/bench-guard.sh

bench-pmpi: build
	FTCOLL_BENCH_PMPI=$(BUILD)/bench/ftcoll-bench-pmpi scripts/bench-pmpi.sh

# The thesis's chapter 4: tree broadcasts on 24 ranks over the emulated
# network of topologies/scenarios/ (results, table and charts in
# bench-results/tree/; TREE_ARGS=--quick for a short check).
bench-tree: build
	scripts/bench-tree.sh --build $(BUILD) $(TREE_ARGS)

# External kills during back-to-back ftc_allreduce / MPI_Allreduce under
# ftcrun (tests/torture/torture.py); failing jobs' logs in $(BUILD)/torture-logs.
torture: build
	python3 tests/torture/torture.py --jobs $(TORTURE_JOBS) --build $(BUILD) \
	  --mpi-prefix $(MPI) --keep-logs $(BUILD)/torture-logs $(TORTURE_ARGS)

# Built with the ULFM Open MPI; `cmake --install build --prefix DIR` is the same.
install: build
	cmake --install $(BUILD) --prefix $(PREFIX)

package: build
	cd $(BUILD) && cpack -G DEB
	@ls $(BUILD)/ftcoll_*_amd64.deb

clean:
	rm -rf $(BUILD) $(BUILD_MPICH)
