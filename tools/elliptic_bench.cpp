// bouss bench elliptic (and bench poisson, its Poisson case): the elliptic solvers and their
// components on their own (solver/line/tridiagonal.hpp, solver/line/line_pcg.hpp,
// solver/multigrid/line_multigrid.hpp, solver/multigrid/multigrid.hpp) against cuSPARSE's batched tridiagonal
// solvers and CSR CG and cuFFT, on one of three problems:
//   the pressure box (default): lap x = b on n cells with dz = 1/nz and dx = dy = aspect * dz,
//     walls at z and in x, periodic in y; z optionally tanh-stretched towards both ends;
//   the Poisson case (bench poisson, or --bc): lap x = b on n cells of spacing 1/max(n),
//     periodic, Neumann or mixed (periodic x and y, Neumann z) conditions;
//   the model problem of papers 000/001 (--cfl NU; solver/model_problem.hpp).
//   thomas, pcr, auto, cusparse_gtsv, cusparse_gtsv_interleaved: the box's vertical lines of
//     the operator with its horizontal part on the diagonal (the line smoother's and the
//     preconditioner's systems), a random right-hand side; one direct solve, its residual checked.
//   line_pcg, line_multigrid; multigrid (mg) and mg_mixed (fp32 cycles in fp64 defect
//     correction) where there is no shift and z is uniform; fft (the direct
//     pressure solver: walls in z, Fourier or cosine transforms along x and y); direct_eigen (the
//     same solve with x and y through their dense eigenbases as matrix products, what a
//     stretched horizontal axis takes: solver/direct/plane_eigen.hpp; reports the products'
//     FLOP rate); cufft3d (cuFFT's direct solve of the
//     fully periodic box, the baseline);
//     csr_cg (cuSPARSE CSR CG, uniform z, preconditioned by the lines except in the Poisson
//     case): the equation for a random b to --tolerance, cold start.
// Each prints solver, n, iterations, residual_history, ms (median of --repeats after a warm-up,
// CUDA events on the GPU), ms_per_iteration, bytes (the traffic the variant moves by its
// model), useful_GBps (the bytes a solve must move at the least, over the time: r read and x
// written for a tridiagonal solve; paper 001 Table 1's optimal-caching count for line_pcg;
// the others' own model) and copy_GBps (a 1 GiB device copy, or the working set's on the CPU,
// measured in the same run).
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <optional>
#include <string>
#include <nlohmann/json.hpp>
#include <random>

#include "grid/boundary.hpp"
#include "grid/field_ops.hpp"
#include "grid/stretching.hpp"
#include "solver/direct/fourier_solver.hpp"
#include "solver/ghost_self.hpp"
#include "solver/multigrid/line_multigrid.hpp"
#include "solver/line/line_pcg.hpp"
#include "solver/model_problem.hpp"
#include "solver/multigrid/multigrid.hpp"
#include "solver/line/tridiagonal.hpp"
#include "solver/volume_mean.hpp"
#include "tools/baselines.hpp"
#include "tools/commands.hpp"
#include "tools/run_support.hpp"
#include "config/case.hpp"
#include "io/file_util.hpp"

