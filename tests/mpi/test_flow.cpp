// A run cut over the ranks gives the run of one rank: Rayleigh-Benard steps on every process
// grid the rank count allows, the state gathered and compared with one rank's on rank 0.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "model/lock_exchange_diagnostics.hpp"
#include "config/case.hpp"
#include "mpi_support.hpp"
#include "solver/direct/transpose_steps.hpp"
#include "grid/gather.hpp"
#include "physics/lock_exchange.hpp"
#include "grid/field_ops.hpp"
#include "model/flow_simulation.hpp"
#include "model/simulation.hpp"
#include "run/run_memory.hpp"
#include "run/stream_average.hpp"
#include "run/stream_output.hpp"

namespace bouss {
namespace {

Case small_case(const std::vector<std::string>& more) {
  std::vector<std::string> o = {"grid.n=[32,16,8]", "grid.extent=[[0,4],[0,2],[0,1]]", "output=[]",
                                "time.steps=20", "physics.rayleigh=1e6", "initial.perturbation.amplitude=0.1"};
  o.insert(o.end(), more.begin(), more.end());
  return load_case(std::string(BOUSS_SOURCE_DIR) + "/cases/rayleigh_benard.json", o);
}

double max_relative_difference(const std::vector<double>& a, const std::vector<double>& b) {
  double scale = 0, diff = 0;
  for (std::size_t i = 0; i < a.size(); ++i) scale = std::max(scale, std::abs(b[i]));
  for (std::size_t i = 0; i < a.size(); ++i) diff = std::max(diff, std::abs(a[i] - b[i]));
  return diff / (scale > 0 ? scale : 1);
}

// Twenty steps on every process grid against one rank: each array of the state within
// 1e-12 of the whole grid's (the sums across ranks round in another order).
void check_against_one_rank(const Case& c, double tolerance) {
  const auto world = Communicator::world();
  const std::vector<std::string> names = Simulation::state_names(plan_pressure(c));
  std::vector<std::vector<double>> reference;
  double time = 0;
  if (world->rank() == 0) {
    auto one = make_simulation(c, Backend::cpu());
    while (!one->finished()) one->step();
    for (const std::string& name : names) reference.push_back(one->host_values(name));
    time = one->time();
  }
  for (const std::array<int, 2>& dims : process_grids(world->size(), c.n)) {
    Case cut = c;
    cut.decomposition = dims;
    auto sim = make_simulation(cut, Backend::cpu().with_ranks(world));
    while (!sim->finished()) sim->step();
    for (std::size_t q = 0; q < names.size(); ++q) {
      const std::vector<double> whole = gather_interior(sim->host_values(names[q]), field_named(names[q]).stagger,
                                                        sim->grid(), *world, 0);
      if (world->rank() != 0) continue;
      EXPECT_EQ(whole.size(), reference[q].size()) << names[q];  // not ASSERT: the other ranks go on
      if (whole.size() != reference[q].size()) continue;
      EXPECT_LE(max_relative_difference(whole, reference[q]), tolerance)
          << names[q] << " on " << dims[0] << "x" << dims[1] << " ranks";
    }
    // dt comes from the velocities, which the solvers on the blocks give to round-off (the
    // state's tolerance: fp32's where the run is).
    if (world->rank() == 0) EXPECT_NEAR(sim->time(), time, tolerance * time) << "the ranks' dt differ from one rank's";
  }
}

TEST(MpiFlow, RayleighBenardStepsEqualOneRanks) {
  check_against_one_rank(small_case({}), 1e-12);
}

TEST(MpiFlow, WalledSidesAndTheMultigridEqualOneRanks) {
  check_against_one_rank(small_case({"boundaries.x_lo={\"velocity\": \"no_slip\", \"temperature\": \"insulating\"}",
                                     "boundaries.x_hi={\"velocity\": \"free_slip\", \"temperature\": \"insulating\"}",
                                     "pressure.solver=\"multigrid\""}),
                         1e-12);
  // Every level the blocks allow on the ranks (the default gathers these small blocks at once).
  check_against_one_rank(small_case({"boundaries.x_lo={\"velocity\": \"no_slip\", \"temperature\": \"insulating\"}",
                                     "boundaries.x_hi={\"velocity\": \"free_slip\", \"temperature\": \"insulating\"}",
                                     "pressure.solver=\"multigrid\"", "pressure.agglomerate_below=1"}),
                         1e-12);
}

// A lock exchange (walls everywhere, the direct solve), its lock at x = 1 where two ranks cut x: the state,
// the fronts (found across the blocks' edges), the heat, the energies and the budget's
// rates as one rank's.
void check_lock_exchange_against_one_rank(const std::vector<std::string>& more) {
  std::vector<std::string> o = {"grid.n=[32,8,16]", "grid.extent=[[0,2],[0,0.5],[0,1]]", "output=[]", "time.steps=15",
                                "physics.nu=0.01", "physics.kappa=0.01", "initial.temperature.thickness=0.05",
                                "initial.temperature.position=1.0", "pressure.tolerance=1e-10"};
  o.insert(o.end(), more.begin(), more.end());
  const Case c = load_case(std::string(BOUSS_SOURCE_DIR) + "/cases/lock_exchange.json", o);
  check_against_one_rank(c, 1e-11);
  const auto world = Communicator::world();
  const Lock lock = lock_of(c);
  LockDiagnostics one;
  if (world->rank() == 0) {
    auto sim = make_simulation(c, Backend::cpu());
    while (!sim->finished()) sim->step();
    one = lock_diagnostics(*sim, lock);
  }
  for (const std::array<int, 2>& dims : process_grids(world->size(), c.n)) {
    Case cut = c;
    cut.decomposition = dims;
    auto sim = make_simulation(cut, Backend::cpu().with_ranks(world));
    while (!sim->finished()) sim->step();
    const LockDiagnostics d = lock_diagnostics(*sim, lock);
    if (world->rank() != 0) continue;
    const std::string on = " on " + std::to_string(dims[0]) + "x" + std::to_string(dims[1]);
    EXPECT_NEAR(d.fronts.floor_x, one.fronts.floor_x, 1e-12) << on;
    EXPECT_NEAR(d.fronts.lid_x, one.fronts.lid_x, 1e-12) << on;
    EXPECT_GT(std::abs(one.fronts.floor_travelled), 1e-3) << "the front did not move: nothing compared";
    EXPECT_NEAR(d.temperature.heat, one.temperature.heat, 1e-12 * std::abs(one.temperature.heat) + 1e-14) << on;
    EXPECT_NEAR(d.temperature.potential_energy, one.temperature.potential_energy,
                1e-12 * std::abs(one.temperature.potential_energy)) << on;
    EXPECT_NEAR(d.kinetic_energy, one.kinetic_energy, 1e-11 * one.kinetic_energy) << on;
    // To round-off, like the state: the multigrid on the blocks sums b's mean in another order.
    EXPECT_NEAR(d.temperature.T_max, one.temperature.T_max, 1e-12 * std::abs(one.temperature.T_max)) << on;
  }
}

TEST(MpiFlow, LockExchangeAndItsDiagnosticsEqualOneRanks) { check_lock_exchange_against_one_rank({}); }

// Stretched towards its walls along x and z, the lock exchange takes the direct solve through
// x's eigenbasis, gathered whole onto rank 0 under several ranks; the fronts between the
// cells' true centres across the blocks' edges.
TEST(MpiFlow, ALockExchangeStretchedAlongXEqualsOneRanks) {
  check_lock_exchange_against_one_rank({R"(grid.x={"stretching": "tanh", "parameter": 1})",
                                        R"(grid.z={"stretching": "tanh", "parameter": 1})"});
}

// Periodic x and y stretched (towards both ends of x, y by its tanh): one rank's flow to 1e-12.
TEST(MpiFlow, AGridStretchedAlongXAndYEqualsOneRanks) {
  const Case c = small_case({R"(grid.x={"stretching": "tanh", "parameter": 1})",
                             R"(grid.y={"stretching": "tanh", "parameter": 0.8})"});
  ASSERT_EQ(plan_pressure(c).name(), "direct");
  check_against_one_rank(c, 1e-12);
}

// A box walled in x takes the direct solve (cosine transforms along x), gathered whole onto
// rank 0 under several ranks: one rank's flow to 1e-12 on every process grid.
TEST(MpiFlow, AWalledBoxsDirectSolveEqualsOneRanks) {
  check_against_one_rank(small_case({"boundaries.x_lo={\"velocity\": \"no_slip\", \"temperature\": \"insulating\"}",
                                     "boundaries.x_hi={\"velocity\": \"no_slip\", \"temperature\": \"insulating\"}",
                                     "pressure.solver=\"fft\""}),
                         1e-12);
}

TEST(MpiFlow, TheLineMultigridOnTheBlocksEqualsOneRanks) {
  check_against_one_rank(small_case({"pressure.solver=\"line_multigrid\"", "pressure.agglomerate_below=2",
                                     "boundaries.x_lo={\"velocity\": \"no_slip\", \"temperature\": \"insulating\"}",
                                     "boundaries.x_hi={\"velocity\": \"no_slip\", \"temperature\": \"insulating\"}"}),
                         1e-12);
}

TEST(MpiFlow, SinglePrecisionEqualsOneRanks) {
  check_against_one_rank(small_case({"precision=\"single\"", "pressure.tolerance=1e-4"}), 1e-5);
  check_against_one_rank(small_case({"precision=\"single\"", "pressure.tolerance=1e-4", "pressure.solver=\"multigrid\"",
                                     "pressure.agglomerate_below=2"}),
                         1e-5);
}

// A NaN on one rank stops every rank at the same step: the state check's max across the
// ranks (grid/reduce.hpp, allreduce_max_on) carries it to all of them as +inf, whatever
// the fold order (rank 0's NaN first: a plain max would drop it). Put into rank 0's old
// tendency of T in one cell after step 3, it reaches T in step 4, whose state check every
// rank reads when it plans step 5; with the direct solve (steps in fixed passes) and the
// multigrid (checked every step).
TEST(MpiFlow, ANaNOnOneRankStopsEveryRankAtTheSameStep) {
  const auto world = Communicator::world();
  if (world->size() < 2) GTEST_SKIP() << "a NaN on one rank of several";
  for (const char* solver : {"\"direct\"", "\"multigrid\""}) {
    SCOPED_TRACE(solver);
    auto sim = make_simulation(small_case({std::string("pressure.solver=") + solver}), Backend::cpu().with_ranks(world));
    auto& flow = dynamic_cast<FlowSimulation<double>&>(*sim);
    for (int s = 0; s < 3; ++s) sim->step();
    if (world->rank() == 0) {
      std::vector<double> G = sim->host_values("G_T");
      G[G.size() / 2] = std::numeric_limits<double>::quiet_NaN();
      set_interior_values(flow.field("G_T"), G);
    }
    bool stopped = false;
    for (int s = 0; s < 3 && !stopped; ++s) {
      try {
        sim->step();
      } catch (const std::runtime_error& e) {
        stopped = true;
        EXPECT_NE(std::string(e.what()).find("NaN or Inf"), std::string::npos) << e.what();
      }
    }
    EXPECT_TRUE(stopped) << "rank " << world->rank() << " went on with a NaN on rank 0";
    EXPECT_EQ(sim->steps_done(), 4) << "rank " << world->rank();
  }
}

// What `bouss check` and the start-up check estimate for this rank is what this rank
// allocates (its block's arrays, its solver's levels on the blocks, and on rank 0 the
// gathered levels or the gathered solve), for every pressure solver, on every process grid.
TEST(MpiFlow, TheMemoryEstimateIsWhatEachRankAllocates) {
  const auto world = Communicator::world();
  // "fft walled": the direct solve of a box walled in x (cosine transforms on the slabs or
  // pencils, a real band); "fft stretched": that box stretched along x (the eigenbases).
  for (const std::string entry : {"multigrid", "fft", "fft walled", "fft stretched", "line_multigrid", "line_pcg"}) {
    const std::string solver = entry.substr(0, entry.find(' '));
    for (const char* below : {"32", "2"}) {
      std::vector<std::string> o = {"pressure.solver=\"" + solver + "\"",
                                    std::string("pressure.agglomerate_below=") + below};
      // Walls in x, but for the periodic direct solve (on the blocks through its slabs).
      if (entry != "fft")
        for (const char* side : {"x_lo", "x_hi"})
          o.push_back(std::string("boundaries.") + side + "={\"velocity\": \"no_slip\", \"temperature\": \"insulating\"}");
      if (entry == "fft stretched") o.push_back(R"(grid.x={"stretching": "tanh", "parameter": 1})");
      const Case c = small_case(o);
      for (const std::array<int, 2>& dims : process_grids(world->size(), c.n)) {
        Case cut = c;
        cut.decomposition = dims;
        const Backend backend = Backend::cpu().with_ranks(world);
        const MemoryEstimate m = estimate_memory(cut, backend);
        const std::size_t before = allocated_bytes(BackendKind::cpu);
        auto sim = make_simulation(cut, backend);
        sim->step();
        // The transposes' messages go through the backend's shared buffers, which the
        // estimate counts (the larger of each transpose's sends, and of its receipts: on
        // slabs the block or the slab's spectrum, the slab or the band) and allocated_bytes
        // does not.
        double messages = 0;
        if (solver == "fft" && world->size() > 1) {
          const int r = world->rank(), p = world->size();
          const bool real = entry != "fft";
          const int columns = real ? c.n[0] : c.n[0] / 2 + 1, per_mode = real ? 1 : 2;
          const std::vector<int> z = even_cuts(c.n[2], p);
          const std::vector<int> modes = even_cuts(columns * c.n[1], p);
          const Decomposition d = Decomposition::make(c.n, {true, true, false}, p, r, dims);
          const double levels = z[r + 1] - z[r], block = double(d.n[0]) * d.n[1] * d.n[2];
          const double slab = double(c.n[0]) * c.n[1] * levels, spectrum = double(per_mode) * columns * c.n[1] * levels;
          const double band = double(per_mode) * (modes[r + 1] - modes[r]) * c.n[2];
          messages = (std::max(block, spectrum) + std::max(slab, band)) * sizeof(double);
          const std::vector<int> y = Decomposition::cuts(c.n[1], p);
          int fewest_rows = c.n[1];
          for (int q = 0; q < p; ++q) fewest_rows = std::min(fewest_rows, y[q + 1] - y[q]);
          if (dims[0] == 1 && entry != "fft stretched" && fewest_rows >= 2 && p <= 8) {
            // The y lines cut over the ranks: their all-gather's buffers are the solver's
            // own, which allocated_bytes counts.
            messages = 0;
          } else if (dims[0] == 1) {
            // The pencils: the block's x spectra (half spectra, or a real box's nx real
            // columns) one way, the band of x mode columns (whole y and z lines) the other,
            // each the sends and the receipts.
            const std::vector<int> k = even_cuts(columns, p);
            const double x_spectra = double(per_mode) * columns * d.n[1] * c.n[2],
                         pencil_band = double(per_mode) * (k[r + 1] - k[r]) * c.n[1] * c.n[2];
            messages = 2 * std::max(x_spectra, pencil_band) * sizeof(double);
          }
        }
        EXPECT_EQ(double(allocated_bytes(BackendKind::cpu) - before) + messages, m.backend_bytes + m.host_bytes)
            << entry << ", agglomerate_below " << below << ", rank " << world->rank() << " of " << dims[0] << "x"
            << dims[1];
      }
    }
  }
}

// An averaged stream's sums: what the memory estimate counts for this rank is what this rank
// allocates, its own points of each sum (not the whole grid's), on every process grid.
TEST(MpiFlow, TheAveragesEstimateIsWhatEachRankAllocates) {
  const auto world = Communicator::world();
  const Case c = small_case({R"(output=[{"file": "means.nc", "interval": 1, "fields": ["T", "w"], )"
                             R"("average": {"moments": ["w_c*T"]}}, {"file": "plane.nc", "interval": 1, )"
                             R"("fields": ["T"], "region": {"y": 0.9}, "average": true}])"});
  for (const std::array<int, 2>& dims : process_grids(world->size(), c.n)) {
    Case cut = c;
    cut.decomposition = dims;
    const Backend backend = Backend::cpu().with_ranks(world);
    auto sim = make_simulation(cut, backend);
    const Grid& part = sim->grid();
    for (const OutputStream& s : cut.output.streams) {
      const StreamPlan plan = plan_stream(cut, s, part.whole().layout);
      const double estimate = StreamAverage::bytes(s, plan, part);
      const std::size_t before = allocated_bytes(BackendKind::cpu);
      {
        StreamAverage sums(s, plan, *sim);
        EXPECT_EQ(double(allocated_bytes(BackendKind::cpu) - before), estimate)
            << s.file << ", rank " << world->rank() << " of " << dims[0] << "x" << dims[1];
      }
      if (world->size() > 1 && s.region.whole())  // the whole domain's sums: a rank holds its share
        EXPECT_LT(estimate, StreamAverage::bytes(s, plan, part.whole())) << "a rank's share, not the whole";
    }
  }
}

}  // namespace
}  // namespace bouss
