// The small Rayleigh-Benard case the executable-level tests run (Ra = 1e5, Pr = 0.71, free-fall
// units, periodic sides, no-slip plates at 1 and 0, noise of amplitude 0.1 on the conduction
// profile, the CPU backend): each test says only its grid, its end and its output.
#pragma once

#include <string>

namespace bouss::test {

// `rest`: the case's keys after "initial" (time, output, checkpoint, ...) as JSON text without
// the enclosing braces, e.g. R"("time": {"steps": 10}, "output": {"file": "run.nc"})".
inline std::string convection_case_json(const std::string& name, const std::string& grid_n, int seed,
                                        const std::string& rest) {
  return R"({
  "name": ")" + name + R"(",
  "grid": {"n": )" + grid_n + R"(, "extent": [[0, 2], [0, 2], [0, 1]]},
  "physics": {"rayleigh": 1e5, "prandtl": 0.71, "units": "free_fall"},
  "boundaries": {"x_lo": "periodic", "x_hi": "periodic", "y_lo": "periodic", "y_hi": "periodic",
                 "z_lo": {"velocity": "no_slip", "temperature": {"fixed": 1}},
                 "z_hi": {"velocity": "no_slip", "temperature": {"fixed": 0}}},
  "initial": {"perturbation": {"amplitude": 0.1, "seed": )" + std::to_string(seed) + R"(}},
  "backend": "cpu",
  )" + rest + R"(
})";
}

}  // namespace bouss::test
