// The run driver in-process on the CPU: restart equivalence, refusals, the end of the
// diagnostics series, the pressure solve's convergence accounting, the state check, and the
// memory estimate against what a run allocates.
#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "io/checkpoint.hpp"
#include "model/flow_simulation.hpp"
#include "run/run_memory.hpp"
#include "grid/field_ops.hpp"
#include "run_checks.hpp"
#include "step_checks.hpp"

using namespace bouss;
using namespace bouss::test;

TEST(Restart, StoppedAndRestartedEqualsUninterruptedBitForBit) { check_restart_equivalence(Backend::cpu()); }

TEST(DeviceTimeStep, IsTheHostFormulaBitForBitAndLandsOnTheEnd) {
  for (const char* variant : {"time.cfl=0.5", "time.cfl=0.9", "pressure.solver=\"multigrid\""}) {
    SCOPED_TRACE(variant);
    check_device_time_step(Backend::cpu(), {variant});
  }
}

TEST(DeviceTimeStep, AHugeRayleighNumberFromRestTakesTheBuoyancyLimitNotOneStep) {
  check_buoyancy_limit_from_rest(Backend::cpu());
}

TEST(DeviceTimeStep, AFixedDtLandsOnTheEnd) {
  const Case c = restart_case("", {"time.dt=0.65", "time.steps=1000", "time.end=6.0"});
  auto sim = make_simulation(c, Backend::cpu());
  std::vector<double> dts;
  while (!sim->finished()) {
    sim->step();
    dts.push_back(sim->last_dt());
  }
  ASSERT_EQ(dts.size(), 10u);  // 8 steps of 0.65 leave 0.8 < 1.5 dt: two of 0.4
  for (int s = 0; s < 8; ++s) EXPECT_EQ(dts[s], 0.65);
  EXPECT_NEAR(dts[8], 0.4, 1e-14);
  EXPECT_NEAR(dts[9], 0.4, 1e-14);
  EXPECT_EQ(sim->time(), 6.0);
}

TEST(Averages, OverOneStepEachRecordIsTheTrapezoidOfTheSnapshotsAroundIt) {
  check_averages_are_trapezoids_of_snapshots(Backend::cpu());
}

TEST(Averages, AWindowOpenAtACheckpointContinuesBitForBit) { check_averages_restart(Backend::cpu()); }

TEST(Averages, ProfilesAveragedEveryStepLeaveTheFlowAlone) {
  check_averaged_profiles_leave_the_flow_alone(Backend::cpu());
}

TEST(OutputTimes, RecordsAndCheckpointsLandOnTheirIntervalAcrossARestart) {
  check_output_times_land_on_the_schedule(Backend::cpu());
}

TEST(FixedPasses, ASolveOfFixedPassesGivesTheCheckedSolvesBits) {
  check_solve_of_fixed_passes<double>(Backend::cpu());
  check_solve_of_fixed_passes<float>(Backend::cpu());
}

TEST(FixedPasses, TheFftSolveBetweenChecksGivesTheCheckedSolvesBits) {
  check_fixed_passes_and_graphs(Backend::cpu(), "double");
  check_fixed_passes_and_graphs(Backend::cpu(), "single");
  check_fixed_passes_and_graphs(Backend::cpu(), "double", "multigrid");
}

// A lock exchange's series holds the energy budget's time integrals: the checkpoint carries them.
TEST(Restart, ALockExchangesEnergyBudgetContinuesBitForBit) {
  check_restart_equivalence(Backend::cpu(), lock_restart_case_json());
}

// The multigrid starting from the extrapolated pressure: the pressure a step before is part
// of the checkpoint (without it the first step after the restart starts elsewhere and its
// solve ends at other bits).
TEST(Restart, AnExtrapolatedFirstGuessContinuesBitForBit) {
  check_restart_equivalence(Backend::cpu(), extrapolated_restart_case_json());
}

TEST(Restart, MultigridCyclesFixedBetweenChecksContinueBitForBit) {
  check_restart_equivalence(Backend::cpu(), fixed_cycles_restart_case_json());
}