namespace bouss {

namespace {

struct EllipticRun {
  int iterations = 1;
  std::vector<double> residual_history;
  double ms = 0, bytes = 0, useful_bytes = 0;
  double final_max_residual = -1;  // max|b - L x| / max|b| of the solution, the same measure for every solver
  double flops = 0;                // direct_eigen: the matrix products' floating-point operations a solve
};

FieldBC box_conditions() {
  FieldBC bc;
  for (int f = 0; f < 6; ++f) bc.face[f] = FaceBC{BoundaryKind::gradient, 0, 0};
  bc.face[2] = bc.face[3] = FaceBC{};  // periodic y
  return bc;
}

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
// A solver of the registry (solver/registry.hpp) with the bench's settings; "mg" and
// "mg_mixed" are the point multigrid with fp64 or fp32 cycles (paper 004's comparison).
// Nothing for a name that is not a registry solver.
struct BenchSolver {
  const SolverType* type = nullptr;
  SolverSettings settings;
};
std::optional<BenchSolver> bench_solver(const std::string& name, const BenchOptions& o, double shift) {
  const bool mg = name == "mg" || name == "mg_mixed";
  BenchSolver b{mg ? &point_multigrid_type() : find_solver(name), {}};
  if (!b.type) return std::nullopt;
  SolverSettings& s = b.settings;
  s.pre_sweeps = o.pre_sweeps;
  s.post_sweeps = o.post_sweeps;
  s.fmg = o.fmg;
  s.cuda_graphs = o.cuda_graphs;
  s.max_cycles = 1000;  // line_pcg: 20000 iterations
  s.mixed_precision = name == "mg_mixed";
  s.cpu_coarse_cells = o.cpu_coarse_cells.value_or(default_cpu_coarse_cells);
  s.shift = shift;
  return b;
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
  for (const std::string& s : o.elliptic_solvers) {  // the multigrid's rules (its coarsening) when it runs
    const auto b = bench_solver(s, o, 0);
    if (b && b->type == &point_multigrid_type()) c["pressure"]["solver"] = std::string(b->type->name());
  }
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
    plan_pressure(parse_case(c.dump(), "bench poisson"));
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
  for (const std::string& s : o.elliptic_solvers) {
    MultigridOptions opt;
    opt.mixed_precision = s == "mg_mixed";
    opt.fmg = o.fmg;
    opt.cpu_coarse_cells = s == "mg" || s == "mg_mixed" ? o.cpu_coarse_cells.value_or(default_cpu_coarse_cells) : 0;
    double bytes = Multigrid<double>::estimate_memory(backend, g, opt).first;
    if (s == "csr_cg") bytes += cells * (7 * (8 + 4) + 4 + 6 * 8);
    if (s == "cufft3d") bytes += 2 * cells * 16;
    // The direct solve through eigenbases: its three arrays, the pivots, the matrices.
    if (s == "direct_eigen") bytes += 4 * array + PlaneEigen<double>::work_bytes(backend, g.layout);
    // A registry solver: its own, and at most the arrays a run lends it (the bench lends none).
    if (const auto b = bench_solver(s, o, 0)) {
      const SolverContext ctx{backend, g, g, b->settings, sizeof(double)};
      bytes = std::max(bytes, b->type->memory(ctx, g).first + LentArrays<double>::capacity * array);
    }
    solver = std::max(solver, bytes);
  }
  (void)bc;
  return 3 * array + solver;
}

// What is solved: the grid, its conditions and the line operator's shift.
struct EllipticProblem {
  Grid grid;
  FieldBC bc;
  double shift = 0;  // > 0: the model problem
  bool poisson = false;
  std::string name;
};

EllipticProblem make_problem(const BenchOptions& o, std::size_t elem) {
  EllipticProblem p;
  if (o.poisson) {
    const std::array<int, 3>& n = o.n;
    const int nmax = *std::max_element(n.begin(), n.end());
    p.grid = Grid::make(n, {0, 0, 0}, {double(n[0]) / nmax, double(n[1]) / nmax, double(n[2]) / nmax}, 1, elem);
    p.bc = poisson_conditions(o.bc);
    p.poisson = true;
    p.name = fmt::format("Poisson ({} conditions)", o.bc);
    return p;
  }
  if (o.cfl) {
    ModelProblem mp;
    mp.n = o.n;
    mp.cfl = *o.cfl;
    mp.depth = o.depth;
    mp.periodic = o.periodic;
    mp.stretching = o.stretching;
    p.grid = mp.grid(elem);
    p.bc = mp.conditions();
    p.shift = mp.shift();
    p.name = fmt::format("model problem nu_CFL {:g} (omega {:.4g}, lambda 1, H {:g}, {} sides)", mp.cfl, mp.omega(),
                         mp.depth, mp.periodic ? "periodic" : "Dirichlet");
    return p;
  }
  const std::array<int, 3>& n = o.n;
  const double dz = 1.0 / n[2], dx = o.aspect.value_or(1.0) * dz;
  const std::array<double, 3> length{n[0] * dx, n[1] * dx, 1.0};
  p.grid = o.stretching > 0 ? Grid::make_stretched(n, {0, 0, 0}, length,
                                                   tanh_faces(n[2], 0.0, 1.0, o.stretching, Cluster::both), 1, elem)
                            : Grid::make(n, {0, 0, 0}, length, 1, elem);
  const std::array<double, 2> horizontal{o.stretch_x, o.stretch_y};
  for (int a = 0; a < 2; ++a)
    if (horizontal[a] > 0) p.grid.stretch(a, tanh_faces(n[a], 0.0, length[a], horizontal[a], Cluster::both), a == 1);
  p.bc = box_conditions();
  p.name = fmt::format("pressure box dx/dz {:g}{}{}", o.aspect.value_or(1.0),
                       o.stretch_x > 0 ? fmt::format(", x stretched (tanh {:g})", o.stretch_x) : "",
                       o.stretch_y > 0 ? fmt::format(", y stretched (tanh {:g})", o.stretch_y) : "");
  return p;
}

// Interior values of a field as a host array of doubles (x fastest).
template <class R>
std::vector<double> interior(const Field<R>& f) {
  const Layout& L = f.layout();
  const std::vector<R> h = f.to_host();
  std::vector<double> out;
  out.reserve(std::size_t(L.cells()));
  for (int k = 0; k < L.n[2]; ++k)
    for (int j = 0; j < L.n[1]; ++j)
      for (int i = 0; i < L.n[0]; ++i) out.push_back(double(h[L.origin + L.index(i, j, k)]));
  return out;
}

template <class R>
void set_random(Field<R>& f, unsigned seed) {
  const Layout& L = f.layout();
  std::vector<R> h(L.size, 0);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> U(-1, 1);
  for (int k = 0; k < L.n[2]; ++k)
    for (int j = 0; j < L.n[1]; ++j)
      for (int i = 0; i < L.n[0]; ++i) h[L.origin + L.index(i, j, k)] = R(U(rng));
  f.from_host(h);
}

// The rows of the box's vertical lines: those the line smoother solves (LineSystem,
// solver/line/line_kernels.hpp) in a column away from the walls.
void line_rows(const EllipticProblem& p, std::vector<double>& a, std::vector<double>& b, std::vector<double>& c) {
  const Grid& g = p.grid;
  const int nz = g.layout.n[2];
  const LineStencil<double> st = make_line_stencil<double>(g, Backend::cpu(), p.shift);
  const View<const double> unread{};  // the rows read neither x nor b
  const LineSystem<double, View<const double>, View<const double>> line(unread, unread, st,
                                                                          ghost_self<double>(p.bc, g),
                                                                          g.layout.n[0] / 2, g.layout.n[1] / 2);
  a.resize(nz);
  b.resize(nz);
  c.resize(nz);
  for (int k = 0; k < nz; ++k) {
    const TriRow<double> row = line(k);
    a[k] = row.lower;
    b[k] = row.diag;
    c[k] = row.upper;
  }
}

// max |A x - r| / max |r| over the columns, on the host.
double line_residual(const Layout& L, const std::vector<double>& a, const std::vector<double>& b,
                     const std::vector<double>& c, const std::vector<double>& x, const std::vector<double>& r) {
  const int nz = L.n[2];
  const std::size_t plane = std::size_t(L.n[0]) * L.n[1];
  double worst = 0, size = 0;
  for (std::size_t s = 0; s < plane; ++s)
    for (int k = 0; k < nz; ++k) {
      const std::size_t p = s + k * plane;
      double ax = b[k] * x[p];
      if (k > 0) ax += a[k] * x[p - plane];
      if (k + 1 < nz) ax += c[k] * x[p + plane];
      worst = std::max(worst, std::fabs(ax - r[p]));
      size = std::max(size, std::fabs(r[p]));
    }
  return worst / size;
}

// Why a solver does not run here, or nothing: the CUDA libraries' baselines need the CUDA
// backend, and cuFFT's solve a periodic box.
std::optional<std::string> skipped(const std::string& solver, const Backend& backend, const EllipticProblem& p) {
  const bool baseline = solver == "cufft3d" || solver == "csr_cg" || solver.rfind("cusparse_gtsv", 0) == 0;
  if (baseline && (!backend.is_cuda() || !baselines_available()))
    return std::string("a CUDA-library baseline, runs on the cuda backend");
  if (solver == "cufft3d")
    for (const auto& f : p.bc.face)
      if (f.kind != BoundaryKind::periodic) return std::string("the 3D FFT solve needs --bc periodic");
  if (solver == "direct_eigen" && p.shift != 0) return std::string("direct_eigen solves lap x = b only (no --cfl)");
  if (const auto registry = bench_solver(solver, BenchOptions{}, p.shift)) {
    if (p.shift != 0 && !registry->type->solves_shifted()) return solver + " solves lap x = b only (no --cfl)";
    if (const auto why = registry->type->refuses(PressureGrid::of(p.grid, p.bc))) return why->message;
  }
  return std::nullopt;
}

// max|b - L x| / max|b| (x's ghosts filled here), b's volume mean removed first for a singular
// problem (b is a scratch copy: the Fourier solver leaves it as given).
template <class R>
double relative_residual(const EllipticProblem& p, const Backend& be, Field<R>& x, Field<R>& b) {
  if (p.shift == 0 && p.bc.singular()) remove_volume_mean(p.grid, b);
  fill_ghosts(x, p.bc, p.grid);
  const double bn = max_abs(b, p.grid.layout.interior(Stagger::centre));
  return line_residual_norm(p.grid, be, p.shift, x, b) / (bn > 0 ? bn : 1);
}

template <class R>
EllipticRun run_solver(const std::string& solver, const BenchOptions& o, const Backend& backend, const EllipticProblem& problem) {
  const Grid& g = problem.grid;
  const FieldBC& bc = problem.bc;
  Field<R> r(backend, g.layout, Stagger::centre, "r"), x(backend, g.layout, Stagger::centre, "x");
  fill(r, 0);
  fill(x, 0);
  set_random(r, 17);
  EllipticRun run;
  if (g.stretched_horizontally() && solver != "direct" && solver != "fft" && solver != "direct_eigen")
    throw std::runtime_error(solver + ": a box stretched along x or y is the direct solve's (direct, direct_eigen)");
  const double cells = double(g.layout.cells());
  const bool tridiagonal = solver == "thomas" || solver == "pcr" || solver == "auto" || solver.rfind("cusparse_gtsv", 0) == 0;
  if (tridiagonal) {
    std::vector<double> a, b, c;
    line_rows(problem, a, b, c);
    if (solver.rfind("cusparse_gtsv", 0) == 0) {
      if constexpr (sizeof(R) == sizeof(double)) {
        if (!backend.is_cuda() || !baselines_available()) throw std::runtime_error(solver + " needs the CUDA backend");
        const BaselineRun base = gtsv_baseline(g.layout, a, b, c, r, x, solver == "cusparse_gtsv_interleaved", o.repeats);
        run.ms = base.ms;
        run.bytes = base.bytes;
      } else {
        throw std::runtime_error(solver + ": cuSPARSE's baselines run in double");
      }
    } else {
      const BatchedTridiagonal<R> tri(backend, g.layout, a, b, c);
      const TridiagonalMethod m = solver == "thomas" ? TridiagonalMethod::thomas
                                  : solver == "pcr"  ? TridiagonalMethod::pcr
                                                     : TridiagonalMethod::automatic;
      run.ms = median_ms(backend, o.repeats, [&] { tri.solve(r, x, m); });
      run.bytes = tri.bytes(m);
    }
    run.useful_bytes = 2 * cells * sizeof(R);
    run.residual_history = {1.0, line_residual(g.layout, a, b, c, interior(x), interior(r))};
    return run;
  }
  if (solver == "csr_cg") {
    if constexpr (sizeof(R) == sizeof(double)) {
      if (!backend.is_cuda() || !baselines_available()) throw std::runtime_error(solver + " needs the CUDA backend");
      CsrCgOptions co;
      co.shift = problem.shift;
      co.line_preconditioner = !problem.poisson;
      co.tolerance = o.tolerance;
      co.repeats = o.repeats;
      Field<R> b(backend, g.layout, Stagger::centre, "b");
      b.copy_from(r);
      if (problem.shift == 0 && bc.singular()) remove_volume_mean(g, b);
      const BaselineRun base = csr_cg(g, bc, co, b, x);
      run.final_max_residual = relative_residual(problem, backend, x, b);
      run.ms = base.ms;
      run.bytes = base.bytes;
      run.useful_bytes = base.bytes;
      run.iterations = base.iterations;
      run.residual_history = base.residual_history;
      return run;
    } else {
      throw std::runtime_error(solver + ": cuSPARSE's baselines run in double");
    }
  }
  if (solver == "cufft3d") {
    if constexpr (sizeof(R) == sizeof(double)) {
      if (!backend.is_cuda() || !baselines_available()) throw std::runtime_error(solver + " needs the CUDA backend");
      Field<R> b(backend, g.layout, Stagger::centre, "b");
      b.copy_from(r);
      remove_volume_mean(g, b);
      const BaselineRun base = fft_poisson(g, b, x, o.repeats);
      run.final_max_residual = relative_residual(problem, backend, x, b);
      run.ms = base.ms;
      run.bytes = base.bytes;
      run.useful_bytes = base.bytes;
      run.iterations = 1;
      run.residual_history = {1.0};
      return run;
    } else {
      throw std::runtime_error(solver + ": cuFFT's baseline runs in double");
    }
  }
  if (solver == "direct_eigen") {
    if (const auto why = FourierSolver<double>::refuses(PressureGrid::of(g, bc))) throw std::runtime_error(*why);
    FourierSolver<R> ps(backend, g, bc, true);
    Field<R> b(backend, g.layout, Stagger::centre, "b");
    SolveStats stats;
    run.ms = median_ms(backend, o.repeats, [&] {
      b.copy_from(r);
      fill(x, 0);
      stats = ps.solve(x, b, o.tolerance);
    });
    run.iterations = stats.cycles;
    run.residual_history = stats.residual_history;
    run.bytes = ps.bytes_per_solve(stats);
    run.useful_bytes = run.bytes;
    run.flops = 2 * ps.transform_flops() * stats.cycles;
    run.final_max_residual = relative_residual(problem, backend, x, b);
    return run;
  }
  const std::optional<BenchSolver> chosen = bench_solver(solver, o, problem.shift);
  if (!chosen)
    throw std::runtime_error("unknown solver \"" + solver + "\": expected thomas, pcr, auto, cusparse_gtsv, "
                             "cusparse_gtsv_interleaved, " + solver_names_quoted().substr(0, solver_names_quoted().rfind(", ")) +
                             ", mg (multigrid), mg_mixed, direct_eigen, cufft3d or csr_cg");
  if (chosen->settings.mixed_precision.value_or(false) && sizeof(R) != sizeof(double))
    throw std::runtime_error(solver + ": fp32 cycles in fp64 defect correction need --precision double");
  const std::unique_ptr<PressureSolver<R>> ps = make_solver<R>(*chosen->type, backend, g, bc, chosen->settings);
  const auto* pcg = dynamic_cast<const LinePcg<R>*>(ps.get());
  Field<R> b(backend, g.layout, Stagger::centre, "b");
  SolveStats stats;
  run.ms = median_ms(backend, o.repeats, [&] {
    b.copy_from(r);
    fill(x, 0);
    stats = ps->solve(x, b, o.tolerance);
  });
  run.iterations = stats.cycles;
  run.residual_history = stats.residual_history;
  run.bytes = ps->bytes_per_solve(stats);
  run.useful_bytes = pcg ? stats.cycles * pcg->useful_bytes_per_iteration() : run.bytes;
  run.final_max_residual = relative_residual(problem, backend, x, b);
  return run;
}

}  // namespace

int elliptic_bench(const BenchOptions& o) {
  const std::string command = "bench " + o.case_file;
  Backend backend;
  try {
    if (o.poisson) {
      validate_poisson_options(o);  // the case rules: grid shape, tolerance, sweeps
      if (o.cfl || o.aspect || o.stretching > 0 || o.stretch_x > 0 || o.stretch_y > 0)
        throw std::invalid_argument("--cfl, --aspect, --stretching, --stretch-x, --stretch-y: the Poisson case (--bc) "
                                    "takes a uniform grid of spacing 1/max(n)");
    }
    if ((o.stretch_x > 0 || o.stretch_y > 0) && o.cfl)
      throw std::invalid_argument("--stretch-x, --stretch-y: the pressure box's (not --cfl's model problem)");
    backend = Backend::from_name(o.backend.empty() ? "auto" : o.backend);
    for (int a = 0; a < 3; ++a)
      if (o.n[a] < 1) throw std::invalid_argument("--n: expected 3 positive integers");
    if (o.aspect && !(*o.aspect > 0)) throw std::invalid_argument("--aspect: expected a positive number");
    if (!precision_named(o.precision))
      throw std::invalid_argument("--precision: expected double or single, got " + o.precision);
    if (o.cfl && o.aspect) throw std::invalid_argument("--aspect: the model problem (--cfl) takes --depth instead");
  } catch (const CaseError& e) {
    print_error(e.what());
    return 2;
  } catch (const std::exception& e) {
    print_error(command + ": " + e.what());
    return 2;
  }
  configure_logging(o.json);
  const std::array<int, 3>& n = o.n;
  const std::size_t elem = value_bytes(*precision_named(o.precision));
  EllipticProblem problem;
  try {
    problem = make_problem(o, elem);
  } catch (const std::exception& e) {
    print_error(command + ": " + e.what());
    return 2;
  }
  const Grid& g = problem.grid;
  if (problem.poisson) {
    const double need = poisson_bench_bytes(o, backend, g, problem.bc), have = double(backend.available_bytes());
    if (need > have) {
      print_error(command + " --n " + std::to_string(n[0]) + "," + std::to_string(n[1]) + "," + std::to_string(n[2]) +
                  ": needs " + format_bytes(need) +
                  (backend.is_cuda() ? " of GPU memory, the device has " : " of memory, the host has ") +
                  format_bytes(have) + " free");
      return 2;
    }
  }
  if (!o.json)
    spdlog::info("{}: {} on {}x{}x{}, random right-hand side, tolerance {:g}, {}", command, problem.name, n[0], n[1],
                 n[2], o.tolerance, backend.describe());
  const double copy_bw = measure_copy_bandwidth(
      backend, backend.is_cuda() ? std::size_t(1) << 30 : std::size_t(g.layout.size) * elem * 4);
  const double cells = double(g.layout.cells());
  nlohmann::json results = nlohmann::json::array();
  int status = 0;
  for (const std::string& solver : o.elliptic_solvers) {
    if (const auto why = skipped(solver, backend, problem)) {
      if (!o.json) spdlog::info("{:<26} skipped: {}", solver, *why);
      continue;
    }
    try {
      const EllipticRun run = elem == 4 ? run_solver<float>(solver, o, backend, problem)
                                        : run_solver<double>(solver, o, backend, problem);
      const double useful = run.useful_bytes / (run.ms * 1e-3);
      const double final_residual = run.final_max_residual >= 0 ? run.final_max_residual : run.residual_history.back();
      nlohmann::json j = {{"solver", solver},
                          {"n", n},
                          {"problem", problem.name},
                          {"bc", problem.poisson ? nlohmann::json(o.bc) : nlohmann::json(nullptr)},
                          {"aspect", g.h[0] / g.min_dz()},
                          {"cfl", o.cfl ? nlohmann::json(*o.cfl) : nlohmann::json(nullptr)},
                          {"stretching", o.stretching},
                          {"stretch_x", o.stretch_x},
                          {"stretch_y", o.stretch_y},
                          {"precision", o.precision},
                          {"backend", backend.name()},
                          {"device", backend.describe()},
                          {"iterations", run.iterations},
                          {"cycles", run.iterations},
                          {"residual_history", run.residual_history},
                          {"convergence_factor", convergence_factor(run.residual_history)},
                          {"final_max_residual", final_residual},
                          {"ms", run.ms},
                          {"ms_per_iteration", run.ms / std::max(1, run.iterations)},
                          {"ns_per_cell", run.ms * 1e6 / cells},
                          {"bytes", run.bytes},
                          {"bytes_per_cell", run.bytes / cells},
                          {"useful_GBps", useful * 1e-9},
                          {"moved_GBps", run.bytes / (run.ms * 1e-3) * 1e-9},
                          {"effective_GBps", run.bytes / (run.ms * 1e-3) * 1e-9},
                          {"floor_ms", run.bytes / copy_bw * 1e3},
                          {"copy_GBps", copy_bw * 1e-9},
                          {"copy_bandwidth_GBps", copy_bw * 1e-9},
                          {"fraction_of_copy", run.bytes / (run.ms * 1e-3) / copy_bw},
                          {"gemm_flops", run.flops},
                          {"gemm_TFLOPs_over_solve", run.flops / (run.ms * 1e-3) * 1e-12}};
      if (o.json) {
        results.push_back(j);
      } else {
        spdlog::info("{:<26} {} iterations (factor {:.3f}), max residual {:.2e}, {:.3f} ms ({:.3f} per iteration), "
                     "{:.3f} GB moved -> {:.0f} GB/s ({:.0f}% of copy {:.0f} GB/s; floor {:.3f} ms), useful {:.0f} GB/s",
                     solver, run.iterations, convergence_factor(run.residual_history), final_residual, run.ms,
                     run.ms / std::max(1, run.iterations), run.bytes * 1e-9, run.bytes / (run.ms * 1e-3) * 1e-9,
                     100 * run.bytes / (run.ms * 1e-3) / copy_bw, copy_bw * 1e-9, run.bytes / copy_bw * 1e3,
                     useful * 1e-9);
        if (run.flops > 0)
          spdlog::info("{:<26} matrix products: {:.2f} GFLOP a solve, {:.2f} TFLOP/s over the whole solve's time", solver,
                       run.flops * 1e-9, run.flops / (run.ms * 1e-3) * 1e-12);
      }
    } catch (const std::exception& e) {
      print_error(command + " --solver " + solver + ": " + e.what());
      status = 1;
    }
  }
  if (o.json) std::printf("%s\n", results.dump(2).c_str());
  return status;
}

}  // namespace bouss
