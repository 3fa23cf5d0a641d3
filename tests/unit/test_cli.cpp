// The command line as a user meets it: bad input gives one error line naming the file
// and JSON path, exit code 2, and no output file; a good case runs and writes its file.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <netcdf.h>
#include <unistd.h>

#include "process.hpp"

namespace fs = std::filesystem;

namespace {

using Result = bouss::test::CommandResult;

Result run_bouss(const std::string& args) { return bouss::test::run_bouss_line(args, "bouss_cli_test"); }

fs::path write_case(const std::string& name, const std::string& text) {
  const fs::path p = fs::temp_directory_path() / "bouss_cli_test" / name;
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text;
  return p;
}

std::string small_case(const std::string& output, const std::string& grid_n = "[8, 8, 4]") {
  return R"({
  "name": "cli_test",
  "grid": {"n": )" + grid_n + R"(, "extent": [[0, 2], [0, 2], [0, 1]]},
  "physics": {"rayleigh": 2000, "prandtl": 1, "units": "diffusive"},
  "boundaries": {"x_lo": "periodic", "x_hi": "periodic", "y_lo": "periodic", "y_hi": "periodic",
                 "z_lo": {"velocity": "no_slip", "temperature": {"fixed": 1}},
                 "z_hi": {"velocity": "no_slip", "temperature": {"fixed": 0}}},
  "initial": {"perturbation": {"amplitude": 0.01, "seed": 3}},
  "time": {"steps": 3},
  "output": {"file": ")" + output + R"("}
})";
}

// Files in out's folder whose names start with out's and end in ".partial" (any pid).
bool has_partial(const fs::path& out) {
  if (!fs::exists(out.parent_path())) return false;
  for (const auto& e : fs::directory_iterator(out.parent_path())) {
    const std::string name = e.path().filename().string();
    if (name.rfind(out.filename().string() + ".", 0) == 0 && name.size() > 8 &&
        name.compare(name.size() - 8, 8, ".partial") == 0)
      return true;
  }
  return false;
}

int count_lines(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

}  // namespace

TEST(CommandLine, HelpAndVersionExitZero) {
  const Result help = run_bouss("--help");
  EXPECT_EQ(help.code, 0);
  EXPECT_NE(help.out.find("run"), std::string::npos);
  EXPECT_NE(help.out.find("bench"), std::string::npos);
  EXPECT_EQ(run_bouss("run --help").code, 0);
  EXPECT_EQ(run_bouss("bench --help").code, 0);
  // bouss help [COMMAND]; usage lines name bouss, not the binary's path.
  const Result all = run_bouss("help");
  EXPECT_EQ(all.code, 0);
  EXPECT_EQ(all.out, help.out);
  const Result run_help = run_bouss("help run");
  EXPECT_EQ(run_help.code, 0);
  EXPECT_EQ(run_help.out, run_bouss("run --help").out);
  EXPECT_NE(run_help.out.find("Usage: bouss run"), std::string::npos) << run_help.out;
  EXPECT_EQ(run_bouss("help frobnicate").code, 2);
  const Result version = run_bouss("--version");
  EXPECT_EQ(version.code, 0);
  EXPECT_NE(version.out.find(BOUSS_VERSION), std::string::npos);
  // The build's provenance: the commit and how the arithmetic was compiled.
  EXPECT_NE(version.out.find("(git "), std::string::npos) << version.out;
  EXPECT_TRUE(version.out.find("fmad") != std::string::npos || version.out.find("no CUDA") != std::string::npos)
      << version.out;
}

TEST(CommandLine, BadCaseGivesOneLineNamingFileAndPathExitTwoAndNoOutput) {
  const fs::path out = fs::temp_directory_path() / "bouss_cli_test" / "bad_case.nc";
  fs::remove(out);
  const fs::path p = write_case("bad_grid.json", small_case(out.string(), "[8, -1, 4]"));
  const Result r = run_bouss("run " + p.string());
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(count_lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find(p.string()), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("/grid/n"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(out));
  EXPECT_FALSE(has_partial(out));
}

TEST(CommandLine, BadOverrideAndMissingFileExitTwo) {
  const fs::path out = fs::temp_directory_path() / "bouss_cli_test" / "override.nc";
  fs::remove(out);
  const fs::path p = write_case("good.json", small_case(out.string()));
  const Result r = run_bouss("run " + p.string() + " --set time.steps=-4");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("/time/steps"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(out));
  const Result missing = run_bouss("run /nonexistent/case.json");
  EXPECT_EQ(missing.code, 2);
  EXPECT_NE(missing.err.find("/nonexistent/case.json"), std::string::npos) << missing.err;
}

TEST(CommandLine, UnwritableOutputIsRefusedBeforeTheRun) {
  const fs::path p = write_case("unwritable.json", small_case("/proc/bouss/out.nc"));
  const Result r = run_bouss("run " + p.string() + " --backend cpu");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("/proc/bouss/out.nc"), std::string::npos) << r.err;
  EXPECT_EQ(count_lines(r.err), 1) << r.err;
}