// A checkpoint written without the pressure a step before (by a build before the
// extrapolated guess, whose case now reads as extrapolating) still continues: its first
// solve starts from p alone, then the run goes on as an uninterrupted one to its tolerance.
TEST(Restart, ACheckpointWithoutThePreviousPressureContinuesFromP) {
  ScratchDir dir("restart_no_previous");
  const std::vector<std::string> mg = {"pressure.solver=\"multigrid\"", "pressure.first_guess=\"extrapolated\""};
  Checkpoint ck = read_checkpoint(run_case(restart_case(dir.file("a.nc"), mg), Backend::cpu(), 8));
  const std::size_t arrays = ck.arrays.size();
  ck.arrays.erase(std::remove_if(ck.arrays.begin(), ck.arrays.end(),
                                 [](const CheckpointArray& a) { return a.name == "p_previous"; }),
                  ck.arrays.end());
  ASSERT_EQ(ck.arrays.size(), arrays - 1);
  const std::string older = dir.file("older.checkpoint.8.nc");
  write_checkpoint(older, ck);
  const auto final_energy = [&](const std::string& restart, const std::string& out) {
    RunControl control;
    control.progress_seconds.reset();
    if (!restart.empty()) control.restart = restart;
    bouss::Run run(restart_case(out, mg), Backend::cpu(), control);
    run.execute();
    EXPECT_EQ(run.simulation().steps_done(), 24);
    EXPECT_TRUE(run.simulation().last_solve().converged);
    return run.simulation().kinetic_energy();
  };
  const double uninterrupted = final_energy("", dir.file("u.nc"));
  const double continued = final_energy(older, dir.file("c.nc"));
  EXPECT_NEAR(continued, uninterrupted, 1e-6 * uninterrupted);
}

// A stretched z (the Fourier solve that auto picks, with its tridiagonal lines on the
// stretched spacing): the case's faces come back from the checkpoint's case, and the run
// continues bit for bit.
TEST(Restart, AStretchedGridContinuesBitForBit) {
  std::string json = restart_case_json();
  const std::string grid = R"("grid": {"n": [16, 16, 8], "extent": [[0, 2], [0, 2], [0, 1]]})";
  ASSERT_NE(json.find(grid), std::string::npos);
  json.replace(json.find(grid), grid.size(),
               R"("grid": {"n": [16, 16, 8], "extent": [[0, 2], [0, 2], [0, 1]], "z": {"stretching": "tanh", "parameter": 1}})");
  check_restart_equivalence(Backend::cpu(), json);
}

// x and y stretched too (x periodic, towards both ends; y by its faces): the direct solve
// through their eigenbases continues bit for bit.
TEST(Restart, AGridStretchedAlongXAndYContinuesBitForBit) {
  std::string json = restart_case_json();
  const std::string grid = R"("grid": {"n": [16, 16, 8], "extent": [[0, 2], [0, 2], [0, 1]]})";
  ASSERT_NE(json.find(grid), std::string::npos);
  std::string y = "[0";
  for (int j = 1; j <= 16; ++j) y += "," + std::to_string(2.0 * j / 16 + (j < 16 ? 0.01 * std::sin(M_PI * j / 8) : 0.0));
  json.replace(json.find(grid), grid.size(),
               R"("grid": {"n": [16, 16, 8], "extent": [[0, 2], [0, 2], [0, 1]], "x": {"stretching": "tanh", "parameter": 1}, "y": )" +
                   y + R"(], "z": {"stretching": "tanh", "parameter": 1}})");
  check_restart_equivalence(Backend::cpu(), json);
}

TEST(AsyncOutput, SnapshotsHoldExactlyTheStateOfTheirStep) { check_async_snapshots_hold_their_step(Backend::cpu()); }

TEST(OutputStreams, PlanesProfilesAndCellMeansHoldTheirStep) { check_streams_hold_their_step(Backend::cpu()); }

TEST(OutputStreams, EachStreamContinuesBitForBitAfterARestart) { check_streams_restart(Backend::cpu()); }

