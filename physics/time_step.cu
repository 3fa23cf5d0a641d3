// Compiled as CUDA when the build has it (see CMakeLists.txt).
#include "physics/time_step.hpp"

#include "grid/for_each.hpp"

namespace bouss {

void plan_step_on(const Backend& backend, StepClock* clock, const StepLimits& limits, const double* rate) {
  const StepLimits lim = limits;
  for_each(backend, Box{{0, 0, 0}, {1, 1, 1}}, [=] BOUSS_HD(int, int, int) { plan_step(*clock, lim, *rate); },
           "plan_step");
}

}  // namespace bouss
