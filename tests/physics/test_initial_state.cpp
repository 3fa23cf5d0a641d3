// A run started from another run's state (initial.from; run/initial_state.hpp): the same
// grid gives the file's fields, a finer or coarser one keeps T cell by cell and projects the
// velocity, the file and its record are in the output's provenance, and every refusal is one
// line naming what differs.
#include <gtest/gtest.h>
#include <netcdf.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <fstream>
#include <string>
#include <vector>

#include "io/netcdf_attributes.hpp"
#include "run_checks.hpp"

namespace bouss::test {
namespace {

// restart_case_json (16x16x8 convection from noise, Ra 1e5) with one stream of T u v w.
Case state_case(const std::string& file, std::vector<std::string> more = {}) {
  more.insert(more.begin(), R"(output={"file": ")" + file + R"(", "interval_steps": 5, "fields": ["T", "u", "v", "w"]})");
  return parse_case(restart_case_json(10), "state.json", more);
}

std::vector<double> record_of(const std::vector<double>& all, std::size_t records, std::size_t r) {
  const std::size_t per = all.size() / records;
  return std::vector<double>(all.begin() + std::ptrdiff_t(r * per), all.begin() + std::ptrdiff_t((r + 1) * per));
}

// The means of the 2 x 2 x 2 blocks of a 32 x 32 x 16 field (plus add(K) at fine level K),
// on the 16 x 16 x 8 grid of the blocks.
template <class Add>
std::vector<double> block_means(const std::vector<double>& fine, Add add) {
  std::vector<double> means;
  for (int k = 0; k < 8; ++k)
    for (int j = 0; j < 16; ++j)
      for (int i = 0; i < 16; ++i) {
        double sum = 0;
        for (int c = 0; c < 2; ++c)
          for (int b = 0; b < 2; ++b)
            for (int q = 0; q < 2; ++q)
              sum += fine[std::size_t(2 * i + q) + 32 * (std::size_t(2 * j + b) + 32 * (2 * k + c))] + add(2 * k + c);
        means.push_back(sum / 8);
      }
  return means;
}

TEST(InitialState, TheSameGridGivesTheFilesFields) {
  ScratchDir dir("initial_same");
  const std::string a = dir.file("a.nc"), b = dir.file("b.nc");
  run_case(state_case(a), Backend::cpu());
  run_case(state_case(b, {R"(initial={"from": ")" + a + R"(", "continue_time": true})", "time.steps=1"}),
           Backend::cpu());
  const auto va = read_variables(a), vb = read_variables(b);
  const std::size_t ra = va.at("time").size(), rb = vb.at("time").size();
  EXPECT_EQ(vb.at("time")[0], va.at("time").back()) << "continue_time: the record's time";
  for (const char* name : {"u", "v", "w"})
    EXPECT_EQ(record_of(vb.at(name), rb, 0), record_of(va.at(name), ra, ra - 1)) << name << " to the bit";
  const auto ta = record_of(va.at("T"), ra, ra - 1), tb = record_of(vb.at("T"), rb, 0);
  for (std::size_t i = 0; i < ta.size(); ++i) ASSERT_NEAR(tb[i], ta[i], 1e-15) << "T at " << i;
  EXPECT_EQ(file_text_attribute(b, "initial_from"), a);
}

// Twice as fine in each direction: every 2 x 2 x 2 new cells average to the old cell's T; the
// velocity is projected (the series' first max|div u| at round-off); the provenance names
// the record. And back from a checkpoint of the fine run onto the coarse grid: each coarse
// cell the mean of its eight.
TEST(InitialState, AFinerGridKeepsTCellByCellAndIsDivergenceFree) {
  ScratchDir dir("initial_finer");
  const std::string a = dir.file("a.nc"), fine = dir.file("fine.nc"), back = dir.file("back.nc");
  run_case(state_case(a), Backend::cpu());
  run_case(state_case(fine, {R"(initial={"from": ")" + a + R"(", "record": -2})", "grid.n=[32,32,16]",
                             "time.steps=2", "checkpoint.interval_steps=1", "output.diagnostics_interval_steps=1"}),
           Backend::cpu());
  const auto va = read_variables(a), vf = read_variables(fine);
  const std::size_t ra = va.at("time").size();
  const auto coarse = record_of(va.at("T"), ra, ra - 2), refined = record_of(vf.at("T"), vf.at("time").size(), 0);
  const std::vector<double> means = block_means(refined, [](int) { return 0.0; });
  for (std::size_t p = 0; p < means.size(); ++p) ASSERT_NEAR(means[p], coarse[p], 1e-13) << "cell " << p;
  EXPECT_LT(vf.at("max_divergence").front(), 1e-11) << "projected";
  EXPECT_EQ(vf.at("time").front(), 0.0) << "t = 0 by default";
  EXPECT_EQ(file_text_attribute(fine, "initial_from"), a);
  // The fine run's checkpoint at step 1, onto the coarse grid.
  run_case(state_case(back, {R"(initial={"from": ")" + dir.file("fine.checkpoint.1.nc") + R"("})", "time.steps=1"}),
           Backend::cpu());
  const Checkpoint ck = read_checkpoint(dir.file("fine.checkpoint.1.nc"));
  const auto vb = read_variables(back);
  const auto down = record_of(vb.at("T"), vb.at("time").size(), 0);
  // The checkpoint's T: theta + T_ref(z), T_ref linear from 1 at the bottom to 0 at the top.
  std::vector<double> theta;
  for (const auto& arr : ck.arrays)
    if (arr.name == "theta") theta = arr.values;
  ASSERT_EQ(theta.size(), 32u * 32 * 16);
  const std::vector<double> down_means = block_means(theta, [](int K) { return 1 - (K + 0.5) / 16; });
  for (std::size_t p = 0; p < down_means.size(); ++p) ASSERT_NEAR(down[p], down_means[p], 1e-13) << "cell " << p;
}

// Sum of T dV of a record of a file's T, each cell's volume from the file's own faces.
double heat_of(const std::map<std::string, std::vector<double>>& v, std::size_t record) {
  const std::vector<double> &xf = v.at("xf"), &yf = v.at("yf"), &zf = v.at("zf");
  const std::size_t nx = xf.size() - 1, ny = yf.size() - 1, nz = zf.size() - 1;
  const std::vector<double> T = record_of(v.at("T"), v.at("time").size(), record);
  double sum = 0;
  for (std::size_t k = 0; k < nz; ++k)
    for (std::size_t j = 0; j < ny; ++j)
      for (std::size_t i = 0; i < nx; ++i)
        sum += T[i + nx * (j + ny * k)] * (xf[i + 1] - xf[i]) * (yf[j + 1] - yf[j]) * (zf[k + 1] - zf[k]);
  return sum;
}

// From a grid stretched along x and y onto a uniform one and back: T carried conservatively
// (the heat sum T dV the same to round-off, each cell's volume its own), the velocity projected.
TEST(InitialState, StretchedAndUniformGridsCarryTheHeat) {
  ScratchDir dir("initial_stretched");
  const std::string a = dir.file("a.nc"), b = dir.file("b.nc"), c = dir.file("c.nc");
  const std::vector<std::string> stretched = {R"(grid.x={"stretching": "tanh", "parameter": 1})",
                                              R"(grid.y={"stretching": "tanh", "parameter": 0.8})"};
  run_case(state_case(a, stretched), Backend::cpu());
  run_case(state_case(b, {R"(initial={"from": ")" + a + R"("})", "time.steps=1", "grid.n=[24,20,8]",
                          "output.diagnostics_interval_steps=1"}),
           Backend::cpu());
  std::vector<std::string> back = stretched;
  back.insert(back.end(), {R"(initial={"from": ")" + b + R"(", "record": 0})", "time.steps=1",
                           "output.diagnostics_interval_steps=1"});
  run_case(state_case(c, back), Backend::cpu());
  const auto va = read_variables(a), vb = read_variables(b), vc = read_variables(c);
  ASSERT_NE(va.at("xf")[1] - va.at("xf")[0], va.at("xf")[9] - va.at("xf")[8]) << "a's x is stretched";
  const double ha = heat_of(va, va.at("time").size() - 1), hb = heat_of(vb, 0), hc = heat_of(vc, 0);
  EXPECT_NEAR(hb, ha, 1e-13 * std::fabs(ha));
  EXPECT_NEAR(hc, hb, 1e-13 * std::fabs(hb));
  EXPECT_LT(vb.at("max_divergence").front(), 1e-11) << "projected";
  EXPECT_LT(vc.at("max_divergence").front(), 1e-11) << "projected";
}

// A float file quantized to 4 digits is a state too: its values, as stored, on the same grid.
TEST(InitialState, AQuantizedFloatFileIsTakenAsStored) {
  ScratchDir dir("initial_float");
  const std::string a = dir.file("a.nc"), b = dir.file("b.nc");
  run_case(state_case(a, {"output.precision=\"float\"", R"(output.compression={"deflate": 1, "significant_digits": 4})"}),
           Backend::cpu());
  run_case(state_case(b, {R"(initial={"from": ")" + a + R"("})", "time.steps=1"}), Backend::cpu());
  const auto va = read_variables(a), vb = read_variables(b);
  const std::size_t ra = va.at("time").size();
  for (const char* name : {"u", "w"})
    EXPECT_EQ(record_of(vb.at(name), vb.at("time").size(), 0), record_of(va.at(name), ra, ra - 1)) << name;
  const auto ta = record_of(va.at("T"), ra, ra - 1), tb = record_of(vb.at("T"), vb.at("time").size(), 0);
  for (std::size_t i = 0; i < ta.size(); ++i) ASSERT_NEAR(tb[i], ta[i], 1e-15) << "T at " << i;
}

// The shipped Ra = 1e8 case as its campaign runs it (validation/README.md), small: developed
// coarse, then continued on a finer grid from the coarse run's last record, with its averaged
// stream; both runs finish and the continued one starts from the coarse one's motion (a
// developed flow keeps 94% of its kinetic energy from 32x32x16 to 48x48x24; this one, young
// and at the grid's scale, about a third).
TEST(InitialState, TheRa1e8CasesCampaignRunsSmall) {
  ScratchDir dir("ra1e8_small");
  const std::string source = std::string(BOUSS_SOURCE_DIR) + "/cases/rayleigh_benard_ra1e8.json";
  const std::string coarse = dir.file("coarse.nc"), fine = dir.file("fine.nc");
  run_case(load_case(source, {"grid.n=[16,16,8]", "grid.z.parameter=1.0", "time.end=2", "checkpoint.interval=1",
                              "output.0.file=\"" + coarse + "\"", "output.1.file=\"" + dir.file("coarse_means.nc") + "\"",
                              "output.0.interval=1", "output.1.interval=1"}),
           Backend::cpu());
  run_case(load_case(source, {"grid.n=[24,24,12]", "grid.z.parameter=1.0", "time.end=0.5", R"(initial={"from": ")" + coarse + R"("})",
                              "checkpoint.interval=1", "output.0.file=\"" + fine + "\"",
                              "output.1.file=\"" + dir.file("fine_means.nc") + "\"", "output.1.interval=0.25"}),
           Backend::cpu());
  const auto c = read_variables(coarse), v = read_variables(fine), m = read_variables(dir.file("fine_means.nc"));
  EXPECT_EQ(v.at("time").front(), 0.0);
  EXPECT_EQ(m.at("time"), (std::vector<double>{0.25, 0.5}));
  // The coarse run's motion carried over (not the fluid at rest of the case's own start).
  const double before = c.at("kinetic_energy").back(), after = v.at("kinetic_energy").front();
  EXPECT_GT(before, 0);
  EXPECT_GT(after, 0.2 * before);  // its noise at the coarse grid's scale is not carried
  EXPECT_LT(after, 1.05 * before);  // linear interpolation and the projection add none
  EXPECT_EQ(file_text_attribute(fine, "initial_from"), coarse);
}

// A run from another run's record, stopped at a checkpoint and restarted: the restarted
// run's file still names the record and the time it started from.
TEST(InitialState, ARestartKeepsTheProvenanceOfTheRecordItStartedFrom) {
  ScratchDir dir("initial_restart");
  const std::string a = dir.file("a.nc"), b = dir.file("b.nc");
  run_case(state_case(a, {"time.steps=10"}), Backend::cpu());
  const double source_time = read_variables(a).at("time").at(1);
  const Case c = state_case(b, {R"(initial={"from": ")" + a + R"(", "record": 1})", "time.steps=6",
                                "checkpoint.interval_steps=3"});
  const std::string checkpoint = run_case(c, Backend::cpu(), 3);
  ASSERT_FALSE(checkpoint.empty());
  run_case(c, Backend::cpu(), -1, checkpoint);
  int nc = -1;
  ASSERT_EQ(nc_open(b.c_str(), NC_NOWRITE, &nc), NC_NOERR);
  long long record = -1;
  double time = -1;
  EXPECT_EQ(nc_get_att_longlong(nc, NC_GLOBAL, "initial_record", &record), NC_NOERR);
  EXPECT_EQ(nc_get_att_double(nc, NC_GLOBAL, "initial_time", &time), NC_NOERR);
  nc_close(nc);
  EXPECT_EQ(record, 1);
  EXPECT_EQ(time, source_time);
  EXPECT_GT(source_time, 0.0);
  EXPECT_EQ(file_text_attribute(b, "initial_from"), a);
}

// The run's refusal ("" when it ran), and that it is one line.
std::string refusal(const Case& c) {
  try {
    run_case(c, Backend::cpu());
  } catch (const CaseError& e) {
    const std::string line = e.what();
    EXPECT_EQ(line.find('\n'), std::string::npos) << "not one line: " << line;
    return line;
  }
  return "";
}

TEST(InitialState, RefusalsAreOneLineNamingWhatDiffers) {
  ScratchDir dir("initial_refusals");
  const std::string a = dir.file("a.nc");
  run_case(state_case(a, {"time.steps=5"}), Backend::cpu());
  const std::string from = R"(initial={"from": ")" + a + R"("})";
  std::string e = refusal(state_case(dir.file("b.nc"), {from, "grid.extent=[[0,4],[0,2],[0,1]]"}));
  EXPECT_NE(e.find("/initial/from: /grid/extent: " + a + "'s run has [[0,2],[0,2],[0,1]]"), std::string::npos) << e;
  e = refusal(state_case(dir.file("b.nc"), {from, R"(boundaries.z_hi={"velocity": "free_slip", "temperature": {"fixed": 0}})"}));
  EXPECT_NE(e.find("/boundaries/z_hi: " + a + "'s run has no-slip, fixed T = 0; the case free-slip"), std::string::npos) << e;
  e = refusal(state_case(dir.file("b.nc"), {R"(initial={"from": ")" + a + R"(", "record": 7})"}));
  EXPECT_NE(e.find("state.json: /initial/from: " + a + ": has 2 records: record 7 is not one of them"), std::string::npos)
      << e;
  const std::string text = dir.file("notes.txt");
  std::ofstream(text) << "not a NetCDF file\n";
  e = refusal(state_case(dir.file("b.nc"), {R"(initial={"from": ")" + text + R"("})"}));
  EXPECT_NE(e.find(text + ": cannot be read as a NetCDF file"), std::string::npos) << e;
  const std::string plane = dir.file("plane.nc");
  run_case(parse_case(restart_case_json(2), "p.json",
                      {R"(output={"file": ")" + plane + R"(", "interval_steps": 1, "fields": ["T", "u", "v", "w"], "region": {"z": 0.5}})"}),
           Backend::cpu());
  e = refusal(state_case(dir.file("b.nc"), {R"(initial={"from": ")" + plane + R"("})"}));
  EXPECT_NE(e.find(plane + ": holds a plane"), std::string::npos) << e;
  e = refusal(state_case(a, {from}));  // its output is its input
  EXPECT_NE(e.find("the file its initial state comes from"), std::string::npos) << e;
  e = refusal(state_case(dir.file("b.nc"), {R"(initial={"from": ")" + a + R"(", "continue_time": true})", "time.end=0.1"}));
  EXPECT_NE(e.find("/time/end: 0.1 is not after the time the run continues from"), std::string::npos) << e;
  // A killed run's last record, never written whole: fill values in T (as io/record_check sees them).
  const std::string killed = dir.file("killed.nc");
  std::filesystem::copy_file(a, killed);
  int nc = -1, var = -1;
  ASSERT_EQ(nc_open(killed.c_str(), NC_WRITE, &nc), NC_NOERR);
  ASSERT_EQ(nc_inq_varid(nc, "T", &var), NC_NOERR);
  const std::size_t start[4] = {1, 7, 0, 0}, count[4] = {1, 1, 16, 16};
  const std::vector<double> fill(256, NC_FILL_DOUBLE);
  ASSERT_EQ(nc_put_vara_double(nc, var, start, count, fill.data()), NC_NOERR);
  ASSERT_EQ(nc_close(nc), NC_NOERR);
  e = refusal(state_case(dir.file("b.nc"), {R"(initial={"from": ")" + killed + R"("})"}));
  EXPECT_NE(e.find(killed + ": record 1 is not complete (T holds fill values)"), std::string::npos) << e;
  EXPECT_EQ(refusal(state_case(dir.file("c.nc"), {R"(initial={"from": ")" + killed + R"(", "record": 0})"})), "")
      << "an earlier, complete record of the same file starts a run";
  // A checkpoint of the run's own stem: its checkpoints, or --overwrite's removal of the
  // earlier run's, would replace or delete it; refused, with or without overwrite, and kept.
  const std::string own = dir.file("d.checkpoint.5.nc");
  run_case(state_case(dir.file("d.nc"), {"checkpoint.interval_steps=5"}), Backend::cpu());
  ASSERT_TRUE(std::filesystem::exists(own));
  for (const char* overwrite : {"overwrite=false", "overwrite=true"}) {
    e = refusal(state_case(dir.file("d2.nc"), {R"(initial={"from": ")" + own + R"("})",
                                                "checkpoint.file=\"" + dir.file("d") + "\"", "checkpoint.interval_steps=5", overwrite}));
    EXPECT_NE(e.find("/initial/from: " + own + " is a name of this run's checkpoints"), std::string::npos) << e;
    EXPECT_TRUE(std::filesystem::exists(own)) << overwrite;
  }
}

}  // namespace
}  // namespace bouss::test
