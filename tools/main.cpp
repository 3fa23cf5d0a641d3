// bouss: the command line (CLI11).
//   bouss run CASE.json [--backend auto|cuda|cpu] [--set key.path=VALUE]... [--output FILE] [--overwrite]
//                       [--progress S] [--restart CHECKPOINT] [--wall-limit HH:MM]
//   bouss check CASE.json [--backend ...] [--set ...] [--output FILE] [--overwrite] [--json]
//   bouss bench CASE.json [--backend ...] [--steps N] [--warmup N] [--from CHECKPOINT|latest|rest] [--json] [--set ...]
//   bouss bench poisson | elliptic | relax [...]   (subcommands of bench, each with its own flags)
//   bouss onset | converge | front CASE.json [--resolutions 16,32,64] ... (tools/validation_commands.cpp)
//   bouss plot FILE.nc [...]   (flags parsed by tools/bouss_plot.py: bouss plot --help)
//   bouss help [COMMAND [BENCHMARK]]
// docs/cli.md lists every flag; tests/unit/test_cli_reference.cpp holds it to these --help texts.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "io/build_info.hpp"
#include "parallel/communicator.hpp"
#include "solver/registry.hpp"
#include "tools/commands.hpp"

namespace {
// One look for every --help (issue 28): a value's metavar after the flag (option_text: N,
// HH:MM, auto|cuda|cpu) and no validator names; the default at the end of the description,
// "(default X)", from the option's default_str (capture_default_str() or an explicit
// default_str()); descriptions wrapped to 100 columns under the description column.
// tools/bouss_plot.py draws `bouss plot --help` in the same layout.
class HelpFormatter : public CLI::Formatter {
 public:
  static constexpr std::size_t width = 100;

  HelpFormatter() { column_width(30); }

  // Words of text on lines of at most `room` characters, joined by newlines (CLI11 indents
  // each new line of a description to the description column).
  static std::string wrap(const std::string& text, std::size_t room) {
    std::string out, line, word, paragraph;
    std::istringstream paragraphs(text);
    for (bool first = true; std::getline(paragraphs, paragraph); first = false) {
      if (!first) out += "\n";
      if (paragraph.size() <= room) {  // as written (an indented line stays indented)
        out += paragraph;
        continue;
      }
      std::istringstream words(paragraph);
      line.clear();
      while (words >> word) {
        if (!line.empty() && line.size() + 1 + word.size() > room) {
          out += line + "\n";
          line.clear();
        }
        line += (line.empty() ? "" : " ") + word;
      }
      out += line;
    }
    return out;
  }

  std::string make_option_opts(const CLI::Option* opt) const override {
    if (!opt->get_option_text().empty()) return " " + opt->get_option_text();
    if (opt->get_type_size() == 0) return "";
    const std::string type = opt->get_type_name();
    return " " + type.substr(0, type.find(':')) + (opt->get_required() ? " REQUIRED" : "");
  }
  std::string make_option_desc(const CLI::Option* opt) const override {
    std::string desc = opt->get_description();
    if (!opt->get_default_str().empty()) desc += " (default " + opt->get_default_str() + ")";
    return wrap(desc, width - column_width_);
  }
  std::string make_subcommand(const CLI::App* sub) const override {
    std::stringstream out;
    CLI::detail::format_help(out, sub->get_display_name(true), wrap(sub->get_description(), width - column_width_),
                             column_width_);
    return out.str();
  }
  std::string make_description(const CLI::App* app) const override {
    const std::string desc = app->get_description();
    return desc.empty() ? std::string() : wrap(desc, width) + "\n";
  }
  std::string make_footer(const CLI::App* app) const override {
    const std::string footer = app->get_footer();
    return footer.empty() ? std::string() : wrap(footer, width) + "\n";
  }
  std::string make_usage(const CLI::App* app, std::string name) const override {
    const auto own = usages.find(app);
    if (own != usages.end()) return "Usage: " + own->second + "\n";
    return CLI::Formatter::make_usage(app, name);
  }