// A run writes its file; a second run of the same names is refused (one line naming the file
// and --overwrite, exit 2) and the first run's file is untouched; with --overwrite it is
// replaced at the end.
TEST(CommandLine, RunWritesTheOutputAndReplacesAnEarlierRunsFileOnlyWhenAsked) {
  const fs::path dir = fs::temp_directory_path() / "bouss_cli_test" / ("good_" + std::to_string(getpid()));
  fs::remove_all(dir);
  const fs::path out = dir / "good.nc";
  const fs::path p = write_case("good_run.json", small_case(out.string()));
  const Result r = run_bouss("run " + p.string() + " --backend cpu --set time.steps=2");
  EXPECT_EQ(r.code, 0) << r.err << r.out;
  EXPECT_TRUE(fs::exists(out));
  EXPECT_FALSE(has_partial(out));
  EXPECT_NE(r.out.find(out.string()), std::string::npos) << "the log says where the file went";
  const auto written = fs::last_write_time(out);
  const auto bytes = [](const fs::path& f) {
    std::ifstream in(f, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  };
  const std::string first = bytes(out);
  const Result again = run_bouss("run " + p.string() + " --backend cpu --set time.steps=4");
  EXPECT_EQ(again.code, 2) << again.err;
  EXPECT_NE(again.err.find(out.string() + " exists, an earlier run's output: pass --overwrite"), std::string::npos)
      << again.err;
  EXPECT_EQ(std::count(again.err.begin(), again.err.end(), '\n'), 1) << again.err;
  EXPECT_EQ(fs::last_write_time(out), written) << "the earlier run's file is untouched";
  EXPECT_FALSE(has_partial(out)) << "nothing was started";
  const Result asked = run_bouss("run " + p.string() + " --backend cpu --set time.steps=4 --overwrite");
  EXPECT_EQ(asked.code, 0) << asked.err;
  EXPECT_NE(bytes(out), first) << "replaced by the second run's file";
  // --output writes elsewhere.
  const fs::path other = dir / "other.nc";
  EXPECT_EQ(run_bouss("run " + p.string() + " --backend cpu --output " + other.string()).code, 0);
  EXPECT_TRUE(fs::exists(other));
  fs::remove_all(dir);
}

TEST(CommandLine, BenchPrintsJsonWithTheFigures) {
  const fs::path p = write_case("bench.json", small_case(""));
  const Result r = run_bouss("bench " + p.string() + " --backend cpu --steps 3 --warmup 1 --json");
  EXPECT_EQ(r.code, 0) << r.err;
  for (const char* key : {"ms_per_step", "ns_per_cell_step", "mg_cycles_per_step", "bytes_per_step", "effective_GBps"})
    EXPECT_NE(r.out.find(key), std::string::npos) << key << " missing from " << r.out;
}

// bench times a developed flow when the case has one: its newest checkpoint by default
// (under this run's solver and precision), rest when asked or when it has none, and a
// checkpoint of another problem is refused by name (or, when only found, passed over).
TEST(CommandLine, BenchStartsFromTheCasesNewestCheckpoint) {
  const fs::path dir = fs::temp_directory_path() / "bouss_cli_test" / ("bench_from_" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path p = write_case("bench_from_" + std::to_string(getpid()) + ".json", small_case((dir / "bf.nc").string()));
  auto json_of = [](const Result& r) { return nlohmann::json::parse(r.out); };

  const Result none = run_bouss("bench " + p.string() + " --backend cpu --steps 2 --warmup 0 --json");
  ASSERT_EQ(none.code, 0) << none.err;
  EXPECT_EQ(json_of(none)["from"], "rest");
  EXPECT_NE(none.err.find("timing from rest"), std::string::npos) << none.err;

  ASSERT_EQ(run_bouss("run " + p.string() + " --backend cpu --set time.steps=30 --set checkpoint.interval_steps=10").code, 0);
  const std::string newest = (dir / "bf.checkpoint.30.nc").string();
  ASSERT_TRUE(fs::exists(newest));
  const Result latest = run_bouss("bench " + p.string() + " --backend cpu --steps 2 --warmup 1 --json");
  ASSERT_EQ(latest.code, 0) << latest.err;
  const nlohmann::json j = json_of(latest);
  EXPECT_EQ(j["from"], newest);
  EXPECT_EQ(j["start_step"], 30);
  EXPECT_GT(j["start_time"].get<double>(), 0);
  EXPECT_GT(j["timed_from_time"].get<double>(), j["start_time"].get<double>());  // after the warm-up step

  // Another solver and precision time the same flow.
  const Result other = run_bouss("bench " + p.string() + " --backend cpu --steps 2 --warmup 0 --json --set precision=single "
                                 "--set pressure.solver=multigrid --set pressure.tolerance=1e-4");
  ASSERT_EQ(other.code, 0) << other.err;
  EXPECT_EQ(json_of(other)["from"], newest);
  EXPECT_GE(json_of(other)["cycles_min"].get<int>(), 1);

  const Result rest = run_bouss("bench " + p.string() + " --backend cpu --steps 2 --warmup 0 --json --from rest");
  ASSERT_EQ(rest.code, 0) << rest.err;
  EXPECT_EQ(json_of(rest)["start_step"], 0);

  // Another grid: the found checkpoint is passed over with a line; a named one is refused.
  const Result regrid = run_bouss("bench " + p.string() + " --backend cpu --steps 2 --warmup 0 --json --set grid.n=[16,16,8]");
  ASSERT_EQ(regrid.code, 0) << regrid.err;
  EXPECT_EQ(json_of(regrid)["from"], "rest");
  EXPECT_NE(regrid.err.find("/grid/n: the checkpoint has [8,8,4], the case [16,16,8]"), std::string::npos) << regrid.err;
  const Result named = run_bouss("bench " + p.string() + " --backend cpu --steps 2 --from " + newest + " --set grid.n=[16,16,8]");
  EXPECT_EQ(named.code, 2);
  EXPECT_NE(named.err.find("holds another problem"), std::string::npos) << named.err;
  const Result missing = run_bouss("bench " + p.string() + " --backend cpu --steps 2 --from " + (dir / "none.nc").string());
  EXPECT_EQ(missing.code, 2);
  EXPECT_NE(missing.err.find("no such file"), std::string::npos) << missing.err;
  fs::remove_all(dir);
}

TEST(CommandLine, OnsetAndConvergePrintTheirJsonAndRejectBadInput) {
  // A coarse free-slip onset search: the tool runs, brackets, and reports the keys.
  const std::string onset_case = std::string(BOUSS_SOURCE_DIR) + "/cases/onset_free_slip.json";
  const Result r = run_bouss("onset " + onset_case +
                             " --backend cpu --resolutions 8 --ra 640,680 --set time.end=0.6 --json");
  ASSERT_EQ(r.code, 0) << r.err;
  for (const char* key : {"\"rows\"", "\"rac\"", "\"growth_rates\"", "\"extrapolated\"", "\"order\""})
    EXPECT_NE(r.out.find(key), std::string::npos) << key << " in " << r.out;
  // --rates: one run per Rayleigh number, Ra_c from their line.
  const Result rates = run_bouss("onset " + onset_case +
                                 " --backend cpu --resolutions 8 --rates 640,680 --set time.end=0.6 --json");
  ASSERT_EQ(rates.code, 0) << rates.err;
  EXPECT_NE(rates.out.find("\"rac\""), std::string::npos) << rates.out;
  // A resolution that does not scale the grid to whole cells is bad input.
  const Result bad = run_bouss("onset " + onset_case + " --backend cpu --resolutions 3");  // ny = 8 * 3 / 16 is no whole number
  EXPECT_EQ(bad.code, 2) << bad.err;
  EXPECT_NE(bad.err.find("/grid/n"), std::string::npos) << bad.err;
  const std::string nu_case = std::string(BOUSS_SOURCE_DIR) + "/cases/nusselt_cube.json";
  const Result c = run_bouss("converge " + nu_case +
                             " --backend cpu --resolutions 4,8 --set time.end=0.05 --diagnostic nusselt_top --json");
  ASSERT_EQ(c.code, 0) << c.err;
  EXPECT_NE(c.out.find("\"nusselt_top\""), std::string::npos) << c.out;
  EXPECT_EQ(run_bouss("converge " + nu_case + " --diagnostic entropy").code, 2);
  // A pressure solver the registry does not know, or one that cannot take the grid, is the
  // case's error: one line at /pressure/solver and exit 2 before anything runs.
  for (const std::string args : {"onset " + onset_case + " --set pressure.solver=\"multigrid\" --set "
                                 "'grid.z={\"stretching\": \"tanh\", \"parameter\": 1.5}' --resolutions 8",
                                 "converge " + nu_case + " --set pressure.solver=\"jacobi\" --resolutions 4,8",
                                 "front " + std::string(BOUSS_SOURCE_DIR) + "/cases/lock_exchange_2d.json --set pressure.solver=\"jacobi\""}) {
    const Result r = run_bouss(args + " --backend cpu");
    EXPECT_EQ(r.code, 2) << args << ": " << r.err;
    EXPECT_EQ(count_lines(r.err), 1) << r.err;
    EXPECT_NE(r.err.find("/pressure/solver: expected"), std::string::npos) << r.err;
    EXPECT_EQ(r.out, "") << "nothing ran: " << r.out;
  }
}

TEST(CommandLine, CommandLineErrorsAreOneLineWithThePrefixAndExitTwo) {
  for (const char* args : {"run", "run x.json --bogus", "frobnicate", "run x.json --progress -1",
                           "bench poisson --steps 0", "bench", "bench relax --backend cpu", "bench --steps 3 poisson",
                           "bench x.json elliptic", "bench elliptic --cfl 1 --frobnicate 2"}) {
    const Result r = run_bouss(args);
    EXPECT_EQ(r.code, 2) << args;
    EXPECT_EQ(count_lines(r.err), 1) << args << ": " << r.err;
    EXPECT_EQ(r.err.rfind("bouss: error: ", 0), 0u) << args << ": " << r.err;
    EXPECT_LT(r.err.size(), 200u) << "no 309-digit bounds: " << r.err;
  }
  // An error points at the help of the command it was reading.
  EXPECT_NE(run_bouss("run").err.find("(bouss run --help lists its options)"), std::string::npos);
  EXPECT_NE(run_bouss("frobnicate").err.find("(bouss --help lists the commands and options)"), std::string::npos);
  // A word that is no command is named, with the commands there are; a flag's value is not.
  EXPECT_NE(run_bouss("frobnicate").err.find("unknown command frobnicate: expected one of run, check,"),
            std::string::npos);
  EXPECT_NE(run_bouss("--backend cpu").err.find("a command is required: expected one of run,"), std::string::npos);
}

// bench's help is the case bench's, and names the three benchmarks' own; each benchmark's
// help lists only its flags, and refuses the others' (one line naming the flag, exit 2).
TEST(CommandLine, EachBenchmarkTakesOnlyItsOwnFlags) {
  const Result bench = run_bouss("bench --help");
  ASSERT_EQ(bench.code, 0) << bench.err;
  for (const char* own : {"--steps", "--warmup", "--from", "--output-every", "--set"})
    EXPECT_NE(bench.out.find(own), std::string::npos) << own << " in " << bench.out;
  for (const char* other : {"\n  --n ", "\n  --solver ", "\n  --sizes ", "\n  --cfl ", "\n  --tolerance "})
    EXPECT_EQ(bench.out.find(other), std::string::npos) << other << " in " << bench.out;
  for (const char* named : {"bouss bench poisson --help", "bouss bench elliptic --help", "bouss bench relax --help"})
    EXPECT_NE(bench.out.find(named), std::string::npos) << named << " in " << bench.out;
  EXPECT_LT(count_lines(bench.out), 45) << bench.out;
  const std::map<std::string, std::vector<std::string>> refused = {
      {"poisson", {"--steps", "--cfl", "--aspect", "--stretching", "--sizes", "--set"}},
      {"elliptic", {"--steps", "--warmup", "--sizes", "--from"}},
      {"relax", {"--backend", "--n", "--solver", "--steps", "--tolerance"}}};
  for (const auto& [benchmark, flags] : refused) {
    const Result help = run_bouss("bench " + benchmark + " --help");
    ASSERT_EQ(help.code, 0) << help.err;
    EXPECT_NE(help.out.find("Usage: bouss bench " + benchmark + " [OPTIONS]"), std::string::npos) << help.out;
    for (const std::string& flag : flags) {
      EXPECT_EQ(help.out.find("  " + flag + " "), std::string::npos) << flag << " in bench " << benchmark << " --help";
      const Result r = run_bouss("bench " + benchmark + " " + flag + " 1");
      EXPECT_EQ(r.code, 2) << benchmark << " " << flag;
      EXPECT_EQ(r.err, "bouss: error: bench " + benchmark + " does not take " + flag + " 1 (bouss bench " + benchmark +
                           " --help lists its options)\n");
    }
  }
}

TEST(CommandLine, ProgressZeroMeansNoProgressLines) {
  const fs::path p = write_case("progress.json", small_case(""));
  const Result quiet = run_bouss("run " + p.string() + " --backend cpu --progress 0");
  EXPECT_EQ(quiet.code, 0) << quiet.err;
  EXPECT_EQ(quiet.out.find(" ETA "), std::string::npos) << quiet.out;
  const Result loud = run_bouss("run " + p.string() + " --backend cpu");
  EXPECT_NE(loud.out.find(" ETA "), std::string::npos) << "the final progress line: " << loud.out;
}

// The progress line labels its numbers: the solver's own unit (passes of the direct solve),
// which Nusselt number is which, and no nan for a growth rate not yet defined (the first
// line); the end of the run names the XDMF sidecar ParaView opens.
TEST(CommandLine, TheRunLogSpeaksPlainly) {
  const fs::path p = write_case("plain.json", small_case("plain.nc"));
  const Result r = run_bouss("run " + p.string() + " --backend cpu --progress 1e-9 --set time.steps=2");
  EXPECT_EQ(r.code, 0) << r.err;
  for (const char* what : {"| direct passes 1 ", "Nu bottom ", " top ", " volume ",
                           "for ParaView: open " /* the sidecar */, "plain.nc.xdmf2 (the XDMF reader), not the .nc"})
    EXPECT_NE(r.out.find(what), std::string::npos) << what << " in " << r.out;
  EXPECT_EQ(r.out.find("nan"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("| mg "), std::string::npos) << r.out;
  fs::remove("plain.nc");
  fs::remove("plain.nc.xdmf2");
}

TEST(CommandLine, BenchOptionsGoThroughTheCaseRules) {
  const Result zero = run_bouss("bench poisson --n 0,0,0 --backend cpu");
  EXPECT_EQ(zero.code, 2);
  EXPECT_NE(zero.err.find("--n: expected 3 positive integers"), std::string::npos) << zero.err;
  const Result odd = run_bouss("bench poisson --n 17,17,17 --backend cpu");
  EXPECT_EQ(odd.code, 2);
  EXPECT_NE(odd.err.find("--n: expected a grid the multigrid can coarsen"), std::string::npos) << odd.err;
  const Result tolerance = run_bouss("bench poisson --n 16,16,16 --tolerance 3 --backend cpu");
  EXPECT_EQ(tolerance.code, 2);
  EXPECT_NE(tolerance.err.find("--tolerance"), std::string::npos) << tolerance.err;
  const Result huge = run_bouss("bench poisson --n 8192,8192,4096 --backend cpu");
  EXPECT_EQ(huge.code, 2);
  EXPECT_NE(huge.err.find("needs"), std::string::npos) << huge.err;
  const Result sizes = run_bouss("bench relax --sizes 4,0");
  EXPECT_EQ(sizes.code, 2);
  EXPECT_NE(sizes.err.find("--sizes 0"), std::string::npos) << sizes.err;
}

// bench elliptic on the CPU: the model problem's line solvers converge and report the same
// residual measure; the Poisson case (bench poisson) is the same program; contradictory
// options are one-line errors.
TEST(CommandLine, BenchElliptic) {
  const Result model = run_bouss("bench elliptic --backend cpu --n 16,16,8 --cfl 8.4 --tolerance 1e-6 --repeats 1 "
                                 "--solver line_pcg,line_multigrid,thomas --json");
  ASSERT_EQ(model.code, 0) << model.err;
  const nlohmann::json rows = nlohmann::json::parse(model.out);
  ASSERT_EQ(rows.size(), 3u);
  for (const auto& r : rows) {
    EXPECT_EQ(r["cfl"].get<double>(), 8.4);
    EXPECT_LE(r["final_max_residual"].get<double>(), 1e-6) << r["solver"];
    EXPECT_GT(r["ms"].get<double>(), 0) << r["solver"];
  }
  EXPECT_GT(rows[0]["iterations"].get<int>(), rows[1]["iterations"].get<int>()) << "CG takes more iterations than multigrid";
  const Result poisson = run_bouss("bench elliptic --backend cpu --n 16,16,16 --bc neumann --repeats 1 --json");
  ASSERT_EQ(poisson.code, 0) << poisson.err;
  const nlohmann::json p = nlohmann::json::parse(poisson.out);
  ASSERT_EQ(p.size(), 3u) << "mg, mg_mixed and fft; the CUDA baselines skipped on the CPU";
  EXPECT_EQ(p[0]["solver"], "mg");
  EXPECT_LE(p[0]["final_max_residual"].get<double>(), 1e-8);
  // The direct solve of the walled box (cosine transforms along x and y), to round-off.
  EXPECT_EQ(p[2]["solver"], "direct");
  EXPECT_LE(p[2]["final_max_residual"].get<double>(), 1e-12);
  // The Fourier solver (periodic x and y, walls in z) solves to round-off, as its own check says.
  const Result fft = run_bouss("bench poisson --backend cpu --n 16,16,8 --bc mixed --solver fft --repeats 1 --json");
  ASSERT_EQ(fft.code, 0) << fft.err;
  const nlohmann::json f = nlohmann::json::parse(fft.out);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_LE(f[0]["final_max_residual"].get<double>(), 1e-12);
  EXPECT_EQ(f[0]["iterations"].get<int>(), 1);
  const Result both = run_bouss("bench elliptic --backend cpu --n 16,16,8 --cfl 8.4 --aspect 4");
  EXPECT_EQ(both.code, 2);
  EXPECT_NE(both.err.find("--aspect: the model problem (--cfl) takes --depth instead"), std::string::npos) << both.err;
  // bench poisson takes no flag of the elliptic problems; bench elliptic's Poisson case (--bc)
  // refuses them.
  const Result stretched_poisson = run_bouss("bench poisson --backend cpu --n 16,16,16 --stretching 1");
  EXPECT_EQ(stretched_poisson.code, 2);
  EXPECT_EQ(count_lines(stretched_poisson.err), 1) << stretched_poisson.err;
  EXPECT_NE(stretched_poisson.err.find("bench poisson does not take --stretching 1 (bouss bench poisson --help"),
            std::string::npos)
      << stretched_poisson.err;
  const Result stretched_bc = run_bouss("bench elliptic --backend cpu --n 16,16,16 --bc neumann --stretching 1");
  EXPECT_EQ(stretched_bc.code, 2);
  EXPECT_NE(stretched_bc.err.find("takes a uniform grid"), std::string::npos) << stretched_bc.err;
}

// A run that cannot fit is refused before anything is allocated, naming what it needs.
TEST(CommandLine, ARunThatDoesNotFitIsRefusedUpFront) {
  const fs::path out = fs::temp_directory_path() / "bouss_cli_test" / "huge.nc";
  fs::remove(out);
  const fs::path p = write_case("huge.json", small_case(out.string(), "[8192, 8192, 4096]"));
  for (const char* command : {"run", "check", "bench"}) {
    const Result r = run_bouss(std::string(command) + " " + p.string() + " --backend cpu");
    EXPECT_EQ(r.code, 2) << command << ": " << r.err;
    EXPECT_NE(r.err.find("/grid/n: the run needs"), std::string::npos) << command << ": " << r.err;
    EXPECT_NE(r.err.find("of host memory, the host has"), std::string::npos) << r.err;
  }
  EXPECT_FALSE(fs::exists(out));
  EXPECT_FALSE(has_partial(out));
}

// --output names the first stream's file, whether the case's output is one object or a list.
// --output FILE names every file of the run, by one rule (docs/runs.md, "The files of a
// run"): the first stream writes FILE; a name that starts with the first stream's stem keeps
// its rest after FILE's stem; any other goes beside FILE as FILESTEM_NAME. (It used to rename
// the first stream alone, and the profiles of an earlier run were replaced.)
TEST(CommandLine, OutputNamesEveryFileOfTheRunByOneRule) {
  std::string text = small_case("one.nc");
  const std::string single = "\"output\": {\"file\": \"one.nc\"}";
  text.replace(text.find(single), single.size(),
               R"("output": [{"file": "one.nc"}, {"file": "one_profiles.nc", "profiles": true},
                  {"file": "sub/mid.nc", "fields": ["T"], "region": {"z": 0.5}}],
                  "checkpoint": {"file": "ck/one_restart", "interval_steps": 5})");
  const Result r = run_bouss("check " + write_case("output_list.json", text).string() + " --output out/renamed.nc --json");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["output"][0]["file"], "out/renamed.nc");
  EXPECT_EQ(j["output"][1]["file"], "out/renamed_profiles.nc") << "shares the first stream's stem";
  EXPECT_EQ(j["output"][2]["file"], "out/renamed_mid.nc") << "beside FILE, after FILE's stem";
  EXPECT_EQ(j["checkpoint"]["file"], "out/renamed_one_restart");
  const Result o = run_bouss("check " + write_case("output_object.json", small_case("one.nc")).string() +
                             " --output renamed.nc --json");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_EQ(nlohmann::json::parse(o.out)["output"][0]["file"], "renamed.nc");
  const Result none = run_bouss("check " + write_case("output_none.json", text).string() +
                                " --set output=[] --output only.nc --json");
  ASSERT_EQ(none.code, 0) << none.err;
  EXPECT_EQ(nlohmann::json::parse(none.out)["output"][0]["file"], "only.nc") << "a case without output gets one stream";
}

// The turbulent case at its own grid (256x256x128, stretched) passes bouss check on the
// CPU of a CI machine (2 cores): the memory, its first dt and its stretched-z direct solve.
TEST(CommandLine, TheRa1e8CasePassesCheckOnTheCpu) {
  const Result r = run_bouss("check " + std::string(BOUSS_SOURCE_DIR) + "/cases/rayleigh_benard_ra1e8.json --backend cpu");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("first dt: 0.0026"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("pressure: Fourier-tridiagonal direct solve"), std::string::npos) << r.out;
}

TEST(CommandLine, CheckPrintsTheValidatedCaseMemoryFirstStepAndSolver) {
  const fs::path p = write_case("check.json", small_case("out.nc"));
  const Result r = run_bouss("check " + p.string() + " --backend cpu --set time.steps=7");
  EXPECT_EQ(r.code, 0) << r.err;
  // The answer first, every line with its label, in this order; the case's JSON only with --json.
  std::size_t at = 0;
  for (const char* what : {"case: ", "backend: ", "memory: ", "first dt: ", "pressure: Fourier-tridiagonal direct solve",
                           "[auto: x and y periodic", "runs: 7 steps", "output: ", "checkpoints: ", "paths: "}) {
    const std::size_t found = r.out.find(what, at);
    EXPECT_NE(found, std::string::npos) << what << " after offset " << at << " in " << r.out;
    if (found != std::string::npos) at = found;
  }
  EXPECT_EQ(r.out.rfind("case: ", 0), 0u) << r.out;
  EXPECT_EQ(r.out.find("\"max_failures\""), std::string::npos) << r.out;
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);)
    EXPECT_NE(line.find(": "), std::string::npos) << "a line without its label: " << line;
  // The output plan with absolute paths (relative ones are the working folder's), and the
  // checkpoints' home even when none is scheduled.
  const std::string here = fs::current_path().string();
  for (const std::string what : {"output: " + here + "/out.nc (", "write one as " + here + "/out.checkpoint.<step>.nc",
                                 "paths: relative ones are taken from the working folder, " + here})
    EXPECT_NE(r.out.find(what), std::string::npos) << what << " in " << r.out;
  // The steps to the end and the wall time, from steps timed on the backend; --no-trial
  // times none (and allocates nothing).
  EXPECT_NE(r.out.find("runs: 7 steps"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" on this backend ("), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("7 steps timed from rest in "), std::string::npos) << r.out;  // all of the run
  const Result quick = run_bouss("check " + p.string() + " --backend cpu --no-trial --set time.steps=7");
  EXPECT_EQ(quick.code, 0) << quick.err;
  EXPECT_NE(quick.out.find("no trial steps, no wall-time estimate"), std::string::npos) << quick.out;
  const Result mg = run_bouss("check " + p.string() + " --backend cpu --set pressure.solver=multigrid");
  EXPECT_EQ(mg.code, 0) << mg.err;
  for (const char* what : {"pressure: multigrid V(2,2)", "levels: 8x8x4"})
    EXPECT_NE(mg.out.find(what), std::string::npos) << what << " in " << mg.out;
  // --json prints the case alone, with every default, and it reads back as the same case.
  const Result j = run_bouss("check " + p.string() + " --backend cpu --json --set time.steps=7");
  EXPECT_EQ(j.code, 0) << j.err;
  for (const char* what : {"\"steps\": 7", "\"max_failures\": 3"})
    EXPECT_NE(j.out.find(what), std::string::npos) << what << " in " << j.out;
  EXPECT_EQ(j.out.find("memory: "), std::string::npos) << "--json prints the case alone";
  const fs::path again = write_case("check_again.json", j.out);
  const Result k = run_bouss("check " + again.string() + " --backend cpu --json");
  EXPECT_EQ(k.out, j.out);
  EXPECT_FALSE(fs::exists("out.nc")) << "a dry run writes nothing";
  const Result bad = run_bouss("check " + p.string() + " --set grid.n=[8,0,4]");
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("/grid/n"), std::string::npos);
}

