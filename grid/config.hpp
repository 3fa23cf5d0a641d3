// Build-wide definitions: the precision type and the host/device marker.
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

namespace bouss {

// One precision type for all numerics (fp32 arrives with a later issue).
using Real = double;

}  // namespace bouss