  // Usage lines of their own, for commands whose CLI11 usage says less than it should.
  std::map<const CLI::App*, std::string> usages;
};

// --backend, of the case-driven subcommands (their default: the case's backend) and of bench
// poisson and elliptic (a value: `value`).
void add_backend_option(CLI::App* cmd, std::string& backend, const char* value = nullptr) {
  auto* opt = cmd->add_option("--backend", backend,
                              std::string("Where the fields live: auto (CUDA when a GPU is present, else the CPU), "
                                          "cuda or cpu") +
                                  (value ? "" : " (default: the case's backend, else auto)"));
  opt->option_text("auto|cuda|cpu")->check(CLI::IsMember({"auto", "cuda", "cpu"}));
  if (value) opt->default_str(value);
}

// The options every case-driven subcommand takes: the case file, --backend and --set.
void add_case_options(CLI::App* cmd, std::string& case_file, std::string& backend, std::vector<std::string>& overrides,
                      const char* case_help = "Case file (JSON)") {
  cmd->add_option("case", case_file, case_help)->required();
  add_backend_option(cmd, backend);
  cmd->add_option("--set", overrides,
                  "Override a case key, JSON-typed (a bare word is a string, a number in the path indexes an array): "
                  "--set grid.n=[32,32,16] --set time.steps=20; repeatable")
      ->option_text("KEY=VALUE")
      ->allow_extra_args(false);
}
}  // namespace
int main(int argc, char** argv) {
  // A closed stdout or stderr (a reader that went away, a closed terminal) must not kill a
  // run: writes then fail with EPIPE, and the log stops printing (tools/run_support.cpp).
  std::signal(SIGPIPE, SIG_IGN);
  // Named "bouss" (not argv[0]): usage lines say `bouss run ...`, wherever the binary sits.
  CLI::App app{"bouss: a GPU-resident Boussinesq solver (Rayleigh-Benard convection, lock-exchange gravity currents), "
               "in double or single precision",
               "bouss"};
  // Before any subcommand is added: each takes its parent's formatter when it is made.
  const auto formatter = std::make_shared<HelpFormatter>();
  app.formatter(formatter);
  app.set_version_flag("--version", bouss::build_provenance());
  app.require_subcommand(1);

  // Short messages: CLI11's own range validators print the bounds of a double in full.
  auto number_at_least = [](double lowest, bool strict, const char* expected) {
    return CLI::Validator(
        [=](std::string& v) {
          double x = 0;
          const bool ok = CLI::detail::lexical_cast(v, x) && std::isfinite(x) && (strict ? x > lowest : x >= lowest);
          return ok ? std::string() : std::string("expected ") + expected + ", got " + v;
        },
        expected);
  };
  const CLI::Validator positive = number_at_least(0, true, "a positive number");
  const CLI::Validator non_negative = number_at_least(0, false, "a number >= 0");
  const char* decomposition_help =
      "Under mpirun: the process grid PXxPY that cuts x and y (default: 1xP for the direct solve up to ny ranks, "
      "else the fewest halo cells per rank)";

  bouss::RunOptions run;
  run.program = argv[0];
  auto* run_cmd = app.add_subcommand("run", "Run a case and write its NetCDF output");
  add_case_options(run_cmd, run.case_file, run.backend, run.overrides, "Case file (JSON)");
  run_cmd->add_option("--output", run.output,
                      "NetCDF output file of the first stream; the other streams' files and checkpoint.file follow it "
                      "(docs/runs.md, \"The files of a run\") (default: the case's output file)")
      ->option_text("FILE");
  run_cmd->add_flag("--overwrite", run.overwrite,
                    "Replace what an earlier run left under this run's names (its output files, their XDMF sidecars, "
                    "the checkpoints of its stem); without it such a run is refused");
  run_cmd->add_option("--progress", run.progress_seconds, "Seconds between progress lines; 0: none")
      ->option_text("S")
      ->capture_default_str()
      ->check(non_negative);
  run_cmd->add_option("--restart", run.restart, "Continue the run from this checkpoint (STEM.checkpoint.STEP.nc)")
      ->option_text("CHECKPOINT");
  run_cmd->add_option("--wall-limit", run.wall_limit,
                      "Write a checkpoint and stop cleanly (exit 0) before this much wall time (HH:MM or HH:MM:SS)")
      ->option_text("HH:MM");
  run_cmd->add_option("--decomposition", run.decomposition, decomposition_help)->option_text("PXxPY");

  bouss::RunOptions check;
  auto* check_cmd = app.add_subcommand(
      "check", "Dry run: validate a case and print, a labelled line each, the memory it needs, the first dt, the "
               "pressure solver, the steps and wall time to the end (a few steps timed from rest), the output and "
               "checkpoint plan; write nothing and exit (0: it would run, 2: it would be refused)");
  add_case_options(check_cmd, check.case_file, check.backend, check.overrides, "Case file (JSON)");
  check_cmd->add_option("--output", check.output, "NetCDF output file of the first stream, as bouss run --output")
      ->option_text("FILE");
  check_cmd->add_flag("--overwrite", check.overwrite, "As bouss run --overwrite: the files an earlier run left are no refusal");
  check_cmd->add_flag("--json", check.json, "Print only the validated case, as JSON, with every default filled in");
  check_cmd->add_flag("--no-trial", check.no_trial,
                      "Skip the trial steps from rest that time the wall-time estimate (the run is then not allocated)");

  std::string xdmf_file;
  auto* xdmf_cmd = app.add_subcommand(
      "xdmf", "Write FILE.xdmf2 beside a NetCDF output file FILE (out.nc: out.nc.xdmf2): the description ParaView's XDMF Reader opens "
              "(runs write it at their end; this is for partial files and copies)");
  xdmf_cmd->add_option("file", xdmf_file, "NetCDF output file")->required();

  bouss::StatsOptions stats;
  auto* stats_cmd = app.add_subcommand(
      "stats", "The statistics of an output file's diagnostics series: for each variable the start of its "
               "statistically steady part, its mean, standard deviation, the standard error of the mean and the "
               "effective number of independent samples (validation/series_statistics.hpp)");
  stats_cmd->add_option("file", stats.file, "NetCDF output file with the diagnostics series")->required();
  stats_cmd->add_option("variables", stats.variables, "Series variables (default: every one)")->option_text("VAR...");
  stats_cmd->add_flag("--json", stats.json, "Print one JSON object");

  std::string recover_file, recover_output;
  auto* recover_cmd = app.add_subcommand(
      "recover", "Copy every complete record of a killed run's partial file (or any output file) into a clean "
                 "new file, with the same metadata, and say which records it left out and why; FILE is only read, "
                 "except that the flush its run was killed in is completed from FILE.journal, which is then "
                 "removed (docs/output.md, \"Kills\")");
  recover_cmd->add_option("file", recover_file, "The partial file (FILE.<pid>.partial) or output file")->required();
  recover_cmd->add_option("--output", recover_output,
                          "The new file, never an existing one (default: the final name with .recovered.nc, "
                          "out/rb.nc.<pid>.partial -> out/rb.recovered.nc)")
      ->option_text("NEW.nc");

  // bench: a case's step (bench CASE.json), or one of three benchmarks of their own, each a
  // subcommand of bench with only its flags (bench poisson, bench elliptic, bench relax).
  bouss::BenchOptions bench;
  auto* bench_cmd = app.add_subcommand(
      "bench", "Time a case's step: the median ms/step after warm-up, and the bandwidth it implies; or the cost of "
               "its output (--output-every, --stream)");
  bench_cmd->add_option("case", bench.case_file, "Case file (JSON)");
  add_backend_option(bench_cmd, bench.backend);
  bench_cmd->add_option("--set", bench.overrides,
                        "Override a case key, JSON-typed (a bare word is a string, a number in the path indexes an "
                        "array): --set grid.n=[32,32,16] --set time.steps=20; repeatable")
      ->option_text("KEY=VALUE")
      ->allow_extra_args(false);
  bench_cmd->add_option("--steps", bench.steps, "Timed steps")->option_text("N")->capture_default_str()->check(positive);
  bench_cmd->add_option("--warmup", bench.warmup, "Untimed steps first")
      ->option_text("N")
      ->capture_default_str()
      ->check(non_negative);
  bench_cmd->add_option("--from", bench.from,
                        "Where the timed steps start: a checkpoint (its flow, timed under this case's solver and "
                        "precision), latest (the case's newest checkpoint if it has one, else rest) or rest")
      ->option_text("CHECKPOINT|latest|rest")
      ->capture_default_str();
  bench_cmd->add_flag("--json", bench.json, "Print JSON instead of log lines");
  bench_cmd->add_option("--decomposition", bench.decomposition, decomposition_help)->option_text("PXxPY");
  bench_cmd->add_option("--output-every", bench.output_every,
                        "The cost of output: time the steps with no output and with snapshots every N steps "
                        "(a list: 1,10), each ending with the file fsynced; with the disk's and the writer's rates")
      ->option_text("N,...")
      ->delimiter(',');
  bench_cmd->add_option("--output-fields", bench.output_fields,
                        "With --output-every: all (T u v w p) and/or one field")
      ->option_text("all|FIELD,...")
      ->default_str("all,T")
      ->delimiter(',');
  bench_cmd->add_option("--output-precision", bench.output_precision, "With --output-every: double and/or float")
      ->option_text("double|float,...")
      ->default_str("double,float")
      ->delimiter(',');
  bench_cmd->add_option("--stream", bench.streams,
                        "The cost of one output stream, given as a case file's \"output\" entry in JSON without "
                        "\"file\", e.g. '{\"fields\":[\"T\"],\"region\":{\"z\":0.5},\"interval_steps\":1}' "
                        "(with the compressor's rate when it compresses); repeatable")
      ->option_text("JSON");
  bench_cmd->add_option("--output-dir", bench.output_dir,
                        "With --output-every or --stream: where the files go (default: the case's output folder)")
      ->option_text("DIR");

  // bench poisson and bench elliptic: the same program (tools/elliptic_bench.cpp), the
  // Poisson case and the elliptic problems; their common flags.
  // The registry's solvers (solver/registry.hpp), with the bench's own: the tridiagonal
  // methods, the CUDA libraries' baselines and mg/mg_mixed (the point multigrid with fp64 or
  // fp32 cycles).
  std::vector<std::string> bench_solvers = {"thomas", "pcr", "auto", "cusparse_gtsv", "cusparse_gtsv_interleaved",
                                            "mg", "mg_mixed", "direct_eigen", "cufft3d", "csr_cg"};
  for (const bouss::SolverType* t : bouss::solver_types()) {
    bench_solvers.emplace_back(t->name());
    for (const std::string_view alias : t->aliases()) bench_solvers.emplace_back(alias);
  }
  const std::vector<std::string> poisson_solvers = {"mg", "mg_mixed", "direct", "cufft3d", "csr_cg"};
  auto join = [](const std::vector<std::string>& words) {
    std::string all;
    for (const std::string& w : words) all += (all.empty() ? "" : ",") + w;
    return all;
  };
  std::vector<CLI::Option*> solver_opts, bc_opts;
  auto add_solve_options = [&](CLI::App* cmd, const std::string& bc_help, const std::string& bc_default,
                               const std::string& solvers_help, const std::string& default_solvers) {
    add_backend_option(cmd, bench.backend, "auto");
    cmd->add_option("--n", bench.n, "The grid")->option_text("NX,NY,NZ")->default_str("128,128,128")->delimiter(',');
    bc_opts.push_back(cmd->add_option("--bc", bench.bc, bc_help)
                          ->option_text("periodic|neumann|mixed")
                          ->default_str(bc_default)
                          ->check(CLI::IsMember({"periodic", "neumann", "mixed"})));
    cmd->add_option("--tolerance", bench.tolerance, "Relative residual tolerance")
        ->option_text("T")
        ->default_str("1e-8")
        ->check(positive);
    solver_opts.push_back(cmd->add_option("--solver", bench.solvers, solvers_help)
                              ->option_text("NAME,...")
                              ->default_str(default_solvers)
                              ->delimiter(',')
                              ->check(CLI::IsMember(bench_solvers)));
    cmd->add_option("--repeats", bench.repeats, "Timed solves (their median)")
        ->option_text("N")
        ->capture_default_str()
        ->check(positive);
    cmd->add_option("--precision", bench.precision, "The solves' arithmetic: double or single")
        ->option_text("double|single")
        ->capture_default_str();
    cmd->add_option("--fmg", bench.fmg, "Multigrids: FMG start")->option_text("true|false")->default_str("false");
    cmd->add_option("--pre-sweeps", bench.pre_sweeps, "Multigrids: smoothing sweeps before restriction")
        ->option_text("N")
        ->capture_default_str();
    cmd->add_option("--post-sweeps", bench.post_sweeps, "Multigrids: smoothing sweeps after prolongation")
        ->option_text("N")
        ->capture_default_str();
    cmd->add_option("--cuda-graphs", bench.cuda_graphs, "Multigrids: replay V-cycles as CUDA graphs")
        ->option_text("true|false")
        ->default_str("true");
    cmd->add_option("--cpu-coarse-cells", bench.cpu_coarse_cells, "Multigrids: host levels up to this many cells")
        ->option_text("N")
        ->default_str("512");
    cmd->add_flag("--json", bench.json, "Print JSON instead of log lines");
  };
  const char* bench_help_line =
      "The other benchmarks, each with flags of its own:\n"
      "  bouss bench poisson --help  The pressure solvers alone on a Poisson problem\n"
      "  bouss bench elliptic --help The elliptic solvers and their components, with their baselines\n"
      "  bouss bench relax --help    Coarse-grid relaxation on the CPU and the GPU";

  auto* poisson_cmd = bench_cmd->add_subcommand(
      "poisson", "Time the pressure solvers alone on the Poisson problem lap x = b (spacing 1/max(n)), each from a "
                 "cold start on a random right-hand side");
  add_solve_options(poisson_cmd, "Periodic (everywhere), neumann (everywhere) or mixed (periodic x, y; Neumann z)",
                    bench.bc,
                    "mg (the point multigrid), mg_mixed (its fp32 cycles), direct (fft: the direct solve, walls in z; "
                    "Fourier or cosine transforms along x and y), cufft3d (cuFFT, fully periodic), csr_cg (cuSPARSE's CG); the CUDA libraries' "
                    "baselines are skipped on the CPU, with a line saying so",
                    join(poisson_solvers));

  auto* elliptic_cmd = bench_cmd->add_subcommand(
      "elliptic", "Time the elliptic solvers and their components alone, each from a cold start on a random "
                  "right-hand side: on the pressure box (walls at z and x, periodic y, dx = aspect dz), with --cfl "
                  "on the model problem of papers 000/001, with --bc on the Poisson case (bench poisson)");
  add_solve_options(elliptic_cmd,
                    "Instead of the pressure box, bench poisson's problem with these conditions: periodic, neumann "
                    "or mixed (periodic x, y; Neumann z)",
                    "",
                    "thomas, pcr, auto (the batched tridiagonal solves), cusparse_gtsv, cusparse_gtsv_interleaved "
                    "(cuSPARSE's), line_pcg, line_multigrid, multigrid (mg; the pressure box only), mg_mixed, direct (fft), "
                    "direct_eigen (the direct solve through dense eigenbases: matrix products), cufft3d, csr_cg (with "
                    "--bc: bench poisson's)",
                    join(bench.elliptic_solvers));
  elliptic_cmd->add_option("--aspect", bench.aspect, "The pressure box: horizontal over vertical spacing, dx/dz (dz = 1/nz)")
      ->option_text("A")
      ->default_str("1");
  elliptic_cmd->add_option("--stretching", bench.stretching, "tanh stretching of z towards both walls; 0: uniform")
      ->option_text("BETA")
      ->capture_default_str();
  elliptic_cmd->add_option("--stretch-x", bench.stretch_x,
                           "The pressure box: tanh stretching of x towards both walls (the direct solve takes it "
                           "through its eigenbasis); 0: uniform")
      ->option_text("BETA")
      ->capture_default_str();
  elliptic_cmd->add_option("--stretch-y", bench.stretch_y,
                           "The pressure box: tanh stretching of the periodic y towards both ends; 0: uniform")
      ->option_text("BETA")
      ->capture_default_str();
  elliptic_cmd->add_option("--cfl", bench.cfl,
                           "The model problem of papers 000/001 instead of the pressure box: "
                           "-omega^2 (lap_h u + lambda^2 u_zz) + u = f on [0,1]^2 x [0,H], cell-centred finite volumes, "
                           "homogeneous Dirichlet sides (--periodic: periodic), Neumann top and bottom, "
                           "omega = NU h / 2 (h = 1/min(nx, ny), the horizontal CFL number NU = 2 omega / h, paper 001 "
                           "eq. 5), lambda = 1")
      ->option_text("NU")
      ->check(positive);
  elliptic_cmd->add_option("--depth", bench.depth, "With --cfl: H, the box's height")
      ->option_text("H")
      ->capture_default_str()
      ->check(positive);
  elliptic_cmd->add_flag("--periodic", bench.periodic, "With --cfl: periodic sides instead of Dirichlet ones");

  auto* relax_cmd = bench_cmd->add_subcommand(
      "relax", "Time red-black relaxations (with ghost fills) of n^3 cells on the CPU, and on the GPU with plain "
               "launches and as a CUDA graph (paper 004's Figure 2)");
  relax_cmd->add_option("--sizes", bench.sizes, "Grid sizes n (n^3 cells), from 2 to 1024")
      ->option_text("N,...")
      ->default_str(join([&] {
        std::vector<std::string> v;
        for (int n : bench.sizes) v.push_back(std::to_string(n));
        return v;
      }()))
      ->delimiter(',');
  relax_cmd->add_option("--sweeps", bench.sweeps, "Relaxations timed")
      ->option_text("N")
      ->capture_default_str()
      ->check(positive);
  relax_cmd->add_flag("--json", bench.json, "Print JSON instead of log lines");
  // Set after the subcommands were made (they would take it as their own). The footer lists
  // the benchmarks (CLI11's Subcommands section would say it again, at length).
  bench_cmd->footer(bench_help_line);
  for (CLI::App* sub : {poisson_cmd, elliptic_cmd, relax_cmd}) sub->group("");
  formatter->usages[bench_cmd] = "bouss bench [OPTIONS] case\n       bouss bench poisson|elliptic|relax [OPTIONS]";

  bouss::ValidationOptions onset;
  auto* onset_cmd = app.add_subcommand(
      "onset", "Critical Rayleigh number by growth rates around onset (secant iteration), per resolution, "
               "with Richardson extrapolation");
  add_case_options(onset_cmd, onset.case_file, onset.backend, onset.overrides, "Case file (JSON) in the rayleigh/prandtl form");
  const char* resolutions_help = "nz of each resolution, increasing; the case's nx:ny:nz is kept (a one-cell axis "
                                 "stays one cell) (default: the case's own grid)";
  onset_cmd->add_option("--resolutions", onset.resolutions, resolutions_help)->option_text("NZ,...")->delimiter(',');
  onset_cmd->add_option("--ra", onset.ra, "Two Rayleigh numbers to start the secant from (default: the case's +-3%)")
      ->option_text("RA1,RA2")
      ->delimiter(',')->expected(2);
  onset_cmd->add_option("--rates", onset.rates,
                        "Only measure the growth rate at each of these Ra (one run each, no secant); Ra_c is where "
                        "their least-squares line crosses zero (one Ra: its rate only). Splits a long search into "
                        "separate runs.")
      ->option_text("RA,...")
      ->delimiter(',');
  onset_cmd->add_flag("--json", onset.json, "Print one JSON object");

  bouss::ValidationOptions converge;
  auto* converge_cmd = app.add_subcommand(
      "converge", "Run a case at several resolutions and report the observed order of a diagnostic at its end, "
                  "and whether each run ended steady");
  add_case_options(converge_cmd, converge.case_file, converge.backend, converge.overrides, "Case file (JSON)");
  converge_cmd->add_option("--resolutions", converge.resolutions, resolutions_help)
      ->option_text("NZ,...")
      ->delimiter(',');
  converge_cmd->add_option("--diagnostic", converge.diagnostic,
                           "nusselt_bottom, nusselt_top, nusselt_volume, kinetic_energy or max_velocity")
      ->option_text("NAME")
      ->capture_default_str();
  converge_cmd->add_option("--output-dir", converge.output_dir,
                           "Write each run's diagnostics series (and first and last T) to DIR/NAME_NXxNYxNZ.nc")
      ->option_text("DIR");
  converge_cmd->add_flag("--overwrite", converge.overwrite, "Replace the files an earlier converge left in --output-dir");
  converge_cmd->add_flag("--json", converge.json, "Print one JSON object");

  bouss::ValidationOptions front;
  auto* front_cmd = app.add_subcommand(
      "front", "Lock exchange: run the case at several resolutions and report the speed and Froude number of the "
               "floor's and the lid's front, fitted over their constant-speed phase, with their convergence");
  add_case_options(front_cmd, front.case_file, front.backend, front.overrides,
                   "Case file (JSON) with the lock initial profile");
  front_cmd->add_option("--resolutions", front.resolutions, resolutions_help)->option_text("NZ,...")->delimiter(',');
  front_cmd->add_option("--fraction", front.fraction,
                        "A front is where T departs from the fluid ahead by this fraction of the two fluids' "
                        "difference; 0.5 is the interface")
      ->option_text("F")
      ->capture_default_str()
      ->check(CLI::Validator(
          [](std::string& v) {
            double x = 0;
            const bool ok = CLI::detail::lexical_cast(v, x) && x > 0 && x < 1;
            return ok ? std::string() : "expected a number in (0, 1), got " + v;
          },
          "a number in (0, 1)"));
  front_cmd->add_flag("--json", front.json, "Print one JSON object");

  // Every word after `plot` goes to the plotting script unparsed, --help included.
  auto* plot_cmd = app.add_subcommand(
      "plot", "Pictures from an output file: a slice of a field, the diagnostics series, the profiles, "
              "animation frames (bouss plot --help)");
  plot_cmd->prefix_command();
  plot_cmd->set_help_flag();

  std::vector<std::string> help_on;
  auto* help_cmd = app.add_subcommand("help", "Help on bouss, or on one command: bouss help [COMMAND [BENCHMARK]]");
  help_cmd->add_option("command", help_on, "The command to explain (run, check, bench, ...; bench elliptic, ...)")
      ->option_text("COMMAND...");

  // After the subcommands were made (they would take it as their own).
  app.footer("bouss help COMMAND (or bouss COMMAND --help) explains one command; docs/cli.md has them all");

  // The deepest command parsed (bench poisson), "" for none; the help that lists its options.
  auto command_read = [&] {
    std::string words;
    for (const CLI::App* at = &app;;) {
      const auto subs = at->get_subcommands();
      if (subs.empty()) break;
      at = subs.front();
      words += (words.empty() ? "" : " ") + at->get_name();
    }
    return words;
  };
  auto help_hint = [&] {
    const std::string words = command_read();
    return words.empty() ? std::string("bouss --help lists the commands and options")
                         : "bouss " + words + " --help lists its options";
  };
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ExtrasError& e) {
    // A flag (or word) the command does not take, named as it was written: "bench poisson
    // does not take --steps 0" (CLI11's own message lists the words in reverse).
    // The command the words were given to: the first, from bouss down, left with any.
    const CLI::App* at = &app;
    std::string command = "bouss";
    while (at->remaining().empty() && !at->get_subcommands().empty()) {
      at = at->get_subcommands().front();
      command = (at->get_parent() == &app ? "" : command + " ") + at->get_name();
    }
    std::vector<std::string> left = at->remaining();
    std::string words;
    for (int a = 1; a < argc; ++a) {
      const auto it = std::find(left.begin(), left.end(), std::string(argv[a]));
      if (it == left.end()) continue;
      words += std::string(words.empty() ? "" : " ") + argv[a];
      left.erase(it);
    }
    if (words.empty()) bouss::print_error(std::string(e.what()) + " (" + help_hint() + ")");
    else bouss::print_error(command + " does not take " + words + " (" + help_hint() + ")");
    return 2;
  } catch (const CLI::ParseError& e) {
    // One line, like every other error: "bouss: error: ...".
    std::string what = e.what();
    if (what.empty()) what = e.get_name();
    if (command_read().empty() && dynamic_cast<const CLI::RequiredError*>(&e)) {
      // No command read: name the word given instead, and the commands there are.
      std::string commands;
      for (const CLI::App* sub : app.get_subcommands({})) commands += (commands.empty() ? "" : ", ") + sub->get_name();
      std::string word;
      for (int a = 1; a < argc && word.empty(); ++a)
        if (argv[a][0] != '-' && (a == 1 || argv[a - 1][0] != '-')) word = argv[a];  // not a flag's value
      what = (word.empty() ? std::string("a command is required") : "unknown command " + word) + ": expected one of " +
             commands;
    }
    bouss::print_error(what + " (" + help_hint() + ")");
    return 2;
  }
  if (help_cmd->parsed()) {
    // As --help prints them (App::help would describe `help` itself, the command parsed).
    if (help_on.empty() || help_on == std::vector<std::string>{"help"}) {
      std::printf("%s", app.get_formatter()->make_help(&app, "bouss", CLI::AppFormatMode::Normal).c_str());
      return 0;
    }
    if (help_on.front() == "plot" && help_on.size() == 1) return bouss::plot_command({"--help"});
    const CLI::App* at = &app;
    std::string path = "bouss";
    for (const std::string& word : help_on) {
      const CLI::App* next = nullptr;
      for (const CLI::App* sub : at->get_subcommands({}))
        if (sub->get_name() == word && sub != plot_cmd && sub != help_cmd) next = sub;
      if (!next) {
        std::string all;
        for (const std::string& w : help_on) all += " " + w;
        bouss::print_error("help" + all + ": no such command (bouss --help lists the commands)");
        return 2;
      }
      if (at != &app) path += " " + at->get_name();
      at = next;
    }
    std::printf("%s", at->help(path).c_str());
    return 0;
  }
  if (plot_cmd->parsed()) return bouss::plot_command(plot_cmd->remaining());
  // bench: a case file, or one of its benchmarks, never both; a case's flags go to a case.
  const CLI::App* benchmark = nullptr;
  for (const CLI::App* sub : {poisson_cmd, elliptic_cmd, relax_cmd})
    if (sub->parsed()) benchmark = sub;
  if (bench_cmd->parsed()) {
    if (!benchmark && bench.case_file.empty()) {
      bouss::print_error("bench: expected a case file (JSON), or poisson, elliptic or relax (bouss bench --help lists "
                         "its options)");
      return 2;
    }
    if (benchmark) {
      std::string extra = bench.case_file.empty() ? "" : bench.case_file;
      for (const CLI::Option* opt : bench_cmd->get_options())
        if (opt->count() > 0 && opt->get_name() != "--backend" && opt->get_name() != "--json" && extra.empty())
          extra = opt->get_name();
      if (!extra.empty()) {
        bouss::print_error("bench " + benchmark->get_name() + " does not take " + extra + " (bouss bench " +
                           benchmark->get_name() + " --help lists its options)");
        return 2;
      }
      bench.case_file = benchmark->get_name();  // names the benchmark in its messages
    }
  }
  // Under mpirun: run, check and a case's bench work on the ranks (docs/mpi.md); the other
  // commands run one rank, so N copies of them would write over each other.
  const bool on_ranks = !bouss::Communicator::world()->alone();
  const bool bench_of_case = bench_cmd->parsed() && !benchmark && bench.output_every.empty() && bench.streams.empty();
  if (on_ranks && !run_cmd->parsed() && !check_cmd->parsed() && !onset_cmd->parsed() && !bench_of_case) {
    bouss::print_error("this command runs on one rank: start it without mpirun (under mpirun: run, check, onset, and "
                       "bench of a case without --output-every or --stream; docs/mpi.md)");
    return 2;
  }
  if (run_cmd->parsed()) return bouss::run_command(run);
  if (check_cmd->parsed()) return bouss::check_command(check);
  if (xdmf_cmd->parsed()) return bouss::xdmf_command(xdmf_file);
  if (stats_cmd->parsed()) return bouss::stats_command(stats);
  if (recover_cmd->parsed()) return bouss::recover_command(recover_file, recover_output);
  if (onset_cmd->parsed()) return bouss::onset_command(onset);
  if (converge_cmd->parsed()) return bouss::converge_command(converge);
  if (front_cmd->parsed()) return bouss::front_command(front);
  if (poisson_cmd->parsed() || elliptic_cmd->parsed()) {
    const bool poisson = poisson_cmd->parsed();
    bench.poisson = poisson || bc_opts[1]->count() > 0;
    if (solver_opts[poisson ? 0 : 1]->count()) bench.elliptic_solvers = bench.solvers;
    else if (bench.poisson) bench.elliptic_solvers = poisson_solvers;
    return bouss::elliptic_bench(bench);
  }
  if (relax_cmd->parsed()) return bouss::relax_bench(bench);
  if (bench_cmd->parsed()) {
    if (!bench.output_every.empty() || !bench.streams.empty()) return bouss::output_bench(bench);
    return bouss::bench_command(bench);
  }
  return 2;
}