// bench --output-every: one timed configuration besides no output, the bytes it writes
// exactly (T of 8x8x4 cells in float every 2 steps: 8*8*4*4/2 bytes a step), and no file
// left behind in the folder.
TEST(CommandLine, OutputBenchReportsEachConfigurationAndLeavesNoFiles) {
  const fs::path dir = fs::temp_directory_path() / "bouss_cli_test" / ("output_bench_" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path p = write_case("output_bench.json", small_case(""));
  const Result r = run_bouss("bench " + p.string() + " --backend cpu --output-every 2 --output-fields T "
                             "--output-precision float --steps 4 --warmup 1 --json --output-dir " + dir.string());
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["configs"].size(), 2u) << r.out;
  EXPECT_EQ(j["configs"][0]["config"], "none");
  EXPECT_EQ(j["configs"][1]["config"], "T_float_every2");
  EXPECT_EQ(j["configs"][1]["bytes_per_step"].get<double>(), 8 * 8 * 4 * 4 / 2.0);
  EXPECT_EQ(j["configs"][1]["steps"].get<int>(), 40) << "20 snapshots";
  EXPECT_GT(j["configs"][1]["disk_GBps"].get<double>(), 0);
  EXPECT_TRUE(fs::is_empty(dir)) << "the bench removes its files";
  const Result bad = run_bouss("bench " + p.string() + " --backend cpu --output-every 2 --output-fields q");
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("--output-fields q"), std::string::npos) << bad.err;
  fs::remove_all(dir);
}