TEST(Restart, RefusesACheckpointOfAnotherCaseNamingWhatDiffers) {
  ScratchDir dir("restart_refuse");
  const std::string checkpoint = run_case(restart_case(dir.file("a.nc")), Backend::cpu(), 3);
  auto refused = [&](const std::vector<std::string>& overrides, const std::string& what) {
    RunControl control;
    control.progress_seconds.reset();
    control.restart = checkpoint;
    bouss::Run run(restart_case(dir.file("b.nc"), overrides), Backend::cpu(), control);
    try {
      run.start();
      ADD_FAILURE() << "restart accepted despite " << what;
    } catch (const CaseError& e) {
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(checkpoint), std::string::npos) << e.what();
    }
  };
  refused({"grid.n=[32,16,8]"}, "/grid/n");
  refused({"grid.x={\"stretching\": \"tanh\", \"parameter\": 1}"}, "/grid/x");
  refused({"physics.rayleigh=2e5"}, "/physics");
  refused({"pressure.tolerance=1e-6"}, "/pressure/tolerance");
  refused({"boundaries.z_lo.velocity=\"free_slip\""}, "/boundaries/z_lo");
  refused({"time.steps=3"}, "time.steps");  // the checkpoint is at the end already
  // time, output and checkpoint keys may change.
  RunControl control;
  control.progress_seconds.reset();
  control.restart = checkpoint;
  bouss::Run run(restart_case(dir.file("c.nc"), {"time.steps=6", "output.interval_steps=2", "checkpoint.interval_steps=4"}),
          Backend::cpu(), control);
  EXPECT_NO_THROW(run.execute());
  EXPECT_EQ(run.simulation().steps_done(), 6);
}

TEST(RunDriver, DiagnosticsSeriesEndsWithTheFinalState) {
  ScratchDir dir("series_end");
  const std::string out = dir.file("series.nc");
  run_case(restart_case(out, {"time.steps=23", "output.diagnostics_interval_steps=10"}), Backend::cpu());
  const auto v = read_variables(out);
  ASSERT_FALSE(v.empty());
  EXPECT_EQ(v.at("diagnostic_time").size(), 4u) << "t = 0, steps 10 and 20, and the final step 23";
  EXPECT_EQ(v.at("diagnostic_time").back(), v.at("time").back()) << "the series ends where the snapshots do";
  EXPECT_TRUE(std::isfinite(v.at("growth_rate").back())) << "the last record has a growth rate";
}

namespace {
// Captures what the run logs (warnings included) while alive.
class LogCapture {
 public:
  LogCapture() : sink_(std::make_shared<spdlog::sinks::ostream_sink_mt>(text_)) {
    spdlog::default_logger()->sinks().push_back(sink_);
  }
  ~LogCapture() {
    auto& sinks = spdlog::default_logger()->sinks();
    sinks.erase(std::remove(sinks.begin(), sinks.end(), sink_), sinks.end());
  }
  std::string text() const { return text_.str(); }

 private:
  std::ostringstream text_;
  std::shared_ptr<spdlog::sinks::ostream_sink_mt> sink_;
};
}  // namespace

TEST(RunDriver, APressureSolveCappedAtMaxCyclesWarnsAndTheRunFailsAfterMaxFailuresInARow) {
  ScratchDir dir("max_cycles");
  // One V-cycle cannot reach 1e-13: every solve stops at max_cycles with a finite residual.
  const std::vector<std::string> capped = {"pressure.solver=\"multigrid\"", "pressure.max_cycles=1",
                                           "pressure.tolerance=1e-13", "time.steps=6"};
  {
    LogCapture log;
    Case c = restart_case(dir.file("warns.nc"), capped);
    c.pressure.max_failures = 100;
    RunControl control;
    control.progress_seconds.reset();
    bouss::Run run(c, Backend::cpu(), control);
    EXPECT_NO_THROW(run.execute());
    const std::string text = log.text();
    EXPECT_NE(text.find("stopped at pressure.max_cycles = 1"), std::string::npos) << text;
    EXPECT_NE(text.find("relative residual of"), std::string::npos) << text;
  }
  Case c = restart_case(dir.file("fails.nc"), capped);
  c.pressure.max_failures = 3;
  RunControl control;
  control.progress_seconds.reset();
  bouss::Run run(c, Backend::cpu(), control);
  try {
    run.execute();
    ADD_FAILURE() << "the run went on past pressure.max_failures";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("pressure.max_failures"), std::string::npos) << e.what();
    EXPECT_EQ(run.simulation().steps_done(), 3);
  }
  EXPECT_TRUE(std::filesystem::exists(run.output_partial())) << "a failed run keeps its partial output";
}

