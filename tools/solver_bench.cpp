// bouss bench relax: paper 004's Figure 2, the CPU/GPU crossover of coarse-grid relaxation.
// (bench poisson is bench elliptic's Poisson case: tools/elliptic_bench.cpp.)
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <random>

#include "grid/field_ops.hpp"
#include "config/case.hpp"
#include "io/file_util.hpp"
#include "solver/multigrid/multigrid.hpp"
#include "tools/baselines.hpp"
#include "tools/commands.hpp"
#include "tools/run_support.hpp"

namespace bouss {

int relax_bench(const BenchOptions& o) {
  try {
    for (int n : o.sizes) {
      if (n < 2 || n > 1024)
        throw CaseError("--sizes " + std::to_string(n) + ": expected grid sizes n from 2 to 1024 (n^3 cells)");
      check_grid_shape({n, n, n}, {true, true, false}, "--sizes " + std::to_string(n));
    }
  } catch (const std::exception& e) {
    print_error(e.what());
    return 2;
  }
  configure_logging(o.json);
  const bool cuda = Backend::cuda_available();
  const Backend cpu = Backend::cpu();
  nlohmann::json rows = nlohmann::json::array();
  int crossover = 0;
  if (!o.json)
    spdlog::info("{} red-black relaxations (with ghost fills) of n^3, ms: {}", o.sweeps,
                 cuda ? "CPU | CUDA launches | CUDA graph" : "CPU (no GPU present)");
  try {
    for (int n : o.sizes) {
      nlohmann::json row = {{"n", n}, {"cells", long(n) * n * n}};
      const double t_cpu = time_relaxations(cpu, n, o.sweeps, false);
      row["cpu_ms"] = t_cpu;
      if (cuda) {
        const Backend gpu = Backend::cuda();
        const double t_launch = time_relaxations(gpu, n, o.sweeps, false);
        const double t_graph = time_relaxations(gpu, n, o.sweeps, true);
        row["cuda_ms"] = t_launch;
        row["cuda_graph_ms"] = t_graph;
        if (!crossover && std::min(t_launch, t_graph) < t_cpu) crossover = n;
        if (!o.json) spdlog::info("n = {:4}: {:9.3f} | {:9.3f} | {:9.3f}", n, t_cpu, t_launch, t_graph);
      } else if (!o.json) {
        spdlog::info("n = {:4}: {:9.3f}", n, t_cpu);
      }
      rows.push_back(row);
    }
  } catch (const std::exception& e) {
    print_error(e.what());
    return 1;
  }
  const nlohmann::json out = {{"sweeps", o.sweeps}, {"rows", rows}, {"gpu_faster_from_n", crossover}};
  if (o.json) std::printf("%s\n", out.dump(2).c_str());
  else if (cuda) spdlog::info("the GPU is faster from n = {} ({} cells)", crossover, long(crossover) * crossover * crossover);
  return 0;
}

}  // namespace bouss