// bench --stream: a stream as a case file writes it; the bytes of a plane (w on the z plane:
// 8x8 cells, two faces, in double, every step), of the profiles (4 + 4 + 4 + 4 + 5 + 5 levels
// in double every 2 steps) and of a compressed field before compression, with the
// compressor's rate; bad streams are refused with the case's own messages.
TEST(CommandLine, OutputBenchTakesStreams) {
  const fs::path dir = fs::temp_directory_path() / "bouss_cli_test" / ("stream_bench_" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path p = write_case("stream_bench.json", small_case(""));
  const Result r = run_bouss("bench " + p.string() + " --backend cpu --steps 4 --warmup 1 --json --output-dir " +
                             dir.string() + R"( --stream '{"fields":["w"],"region":{"z":0.5},"interval_steps":1}')" +
                             R"( --stream '{"profiles":true,"interval_steps":2}')" +
                             R"( --stream '{"fields":["T"],"interval_steps":1,"compression":{"deflate":1}}')");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["configs"].size(), 4u) << r.out;
  EXPECT_EQ(j["configs"][1]["config"], "w_double_every1_z0.5");
  EXPECT_EQ(j["configs"][1]["bytes_per_step"].get<double>(), 8 * 8 * 2 * 8.0);
  EXPECT_EQ(j["configs"][1]["stream"]["region"], nlohmann::json::parse(R"({"z": 0.5})"));
  EXPECT_EQ(j["configs"][2]["config"], "profiles_double_every2");
  EXPECT_EQ(j["configs"][2]["bytes_per_step"].get<double>(), (4 * 4 + 2 * 5) * 8 / 2.0);
  EXPECT_EQ(j["configs"][3]["config"], "T_double_every1_deflate1");
  EXPECT_EQ(j["configs"][3]["bytes_per_step"].get<double>(), 8 * 8 * 4 * 8.0);
  EXPECT_GT(j["configs"][3]["compressor_GBps"].get<double>(), 0);
  EXPECT_EQ(j["configs"][1]["compressor_GBps"].get<double>(), 0) << "no compressor without compression";
  EXPECT_TRUE(fs::is_empty(dir)) << "the bench removes its files";
  for (const auto& [spec, says] : std::vector<std::pair<std::string, std::string>>{
           {R"({"fields":["q"],"interval_steps":1})", "/output/0/fields/0"},
           {R"({"fields":["T"],"interval":0.5})", "expected \"interval_steps\""},
           {R"({"fields":["T"])", "expected one output stream as a JSON object"}}) {
    const Result bad = run_bouss("bench " + p.string() + " --backend cpu --stream '" + spec + "'");
    EXPECT_EQ(bad.code, 2) << spec;
    EXPECT_NE(bad.err.find(says), std::string::npos) << bad.err;
    EXPECT_EQ(std::count(bad.err.begin(), bad.err.end(), '\n'), 1) << bad.err;
  }
  fs::remove_all(dir);
}