// line_pcg counts iterations, 20 per pressure.max_cycles: its warning says both (it used to
// say "pressure.max_cycles = 20" of a case that set 1).
TEST(RunDriver, LinePcgsWarningNamesItsIterationsAndTheCaseMaxCycles) {
  ScratchDir dir("line_pcg_warning");
  LogCapture log;
  Case c = restart_case(dir.file("run.nc"), {"pressure.solver=\"line_pcg\"", "pressure.max_cycles=1",
                                             "pressure.tolerance=1e-14", "time.steps=2"});
  c.pressure.max_failures = 100;
  RunControl control;
  control.progress_seconds.reset();
  bouss::Run run(c, Backend::cpu(), control);
  EXPECT_NO_THROW(run.execute());
  const std::string text = log.text();
  EXPECT_NE(text.find("stopped at 20 iterations (line_pcg takes 20 per pressure.max_cycles = 1)"), std::string::npos)
      << text;
}

// With the residual checked every 10th step (pressure.check_interval), the solves of fixed
// passes between checks measure nothing: they neither count as failures nor reset the
// count, so max_failures failed checks in a row end the run (before, every failed check
// was "1 of 3" and the run ended with success). Checks are at steps 1, 11, 21, ...
void expect_failed_checks_end_the_run(const std::string& name, const std::vector<std::string>& settings) {
  ScratchDir dir(name);
  Case c = restart_case(dir.file("run.nc"), settings);
  RunControl control;
  control.progress_seconds.reset();
  bouss::Run run(c, Backend::cpu(), control);
  try {
    run.execute();
    ADD_FAILURE() << name << ": the run went on past pressure.max_failures failed checks";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("3 checked solves in a row, pressure.max_failures"), std::string::npos)
        << e.what();
    EXPECT_EQ(run.simulation().steps_done(), 21) << "the third failed check";
  }
}

TEST(RunDriver, FailedChecksBetweenSolvesOfFixedPassesEndTheRunAfterMaxFailures) {
  expect_failed_checks_end_the_run(
      "failed_checks_multigrid",
      {"pressure.solver=\"multigrid\"", "pressure.max_cycles=1", "pressure.tolerance=1e-14",
       "pressure.check_interval=10", "pressure.cpu_coarse_cells=0", "pressure.first_guess=\"previous\"",
       "time.steps=200"});
  // The direct solve cannot reach 1e-16: it stalls at double's floor on every check.
  expect_failed_checks_end_the_run("failed_checks_fft", {"pressure.solver=\"fft\"", "pressure.tolerance=1e-16",
                                                         "time.steps=200"});
}

// NaN or Inf in any of u, v, w, T makes the state check fail; a finite state passes.
TEST(StateCheck, ANonFiniteValueInAnyFieldIsCaught) {
  const Case c = restart_case("");
  for (const char* name : {"u", "v", "w", "theta"}) {
    for (double bad : {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity()}) {
      FlowSimulation<double> sim(c, Backend::cpu());
      sim.step();
      EXPECT_NO_THROW(sim.verify_state());
      std::vector<double> values = sim.host_values(name);
      values[values.size() / 2 + 3] = bad;
      Field<double>& f = sim.field(name);
      set_interior_values(f, values);
      sim.fill_all_ghosts();
      try {
        sim.verify_state();
        ADD_FAILURE() << name << " = " << bad << " passed the check";
      } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("NaN or Inf"), std::string::npos) << e.what();
      }
    }
  }
}

