# Thin wrapper around CMake. Everything real lives in CMakeLists.txt.
#   make                    build every step (architecture: CUDA_ARCH, else the visible GPU, else a fallback)
#   make step1              build, then run step 1's lesson   (make step1 ARGS="--m 64 --n 64 --k 64")
#   make run                build, then run every step in order
#   make test               build, then run all tests (GPU tests are skipped without a GPU)
#   make exercise STEP=1 EX=1  build, then run exercise 1 of step 1 beside the kernel it practises
#   make check-headers      for contributors: every header compiles on its own (CI runs it)
#   make clean              remove the build directory
#   make CUDA_ARCH=sm_90    any of the above for a given architecture (also sm_90a, "75;90")
# CUDA_ARCH is passed on every configure, empty when not given: a plain `make` after
# `make CUDA_ARCH=sm_80` builds for the visible GPU again. The configure step prints the choice.
# A program that exits 77 (no usable GPU) is reported as skipped, not as a failure.
SHELL := /bin/bash
BUILD_DIR ?= build
CUDA_ARCH ?=
ARGS ?=
JOBS ?= $(shell nproc 2>/dev/null || echo 2)

STEP_SOURCES := $(sort $(wildcard step*_*/step*_*.cu))
STEP_NAMES := $(basename $(notdir $(STEP_SOURCES)))
STEP_NUMBERS := $(patsubst step%,%,$(foreach s,$(STEP_NAMES),$(firstword $(subst _, ,$(s)))))
CMAKE_FLAGS := -DCMAKE_BUILD_TYPE=Release -DCUDA_ARCH="$(CUDA_ARCH)"

.PHONY: all build configure run test check-headers clean exercise step $(addprefix step,$(STEP_NUMBERS))

all: build

configure:
	cmake -S . -B $(BUILD_DIR) $(CMAKE_FLAGS)

build: configure
	cmake --build $(BUILD_DIR) -j $(JOBS)

# Runs one program; exit 77 (no usable GPU) is a skip.
run_program = ./$(BUILD_DIR)/$(1) $(ARGS); rc=$$?; \
	if [ $$rc -eq 77 ]; then echo "($(1): skipped, no usable GPU)"; elif [ $$rc -ne 0 ]; then exit $$rc; fi

# make stepN: the program whose source is stepN_*/stepN_*.cu
$(addprefix step,$(STEP_NUMBERS)): step%: build
	@$(call run_program,$(basename $(notdir $(wildcard step$*_*/step$*_*.cu))))

step%:
	@echo "make: there is no step $*; the steps are: $(addprefix step,$(STEP_NUMBERS))" >&2; exit 2

step:
	@echo "make: name the step: $(addprefix make step,$(STEP_NUMBERS))" >&2; exit 2

run: build
	@for s in $(STEP_NAMES); do echo "### $$s"; $(call run_program,$$s); done

exercise: build
	@if [ -z "$(STEP)" ] || [ -z "$(EX)" ]; then echo "make: usage: make exercise STEP=1 EX=1" >&2; exit 2; fi
	@prog=$$(basename $$(ls -d step$(STEP)_*/ 2>/dev/null | head -n 1) 2>/dev/null); \
	if [ -z "$$prog" ] || [ ! -x "./$(BUILD_DIR)/$$prog" ]; then echo "make: there is no step $(STEP)" >&2; exit 2; fi; \
	./$(BUILD_DIR)/$$prog --kernel ex$(EX) $(ARGS); rc=$$?; \
	if [ $$rc -eq 77 ]; then echo "($$prog: skipped, no usable GPU: this exercise runs on the GPU; without one, try step 5's: make exercise STEP=5 EX=1)"; \
	elif [ $$rc -ne 0 ]; then exit $$rc; fi

# Tests run JOBS at a time (the GPU's sanitizer runs one at a time, see CMakeLists.txt); the last
# line counts them: passed, failed, and skipped (GPU tests on a machine without one).
test: build
	@cd $(BUILD_DIR) && set -o pipefail && ctest --output-on-failure -j $(JOBS) 2>&1 | tee ctest.log; rc=$$?; \
	awk '/Test +#[0-9]+: /{ if (/ Passed /) p++; else if (/\*\*\*Skipped/) s++; else f++ } \
	     END { printf "%d passed, %d failed, %d skipped\n", p, f, s }' ctest.log; exit $$rc

# For contributors (CI runs it): every header compiles on its own.
check-headers: configure
	cmake --build $(BUILD_DIR) -j $(JOBS) --target header_check

clean:
	rm -rf $(BUILD_DIR)
