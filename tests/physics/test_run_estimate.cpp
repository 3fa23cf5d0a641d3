// bouss check's estimate of a run's steps (run/run_estimate.hpp) against the steps the run
// takes: convection that develops from rest, a lock exchange, a fixed dt, a step count.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include "io/netcdf_handles.hpp"
#include <string>
#include <vector>

#include "config/case.hpp"
#include "run/run.hpp"
#include "run/run_estimate.hpp"

using namespace bouss;

namespace {

const std::string cases = std::string(BOUSS_SOURCE_DIR) + "/cases/";

long steps_of_run(const Case& c) {
  RunControl control;
  control.progress_seconds.reset();
  control.series = false;
  Run run(c, Backend::cpu(), control);
  run.start();
  while (run.step()) {
  }
  run.finish();
  return run.simulation().steps_done();
}

}  // namespace

// The flows develop from rest, where the diffusive or buoyancy limit sets dt, to the
// advective limit of their developed velocities, which the estimate takes from the
// free-fall velocity: within a factor of 2 of the run either way.
TEST(RunEstimate, StepsOfDevelopingFlowsWithinAFactorOfTwo) {
  const std::vector<std::pair<std::string, std::vector<std::string>>> runs = {
      {"rayleigh_benard.json", {"grid.n=[24,24,12]", "time.end=40", "output=[]"}},
      {"lock_exchange_2d.json", {"grid.n=[256,1,16]", "time.end=12", "output=[]"}},
  };
  for (const auto& [file, overrides] : runs) {
    const Case c = load_case(cases + file, overrides);
    const StepEstimate e = estimate_steps(c);
    EXPECT_FALSE(e.exact) << file;
    EXPECT_NE(e.rule.find("the CFL limit once the flow moves"), std::string::npos) << file << ": " << e.rule;
    const long taken = steps_of_run(c);
    EXPECT_GT(e.steps, 0.5 * taken) << file << ": estimated " << e.steps << ", the run took " << taken;
    EXPECT_LT(e.steps, 2.0 * taken) << file << ": estimated " << e.steps << ", the run took " << taken;
  }
}

// Near onset the flow stays slow and the diffusive limit holds throughout: the estimate is
// the run's count to within the last, clipped step.
TEST(RunEstimate, BelowTheAdvectiveLimitTheDiffusiveStepCountsTheRun) {
  const Case c = load_case(cases + "onset_free_slip.json", {"time.end=0.2", "output=[]"});
  const StepEstimate e = estimate_steps(c);
  EXPECT_EQ(e.rule, "the diffusive limit");
  const long taken = steps_of_run(c);
  EXPECT_LE(std::abs(e.steps - taken), 1) << "estimated " << e.steps << ", the run took " << taken;
}

TEST(RunEstimate, AFixedStepOrAStepCountIsExact) {
  const Case fixed = load_case(cases + "rayleigh_benard.json",
                               {"grid.n=[8,8,4]", "time.end=1.05", "time.dt=0.1", "output=[]"});
  const StepEstimate e = estimate_steps(fixed);
  EXPECT_TRUE(e.exact);
  EXPECT_EQ(e.rule, "time.dt");
  EXPECT_EQ(e.steps, double(steps_of_run(fixed)));
  const Case counted = load_case(cases + "rayleigh_benard.json", {"grid.n=[8,8,4]", "time.steps=7", "output=[]"});
  const StepEstimate n = estimate_steps(counted);
  EXPECT_TRUE(n.exact);
  EXPECT_EQ(n.steps, 7.0);
  EXPECT_EQ(n.steps, double(steps_of_run(counted)));
}

// The records a run writes, counted before it runs: the start's, every scheduled one, and the
// end's unless a scheduled one falls on it; each of a stream's plan_stream bytes.
TEST(RunEstimate, OutputCountsTheRecordsTheRunWrites) {
  const std::string dir = (std::filesystem::temp_directory_path() / ("bouss_estimate_" + std::to_string(::getpid()))).string();
  std::filesystem::create_directories(dir);
  for (const auto& [schedule, steps] : std::vector<std::pair<std::string, int>>{
           {R"("interval_steps": 5)", 20}, {R"("interval_steps": 6)", 20}, {R"("interval": 0.25)", 0}}) {
    SCOPED_TRACE(schedule);
    const std::string file = dir + "/out.nc";
    // By steps the run ends at time.steps, long before t = 1000.
    std::vector<std::string> overrides = {"grid.n=[8,8,4]", steps ? "time.end=1000" : "time.end=1",
                                          R"(output={"file": ")" + file + R"(", "fields": ["T"], )" + schedule + "}",
                                          "overwrite=true"};
    if (steps) overrides.push_back("time.steps=" + std::to_string(steps));
    const Case c = load_case(cases + "rayleigh_benard.json", overrides);
    const StepEstimate e = estimate_steps(c);
    const OutputEstimate o = estimate_output(c, e);
    const double record = double(8 * 8 * 4 * sizeof(double));
    EXPECT_EQ(o.last_record_bytes, record);
    steps_of_run(c);
    nc::ReadFile f(file);
    const double written = double(f.getDim("time").getSize());
    if (steps) EXPECT_EQ(o.bytes, written * record) << written << " records";
    // By time, the steps are an estimate: the run may land its last interval's record on the end.
    else EXPECT_NEAR(o.bytes / record, written, 1.0) << written << " records";
  }
  std::filesystem::remove_all(dir);
}
