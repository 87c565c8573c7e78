# Thin wrapper around CMake. Everything real lives in CMakeLists.txt.
#   make                    build every step (architecture: CUDA_ARCH, else the visible GPU, else a fallback)
#   make step1              build, then run step 1's lesson   (make step1 ARGS="--m 64 --n 64 --k 64")
#   make run                build, then run every step in order
#   make test               build, then run all tests (GPU tests are skipped without a GPU)
#   make clean              remove the build directory
#   make CUDA_ARCH=sm_90    any of the above for a given architecture (also "75;90")
BUILD_DIR ?= build
CUDA_ARCH ?=
ARGS ?=
JOBS ?= $(shell nproc 2>/dev/null || echo 2)

STEP_SOURCES := $(sort $(wildcard step*_*/step*_*.cu))
STEP_NAMES := $(basename $(notdir $(STEP_SOURCES)))
CMAKE_FLAGS := -DCMAKE_BUILD_TYPE=Release $(if $(CUDA_ARCH),-DCUDA_ARCH="$(CUDA_ARCH)")

.PHONY: all build configure run test clean

all: build

configure:
	cmake -S . -B $(BUILD_DIR) $(CMAKE_FLAGS)

build: configure
	cmake --build $(BUILD_DIR) -j $(JOBS)

# make stepN: the program whose source is stepN_*/stepN_*.cu
step%: build
	./$(BUILD_DIR)/$(basename $(notdir $(wildcard step$*_*/step$*_*.cu))) $(ARGS)

# Exit code 77 (no usable GPU) is a skip, not a failure: the remaining steps still run.
run: build
	@for s in $(STEP_NAMES); do echo "### $$s"; ./$(BUILD_DIR)/$$s $(ARGS); rc=$$?; \
	  if [ $$rc -ne 0 ] && [ $$rc -ne 77 ]; then exit $$rc; fi; done

test: build
	cd $(BUILD_DIR) && ctest --output-on-failure

clean:
	rm -rf $(BUILD_DIR)