namespace {

// A two-dimensional roll between no-slip plates (ny = 1, periodic in x and y) at Ra = 5000: its
// Nusselt numbers settle by t = 1 (at 12x1x6 and 24x1x12, within 1e-6 of themselves).
std::string roll_2d_case() {
  return R"({
  "name": "roll2d",
  "grid": {"n": [24, 1, 12], "extent": [[0, 2.016], [0, 0.1], [0, 1]]},
  "physics": {"rayleigh": 5000, "prandtl": 1, "units": "diffusive"},
  "boundaries": {"x_lo": "periodic", "x_hi": "periodic", "y_lo": "periodic", "y_hi": "periodic",
                 "z_lo": {"velocity": "no_slip", "temperature": {"fixed": 1}},
                 "z_hi": {"velocity": "no_slip", "temperature": {"fixed": 0}}},
  "initial": {"temperature": {"profile": "conduction"},
              "perturbation": {"amplitude": 0.05, "shape": "mode", "mode": [1, 0]}},
  "time": {"end": 1.0},
  "pressure": {"tolerance": 1e-11}
})";
}

std::vector<std::string> lines_with(const std::string& text, const std::string& what) {
  std::vector<std::string> found;
  std::istringstream s(text);
  for (std::string line; std::getline(s, line);)
    if (line.find(what) != std::string::npos) found.push_back(line);
  return found;
}

}  // namespace

