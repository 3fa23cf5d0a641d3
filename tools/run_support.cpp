#include "tools/run_support.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>

namespace bouss {

void configure_logging() { spdlog::set_pattern("[%H:%M:%S] %v"); }

namespace {
const char* units_name(Units u) {
  switch (u) {
    case Units::dimensional: return "dimensional";
    case Units::diffusive: return "diffusive (time H^2/kappa)";
    case Units::free_fall: return "free-fall (time H/U, U = sqrt(alpha g dT H))";
  }
  return "?";
}
}  // namespace

void log_case_summary(const Case& c, const Backend& backend) {
  spdlog::info("bouss {}: case \"{}\" from {}", BOUSS_VERSION, c.name, c.source);
  spdlog::info("grid {} x {} x {} on [{}, {}] x [{}, {}] x [{}, {}]", c.n[0], c.n[1], c.n[2], c.extent[0][0],
               c.extent[0][1], c.extent[1][0], c.extent[1][1], c.extent[2][0], c.extent[2][1]);
  if (c.physics.rayleigh)
    spdlog::info("Ra = {:g}, Pr = {:g} in {} units -> nu = {:.6g}, kappa = {:.6g}, alpha g = {:.6g}",
                 *c.physics.rayleigh, *c.physics.prandtl, units_name(c.physics.units), c.physics.nu,
                 c.physics.kappa, c.physics.buoyancy);
  else
    spdlog::info("nu = {:g}, kappa = {:g}, alpha g = {:g} (dimensional)", c.physics.nu, c.physics.kappa,
                 c.physics.buoyancy);
  spdlog::info("backend {}", backend.describe());
}

void log_solver_summary(const Simulation& sim) {
  const Multigrid& mg = sim.multigrid();
  std::string levels;
  for (int l = 0; l < mg.levels(); ++l) {
    const auto& n = mg.level_grid(l).layout.n;
    levels += (l ? ", " : "") + std::to_string(n[0]) + "x" + std::to_string(n[1]) + "x" + std::to_string(n[2]) +
              (mg.level_on_host(l) && sim.backend().is_cuda() ? " (host)" : "");
  }
  spdlog::info("pressure: multigrid V({},{}) to {:g}, {} levels: {}", mg.options().pre_sweeps,
               mg.options().post_sweeps, sim.config().pressure.tolerance, mg.levels(), levels);
}

double progress_fraction(const Simulation& sim) {
  const Case& c = sim.config();
  double f = 0;
  if (c.time.steps) f = std::max(f, double(sim.steps_done()) / double(*c.time.steps));
  if (c.time.end) f = std::max(f, sim.time() / *c.time.end);
  return std::min(f, 1.0);
}

std::string json_escape(const std::string& s) {
  std::string out;
  for (char ch : s) {
    if (ch == '"' || ch == '\\') out += '\\';
    out += ch;
  }
  return out;
}

}  // namespace bouss