// A NaN that appears in the middle of a run stops it within one step, whether dt adapts or
// is fixed. Put into the old tendency of T in one cell between steps, it reaches T in the
// next step and the pressure solve of that step never sees it: the state check catches it.
TEST(StateCheck, ANaNInOneCellStopsTheRunWithinOneStep) {
  for (const char* dt : {"", "time.dt=1e-3"}) {
    SCOPED_TRACE(*dt ? dt : "adaptive dt");
    std::vector<std::string> o = {"time.steps=40"};
    if (*dt) o.push_back(dt);
    Case c = restart_case("", o);
    RunControl control;
    control.progress_seconds.reset();
    control.after_step = [](bouss::Run& run) {
      if (run.simulation().steps_done() != 5) return;
      auto& sim = dynamic_cast<FlowSimulation<double>&>(run.simulation());
      std::vector<double> G = sim.host_values("G_T");
      G[300] = std::numeric_limits<double>::quiet_NaN();
      set_interior_values(sim.field("G_T"), G);
    };
    bouss::Run run(c, Backend::cpu(), control);
    try {
      run.execute();
      ADD_FAILURE() << "the run went on with a NaN";
    } catch (const std::runtime_error& e) {
      // It names what it saw, the least spread field first: T, around the cell that took the
      // NaN (cell 300 of 16x16x8: i = 12, j = 2, k = 1); the step, its dt and the likely causes.
      const std::string what = e.what();
      EXPECT_NE(what.find("NaN or Inf values: T in "), std::string::npos) << what;
      const auto box = what.find("(11..13, 1..3, 0..2,");
      const auto box1 = what.find("(12..12, 2..2, 1..1,");
      EXPECT_TRUE(box != std::string::npos || box1 != std::string::npos) << what;
      EXPECT_NE(what.find("step 6 (t = "), std::string::npos) << what;
      EXPECT_NE(what.find(*dt ? "time.dt = 0.001 is fixed" : "a time.cfl of 0.5"), std::string::npos) << what;
    }
    EXPECT_EQ(run.simulation().steps_done(), 6) << "the step that took the NaN in is the last one taken";
  }
}

TEST(MemoryEstimate, IsWhatTheRunAllocates) {
  for (const char* variant : {"pressure.fmg=false", "pressure.fmg=true", "pressure.mixed_precision=true",
                              "pressure.first_guess=\"extrapolated\"", "pressure.solver=\"line_multigrid\"",
                              "pressure.solver=\"line_pcg\"", R"(grid.x={"stretching": "tanh", "parameter": 1})",
                              ""}) {
    SCOPED_TRACE(variant);
    // The multigrid's variants, the line solvers, then auto's picks here (direct: through x's
    // eigenbasis on a stretched x; fft where x and y are periodic and uniform).
    const bool multigrid = std::string(variant).rfind("pressure.fmg", 0) == 0 || std::string(variant).rfind("pressure.mixed", 0) == 0 ||
                           std::string(variant).rfind("pressure.first", 0) == 0;
    const Case c = multigrid ? restart_case("", {"pressure.solver=\"multigrid\"", variant})
                             : *variant ? restart_case("", {variant}) : restart_case("", {});
    const MemoryEstimate m = estimate_memory(c, Backend::cpu());
    const std::size_t before = allocated_bytes(BackendKind::cpu);
    FlowSimulation<double> sim(c, Backend::cpu());
    sim.step();  // FMG's work arrays are allocated at its first solve
    EXPECT_EQ(double(allocated_bytes(BackendKind::cpu) - before), m.backend_bytes + m.host_bytes);
    EXPECT_GT(m.output_bytes, 0);
  }
}

// The extrapolated first guess starts each solve closer to its answer than the previous
// step's pressure (a second-order guess against a first-order one), so the multigrid takes
// fewer V-cycles to the same tolerance, and the projection still meets it.
TEST(FirstGuess, TheExtrapolatedPressureStartsCloserAndTakesFewerCycles) {
  double start[2] = {0, 0};
  int cycles[2] = {0, 0};
  const char* guesses[2] = {"previous", "extrapolated"};
  for (int g = 0; g < 2; ++g) {
    const Case c = restart_case("", {"pressure.solver=\"multigrid\"", std::string("pressure.first_guess=\"") + guesses[g] + "\""});
    FlowSimulation<double> sim(c, Backend::cpu());
    for (int s = 0; s < 60; ++s) {
      sim.step();
      ASSERT_TRUE(sim.last_solve().converged) << guesses[g] << " step " << s;
      if (s < 20) continue;  // the flow under way
      start[g] += sim.last_solve().residual_history.front();
      cycles[g] += sim.last_solve().cycles;
    }
    EXPECT_LT(sim.diagnostics().max_divergence, 1e-6) << guesses[g];
  }
  EXPECT_LT(start[1], 0.3 * start[0]) << "relative initial residuals summed over 40 steps";
  EXPECT_LT(cycles[1], cycles[0]);
}
