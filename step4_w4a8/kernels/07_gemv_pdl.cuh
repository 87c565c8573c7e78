// 07 GEMV with programmatic dependent launch (sm_90): 06, overlapped with the activation quantizer.
//
// Idea: a decode step is two kernels, "quantize the activations" then "GEMV", and the GEMV
// cannot start until the quantizer is done: its launch and its first trip to HBM wait behind the
// quantizer's tail. The weights do not depend on the activations, though. Launched with PDL
// (common/pdl.cuh), the GEMV starts while the quantizer runs, issues its first weight loads, and
// only then waits for the quantizer's output (the same kernel as 06, with PDL = true).
// Improves: the quantizer's time and the GEMV's start-up overlap instead of adding up.
// Limit: still the HBM roofline for the weights; what remains on top is what cannot overlap.
#pragma once

#include "06_gemv_dp4a.cuh"

inline void launch_w4a8_gemv_pdl(const W4A8Args& p, cudaStream_t s) { launch_gemv<true>(p, s); }
