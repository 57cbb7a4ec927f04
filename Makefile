# hashlab: the user's entry points. `make test` and `make reproduce-all` each work from a fresh
# clone as one command: they check (and install) what the build needs first.
#
#   make                    configure + build into build/
#   make test               build, then every test (GPU tests skip, visibly, without a GPU)
#   make reproduce-all      every paper's experiments (quick profile), plots, report; FULL=1 for papers' sizes
#   make reproduce-<module> one module's experiments and plots (`build/hashlab list` names them: baselines,
#                           cuckoo, ..., compare)
#   make plots              figures from results/ (without results of your own: the committed reference
#                           results' figures, drawn under results/reference_figures/)
#   make report             results/report.md from results/ (or from the committed reference results)
#   make deps               check for / install the toolchain and libraries
#   make tpch-data SF=1     TPC-H lineitem and orders as .npy columns under data/tpch/sf<SF> (tpchgen-cli)
#   make clean              remove build/
#
# Variables: CUDA_ARCH (default: the present GPU's compute capability, else 90), BUILD_DIR,
# JOBS, FULL=1, STRICT=1 (a point that does not fit this machine's memory fails the run), RESUME=1
# (keep the experiments an earlier run of the same revision and options finished in OUT: an
# interrupted FULL run goes on where it stopped), OUT (results directory, default results; set it on make's command line:
# `make reproduce-all OUT=dir`. An OUT in the environment is ignored, because the name is
# common enough that a shell or a job runner may have set it for something else).

BUILD_DIR ?= build
JOBS      ?= $(shell nproc 2>/dev/null || echo 2)
OUT       := results
PYTHON    ?= python3
# The present GPU's architecture (e.g. 90 for an H100), else Hopper: one architecture per build.
CUDA_ARCH ?= $(shell nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n1 | tr -d ' .' | grep -E '^[0-9]+$$' || echo 90)
CMAKE_ARGS ?=
PROFILE   := $(if $(FULL),--full,--quick)
HASHLAB   := $(BUILD_DIR)/hashlab

.PHONY: all deps configure build test reproduce-all plots report clean

all: build

deps:
	@scripts/deps.sh

$(BUILD_DIR)/CMakeCache.txt:
	cmake -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=$(CUDA_ARCH) $(CMAKE_ARGS)

configure: $(BUILD_DIR)/CMakeCache.txt

build: configure
	cmake --build $(BUILD_DIR) -j $(JOBS)

test: deps
	@$(MAKE) --no-print-directory build
	@scripts/gpu_status.sh
	@# One ctest run, in parallel, so that its summary is the whole suite's. The suites that must
	@# not share the GPU (*Large: GBs of device memory; *Exclusive: the device's free memory or
	@# rates) carry RUN_SERIAL (cmake/hashlab.cmake): ctest runs each alone.
	ctest --test-dir $(BUILD_DIR) --output-on-failure -j $(JOBS)

reproduce-all: deps
	@$(MAKE) --no-print-directory build
	STRICT=$(STRICT) RESUME=$(RESUME) scripts/reproduce.sh $(HASHLAB) $(OUT) all $(PROFILE)

# Any module the build registers (hashlab says which it knows when the name is not one of them).
reproduce-%: deps
	@$(MAKE) --no-print-directory build
	STRICT=$(STRICT) RESUME=$(RESUME) scripts/reproduce.sh $(HASHLAB) $(OUT) $* $(PROFILE)

plots:
	$(PYTHON) plots/make_plots.py --results $(OUT)

report:
	$(PYTHON) plots/report.py --results $(OUT)

# Needs no build: scripts/tpch.py says how to get tpchgen-cli when it is missing.
SF ?= 1
.PHONY: tpch-data
tpch-data:
	$(PYTHON) scripts/tpch.py --sf $(SF) --out data/tpch

clean:
	rm -rf $(BUILD_DIR)