// 8, 12, 16 are no doubling: the order comes from the ratios 1.5 and 4/3 (2.05, against 1.54
// with log2), and the Richardson extrapolation divides by (16/12)^2 - 1 (657.49, the theory
// 657.511, against 659.08 with a division by 3). Two resolutions give no order.
TEST(CommandLine, OnsetOrderAndExtrapolationUseTheActualRatioOfResolutions) {
  const std::string onset_case = std::string(BOUSS_SOURCE_DIR) + "/cases/onset_free_slip.json";
  const Result r = run_bouss("onset " + onset_case + " --backend cpu --resolutions 8,12,16 --ra 640,680 --json");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_NEAR(j["order"].get<double>(), 2.0, 0.1) << r.out;
  EXPECT_NEAR(j["extrapolated"].get<double>(), 657.511, 0.05) << r.out;
  const Result text = run_bouss("onset " + onset_case + " --backend cpu --resolutions 8,12,16 --rates 640,680");
  EXPECT_NE(text.out.find("ratio 1.333"), std::string::npos) << text.out;
  // Two resolutions give no order (and no 0 in its place).
  const std::string nu_case = std::string(BOUSS_SOURCE_DIR) + "/cases/nusselt_cube.json";
  const Result two = run_bouss("converge " + nu_case + " --backend cpu --resolutions 4,8 --set time.end=0.05 --json");
  ASSERT_EQ(two.code, 0) << two.err;
  EXPECT_TRUE(nlohmann::json::parse(two.out)["order"].is_null()) << two.out;
  // Resolutions that do not increase are bad input.
  const Result down = run_bouss("onset " + onset_case + " --backend cpu --resolutions 16,8");
  EXPECT_EQ(down.code, 2);
  EXPECT_EQ(count_lines(down.err), 1) << down.err;
  EXPECT_NE(down.err.find("--resolutions: expected increasing nz"), std::string::npos) << down.err;
}

// One Rayleigh number gives a rate and no crossing: the rate is printed, with one line saying
// that Ra_c takes two; no "nan".
TEST(CommandLine, OnsetWithOneRateReportsTheRateAndNoCrossing) {
  const std::string onset_case = std::string(BOUSS_SOURCE_DIR) + "/cases/onset_free_slip.json";
  const Result r = run_bouss("onset " + onset_case + " --backend cpu --resolutions 8 --rates 640");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out.find("nan"), std::string::npos) << r.out;
  const auto said = lines_with(r.out, "two different Rayleigh numbers");
  ASSERT_EQ(said.size(), 1u) << r.out;
  EXPECT_NE(said[0].find("sigma = -"), std::string::npos) << said[0];
  EXPECT_NE(said[0].find("at Ra 640"), std::string::npos) << said[0];
  const Result j = run_bouss("onset " + onset_case + " --backend cpu --resolutions 8 --rates 640 --json");
  ASSERT_EQ(j.code, 0) << j.err;
  const auto out = nlohmann::json::parse(j.out);
  EXPECT_TRUE(out["rows"][0]["rac"].is_null()) << j.out;
  EXPECT_LT(out["rows"][0]["growth_rates"][0][1].get<double>(), 0) << "below onset the perturbation decays";
  EXPECT_EQ(lines_with(j.err, "two different Rayleigh numbers").size(), 1u) << "on stderr with --json: " << j.err;
}

// A run too short for the transient to pass (t = 0.3 at 8x4x8: the fit's halves differ by 60%)
// is flagged, per fit and for the whole command, with a warning that asks for twice the time;
// the default run (t = 1) is not.
TEST(CommandLine, OnsetFlagsAGrowthRateFitWhoseHalvesDisagree) {
  const std::string onset_case = std::string(BOUSS_SOURCE_DIR) + "/cases/onset_free_slip.json";
  const Result r = run_bouss("onset " + onset_case + " --backend cpu --resolutions 8 --rates 640,680 --set time.end=0.3 --json");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_TRUE(j.contains("fit_halves_agree") && j["rows"][0].contains("fits")) << r.out;
  EXPECT_FALSE(j["fit_halves_agree"].get<bool>()) << r.out;
  EXPECT_FALSE(j["rows"][0]["fit_halves_agree"].get<bool>()) << r.out;
  for (const auto& fit : j["rows"][0]["fits"]) EXPECT_FALSE(fit["halves_agree"].get<bool>()) << fit.dump();
  const auto warnings = lines_with(r.err, "warning:");
  ASSERT_EQ(warnings.size(), 2u) << r.err;
  for (const auto& w : warnings) EXPECT_NE(w.find("run longer (--set time.end=0.6)"), std::string::npos) << w;
  const Result settled = run_bouss("onset " + onset_case + " --backend cpu --resolutions 8 --rates 640,680 --json");
  ASSERT_EQ(settled.code, 0) << settled.err;
  EXPECT_TRUE(nlohmann::json::parse(settled.out)["fit_halves_agree"].get<bool>()) << settled.out;
  EXPECT_EQ(settled.err.find("warning"), std::string::npos) << settled.err;
}

