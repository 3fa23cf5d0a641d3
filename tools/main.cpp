// bouss: the command line (CLI11).
//   bouss run CASE.json [--backend auto|cuda|cpu] [--set key.path=VALUE]... [--output FILE] [--overwrite]
//                       [--progress S] [--restart CHECKPOINT] [--wall-limit HH:MM]
//   bouss check CASE.json [--backend ...] [--set ...] [--output FILE] [--overwrite] [--json]
//   bouss bench CASE.json [--backend ...] [--steps N] [--warmup N] [--from CHECKPOINT|latest|rest] [--json] [--set ...]
//   bouss onset | converge | front CASE.json [--resolutions 16,32,64] ... (tools/validation_commands.cpp)
//   bouss plot FILE.nc [...]   (flags parsed by tools/bouss_plot.py: bouss plot --help)
#include <CLI/CLI.hpp>

#include <cmath>
#include <csignal>
#include <string>

#include "io/build_info.hpp"
#include "parallel/communicator.hpp"
#include "solver/registry.hpp"
#include "tools/commands.hpp"

namespace {
// The options every case-driven subcommand takes: the case file, --backend and --set.
void add_case_options(CLI::App* cmd, std::string& case_file, std::string& backend, std::vector<std::string>& overrides,
                      const char* case_help = "Case file (JSON)") {
  cmd->add_option("case", case_file, case_help)->required();
  cmd->add_option("--backend", backend, "Where the fields live: auto (CUDA when a GPU is present), cuda or cpu")
      ->check(CLI::IsMember({"auto", "cuda", "cpu"}));
  cmd->add_option("--set", overrides, "Override a case key, JSON-typed: --set grid.n=[32,32,16] --set time.steps=20")
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

  bouss::RunOptions run;
  run.program = argv[0];
  auto* run_cmd = app.add_subcommand("run", "Run a case and write its NetCDF output");
  add_case_options(run_cmd, run.case_file, run.backend, run.overrides, "Case file (JSON)");
  run_cmd->add_option("--output", run.output,
                      "NetCDF output file of the first stream; the other streams' files and checkpoint.file follow it "
                      "(docs/runs.md, \"The files of a run\")");
  run_cmd->add_flag("--overwrite", run.overwrite,
                    "Replace what an earlier run left under this run's names (its output files, their XDMF sidecars, "
                    "the checkpoints of its stem); without it such a run is refused");
  run_cmd->add_option("--progress", run.progress_seconds, "Seconds between progress lines (0: none)")
      ->check(non_negative);
  run_cmd->add_option("--restart", run.restart, "Continue the run from this checkpoint (STEM.checkpoint.STEP.nc)");
  run_cmd->add_option("--wall-limit", run.wall_limit,
                      "Write a checkpoint and stop cleanly before this much wall time (HH:MM or HH:MM:SS)");
  run_cmd->add_option("--decomposition", run.decomposition,
                      "Under mpirun: the process grid PXxPY that cuts x and y (default: the fewest halo cells per rank)");

  bouss::RunOptions check;
  auto* check_cmd = app.add_subcommand(
      "check", "Dry run: validate a case and print, a labelled line each, the memory it needs, the first dt, the "
               "pressure solver, the steps and wall time to the end (a few steps timed from rest), the output and "
               "checkpoint plan; write nothing and exit (0: it would run, 2: it would be refused)");
  add_case_options(check_cmd, check.case_file, check.backend, check.overrides, "Case file (JSON)");
  check_cmd->add_option("--output", check.output, "NetCDF output file of the first stream, as bouss run --output");
  check_cmd->add_flag("--overwrite", check.overwrite, "As bouss run --overwrite: the files an earlier run left are no refusal");
  check_cmd->add_flag("--json", check.json, "Print only the validated case, as JSON, with every default filled in");
  check_cmd->add_flag("--no-trial{false}", check.trial,
                      "Skip the trial steps from rest that time the wall-time estimate (the run is then not allocated)");

  std::string xdmf_file;
  auto* xdmf_cmd = app.add_subcommand(
      "xdmf", "Write FILE.xdmf2 beside a NetCDF output file FILE (out.nc: out.nc.xdmf2): the description ParaView's XDMF Reader opens "
              "(runs write it at their end; this is for partial files and copies)");
  xdmf_cmd->add_option("file", xdmf_file, "NetCDF output file")->required();

  std::string recover_file, recover_output;
  auto* recover_cmd = app.add_subcommand(
      "recover", "Copy every complete record of a killed run's partial file (or any output file) into a clean "
                 "new file, with the same metadata, and say which records it left out and why; FILE is only read, "
                 "except that the flush its run was killed in is completed from FILE.journal, which is then "
                 "removed (docs/output.md, \"Kills\")");
  recover_cmd->add_option("file", recover_file, "The partial file (FILE.<pid>.partial) or output file")->required();
  recover_cmd->add_option("--output", recover_output,
                          "The new file (default: the final name with .recovered.nc, out/rb.nc.<pid>.partial -> "
                          "out/rb.recovered.nc); never an existing file");

  bouss::BenchOptions bench;
  auto* bench_cmd = app.add_subcommand(
      "bench", "Time a case's step (median ms/step after warm-up, and the bandwidth it implies), "
               "the pressure solver alone (bench poisson), the vertical-line solvers and their baselines (bench elliptic), or "
               "coarse-grid relaxation on CPU and GPU (bench relax)");
  add_case_options(bench_cmd, bench.case_file, bench.backend, bench.overrides, "Case file (JSON), or poisson, elliptic, or relax");
  bench_cmd->add_option("--steps", bench.steps, "Timed steps")->check(positive);
  bench_cmd->add_option("--warmup", bench.warmup, "Untimed steps first")->check(non_negative);
  bench_cmd->add_option("--from", bench.from,
                        "Where the timed steps start: a checkpoint (its flow, timed under this case's solver and "
                        "precision), latest (the case's newest checkpoint if it has one, else rest; the default) or rest");
  bench_cmd->add_flag("--json", bench.json, "Print JSON instead of log lines");
  bench_cmd->add_option("--decomposition", bench.decomposition,
                        "Under mpirun: the process grid PXxPY that cuts x and y (default: the fewest halo cells per rank)");
  bench_cmd->add_option("--output-every", bench.output_every,
                        "The cost of output: time the steps with no output and with snapshots every N steps "
                        "(a list: 1,10), each ending with the file fsynced; with the disk's and the writer's rates")
      ->delimiter(',');
  bench_cmd->add_option("--output-fields", bench.output_fields, "with --output-every: all (T u v w p) and/or one field (default all,T)")
      ->delimiter(',');
  bench_cmd->add_option("--output-precision", bench.output_precision, "with --output-every: double and/or float (default both)")
      ->delimiter(',');
  bench_cmd->add_option("--stream", bench.streams,
                        "The cost of one output stream, given as a case file's \"output\" entry in JSON without "
                        "\"file\", e.g. '{\"fields\":[\"T\"],\"region\":{\"z\":0.5},\"interval_steps\":1}' "
                        "(repeatable; with the compressor's rate when it compresses)");
  bench_cmd->add_option("--output-dir", bench.output_dir, "with --output-every or --stream: where the files go (default: the case's output folder)");
  bench_cmd->add_option("--n", bench.n, "poisson, elliptic: grid NX,NY,NZ")->delimiter(',');
  auto* bc_opt = bench_cmd->add_option("--bc", bench.bc, "poisson (bench elliptic's Poisson case: lap x = b, spacing 1/max(n)): periodic (everywhere), neumann "
                                       "(everywhere) or mixed (periodic x, y; Neumann z; the default)")
      ->check(CLI::IsMember({"periodic", "neumann", "mixed"}));
  bench_cmd->add_option("--tolerance", bench.tolerance, "poisson, elliptic: relative residual tolerance")->check(positive);
  // The registry's solvers (solver/registry.hpp), with the bench's own: the tridiagonal
  // methods, the CUDA libraries' baselines and mg/mg_mixed (the point multigrid with fp64 or
  // fp32 cycles).
  std::vector<std::string> bench_solvers = {"thomas", "pcr", "auto", "cusparse_gtsv", "cusparse_gtsv_interleaved",
                                            "mg", "mg_mixed", "cufft3d", "csr_cg"};
  for (const bouss::SolverType* t : bouss::solver_types()) bench_solvers.emplace_back(t->name());
  auto* solver_opt = bench_cmd->add_option("--solver", bench.solvers,
                                           "poisson, elliptic: thomas, pcr, auto, cusparse_gtsv, cusparse_gtsv_interleaved, "
                                           "line_pcg, line_multigrid, multigrid (mg), mg_mixed, fft (Fourier-tridiagonal), cufft3d "
                                           "(cuFFT, fully periodic), csr_cg (default: poisson mg, mg_mixed, fft, cufft3d, "
                                           "csr_cg; elliptic thomas, pcr, line_pcg, line_multigrid)")
                          ->delimiter(',')
                          ->check(CLI::IsMember(bench_solvers));
  bench_cmd->add_option("--repeats", bench.repeats, "poisson, elliptic: timed solves (median)")->check(positive);
  bench_cmd->add_option("--fmg", bench.fmg, "poisson, elliptic (multigrids): FMG start (true/false)");
  bench_cmd->add_option("--pre-sweeps", bench.pre_sweeps, "poisson, elliptic (multigrids): smoothing sweeps before restriction");
  bench_cmd->add_option("--post-sweeps", bench.post_sweeps, "poisson, elliptic (multigrids): smoothing sweeps after prolongation");
  bench_cmd->add_option("--cuda-graphs", bench.cuda_graphs, "poisson, elliptic (multigrids): replay V-cycles as CUDA graphs (true/false)");
  bench_cmd->add_option("--cpu-coarse-cells", bench.cpu_coarse_cells, "poisson, elliptic (multigrids): host levels up to this many cells");
  bench_cmd->add_option("--aspect", bench.aspect, "elliptic (pressure box): horizontal over vertical spacing, dx/dz (dz = 1/nz; default 1)");
  bench_cmd->add_option("--cfl", bench.cfl,
                        "elliptic: the model problem of papers 000/001 instead of the pressure box: "
                        "-omega^2 (lap_h u + lambda^2 u_zz) + u = f on [0,1]^2 x [0,H], cell-centred finite volumes, "
                        "homogeneous Dirichlet sides (--periodic: periodic), Neumann top and bottom, "
                        "omega = NU h / 2 (h = 1/min(nx, ny), the horizontal CFL number NU = 2 omega / h, paper 001 "
                        "eq. 5), lambda = 1")
      ->check(positive);
  bench_cmd->add_option("--depth", bench.depth, "elliptic with --cfl: H, the box's height (default 0.01)")->check(positive);
  bench_cmd->add_flag("--periodic", bench.periodic, "elliptic with --cfl: periodic sides instead of Dirichlet ones");
  bench_cmd->add_option("--stretching", bench.stretching, "elliptic: tanh stretching of z towards both walls (0: uniform)");
  bench_cmd->add_option("--precision", bench.precision, "elliptic: double or single");
  bench_cmd->add_option("--sizes", bench.sizes, "relax: grid sizes n (n^3 cells)")->delimiter(',');
  bench_cmd->add_option("--sweeps", bench.sweeps, "relax: relaxations timed")->check(positive);

  bouss::ValidationOptions onset;
  auto* onset_cmd = app.add_subcommand(
      "onset", "Critical Rayleigh number by growth rates around onset (secant iteration), per resolution, "
               "with Richardson extrapolation");
  add_case_options(onset_cmd, onset.case_file, onset.backend, onset.overrides, "Case file (JSON) in the rayleigh/prandtl form");
  onset_cmd->add_option("--resolutions", onset.resolutions,
                        "nz of each resolution, increasing; the case's nx:ny:nz is kept (a one-cell axis stays one cell)")
      ->delimiter(',');
  onset_cmd->add_option("--ra", onset.ra, "Two Rayleigh numbers to start the secant from (default: the case's +-3%)")
      ->delimiter(',')->expected(2);
  onset_cmd->add_option("--rates", onset.rates,
                        "Only measure the growth rate at each of these Ra (one run each, no secant); Ra_c is where "
                        "their least-squares line crosses zero (one Ra: its rate only). Splits a long search into "
                        "separate runs.")
      ->delimiter(',');
  onset_cmd->add_flag("--json", onset.json, "Print one JSON object");

  bouss::ValidationOptions converge;
  auto* converge_cmd = app.add_subcommand(
      "converge", "Run a case at several resolutions and report the observed order of a diagnostic at its end, "
                  "and whether each run ended steady");
  add_case_options(converge_cmd, converge.case_file, converge.backend, converge.overrides, "Case file (JSON)");
  converge_cmd->add_option("--resolutions", converge.resolutions,
                           "nz of each resolution, increasing; the case's nx:ny:nz is kept (a one-cell axis stays one cell)")
      ->delimiter(',');
  converge_cmd->add_option("--diagnostic", converge.diagnostic,
                           "nusselt_bottom, nusselt_top, nusselt_volume, kinetic_energy or max_velocity");
  converge_cmd->add_option("--output-dir", converge.output_dir,
                           "Write each run's diagnostics series (and first and last T) to DIR/NAME_NXxNYxNZ.nc");
  converge_cmd->add_flag("--overwrite", converge.overwrite, "Replace the files an earlier converge left in --output-dir");
  converge_cmd->add_flag("--json", converge.json, "Print one JSON object");

  bouss::ValidationOptions front;
  auto* front_cmd = app.add_subcommand(
      "front", "Lock exchange: run the case at several resolutions and report the speed and Froude number of the "
               "floor's and the lid's front, fitted over their constant-speed phase, with their convergence");
  add_case_options(front_cmd, front.case_file, front.backend, front.overrides,
                   "Case file (JSON) with the lock initial profile");
  front_cmd->add_option("--resolutions", front.resolutions,
                        "nz of each resolution, increasing; the case's nx:ny:nz is kept (a one-cell axis stays one cell)")
      ->delimiter(',');
  front_cmd->add_option("--fraction", front.fraction,
                        "A front is where T departs from the fluid ahead by this fraction of the two fluids' "
                        "difference (default 0.5: the interface)")
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

  std::string help_on;
  auto* help_cmd = app.add_subcommand("help", "Help on bouss, or on one command: bouss help [COMMAND]");
  help_cmd->add_option("command", help_on, "The command to explain (run, check, bench, ...)");

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // One line, like every other error: "bouss: error: ...".
    std::string what = e.what();
    if (what.empty()) what = e.get_name();
    // The help of the command that was being read, or of bouss.
    std::string help = "bouss --help lists the commands and options";
    for (const CLI::App* sub : app.get_subcommands()) help = "bouss " + sub->get_name() + " --help lists its options";
    bouss::print_error(what + " (" + help + ")");
    return 2;
  }
  if (help_cmd->parsed()) {
    // As --help prints them (App::help would describe `help` itself, the command parsed).
    if (help_on.empty() || help_on == "help") {
      std::printf("%s", app.get_formatter()->make_help(&app, "bouss", CLI::AppFormatMode::Normal).c_str());
      return 0;
    }
    for (CLI::App* sub : app.get_subcommands({}))
      if (sub->get_name() == help_on && sub != plot_cmd) {
        std::printf("%s", sub->help("bouss").c_str());
        return 0;
      }
    if (help_on == "plot") return bouss::plot_command({"--help"});
    bouss::print_error("help " + help_on + ": no such command (bouss --help lists the commands)");
    return 2;
  }
  if (plot_cmd->parsed()) return bouss::plot_command(plot_cmd->remaining());
  // Under mpirun: run, check and a case's bench work on the ranks (docs/mpi.md); the other
  // commands run one rank, so N copies of them would write over each other.
  const bool on_ranks = !bouss::Communicator::world()->alone();
  const bool bench_of_case = bench_cmd->parsed() && bench.case_file != "poisson" && bench.case_file != "elliptic" &&
                             bench.case_file != "relax" && bench.output_every.empty() && bench.streams.empty();
  if (on_ranks && !run_cmd->parsed() && !check_cmd->parsed() && !onset_cmd->parsed() && !bench_of_case) {
    bouss::print_error("this command runs on one rank: start it without mpirun (under mpirun: run, check, onset, and "
                       "bench of a case without --output-every or --stream; docs/mpi.md)");
    return 2;
  }
  if (run_cmd->parsed()) return bouss::run_command(run);
  if (check_cmd->parsed()) return bouss::check_command(check);
  if (xdmf_cmd->parsed()) return bouss::xdmf_command(xdmf_file);
  if (recover_cmd->parsed()) return bouss::recover_command(recover_file, recover_output);
  if (onset_cmd->parsed()) return bouss::onset_command(onset);
  if (converge_cmd->parsed()) return bouss::converge_command(converge);
  if (front_cmd->parsed()) return bouss::front_command(front);
  if (bench_cmd->parsed()) {
    if (bench.case_file == "poisson" || bench.case_file == "elliptic") {
      bench.poisson = bench.case_file == "poisson" || bc_opt->count() > 0;
      if (solver_opt->count()) bench.elliptic_solvers = bench.solvers;
      else if (bench.poisson) bench.elliptic_solvers = {"mg", "mg_mixed", "fft", "cufft3d", "csr_cg"};
      return bouss::elliptic_bench(bench);
    }
    if (bench.case_file == "relax") return bouss::relax_bench(bench);
    if (!bench.output_every.empty() || !bench.streams.empty()) return bouss::output_bench(bench);
    return bouss::bench_command(bench);
  }
  return 2;
}
