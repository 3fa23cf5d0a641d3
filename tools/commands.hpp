// The subcommands of the `bouss` executable (tools/main.cpp parses the command line).
#pragma once

#include <array>
#include <optional>
#include <string>
#include <vector>

namespace bouss {

struct RunOptions {
  std::string program = "bouss";  // how bouss was invoked (argv[0]), for the restart hint
  std::string case_file;
  std::string backend;  // "" = the case's
  std::vector<std::string> overrides;
  std::optional<std::string> output;
  double progress_seconds = 5;          // 0: no progress lines
  std::optional<std::string> restart;   // a checkpoint to continue from
  std::optional<std::string> wall_limit;  // HH:MM or HH:MM:SS of wall time
  std::string decomposition;            // --decomposition PXxPY under mpirun ("" = chosen)
  bool json = false;                    // check: the validated case as JSON only
  bool no_trial = false;                // check --no-trial: no steps timed, no wall-time estimate
  bool overwrite = false;               // --overwrite: replace an earlier run's files (run/run_files.hpp)
};

struct BenchOptions {
  std::string case_file;  // a case, or "poisson" / "relax"
  std::string backend;
  std::string decomposition;  // --decomposition PXxPY under mpirun
  std::vector<std::string> overrides;
  int steps = 20;
  int warmup = 5;
  bool json = false;
  // bench CASE: where the timed steps start: a checkpoint's path, "latest" (the case's newest
  // checkpoint, else rest) or "rest"
  std::string from = "latest";
  // bench poisson
  std::array<int, 3> n{128, 128, 128};
  std::string bc = "mixed";
  double tolerance = 1e-8;
  std::vector<std::string> solvers;  // --solver as given
  int repeats = 5;
  bool fmg = false;
  int pre_sweeps = 2, post_sweeps = 2;
  bool cuda_graphs = true;
  std::optional<long> cpu_coarse_cells;
  // bench CASE --output-every: the cost of output
  std::vector<int> output_every;                             // snapshot intervals in steps; empty: no output bench
  std::vector<std::string> output_fields{"all", "T"};        // "all" (T u v w p) or one field name
  std::vector<std::string> output_precision{"double", "float"};
  std::vector<std::string> streams;  // --stream: output streams as JSON objects, as a case file's "output" entries
  std::string output_dir;                                    // "" = the case's output folder
  // bench elliptic (bench poisson: its Poisson case)
  bool poisson = false;  // the Poisson case (bench poisson, or --bc given)
  std::vector<std::string> elliptic_solvers{"thomas", "pcr", "line_pcg", "line_multigrid"};
  std::optional<double> aspect;  // dx / dz (the pressure box; default 1)
  double stretching = 0;  // tanh parameter (both walls); 0: uniform z
  double stretch_x = 0, stretch_y = 0;  // the pressure box's x (walled) and y (periodic): tanh towards both ends; 0: uniform
  std::optional<double> cfl;     // nu_CFL: the model problem of papers 000/001 instead of the pressure box
  double depth = 0.01;           // the model problem's H
  bool periodic = false;         // the model problem's sides periodic instead of Dirichlet
  std::string precision = "double";
  // bench relax
  std::vector<int> sizes{4, 8, 12, 16, 24, 32, 48, 64, 96, 128};
  int sweeps = 100;
};

struct ValidationOptions {
  std::string case_file;
  std::string backend;
  std::vector<std::string> overrides;
  std::vector<int> resolutions;  // nz of each run; empty: the case's own grid
  std::vector<double> ra;        // onset: the bracket (two values)
  std::vector<double> rates;     // onset: only measure the growth rates at these Ra (one run each)
  std::string diagnostic = "nusselt_bottom";  // converge
  std::string output_dir;                     // converge: each run's diagnostics series as NetCDF
  bool overwrite = false;                     // converge: replace earlier runs' files in output_dir
  double fraction = 0.5;                      // front: the fronts' threshold (physics/lock_exchange.hpp)
  bool json = false;
};

// Each returns the process exit code: 0 done, 1 failed during the run, 2 bad input.
int run_command(const RunOptions& o);
int check_command(const RunOptions& o);
int xdmf_command(const std::string& netcdf_path);

struct StatsOptions {
  std::string file;
  std::vector<std::string> variables;  // empty: every series variable
  bool json = false;
};
int stats_command(const StatsOptions& options);
int recover_command(const std::string& file, const std::string& output);  // output "": the default name
int bench_command(const BenchOptions& o);
int output_bench(const BenchOptions& o);
int elliptic_bench(const BenchOptions& o);
int relax_bench(const BenchOptions& o);
int onset_command(const ValidationOptions& o);
int converge_command(const ValidationOptions& o);
int front_command(const ValidationOptions& o);
// Execs /usr/bin/python3 tools/bouss_plot.py ARGS... (returns only when that fails: 1).
int plot_command(const std::vector<std::string>& args);

// One-line error to stderr: "bouss: error: MESSAGE".
void print_error(const std::string& message);
// HH:MM or HH:MM:SS as seconds; throws CaseError naming the flag when malformed.
double parse_wall_time(const std::string& text, const std::string& flag);

}  // namespace bouss
