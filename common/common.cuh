// common.cuh - the toolbox every step program shares; one small header per concern, each
// readable on its own:
//   errors.cuh     exit codes; CUDA_CHECK, CUBLAS_CHECK, CURAND_CHECK; usage_error (exit 2)
//   launch.h       ceil_div, CUDA's grid limits and the SKIP reason when a size exceeds them
//   cli.h          Options and parse_options: the command line every step takes
//   data.h         fill_normal / fill_uniform: cuRAND's Philox run on the host, same data anywhere
//   gpu.cuh        the device, the code this build runs on it, measured bandwidth, nominal peaks
//   buffers.cuh    DeviceBuffer, poison patterns, memory-fit check, cold-L2 rotation of inputs
//   timing.cuh     CUDA events around graph replays: median and minimum
//   check.h        NaN-safe check_close, byte-exact check_bytes
//   report.h       the table and the CSV
//   driver.cuh     evaluate_kernel: gate, poison, run, check, time -> one table row
// Device helpers that kernels share live apart (warp_reduce.cuh), included by the kernels.
#pragma once

#include "buffers.cuh"
#include "check.h"
#include "cli.h"
#include "data.h"
#include "driver.cuh"
#include "errors.cuh"
#include "gpu.cuh"
#include "launch.h"
#include "report.h"
#include "timing.cuh"
