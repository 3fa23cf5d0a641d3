// A double that a kernel reads: either fixed when the kernel is launched, or read from
// backend memory when the kernel runs, written there by an earlier kernel in stream order
// (the time step the device computes from the state check: physics/time_step.hpp
// StepClock). The second kind lets a step be queued, or replayed as a CUDA graph, before
// the host knows its dt. Each thread reads the value and rounds it to its precision itself,
// exactly as the host would have before the launch.
#pragma once

#include "grid/config.hpp"

namespace bouss {

struct KernelScalar {
  double value = 0;
  const double* at = nullptr;  // backend memory; when set, the value is read from here

  KernelScalar(double v) : value(v) {}  // NOLINT: a fixed value wherever a double was passed
  static KernelScalar in(const double* where) {
    KernelScalar s(0);
    s.at = where;
    return s;
  }
  BOUSS_HD double operator()() const { return at ? *at : value; }
};

}  // namespace bouss
