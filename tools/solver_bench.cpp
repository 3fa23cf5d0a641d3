// bouss bench poisson: the pressure solver on its own, against cuFFT and cuSPARSE baselines.
// bouss bench relax:   paper 004's Figure 2, the CPU/GPU crossover of coarse-grid relaxation.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <random>

#include "grid/field_ops.hpp"
#include "io/case.hpp"
#include "io/file_util.hpp"
#include "solver/multigrid.hpp"
#include "tools/baselines.hpp"
#include "tools/commands.hpp"
#include "tools/run_support.hpp"

namespace bouss {

namespace {

FieldBC poisson_conditions(const std::string& kind) {
  FieldBC bc;  // periodic everywhere
  if (kind == "neumann")
    for (auto& f : bc.face) f = {BoundaryKind::gradient, 0};
  else if (kind == "mixed")
    bc.face[4] = bc.face[5] = {BoundaryKind::gradient, 0};
  return bc;
}

double convergence_factor(const std::vector<double>& history) {
  if (history.size() < 2 || history.front() <= 0) return 0;
  return std::pow(history.back() / history.front(), 1.0 / double(history.size() - 1));
}

// The options as a case, checked by the case validator itself (the same rules as a case
// file: grid shape, tolerance, sweeps, ...); an error names the option, not the JSON path.
void validate_poisson_options(const BenchOptions& o) {
  nlohmann::json c = {{"name", "bench_poisson"},
                      {"grid", {{"n", o.n}}},
                      {"physics", {{"nu", 1}, {"kappa", 1}, {"buoyancy", 0}}},
                      {"time", {{"steps", 1}}},
                      {"pressure",
                       {{"tolerance", o.tolerance},
                        {"pre_sweeps", o.pre_sweeps},
                        {"post_sweeps", o.post_sweeps},
                        {"fmg", o.fmg},
                        {"cuda_graphs", o.cuda_graphs}}},
                      {"output", {{"file", ""}}}};
  if (o.cpu_coarse_cells) c["pressure"]["cpu_coarse_cells"] = *o.cpu_coarse_cells;
  const nlohmann::json wall = {{"velocity", "free_slip"}, {"temperature", "insulating"}};
  const char* faces[] = {"x_lo", "x_hi", "y_lo", "y_hi", "z_lo", "z_hi"};
  for (int f = 0; f < 6; ++f) {
    const bool periodic = o.bc == "periodic" || (o.bc == "mixed" && f < 4);
    c["boundaries"][faces[f]] = periodic ? nlohmann::json("periodic") : wall;
  }
  c["grid"]["extent"] = {{0, 1}, {0, 1}, {0, 1}};  // the shape is what --n gets wrong, if anything
  if (o.n[0] > 0 && o.n[1] > 0 && o.n[2] > 0) {
    const int nmax = *std::max_element(o.n.begin(), o.n.end());
    c["grid"]["extent"] = {{0, double(o.n[0]) / nmax}, {0, double(o.n[1]) / nmax}, {0, double(o.n[2]) / nmax}};
  }
  try {
    parse_case(c.dump(), "bench poisson");
  } catch (const CaseError& e) {
    std::string what = e.what();
    const std::pair<const char*, const char*> flags[] = {
        {"/grid/n", "--n"},           {"/grid/extent", "--n"}, {"/pressure/tolerance", "--tolerance"},
        {"/pressure/pre_sweeps", "--pre-sweeps"}, {"/pressure/post_sweeps", "--post-sweeps"},
        {"/pressure/cpu_coarse_cells", "--cpu-coarse-cells"}, {"/pressure", "--pre-sweeps/--post-sweeps"}};
    for (const auto& [path, flag] : flags) {
      const auto at = what.find(std::string(path) + ":");
      if (at != std::string::npos) {
        what.replace(at, std::string(path).size(), flag);
        break;
      }
    }
    throw CaseError(what);
  }
}

// Bytes the bench allocates at its peak on the backend: b0, b, x; the largest multigrid asked
// for (and the checker of the baselines); cuSPARSE CG's matrix (7 entries a cell, values and
// column indices) and its vectors, or cuFFT's complex arrays.
double poisson_bench_bytes(const BenchOptions& o, const Backend& backend, const Grid& g, const FieldBC& bc) {
  const double array = double(g.layout.size) * sizeof(double), cells = double(g.layout.cells());
  double solver = 0;
  for (const std::string& s : o.solvers) {
    MultigridOptions opt;
    opt.mixed_precision = s == "mg_mixed";
    opt.fmg = o.fmg;
    opt.cpu_coarse_cells = s == "mg" || s == "mg_mixed" ? o.cpu_coarse_cells.value_or(default_cpu_coarse_cells) : 0;
    double bytes = Multigrid<double>::estimate_memory(backend, g, opt).first;
    if (s == "csr_cg") bytes += cells * (7 * (8 + 4) + 4 + 6 * 8);
    if (s == "fft") bytes += 2 * cells * 16;
    solver = std::max(solver, bytes);
  }
  (void)bc;
  return 3 * array + solver;
}

}  // namespace

int poisson_bench(const BenchOptions& o) {
  Backend backend;
  try {
    validate_poisson_options(o);
    backend = Backend::from_name(o.backend.empty() ? "auto" : o.backend);
  } catch (const std::exception& e) {
    print_error(e.what());
    return 2;
  }
  configure_logging(o.json);
  const std::array<int, 3> n = o.n;
  const int nmax = *std::max_element(n.begin(), n.end());
  // Uniform spacing 1/nmax: the domain is n/nmax long on each axis.
  const Grid g = Grid::make(n, {0, 0, 0}, {double(n[0]) / nmax, double(n[1]) / nmax, double(n[2]) / nmax});
  const FieldBC bc = poisson_conditions(o.bc);
  const Box interior = g.layout.interior(Stagger::centre);
  const double cells = double(g.layout.cells());
  {
    const double need = poisson_bench_bytes(o, backend, g, bc), have = double(backend.available_bytes());
    if (need > have) {
      print_error("bench poisson --n " + std::to_string(n[0]) + "," + std::to_string(n[1]) + "," + std::to_string(n[2]) +
                  ": needs " + format_bytes(need) + (backend.is_cuda() ? " of GPU memory, the device has " : " of memory, the host has ") +
                  format_bytes(have) + " free");
      return 2;
    }
  }

  // A random right-hand side, the same for every solver, mean-free (compatible).
  Field<double> b0(backend, g.layout, Stagger::centre, "b"), b(backend, g.layout, Stagger::centre, "b work"),
      x(backend, g.layout, Stagger::centre, "x");
  {
    std::vector<double> h(g.layout.size, 0);
    std::mt19937_64 rng(2024);
    std::uniform_real_distribution<double> U(-1, 1);
    for (int k = 0; k < n[2]; ++k)
      for (int j = 0; j < n[1]; ++j)
        for (int i = 0; i < n[0]; ++i) h[g.layout.origin + g.layout.index(i, j, k)] = U(rng);
    b0.from_host(h);
    remove_mean(b0);
  }
  const double copy_bw = measure_copy_bandwidth(backend, std::size_t(1) << (backend.is_cuda() ? 30 : 28));
  nlohmann::json results = nlohmann::json::array();
  auto report = [&](const std::string& solver, int cycles, const std::vector<double>& history, double ms,
                    double bytes, double final_residual) {
    nlohmann::json r = {{"solver", solver},
                        {"n", n},
                        {"bc", o.bc},
                        {"backend", backend.name()},
                        {"cycles", cycles},
                        {"residual_history", history},
                        {"convergence_factor", convergence_factor(history)},
                        {"final_max_residual", final_residual},
                        {"ms", ms},
                        {"ns_per_cell", ms * 1e6 / cells},
                        {"bytes_per_cell", bytes / cells},
                        {"effective_GBps", bytes / (ms * 1e-3) * 1e-9},
                        {"floor_ms", bytes / copy_bw * 1e3},
                        {"copy_bandwidth_GBps", copy_bw * 1e-9}};
    results.push_back(r);
    if (!o.json)
      spdlog::info("{:>8}  {:>4} cycles  factor {:.3f}  {:9.3f} ms  {:7.3f} ns/cell  {:6.0f} B/cell  {:7.1f} GB/s  "
                   "(floor {:.3f} ms)  final max residual {:.2e}",
                   solver, cycles, convergence_factor(history), ms, ms * 1e6 / cells, bytes / cells,
                   bytes / (ms * 1e-3) * 1e-9, bytes / copy_bw * 1e3, final_residual);
  };
  if (!o.json)
    spdlog::info("Poisson {}x{}x{} ({} conditions), random right-hand side, tolerance {:g}, {}", n[0], n[1], n[2],
                 o.bc, o.tolerance, backend.describe());

  try {
    for (const std::string& solver : o.solvers) {
      if (solver == "mg" || solver == "mg_mixed") {
        MultigridOptions opt;
        opt.mixed_precision = solver == "mg_mixed";
        opt.cpu_coarse_cells = o.cpu_coarse_cells.value_or(default_cpu_coarse_cells);
        opt.cuda_graphs = o.cuda_graphs;
        opt.fmg = o.fmg;
        opt.pre_sweeps = o.pre_sweeps;
        opt.post_sweeps = o.post_sweeps;
        opt.max_cycles = 100;
        Multigrid<double> mg(backend, g, bc, opt);
        SolveStats stats;
        auto solve = [&] {
          b.copy_from(b0);
          fill(x, 0);  // cold start
          stats = mg.solve(x, b, o.tolerance);
        };
        solve();  // warm-up: graphs captured, memory touched
        std::vector<double> ms;
        RegionTimer timer(backend);
        for (int r = 0; r < o.repeats; ++r) {
          b.copy_from(b0);
          fill(x, 0);
          backend.synchronize();
          timer.start();
          stats = mg.solve(x, b, o.tolerance);
          ms.push_back(timer.stop_ms());
        }
        std::sort(ms.begin(), ms.end());
        const int v_cycles = stats.cycles - (stats.fmg ? 1 : 0);
        const double bytes = 3 * cells * sizeof(double) + (stats.fmg ? mg.bytes_fmg() : 0) + v_cycles * mg.bytes_per_cycle();
        report(solver, stats.cycles, stats.residual_history, ms[ms.size() / 2], bytes,
               mg.residual_norm(x, b) / max_abs(b0, interior));
      } else if (solver == "fft" || solver == "csr_cg") {
        if (!backend.is_cuda() || !baselines_available()) {
          if (!o.json) spdlog::info("{:>8}  skipped: a CUDA-library baseline, runs on the cuda backend", solver);
          continue;
        }
        BaselineRun run;
        if (solver == "fft") {
          bool periodic = true;
          for (const auto& f : bc.face) periodic = periodic && f.kind == BoundaryKind::periodic;
          if (!periodic) {
            if (!o.json) spdlog::info("{:>8}  skipped: the FFT solve needs --bc periodic", solver);
            continue;
          }
          run = fft_poisson(g, b0, x, o.repeats);
        } else {
          CsrCgOptions co;
          co.tolerance = o.tolerance;
          co.repeats = o.repeats;
          run = csr_cg(g, bc, co, b0, x);
        }
        MultigridOptions check_opt;
        check_opt.cpu_coarse_cells = 0;
        fill_ghosts(x, bc, g);
        const Multigrid<double> checker(backend, g, bc, check_opt);
        report(solver, run.iterations, run.residual_history, run.ms, run.bytes,
               checker.residual_norm(x, b0) / max_abs(b0, interior));
      } else {
        print_error("bench poisson: unknown solver \"" + solver + "\": expected mg, mg_mixed, fft or csr_cg");
        return 2;
      }
    }
  } catch (const std::exception& e) {
    print_error(e.what());
    return 1;
  }
  if (o.json) std::printf("%s\n", results.dump(2).c_str());
  return 0;
}

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
