// kernel_spec.h - one row of a step's kernel table, the same shape in every step: the kernel's
// name and role, how it is launched, what it reads, the hardware and compiled code it needs, the
// pipe its speed is measured against, and one applicability check.
//
// why_not(case, gpu) says why the kernel cannot run a case on a GPU ("" when it can): the grid's
// limits, a K it cannot tile, the shared memory it would ask for. A kernel whose GPU lacks its
// architecture is ArchNeed's business, not why_not's (driver.cuh gates that first). Each kernel
// header defines its own, next to its launcher, so that a table row names it and nothing adapts it.
#pragma once

#include "cli.h"
#include "gemm_case.h"
#include "gpu.cuh"

#include <string>

using WhyNot = std::string (*)(const GemmCase&, const Gpu&);

// A row's why_not. It has no default, so a table row that leaves it out does not compile (rather
// than calling a null function on the GPU machine).
struct WhyNotCheck {
    WhyNot check;
    WhyNotCheck(WhyNot f) : check(f) {}  // from the function itself: {..., launch, my_kernel_why_not, ...}
    std::string operator()(const GemmCase& c, const Gpu& gpu) const { return check(c, gpu); }
};

// A why_not for kernels that take any shape.
inline std::string runs_any_shape(const GemmCase&, const Gpu&) { return ""; }

// LAUNCH: how the step launches it; READS: the step's description of the inputs it reads (its
// weight format and activation form), from which the step prepares only what its rows read.
template <class LAUNCH, class READS>
struct KernelSpec {
    KernelInfo info;
    LAUNCH launch;
    WhyNotCheck why_not;  // every row names one (runs_any_shape for a kernel that takes any shape)
    READS reads = {};
    ArchNeed arch = {};
    Pipe pipe = Pipe::Fp32;
};
