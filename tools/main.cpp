// bouss: the command line (CLI11).
//   bouss run CASE.json [--backend auto|cuda|cpu] [--set key.path=VALUE]... [--output FILE]
//   bouss bench CASE.json [--backend ...] [--steps N] [--warmup N] [--json] [--set ...]
#include <CLI/CLI.hpp>

#include "io/build_info.hpp"
#include "tools/commands.hpp"

int main(int argc, char** argv) {
  CLI::App app{"bouss: a GPU-resident Boussinesq solver (Rayleigh-Benard convection, lock exchange)"};
  app.set_version_flag("--version", bouss::build_provenance());
  app.require_subcommand(1);

  bouss::RunOptions run;
  auto* run_cmd = app.add_subcommand("run", "Run a case and write its NetCDF output");
  run_cmd->add_option("case", run.case_file, "Case file (JSON)")->required();
  run_cmd->add_option("--backend", run.backend, "Where the fields live: auto (CUDA when a GPU is present), cuda or cpu")
      ->check(CLI::IsMember({"auto", "cuda", "cpu"}));
  run_cmd->add_option("--set", run.overrides, "Override a case key, JSON-typed: --set grid.n=[32,32,16] --set time.steps=20")
      ->allow_extra_args(false);
  run_cmd->add_option("--output", run.output, "NetCDF output file (overrides output.file)");
  run_cmd->add_option("--progress", run.progress_seconds, "Seconds between progress lines")->check(CLI::PositiveNumber);

  bouss::BenchOptions bench;
  auto* bench_cmd = app.add_subcommand(
      "bench", "Time a case's step (median ms/step after warm-up, and the bandwidth it implies), "
               "the pressure solver alone (bench poisson), or coarse-grid relaxation on CPU and GPU (bench relax)");
  bench_cmd->add_option("case", bench.case_file, "Case file (JSON), or poisson, or relax")->required();
  bench_cmd->add_option("--backend", bench.backend, "auto, cuda or cpu")->check(CLI::IsMember({"auto", "cuda", "cpu"}));
  bench_cmd->add_option("--set", bench.overrides, "Override a case key, JSON-typed")->allow_extra_args(false);
  bench_cmd->add_option("--steps", bench.steps, "Timed steps")->check(CLI::PositiveNumber);
  bench_cmd->add_option("--warmup", bench.warmup, "Untimed steps first")->check(CLI::NonNegativeNumber);
  bench_cmd->add_flag("--json", bench.json, "Print JSON instead of log lines");
  bench_cmd->add_option("--n", bench.n, "poisson: grid NX,NY,NZ")->delimiter(',');
  bench_cmd->add_option("--bc", bench.bc, "poisson: periodic (everywhere), neumann (everywhere) or mixed (periodic x, y; Neumann z)")
      ->check(CLI::IsMember({"periodic", "neumann", "mixed"}));
  bench_cmd->add_option("--tolerance", bench.tolerance, "poisson: relative residual tolerance")->check(CLI::PositiveNumber);
  bench_cmd->add_option("--solver", bench.solvers, "poisson: mg, mg_mixed, fft, csr_cg (default all)")
      ->delimiter(',')->check(CLI::IsMember({"mg", "mg_mixed", "fft", "csr_cg"}));
  bench_cmd->add_option("--repeats", bench.repeats, "poisson: timed solves (median)")->check(CLI::PositiveNumber);
  bench_cmd->add_option("--fmg", bench.fmg, "poisson: FMG start (true/false)");
  bench_cmd->add_option("--pre-sweeps", bench.pre_sweeps, "poisson: smoothing sweeps before restriction");
  bench_cmd->add_option("--post-sweeps", bench.post_sweeps, "poisson: smoothing sweeps after prolongation");
  bench_cmd->add_option("--cuda-graphs", bench.cuda_graphs, "poisson: replay V-cycles as CUDA graphs (true/false)");
  bench_cmd->add_option("--cpu-coarse-cells", bench.cpu_coarse_cells, "poisson: host levels up to this many cells");
  bench_cmd->add_option("--sizes", bench.sizes, "relax: grid sizes n (n^3 cells)")->delimiter(',');
  bench_cmd->add_option("--sweeps", bench.sweeps, "relax: relaxations timed")->check(CLI::PositiveNumber);

  bouss::ValidationOptions onset;
  auto* onset_cmd = app.add_subcommand(
      "onset", "Critical Rayleigh number by growth rates around onset (secant iteration), per resolution, "
               "with Richardson extrapolation");
  onset_cmd->add_option("case", onset.case_file, "Case file (JSON) in the rayleigh/prandtl form")->required();
  onset_cmd->add_option("--resolutions", onset.resolutions, "nz of each resolution; the case's nx:ny:nz is kept")
      ->delimiter(',');
  onset_cmd->add_option("--ra", onset.ra, "Two Rayleigh numbers to start the secant from (default: the case's +-3%)")
      ->delimiter(',')->expected(2);
  onset_cmd->add_option("--rates", onset.rates,
                        "Only measure the growth rate at each of these Ra (one run each, no secant); Ra_c is where "
                        "their least-squares line crosses zero. Splits a long search into separate runs.")
      ->delimiter(',');
  onset_cmd->add_option("--backend", onset.backend, "auto, cuda or cpu")->check(CLI::IsMember({"auto", "cuda", "cpu"}));
  onset_cmd->add_option("--set", onset.overrides, "Override a case key, JSON-typed")->allow_extra_args(false);
  onset_cmd->add_flag("--json", onset.json, "Print one JSON object");

  bouss::ValidationOptions converge;
  auto* converge_cmd = app.add_subcommand(
      "converge", "Run a case at several resolutions and report the observed order of a diagnostic at its end");
  converge_cmd->add_option("case", converge.case_file, "Case file (JSON)")->required();
  converge_cmd->add_option("--resolutions", converge.resolutions, "nz of each resolution")->delimiter(',');
  converge_cmd->add_option("--diagnostic", converge.diagnostic,
                           "nusselt_bottom, nusselt_top, nusselt_volume, kinetic_energy or max_velocity");
  converge_cmd->add_option("--output-dir", converge.output_dir,
                           "Write each run's diagnostics series (and first and last T) to DIR/NAME_NXxNYxNZ.nc");
  converge_cmd->add_option("--backend", converge.backend, "auto, cuda or cpu")->check(CLI::IsMember({"auto", "cuda", "cpu"}));
  converge_cmd->add_option("--set", converge.overrides, "Override a case key, JSON-typed")->allow_extra_args(false);
  converge_cmd->add_flag("--json", converge.json, "Print one JSON object");

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return 2;
  }
  if (run_cmd->parsed()) return bouss::run_command(run);
  if (onset_cmd->parsed()) return bouss::onset_command(onset);
  if (converge_cmd->parsed()) return bouss::converge_command(converge);
  if (bench_cmd->parsed()) {
    if (bench.case_file == "poisson") return bouss::poisson_bench(bench);
    if (bench.case_file == "relax") return bouss::relax_bench(bench);
    return bouss::bench_command(bench);
  }
  return 2;
}