// converge --output-dir writes its runs' files under the same guard as bouss run: a second
// converge into the folder is refused (exit 2, naming the file and --overwrite) and the
// first's files stay; --overwrite replaces them.
TEST(CommandLine, ConvergeNeverReplacesAnEarlierRunsFilesUnlessAsked) {
  const fs::path p = write_case("roll2d_dir.json", roll_2d_case());
  const fs::path dir = fs::temp_directory_path() / "bouss_cli_test" / ("converge_" + std::to_string(getpid()));
  fs::remove_all(dir);
  const std::string args = "converge " + p.string() + " --backend cpu --resolutions 6 --set time.steps=5 --json --output-dir " +
                           dir.string();
  ASSERT_EQ(run_bouss(args).code, 0);
  const Result again = run_bouss(args);
  EXPECT_EQ(again.code, 2) << again.err;
  EXPECT_NE(again.err.find("exists, an earlier run's output: pass --overwrite"), std::string::npos) << again.err;
  EXPECT_EQ(run_bouss(args + " --overwrite").code, 0);
  fs::remove_all(dir);
}

// A two-dimensional case (ny = 1, periodic in y) keeps its one cell in y at every resolution.
TEST(CommandLine, ResolutionsKeepTheOneCellAxisOfATwoDimensionalCase) {
  const fs::path p = write_case("roll2d.json", roll_2d_case());
  const Result c = run_bouss("converge " + p.string() + " --backend cpu --resolutions 6,12 --set time.steps=5 --json");
  ASSERT_EQ(c.code, 0) << c.err;
  const auto j = nlohmann::json::parse(c.out);
  EXPECT_EQ(j["rows"][0]["n"], nlohmann::json::parse("[12, 1, 6]")) << c.out;
  EXPECT_EQ(j["rows"][1]["n"], nlohmann::json::parse("[24, 1, 12]")) << c.out;
  const Result o = run_bouss("onset " + p.string() + " --backend cpu --resolutions 8 --rates 5000 --set time.end=0.05 --json");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_EQ(nlohmann::json::parse(o.out)["rows"][0]["n"], nlohmann::json::parse("[16, 1, 8]")) << o.out;
}

// converge judges the last 20% of each run: mid-transient (t = 0.5) the roll's Nusselt numbers
// still move by 1e-3 and the row is flagged, in the table, in --json and by a warning that
// asks for twice the time; at t = 1 they move by less than 1e-5 and agree to 1e-5.
TEST(CommandLine, ConvergeJudgesWhetherEachRunEndedSteady) {
  const fs::path p = write_case("roll2d_steady.json", roll_2d_case());
  const Result early = run_bouss("converge " + p.string() + " --backend cpu --set time.end=0.5 --json");
  ASSERT_EQ(early.code, 0) << early.err;
  const auto e = nlohmann::json::parse(early.out);
  ASSERT_TRUE(e.contains("steady") && e["rows"][0].contains("drift")) << early.out;
  EXPECT_FALSE(e["steady"].get<bool>()) << early.out;
  EXPECT_FALSE(e["rows"][0]["steady"].get<bool>()) << early.out;
  EXPECT_GT(e["rows"][0]["drift"].get<double>(), 1e-4) << early.out;
  const auto warnings = lines_with(early.err, "warning:");
  ASSERT_EQ(warnings.size(), 1u) << early.err;
  EXPECT_NE(warnings[0].find("is not steady"), std::string::npos) << warnings[0];
  EXPECT_NE(warnings[0].find("run longer (--set time.end=1)"), std::string::npos) << warnings[0];
  const Result table = run_bouss("converge " + p.string() + " --backend cpu --set time.end=0.5");
  ASSERT_EQ(table.code, 0) << table.err;
  EXPECT_NE(table.out.find(" steady\n"), std::string::npos) << "a steady column: " << table.out;
  EXPECT_EQ(lines_with(table.out, "      NO").size(), 1u) << table.out;

  const Result late = run_bouss("converge " + p.string() + " --backend cpu --json");
  ASSERT_EQ(late.code, 0) << late.err;
  const auto l = nlohmann::json::parse(late.out);
  EXPECT_TRUE(l["steady"].get<bool>()) << late.out;
  EXPECT_TRUE(l["rows"][0]["steady"].get<bool>()) << late.out;
  EXPECT_LT(l["rows"][0]["drift"].get<double>(), 1e-5) << late.out;
  EXPECT_LT(l["rows"][0]["nusselt_spread"].get<double>(), 1e-5) << late.out;
  EXPECT_EQ(late.err.find("warning"), std::string::npos) << late.err;
}

