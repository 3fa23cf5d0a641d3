// Build-wide definitions: the host/device marker. (The fields' precision is a template
// parameter R of the numerics, chosen per run by the case: model/flow_simulation.hpp.)
#pragma once

#include <cstddef>

#if defined(__CUDACC__)
#define BOUSS_HD __host__ __device__
#else
#define BOUSS_HD
#endif

// Unroll a short fixed-count loop (the compilers spell it differently).
#if defined(__CUDACC__)
#define BOUSS_UNROLL _Pragma("unroll")
#elif defined(__GNUC__)
#define BOUSS_UNROLL _Pragma("GCC unroll 8")
#else
#define BOUSS_UNROLL
#endif