// bouss front on the 2D lock exchange, coarse and short: a row per resolution with each
// front's speed, Froude number, fit window and halves, the table of each Froude number, and
// one JSON object with --json; a case without the lock profile, or a fraction outside (0, 1),
// is bad input.
TEST(CommandLine, FrontPrintsTheFrontSpeedsAndFroudeNumbersPerResolution) {
  const std::string lock_case = std::string(BOUSS_SOURCE_DIR) + "/cases/lock_exchange_2d.json";
  const Result j = run_bouss("front " + lock_case + " --backend cpu --resolutions 4,8 --set time.end=10 --json");
  ASSERT_EQ(j.code, 0) << j.err;
  const auto out = nlohmann::json::parse(j.out);
  ASSERT_EQ(out["rows"].size(), 2u) << j.out;
  EXPECT_EQ(out["rows"][1]["n"], nlohmann::json::parse("[128, 1, 8]")) << j.out;
  for (const auto& row : out["rows"])
    for (const char* front : {"floor", "lid"}) {
      const auto& f = row[front];
      EXPECT_GT(f["speed"].get<double>(), 0.3) << row.dump();
      EXPECT_NEAR(f["froude"].get<double>(), f["speed"].get<double>() / std::sqrt(2.0), 1e-12) << "U / sqrt(g' H)";
      EXPECT_GE(f["fit_window"][0].get<double>(), 3.0) << "after the front has travelled 3 h";
      EXPECT_EQ(f["fit_window"][1].get<double>(), 10.0) << "to the end of the run";
      EXPECT_EQ(f["halves"].size(), 2u);
      EXPECT_TRUE(f.contains("halves_agree") && f.contains("rms"));
    }
  for (const char* key : {"overshoot", "undershoot", "energy_residual", "heat_drift"})
    EXPECT_TRUE(out["rows"][0].contains(key)) << key;
  EXPECT_LT(std::fabs(out["rows"][0]["heat_drift"].get<double>()), 1e-14);
  EXPECT_TRUE(out["froude_floor"].contains("extrapolated") && out["froude_lid"].contains("order")) << j.out;
  EXPECT_EQ(out["fraction"].get<double>(), 0.5);

  const Result text = run_bouss("front " + lock_case + " --backend cpu --resolutions 4,8 --set time.end=10");
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_NE(text.out.find("Fr floor"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("Fr lid"), std::string::npos) << text.out;
  int table_rows = 0;
  for (const std::string& line : lines_with(text.out, "128x1x8 ")) table_rows += line.rfind("128x1x8 ", 0) == 0;
  EXPECT_EQ(table_rows, 2) << "a row in each table: " << text.out;
  EXPECT_EQ(lines_with(text.out, "128x1x8: floor U ").size(), 1u) << text.out;

  const Result other = run_bouss("front " + std::string(BOUSS_SOURCE_DIR) + "/cases/rayleigh_benard.json");
  EXPECT_EQ(other.code, 2);
  EXPECT_NE(other.err.find("/initial/temperature"), std::string::npos) << other.err;
  EXPECT_EQ(run_bouss("front " + lock_case + " --fraction 1.5").code, 2);
  const Result tenth = run_bouss("front " + lock_case + " --backend cpu --resolutions 4 --set time.end=10 --fraction 0.1 --json");
  ASSERT_EQ(tenth.code, 0) << tenth.err;
  EXPECT_EQ(nlohmann::json::parse(tenth.out)["fraction"].get<double>(), 0.1);
}

// bouss stats on a run's file: every series variable in JSON with the documented keys (the
// Nusselt numbers of 30 steps from a perturbed conduction state are a transient: not steady,
// the whole series' statistics with the reason); the table names them; a variable the file
// does not have, or a file without a series, is one error line and exit 2.
TEST(CommandLine, StatsReportsEachSeriesVariable) {
  const fs::path out = fs::temp_directory_path() / "bouss_cli_test" / "stats_run.nc";
  fs::remove(out);
  const fs::path c = write_case("stats_case.json", small_case(out.string()));
  ASSERT_EQ(run_bouss("run " + c.string() + " --set time.steps=30 --overwrite").code, 0);
  const Result j = run_bouss("stats " + out.string() + " --json");
  ASSERT_EQ(j.code, 0) << j.err;
  const nlohmann::json r = nlohmann::json::parse(j.out);
  EXPECT_EQ(r["records"].get<int>(), 4) << "t = 0 and every 10 steps";
  ASSERT_TRUE(r["variables"].contains("nusselt_bottom"));
  ASSERT_TRUE(r["variables"].contains("kinetic_energy"));
  for (const char* key : {"steady", "start", "mean", "std", "sem", "n_eff", "reason"})
    EXPECT_TRUE(r["variables"]["nusselt_bottom"].contains(key)) << key;
  EXPECT_FALSE(r["variables"]["kinetic_energy"]["steady"].get<bool>()) << "four records: too few";
  const Result t = run_bouss("stats " + out.string() + " nusselt_bottom kinetic_energy");
  EXPECT_EQ(t.code, 0);
  EXPECT_NE(t.out.find("nusselt_bottom"), std::string::npos) << t.out;
  EXPECT_EQ(t.out.find("max_velocity"), std::string::npos) << "only the variables named";
  const Result bad = run_bouss("stats " + out.string() + " nusselt_middle");
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("no series variable nusselt_middle"), std::string::npos) << bad.err;
  const Result none = run_bouss("stats " + c.string());
  EXPECT_EQ(none.code, 2);
  EXPECT_NE(none.err.find(c.string()), std::string::npos) << none.err;
}

// bouss converge on a flow that never settles (2D convection at Ra = 2e6, chaotic): each
// run's value is the mean of its diagnostic over its statistically steady part (by bouss
// stats' method), with its standard error, not the value at the end; the table says "mean".
TEST(CommandLine, ConvergeTakesAnUnsteadyRunsTimeMean) {
  const fs::path c = write_case("converge_unsteady.json", R"({
  "name": "rb2d",
  "grid": {"n": [64, 1, 32], "extent": [[0, 2], [0, 0.03125], [0, 1]]},
  "physics": {"rayleigh": 2e6, "prandtl": 1, "units": "free_fall"},
  "boundaries": {"x_lo": "periodic", "x_hi": "periodic", "y_lo": "periodic", "y_hi": "periodic",
                 "z_lo": {"velocity": "no_slip", "temperature": {"fixed": 0.5}},
                 "z_hi": {"velocity": "no_slip", "temperature": {"fixed": -0.5}}},
  "initial": {"perturbation": {"amplitude": 0.01, "seed": 3}},
  "time": {"end": 150, "cfl": 0.5},
  "output": []
})");
  const Result j = run_bouss("converge " + c.string() + " --resolutions 16,24 --json");
  ASSERT_EQ(j.code, 0) << j.err;
  const nlohmann::json r = nlohmann::json::parse(j.out);
  for (const auto& row : r["rows"]) {
    EXPECT_FALSE(row["steady"].get<bool>()) << "the flow is unsteady at the end";
    ASSERT_TRUE(row["mean"].is_object()) << row.dump();
    EXPECT_EQ(row["value"].get<double>(), row["mean"]["mean"].get<double>()) << "the value is the time mean";
    const double nu_end = row["nusselt"][0].get<double>(), sem = row["mean"]["sem"].get<double>();
    EXPECT_GT(sem, 0);
    EXPECT_LT(sem, 0.02 * row["value"].get<double>());
    EXPECT_GT(row["mean"]["n_eff"].get<double>(), 10);
    EXPECT_NE(row["value"].get<double>(), nu_end);
  }
  EXPECT_TRUE(r["steady"].get<bool>()) << "every value steady or a mean of a steady part";
  const Result t = run_bouss("converge " + c.string() + " --resolutions 16,24");
  ASSERT_EQ(t.code, 0) << t.err;
  EXPECT_NE(t.out.find("mean"), std::string::npos) << t.out;
  EXPECT_EQ(t.out.find("* from a value that is not steady"), std::string::npos) << t.out;
}

// A killed run's file can end in series records whose time was never written (fill values):
// bouss stats leaves them out. 50 records of a constant 2.5, the last 8 without a time.
TEST(CommandLine, StatsLeavesOutRecordsWithoutATime) {
  const fs::path path = fs::temp_directory_path() / "bouss_cli_test" / "stats_unfinished.nc";
  fs::create_directories(path.parent_path());
  fs::remove(path);
  int nc = -1, dim = -1, tvar = -1, xvar = -1;
  ASSERT_EQ(nc_create(path.c_str(), NC_NETCDF4 | NC_CLOBBER, &nc), NC_NOERR);
  nc_def_dim(nc, "diagnostic_time", NC_UNLIMITED, &dim);
  nc_def_var(nc, "diagnostic_time", NC_DOUBLE, 1, &dim, &tvar);
  nc_def_var(nc, "nusselt_bottom", NC_DOUBLE, 1, &dim, &xvar);
  nc_enddef(nc);
  std::vector<double> t(42), x(50, 2.5);
  for (std::size_t i = 0; i < t.size(); ++i) t[i] = 0.5 * double(i);
  const size_t start = 0, nt = t.size(), nx = x.size();
  nc_put_vara_double(nc, tvar, &start, &nt, t.data());
  nc_put_vara_double(nc, xvar, &start, &nx, x.data());
  ASSERT_EQ(nc_close(nc), NC_NOERR);
  const Result r = run_bouss("stats " + path.string() + " --json");
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["records"].get<int>(), 42);
  EXPECT_TRUE(j["variables"]["nusselt_bottom"]["steady"].get<bool>());
  EXPECT_EQ(j["variables"]["nusselt_bottom"]["mean"].get<double>(), 2.5);
}
