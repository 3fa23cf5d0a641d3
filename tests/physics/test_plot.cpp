// `bouss plot` as a user meets it: the real executable draws each kind of picture from a small
// Rayleigh-Benard run with three output streams (the fields, a plane of cells, the profiles),
// and each PNG is read back: a valid PNG of a plausible size whose plot area is coloured
// and varied, not a blank frame. The output file's staggered fields are checked to carry CF
// coordinates that a reader (xarray, the plotting script) finds. Bad input gets one line and
// exit code 2. Every test skips, visibly, where /usr/bin/python3 lacks xarray or matplotlib
// (tools/setup.sh installs them).
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "netcdf_compare.hpp"
#include "process.hpp"
#include "scratch_dir.hpp"

namespace fs = std::filesystem;
using json = nlohmann::json;
using namespace bouss::test;

namespace {

bool python_can_plot() {
  static const bool ok =
      std::system("/usr/bin/python3 -c 'import xarray, matplotlib, netCDF4' >/dev/null 2>&1") == 0;
  return ok;
}

#define SKIP_WITHOUT_PLOTTING_PYTHON()                                                                  \
  if (!python_can_plot())                                                                             \
  GTEST_SKIP() << "/usr/bin/python3 lacks xarray, matplotlib or netCDF4 (tools/setup.sh installs "     \
                  "python3-xarray, python3-matplotlib and python3-netcdf4)"

struct Outcome {
  int code;
  std::string out, err;
};

Outcome run_bouss(const ScratchDir& dir, const std::vector<std::string>& args) {
  static int calls = 0;
  const std::string tag = std::to_string(++calls);
  BoussProcess p(args, dir.file("stdout_" + tag), dir.file("stderr_" + tag));
  const int status = p.wait();
  return {WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), p.out(), p.err()};
}

// Runs /usr/bin/python3 on a script with arguments; its exit code and stdout.
Outcome python(const ScratchDir& dir, const std::string& name, const std::string& script,
               const std::vector<std::string>& args) {
  const std::string path = dir.file(name + ".py");
  std::ofstream(path) << script;
  std::string cmd = "/usr/bin/python3 " + path;
  for (const auto& a : args) cmd += " '" + a + "'";
  cmd += " >" + dir.file(name + ".out") + " 2>" + dir.file(name + ".err");
  const int status = std::system(cmd.c_str());
  return {WEXITSTATUS(status), slurp(dir.file(name + ".out")), slurp(dir.file(name + ".err"))};
}

// A small run, once per test process: 16x16x8, 30 steps, three streams every 10 steps: the
// fields (also at the case's own interval, t = 5), the diagnostics every 10; the plane of cells
// y = 0.9375 (cell 7) with u_c; the profiles.
struct SmallRun {
  ScratchDir dir{"plot"};
  std::string file = dir.file("rb.nc"), plane = dir.file("plane.nc"), profiles = dir.file("profiles.nc"),
              means = dir.file("means.nc");
  int code = -1;
  std::string err;
  SmallRun() {
    const std::string streams = R"(output=[{"file": ")" + file + R"(", "interval": 5.0, "interval_steps": 10},
      {"file": ")" + plane + R"(", "interval_steps": 10, "fields": ["T", "u", "w", "u_c"], "region": {"y": 0.9375}},
      {"file": ")" + profiles + R"(", "interval_steps": 10, "profiles": true},
      {"file": ")" + means + R"(", "interval_steps": 15, "fields": ["T"], "profiles": true,
       "average": {"moments": ["w_c*T"]}}])";
    const auto r = run_bouss(dir, {"run", source_path("cases/rayleigh_benard.json"), "--set", "grid.n=[16,16,8]",
                               "--set", "time.steps=30", "--set", streams, "--backend", "cpu", "--progress", "0"});
    code = r.code;
    err = r.err;
  }
};

const SmallRun& small_run() {
  static const SmallRun run;
  return run;
}

// What a PNG's own header says: the signature and the IHDR chunk's width and height.
struct PngHeader {
  bool valid = false;
  std::uint32_t width = 0, height = 0;
};

PngHeader read_png_header(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  unsigned char b[24] = {};
  PngHeader h;
  if (!f.read(reinterpret_cast<char*>(b), sizeof b)) return h;
  const unsigned char signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  h.valid = std::equal(signature, signature + 8, b) && std::string(reinterpret_cast<char*>(b + 12), 4) == "IHDR";
  auto be32 = [&](int at) {
    return std::uint32_t(b[at]) << 24 | std::uint32_t(b[at + 1]) << 16 | std::uint32_t(b[at + 2]) << 8 | b[at + 3];
  };
  h.width = be32(16);
  h.height = be32(20);
  return h;
}

// The pixels, read back with matplotlib: the share of coloured pixels (chroma above 0.15: a
// colour map or a line, not the white, black and grey of axes and text), and the number of
// distinct colours (on a 32-level grid) in the left three quarters, away from a colour bar.
const char* const png_pixels_script = R"py(import json, sys
import matplotlib.image as mpimg
import numpy as np
a = mpimg.imread(sys.argv[1])[..., :3]
def colours(b):
    chroma = b.max(axis=2) - b.min(axis=2)
    c = b[chroma > 0.15]
    return float((chroma > 0.15).mean()), (len(np.unique((c * 31).round().astype(int), axis=0)) if c.size else 0)
coloured, _ = colours(a)
_, distinct = colours(a[:, : a.shape[1] * 3 // 4])
print(json.dumps({"height": a.shape[0], "width": a.shape[1], "coloured": coloured, "distinct_left": distinct}))
)py";

enum class Picture { Map, Lines };

// A valid PNG of a plausible size that is not blank: a map (a slice) is coloured over a good
// part of the picture with many colours left of its colour bar; a picture of lines has some
// coloured pixels (an empty panel has none).
void expect_a_picture(const ScratchDir& dir, const std::string& png, Picture kind) {
  ASSERT_TRUE(fs::exists(png)) << png;
  const auto bytes = fs::file_size(png);
  EXPECT_GT(bytes, 5000u) << png;
  EXPECT_LT(bytes, 2000000u) << png;
  const PngHeader h = read_png_header(png);
  ASSERT_TRUE(h.valid) << png << " is not a PNG";
  EXPECT_GE(h.width, 300u);
  EXPECT_LE(h.width, 3000u);
  EXPECT_GE(h.height, 200u);
  EXPECT_LE(h.height, 3000u);
  const auto r = python(dir, "pixels", png_pixels_script, {png});
  ASSERT_EQ(r.code, 0) << r.err;
  const json p = json::parse(r.out);
  EXPECT_EQ(p["width"], h.width);
  EXPECT_EQ(p["height"], h.height);
  if (kind == Picture::Map) {
    EXPECT_GT(p["coloured"].get<double>(), 0.1) << png << ": " << r.out;
    EXPECT_GE(p["distinct_left"].get<int>(), 8) << png << ": " << r.out;
  } else {
    EXPECT_GT(p["coloured"].get<double>(), 0.002) << png << ": " << r.out;
  }
}

json plot_json(const ScratchDir& dir, std::vector<std::string> args) {
  args.insert(args.begin(), "plot");
  args.push_back("--json");
  const auto r = run_bouss(dir, args);
  EXPECT_EQ(r.code, 0) << r.err;
  if (r.code != 0) return json::object();
  return json::parse(r.out);
}

int count_lines(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == '\n';
  return n;
}



// A small run of another case, once per name: its output file.
std::string small_case_run(const std::string& name, const std::vector<std::string>& sets) {
  static std::map<std::string, std::string> done;
  if (done.count(name)) return done.at(name);
  static ScratchDir dir("plot_cases");
  const std::string file = dir.file(name + ".nc");
  std::vector<std::string> args{"run", source_path("cases/" + name + ".json")};
  for (const auto& s : sets) args.insert(args.end(), {"--set", s});
  args.insert(args.end(), {"--set", R"(output={"file": ")" + file + R"(", "interval_steps": 10})", "--backend", "cpu",
                           "--progress", "0"});
  const auto r = run_bouss(dir, args);
  EXPECT_EQ(r.code, 0) << r.err;
  return done[name] = file;
}

std::string lock_exchange_2d_run() {
  return small_case_run("lock_exchange_2d", {"grid.n=[128,1,8]", "time.steps=30"});
}

// Two boxes (x0, y0, x1, y1) overlap.
bool overlap(const json& a, const json& b) {
  return a[0].get<double>() < b[2].get<double>() && b[0].get<double>() < a[2].get<double>() &&
         a[1].get<double>() < b[3].get<double>() && b[1].get<double>() < a[3].get<double>();
}

// Every legend lies beside its panels, over none of them.
void expect_legends_hide_nothing(const json& legends) {
  for (const auto& l : legends)
    for (const auto& panel : l["panels"]) EXPECT_FALSE(overlap(l["legend_box"], panel)) << l;
}

}  // namespace

TEST(Plot, SliceOfTemperatureAtMidHeight) {
  SKIP_WITHOUT_PLOTTING_PYTHON();
  const SmallRun& run = small_run();
  ASSERT_EQ(run.code, 0) << run.err;
  ScratchDir dir("plot_slice_T");
  const std::string png = dir.file("T_mid.png");
  const json r = plot_json(dir, {run.file, "--field", "T", "--plane", "z=0.5", "--output", png});
  EXPECT_EQ(r["kind"], "slice");
  EXPECT_EQ(r["field"], "T");
  EXPECT_EQ(r["plane"]["dim"], "z");
  EXPECT_NEAR(r["plane"]["value"].get<double>(), 0.5, 1.0 / 16 + 1e-12);  // within half a cell of 1/8
  EXPECT_EQ(r["axes"], json::array({"x", "y"}));
  EXPECT_EQ(r["shape"], json::array({16, 16}));
  EXPECT_EQ(r["record"], 4);  // the last of t = 0, 5 and steps 10, 20, 30
  EXPECT_LT(r["min"].get<double>(), r["max"].get<double>());
  EXPECT_GE(r["min"].get<double>(), -0.1);
  EXPECT_LE(r["max"].get<double>(), 1.1);
  expect_a_picture(dir, png, Picture::Map);
}

TEST(Plot, SliceOfVerticalVelocityCutsItsFaces) {
  SKIP_WITHOUT_PLOTTING_PYTHON();
  const SmallRun& run = small_run();
  ASSERT_EQ(run.code, 0) << run.err;
  ScratchDir dir("plot_slice_w");
  // A vertical slice at y = 1: w keeps its z faces as the vertical axis.
  const std::string vertical = dir.file("w_y1.png");
  const json r = plot_json(dir, {run.file, "--field", "w", "--plane", "y=1", "--output", vertical});
  EXPECT_EQ(r["plane"]["dim"], "y");
  EXPECT_NEAR(r["plane"]["value"].get<double>(), 1.0, 1.0 / 16 + 1e-12);
  EXPECT_EQ(r["axes"], json::array({"x", "zf"}));
  EXPECT_EQ(r["shape"], json::array({9, 16}));
  EXPECT_LT(r["min"].get<double>(), 0.0);
  EXPECT_GT(r["max"].get<double>(), 0.0);
  EXPECT_DOUBLE_EQ(r["vmin"].get<double>(), -r["vmax"].get<double>());  // centred on rest
  expect_a_picture(dir, vertical, Picture::Map);
  // At z = 0.5 it cuts the nearest z face, exactly the face at 0.5, and says so.
  const json h = plot_json(dir, {run.file, "--field", "w", "--plane", "z=0.5", "--output", dir.file("w_z.png")});
  EXPECT_EQ(h["plane"]["dim"], "zf");
  EXPECT_EQ(h["plane"]["face"], true);
  EXPECT_DOUBLE_EQ(h["plane"]["value"].get<double>(), 0.5);
  EXPECT_EQ(h["plane"]["index"], 4);
}

TEST(Plot, DiagnosticsSeriesOnePanelEach) {
  SKIP_WITHOUT_PLOTTING_PYTHON();
  const SmallRun& run = small_run();
  ASSERT_EQ(run.code, 0) << run.err;
  ScratchDir dir("plot_series");
  const std::string png = dir.file("series.png");
  const json r = plot_json(dir, {run.file, "--series", "--output", png});
  EXPECT_EQ(r["panels"], json::parse(R"([["kinetic_energy"], ["nusselt_bottom", "nusselt_top", "nusselt_volume",
                                         "nusselt_kinetic_dissipation", "nusselt_thermal_dissipation"]])"));
  EXPECT_EQ(r["records"], 4);  // t = 0 and steps 10, 20, 30
  for (const auto& v : r["variables"]) {
    EXPECT_EQ(v["count"], 4) << v;
    EXPECT_LT(v["min"].get<double>(), v["max"].get<double>()) << v;
  }
  expect_a_picture(dir, png, Picture::Lines);
  const std::string chosen = dir.file("chosen.png");
  const json c = plot_json(dir, {run.file, "--series", "--diagnostics", "max_velocity,dt", "--output", chosen});
  EXPECT_EQ(c["panels"], json::parse(R"([["max_velocity"], ["dt"]])"));
  expect_a_picture(dir, chosen, Picture::Lines);
}

// Between conducting side walls the dissipation estimates hold no value (NaN): the default
// Nusselt panel leaves them out (the cube, 10 steps).
TEST(Plot, TheDefaultNusseltPanelLeavesOutEstimatesWithoutValues) {
  SKIP_WITHOUT_PLOTTING_PYTHON();
  ScratchDir dir("plot_cube");
  const std::string file = dir.file("cube.nc");
  const auto run = run_bouss(dir, {"run", source_path("cases/nusselt_cube.json"), "--set", "time.steps=10", "--set",
                                   R"(output=[{"file": ")" + file + R"(", "interval_steps": 10}])", "--backend", "cpu",
                                   "--progress", "0"});
  ASSERT_EQ(run.code, 0) << run.err;
  const json r = plot_json(dir, {file, "--series", "--output", dir.file("series.png")});
  EXPECT_EQ(r["panels"], json::parse(R"([["kinetic_energy"], ["nusselt_bottom", "nusselt_top", "nusselt_volume"]])"));
}

TEST(Plot, ProfilesAgainstTheirZ) {
  SKIP_WITHOUT_PLOTTING_PYTHON();
  const SmallRun& run = small_run();
  ASSERT_EQ(run.code, 0) << run.err;
  ScratchDir dir("plot_profiles");
  const std::string& file = run.profiles;
  const std::vector<double> times = read_variables(file).at("profile_time");
  ASSERT_EQ(times.size(), 4u);  // steps 0, 10, 20, 30
  const std::string png = dir.file("profiles.png");
  const json r = plot_json(dir, {file, "--profiles", "--time", std::to_string(times[1] * 1.01), "--output", png});
  EXPECT_EQ(r["record"], 1);
  EXPECT_DOUBLE_EQ(r["time"].get<double>(), times[1]);
  EXPECT_EQ(r["panels"], json::parse(R"([["T_mean"], ["T_rms"], ["u_rms", "v_rms", "w_rms"], ["wT_mean"]])"));
  for (const auto& v : r["variables"]) {
    const bool on_faces = v["name"] == "w_rms" || v["name"] == "wT_mean";
    EXPECT_EQ(v["zdim"], on_faces ? "zf" : "z") << v;
    EXPECT_EQ(v["count"], on_faces ? 9 : 8) << v;
  }
  expect_a_picture(dir, png, Picture::Lines);
  expect_legends_hide_nothing(r["legends"]);
  EXPECT_EQ(r["legends"].size(), 1u);  // the velocities' panel
  // The default is the last record.
  EXPECT_EQ(plot_json(dir, {file, "--profiles", "--output", png})["record"], 3);
}

// An averaged stream's record is drawn as the mean it is: the JSON gives its interval
// (time_bounds) for slices, covariances and profiles alike; a snapshot's is null.
TEST(Plot, AnAveragedRecordIsDrawnWithItsInterval) {
  SKIP_WITHOUT_PLOTTING_PYTHON();
  const SmallRun& run = small_run();
  ASSERT_EQ(run.code, 0) << run.err;
  ScratchDir dir("plot_means");
  const auto v = read_variables(run.means);
  ASSERT_EQ(v.at("time").size(), 2u);  // steps 15 and 30
  const std::vector<double> bounds = v.at("time_bnds");
  for (const char* field : {"T", "w_c_T_covariance"}) {
    const json r = plot_json(dir, {run.means, "--field", field, "--output", dir.file(std::string(field) + ".png")});
    EXPECT_EQ(r["record"], 1) << field;
    EXPECT_EQ(r["time_bounds"], json::array({bounds[2], bounds[3]})) << field;
    EXPECT_EQ(r["time"].get<double>(), bounds[3]);
  }
  char first[32];
  std::snprintf(first, sizeof first, "%.17g", bounds[1]);
  const json p = plot_json(dir, {run.means, "--profiles", "--time", first, "--output", dir.file("p.png")});
  EXPECT_EQ(p["time_bounds"], json::array({bounds[0], bounds[1]}));
  EXPECT_EQ(bounds[0], 0.0);
  EXPECT_TRUE(plot_json(dir, {run.file, "--output", dir.file("s.png")})["time_bounds"].is_null());
}

TEST(Plot, FramesOnePicturePerRecordForFfmpeg) {
  SKIP_WITHOUT_PLOTTING_PYTHON();
  const SmallRun& run = small_run();
  ASSERT_EQ(run.code, 0) << run.err;
  ScratchDir dir("plot_frames");
  const std::string frames = dir.file("frames");
  const json r = plot_json(dir, {run.file, "--frames", frames, "--field", "T", "--plane", "y=1"});
  EXPECT_EQ(r["count"], 5);
  EXPECT_EQ(r["pattern"], frames + "/T_%05d.png");
  PngHeader first;
  for (int i = 0; i < 5; ++i) {
    char name[32];
    std::snprintf(name, sizeof name, "T_%05d.png", i);
    const std::string png = frames + "/" + name;
    expect_a_picture(dir, png, Picture::Map);
    const PngHeader h = read_png_header(png);
    if (i == 0) first = h;
    // One size for all (an animation needs it), even in both directions (libx264 needs it).
    EXPECT_EQ(h.width, first.width);
    EXPECT_EQ(h.height, first.height);
    EXPECT_EQ(h.width % 2, 0u);
    EXPECT_EQ(h.height % 2, 0u);
  }
  EXPECT_FALSE(fs::exists(frames + "/T_00005.png"));
}

TEST(Plot, APlaneFileIsDrawnAtItsOnePlane) {
  SKIP_WITHOUT_PLOTTING_PYTHON();
  const SmallRun& run = small_run();
  ASSERT_EQ(run.code, 0) << run.err;
  ScratchDir dir("plot_plane");
  // The run's plane stream: the y = 0.9375 layer of cells, with u_c beside the fields.
  const std::string& plane = run.plane;
  for (const std::string field : {"T", "u_c", "w"}) {
    const std::string png = dir.file(field + ".png");
    const json r = plot_json(dir, {plane, "--field", field, "--output", png});
    EXPECT_EQ(r["plane"]["axis"], "y") << field;
    EXPECT_DOUBLE_EQ(r["plane"]["value"].get<double>(), 0.9375) << field;
    EXPECT_EQ(r["axes"], json::array({"x", field == "w" ? "zf" : "z"})) << field;
    expect_a_picture(dir, png, Picture::Map);
  }
  // ParaView's description beside it names datasets of the file with their shapes (a layer of
  // cells; u_c the file's own); a file of profiles alone has none.
  ASSERT_TRUE(fs::exists(plane + ".xdmf2"));
  EXPECT_FALSE(fs::exists(run.profiles + ".xdmf2"));
  const auto no_grid = run_bouss(dir, {"xdmf", run.profiles});
  EXPECT_EQ(no_grid.code, 2);
  EXPECT_NE(no_grid.err.find("profiles alone"), std::string::npos) << no_grid.err;
  const auto checked = python(dir, "check_xdmf", "import runpy, sys\nsys.argv = sys.argv[1:]\nrunpy.run_path(sys.argv[0], run_name='__main__')\n",
                              {source_path("tests/check_xdmf.py"), plane + ".xdmf2"});
  EXPECT_EQ(checked.code, 0) << checked.out << checked.err;
  const auto other = run_bouss(dir, {"plot", plane, "--plane", "z=0.5", "--output", dir.file("no.png")});
  EXPECT_EQ(other.code, 2);
  EXPECT_NE(other.err.find("holds one plane"), std::string::npos) << other.err;
  EXPECT_FALSE(fs::exists(dir.file("no.png")));
}

TEST(OutputFile, StaggeredFieldsHaveCfCoordinates) {
  SKIP_WITHOUT_PLOTTING_PYTHON();
  const SmallRun& run = small_run();
  ASSERT_EQ(run.code, 0) << run.err;
  ScratchDir dir("plot_cf");
  // For each field, each dimension but time: a coordinate variable of that name, with units (and
  // axis Z along z); a face coordinate has c_grid_axis_shift = -0.5 and one more point than its
  // centres, from the domain's low end to its high end, the centres midway between.
  const auto r = python(dir, "cf", R"py(import json, sys
import xarray as xr
ds = xr.open_dataset(sys.argv[1], decode_times=False)
out = {}
for name in ["T", "u", "v", "w", "p"]:
    dims = {}
    for d in ds[name].dims[1:]:
        c = ds[d]
        entry = {"coordinate": d in ds.coords, "units": c.attrs.get("units"), "axis": c.attrs.get("axis"),
                 "shift": float(c.attrs["c_grid_axis_shift"]) if "c_grid_axis_shift" in c.attrs else None,
                 "size": int(c.size), "first": float(c[0]), "last": float(c[-1])}
        if d.endswith("f"):
            centres = ds[d[0]].values
            entry["centres_midway"] = bool(abs(0.5 * (c.values[:-1] + c.values[1:]) - centres).max() < 1e-12)
        dims[d] = entry
    out[name] = {"dims": list(ds[name].dims), "grid_location": ds[name].attrs.get("grid_location"), "coords": dims}
from xarray.plot.utils import label_from_attrs
out["labels"] = {n: label_from_attrs(ds[n]).replace("\n", " ") for n in ["T", "x", "zf", "time", "diagnostic_time", "nusselt_bottom"]}
print(json.dumps(out))
)py",
                        {run.file});
  ASSERT_EQ(r.code, 0) << r.err;
  const json f = json::parse(r.out);
  // xarray's axis labels: the long names alone, no "[1]" for the dimensionless quantities.
  const std::map<std::string, std::string> labels{{"T", "temperature"},
                                                  {"x", "x (cell centre)"},
                                                  {"zf", "z (cell face)"},
                                                  {"time", "time"},
                                                  {"diagnostic_time", "time"},
                                                  {"nusselt_bottom", "Nusselt number through the bottom plate"}};
  for (const auto& [name, label] : labels) EXPECT_EQ(f["labels"][name], label) << name;
  const std::map<std::string, std::vector<std::string>> dims{{"T", {"time", "z", "y", "x"}},
                                                             {"u", {"time", "z", "y", "xf"}},
                                                             {"v", {"time", "z", "yf", "x"}},
                                                             {"w", {"time", "zf", "y", "x"}},
                                                             {"p", {"time", "z", "y", "x"}}};
  const std::map<std::string, std::string> location{
      {"T", "cell centre"}, {"u", "x face"}, {"v", "y face"}, {"w", "z face"}, {"p", "cell centre"}};
  const std::map<char, double> high{{'x', 2.0}, {'y', 2.0}, {'z', 1.0}};
  const std::map<char, int> cells{{'x', 16}, {'y', 16}, {'z', 8}};
  for (const auto& [name, expected] : dims) {
    SCOPED_TRACE(name);
    EXPECT_EQ(f[name]["dims"].get<std::vector<std::string>>(), expected);
    EXPECT_EQ(f[name]["grid_location"], location.at(name));
    for (const auto& [d, c] : f[name]["coords"].items()) {
      SCOPED_TRACE(d);
      const char axis = d[0];
      EXPECT_TRUE(c["coordinate"].get<bool>());
      EXPECT_TRUE(c["units"].is_null()) << c;  // free-fall units: dimensionless, no "[1]" in xarray's labels
      // z carries axis Z; x and y carry none (ParaView's NetCDF reader takes axis X/Y for
      // longitude/latitude: docs/output.md), their names say which axis they are.
      if (axis == 'z') EXPECT_EQ(c["axis"], "Z");
      else EXPECT_TRUE(c["axis"].is_null()) << c;
      if (d.size() == 2 && d[1] == 'f') {
        EXPECT_EQ(c["shift"], -0.5);
        EXPECT_EQ(c["size"], cells.at(axis) + 1);
        EXPECT_DOUBLE_EQ(c["first"].get<double>(), 0.0);
        EXPECT_DOUBLE_EQ(c["last"].get<double>(), high.at(axis));
        EXPECT_TRUE(c["centres_midway"].get<bool>());
      } else {
        EXPECT_TRUE(c["shift"].is_null());
        EXPECT_EQ(c["size"], cells.at(axis));
      }
    }
  }
  // The other kinds of file the run wrote, the plane of cells and the profiles: every dimension
  // of every field and profile is a coordinate xarray finds, with units; a plane file's
  // coordinates are those of its one layer (y = 0.9375, between its faces 0.875 and 1).
  const auto other = python(dir, "cf_streams", R"py(import json, sys
import xarray as xr
out = {}
for path in sys.argv[1:]:
    ds = xr.open_dataset(path, decode_times=False)
    for name, var in ds.data_vars.items():
        if var.dims[0] not in ("time", "profile_time") or len(var.dims) < 2:
            continue
        out[name] = {d: {"coordinate": d in ds.coords, "units": ds[d].attrs.get("units"),
                         "values": [float(x) for x in ds[d].values[:3]]} for d in var.dims}
print(json.dumps(out))
)py",
                            {run.plane, run.profiles});
  ASSERT_EQ(other.code, 0) << other.err;
  const json o = json::parse(other.out);
  for (const char* name : {"T", "u", "w", "u_c", "T_mean", "T_rms", "u_rms", "v_rms", "w_rms", "wT_mean"}) {
    SCOPED_TRACE(name);
    ASSERT_TRUE(o.contains(name));
    for (const auto& [d, c] : o[name].items()) {
      EXPECT_TRUE(c["coordinate"].get<bool>()) << d;
      EXPECT_TRUE(c["units"].is_null()) << d;
    }
  }
  EXPECT_EQ(o["T"]["y"]["values"], json::array({0.9375}));
  EXPECT_FALSE(o["u"].contains("yf")) << "u lies on y centres";
  EXPECT_EQ(o["u"]["y"]["values"], json::array({0.9375}));
  EXPECT_EQ(o["w"]["zf"]["values"].size(), 3u);
  EXPECT_EQ(o["wT_mean"]["zf"]["values"][0], 0.0);
  // The plotting script finds the same: each field's dimensions, axes and face locations.
  const json list = plot_json(dir, {run.file, "--list"});
  EXPECT_EQ(list["fields"]["w"]["dims"][0]["dim"], "zf");
  EXPECT_EQ(list["fields"]["w"]["dims"][0]["face"], true);
  EXPECT_EQ(list["fields"]["u"]["dims"][2]["c_grid_axis_shift"], -0.5);
  EXPECT_EQ(list["fields"]["T"]["dims"][0]["face"], false);
}


// T's colours are centred on the reference temperature (the plates' mean) over the range the
// plates bound T to, whatever the data's range; a velocity's on zero; flags win.
TEST(Plot, TemperatureColoursAreSymmetricAboutTheReference) {
  SKIP_WITHOUT_PLOTTING_PYTHON();
  const SmallRun& run = small_run();
  ASSERT_EQ(run.code, 0) << run.err;
  ScratchDir dir("plot_centre");
  const json rb = plot_json(dir, {run.file, "--output", dir.file("rb.png")});
  EXPECT_EQ(rb["centre"], 0.5);  // plates at 1 and 0
  EXPECT_EQ(rb["vmin"], 0.0);
  EXPECT_EQ(rb["vmax"], 1.0);
  EXPECT_GT(rb["min"].get<double>(), 0.0) << "the data's range lies inside: the limits are the plates', not the data's";
  const json lock = plot_json(dir, {lock_exchange_2d_run(), "--output", dir.file("lock.png")});
  EXPECT_EQ(lock["centre"], 0.0);  // the fluids at -0.5 and 0.5
  EXPECT_EQ(lock["vmin"], -0.5);
  EXPECT_EQ(lock["vmax"], 0.5);
  const json w = plot_json(dir, {run.file, "--field", "w", "--output", dir.file("w.png")});
  EXPECT_TRUE(w["centre"].is_null());
  EXPECT_EQ(w["vmin"].get<double>(), -w["vmax"].get<double>());
  const json given = plot_json(dir, {run.file, "--vmin", "0.2", "--vmax", "0.7", "--output", dir.file("g.png")});
  EXPECT_EQ(given["vmin"], 0.2);
  EXPECT_EQ(given["vmax"], 0.7);
}

// Units on the axes (the file's units_scale, or SI units in a dimensional file); a 2D run's
// title has no plane and says case, field, time; the colour bar is as tall as the plot; a
// channel flatter than 1:8 is drawn at 1:8 and says so.
TEST(Plot, SliceLabelsCarryUnitsAndTitlesAreShort) {
  SKIP_WITHOUT_PLOTTING_PYTHON();
  const SmallRun& run = small_run();
  ASSERT_EQ(run.code, 0) << run.err;
  ScratchDir dir("plot_labels");
  const json lock = plot_json(dir, {lock_exchange_2d_run(), "--output", dir.file("lock.png")});
  EXPECT_EQ(lock["plane"]["in_title"], false);
  EXPECT_EQ(lock["title"].get<std::string>().rfind("lock_exchange_2d: T, t = ", 0), 0u) << lock["title"];
  EXPECT_EQ(lock["title"].get<std::string>().find("y ="), std::string::npos) << lock["title"];
  EXPECT_NE(lock["title"].get<std::string>().find("$h/u_b$"), std::string::npos) << lock["title"];
  EXPECT_EQ(lock["xlabel"], "x / $h$");
  EXPECT_EQ(lock["colorbar_label"], "T / $\\Delta T$");
  EXPECT_EQ(lock["vertical_exaggeration"], 2.0);  // 32 x 2: 1:16 drawn at 1:8
  EXPECT_EQ(lock["ylabel"], "z / $h$ (vertical scale x2)");
  const json rb = plot_json(dir, {run.file, "--output", dir.file("rb.png")});
  EXPECT_EQ(rb["title"].get<std::string>().rfind("rayleigh_benard: T at y = ", 0), 0u) << rb["title"];
  EXPECT_EQ(rb["ylabel"], "z / $H$");
  EXPECT_EQ(rb["vertical_exaggeration"], 1.0);
  for (const json& r : {lock, rb}) {
    // The colour bar spans the plot's height exactly; the title fits on the picture, one line.
    EXPECT_NEAR(r["colorbar_box"][1].get<double>(), r["axes_box"][1].get<double>(), 0.5) << r;
    EXPECT_NEAR(r["colorbar_box"][3].get<double>(), r["axes_box"][3].get<double>(), 0.5) << r;
    EXPECT_EQ(r["title"].get<std::string>().find('\n'), std::string::npos);
    EXPECT_LE(r["title_box"][2].get<double>(), r["figure_size"][0].get<double>());
    EXPECT_LE(r["title_box"][3].get<double>(), r["figure_size"][1].get<double>());
    // Fit for a slide at the default 150 dpi: over 1000 pixels wide.
    EXPECT_GE(r["figure_size"][0].get<int>(), 1000) << r;
  }
  // The plot to scale: x from 0 to 2 over as many pixels as z from 0 to 1 over twice.
  const double w = rb["axes_box"][2].get<double>() - rb["axes_box"][0].get<double>();
  const double h = rb["axes_box"][3].get<double>() - rb["axes_box"][1].get<double>();
  EXPECT_NEAR(w / h, 2.0, 0.01);
  // A dimensional file's SI units (the 3D lock exchange, in metres and seconds).
  const std::string dimensional = small_case_run("lock_exchange", {"grid.n=[16,8,8]", "time.steps=10"});
  const json d = plot_json(dir, {dimensional, "--output", dir.file("d.png")});
  EXPECT_EQ(d["xlabel"], "x [m]");
  EXPECT_EQ(d["colorbar_label"], "T [K]");
}

// A stretched axis is drawn to scale: the cells' edges are the file's faces.
TEST(Plot, AStretchedAxisIsDrawnToScale) {
  SKIP_WITHOUT_PLOTTING_PYTHON();
  ScratchDir dir("plot_stretched");
  const std::string file = small_case_run(
      "rayleigh_benard_ra1e8",
      {"grid.n=[8,8,32]", R"(grid.x={"stretching": "tanh", "parameter": 1})", "time.steps=2"});
  const json r = plot_json(dir, {file, "--output", dir.file("s.png")});
  const std::vector<double> zf = read_variables(file).at("zf"), xf = read_variables(file).at("xf");
  ASSERT_EQ(r["edges"]["vertical"].size(), zf.size());
  for (std::size_t k = 0; k < zf.size(); ++k) EXPECT_DOUBLE_EQ(r["edges"]["vertical"][k].get<double>(), zf[k]) << k;
  EXPECT_LT(zf[1] - zf[0], 0.5 * (zf[17] - zf[16])) << "the case's tanh grid is finer at the plates";
  ASSERT_EQ(r["edges"]["horizontal"].size(), xf.size());
  for (std::size_t i = 0; i < xf.size(); ++i) EXPECT_DOUBLE_EQ(r["edges"]["horizontal"][i].get<double>(), xf[i]) << i;
  EXPECT_LT(xf[1] - xf[0], 0.8 * (xf[5] - xf[4])) << "x (periodic) is finer towards its ends";
}

// The default series suit the case: the lock exchange's fronts and energy budget, convection's
// Nusselt estimates, each panel labelled with its units, legends beside the panels.
TEST(Plot, SeriesDefaultsSuitTheCase) {
  SKIP_WITHOUT_PLOTTING_PYTHON();
  const SmallRun& run = small_run();
  ASSERT_EQ(run.code, 0) << run.err;
  ScratchDir dir("plot_series_defaults");
  const json lock = plot_json(dir, {lock_exchange_2d_run(), "--series", "--output", dir.file("lock.png")});
  EXPECT_EQ(lock["panels"], json::parse(R"([["kinetic_energy"], ["front_floor_travelled", "front_lid_travelled"],
      ["kinetic_energy_total", "potential_energy", "dissipation", "conversion"]])"));
  EXPECT_EQ(lock["panel_names"], json::parse(R"(["kinetic energy", "front distance from the lock", "energy budget"])"));
  EXPECT_EQ(lock["ylabels"], json::parse(R"j(["kinetic energy / $u_b^{2}$", "front distance from the lock / $h$",
      "energy budget / ($h^{3}\\,u_b^{2}$)"])j"));
  EXPECT_EQ(lock["xlabel"], "t / ($h/u_b$)");
  expect_legends_hide_nothing(lock["legends"]);
  EXPECT_EQ(lock["legends"].size(), 2u);
  expect_a_picture(dir, dir.file("lock.png"), Picture::Lines);
  const json rb = plot_json(dir, {run.file, "--series", "--output", dir.file("rb.png")});
  EXPECT_EQ(rb["panel_names"], json::parse(R"(["kinetic energy", "Nusselt number"])"));
  EXPECT_EQ(rb["ylabels"][1], "Nusselt number");
  EXPECT_EQ(rb["xlabel"], "t / ($H/U$)");
  expect_legends_hide_nothing(rb["legends"]);
}

// One frame per record, in time order, stamped with its time; one colour range over all
// records (the largest |w| of the plane over the run); the movie itself has that many frames.
TEST(Plot, AMovieHasAFrameARecordInTimeOrderWithOneColourRange) {
  SKIP_WITHOUT_PLOTTING_PYTHON();
  if (std::system("ffmpeg -version >/dev/null 2>&1 && ffprobe -version >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "no ffmpeg/ffprobe (tools/setup.sh installs ffmpeg)";
  const SmallRun& run = small_run();
  ASSERT_EQ(run.code, 0) << run.err;
  ScratchDir dir("plot_movie");
  const std::string movie = dir.file("w.mp4");
  const json r = plot_json(dir, {run.plane, "--movie", movie, "--field", "w", "--fps", "5"});
  const auto v = read_variables(run.plane);
  const std::vector<double>& times = v.at("time");
  ASSERT_EQ(r["count"], times.size());
  ASSERT_EQ(r["stamps"].size(), times.size());
  for (std::size_t i = 0; i < times.size(); ++i) {
    EXPECT_EQ(r["times"][i].get<double>(), times[i]);
    if (i > 0) EXPECT_GT(times[i], times[i - 1]);
    // The stamp says the record's time, with one count of decimals for all.
    const std::string stamp = r["stamps"][i];
    const std::size_t at = stamp.find("t = ");
    ASSERT_NE(at, std::string::npos) << stamp;
    const std::string number = stamp.substr(at + 4, stamp.find(' ', at + 4) - at - 4);
    const std::size_t point = number.find('.');
    const int decimals = point == std::string::npos ? 0 : int(number.size() - point - 1);
    EXPECT_GE(decimals, 1) << stamp << ": the times are 2.48, 4.85, ...";
    EXPECT_LE(std::fabs(std::stod(number) - times[i]), 0.5 * std::pow(10.0, -decimals) + 1e-12) << stamp;
  }
  double largest = 0;
  for (double w : v.at("w")) largest = std::max(largest, std::fabs(w));
  EXPECT_DOUBLE_EQ(r["vmax"].get<double>(), largest);
  EXPECT_DOUBLE_EQ(r["vmin"].get<double>(), -largest);
  EXPECT_EQ(r["movie"], movie);
  const std::string probe = dir.file("probe.txt");
  ASSERT_EQ(std::system(("ffprobe -v error -count_frames -select_streams v:0 -show_entries "
                         "stream=nb_read_frames,r_frame_rate,width,height -of default=nw=1 '" + movie + "' >" + probe)
                            .c_str()),
            0);
  const std::string p = slurp(probe);
  EXPECT_NE(p.find("nb_read_frames=" + std::to_string(times.size()) + "\n"), std::string::npos) << p;
  EXPECT_NE(p.find("r_frame_rate=5/1"), std::string::npos) << p;
  EXPECT_NE(p.find("width=" + std::to_string(r["frame_size"][0].get<int>())), std::string::npos) << p;
  // Nothing but the movie left in the folder: no partial file.
  int entries = 0;
  for (const auto& e : fs::directory_iterator(dir.path())) entries += e.path().extension() == ".mp4";
  EXPECT_EQ(entries, 1);
}

// Without ffmpeg: the frames beside the movie's name, one line saying so, exit 0, no movie.
TEST(Plot, AMovieWithoutFfmpegLeavesItsFramesAndOneLine) {
  SKIP_WITHOUT_PLOTTING_PYTHON();
  const SmallRun& run = small_run();
  ASSERT_EQ(run.code, 0) << run.err;
  ScratchDir dir("plot_movie_frames");
  ::setenv("BOUSS_FFMPEG", "", 1);  // the forked bouss inherits it: no ffmpeg
  const auto r = run_bouss(dir, {"plot", run.file, "--movie", dir.file("T.mp4")});
  ::unsetenv("BOUSS_FFMPEG");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(count_lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("ffmpeg not found"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(dir.file("T_frames")), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir.file("T.mp4")));
  for (int i = 0; i < 5; ++i) {
    char name[32];
    std::snprintf(name, sizeof name, "/T_%05d.png", i);
    expect_a_picture(dir, dir.file("T_frames") + name, Picture::Map);
  }
  EXPECT_FALSE(fs::exists(dir.file("T_frames") + "/T_00005.png"));
}

TEST(Plot, BadInputIsOneLineAndExitTwo) {
  SKIP_WITHOUT_PLOTTING_PYTHON();
  const SmallRun& run = small_run();
  ASSERT_EQ(run.code, 0) << run.err;
  ScratchDir dir("plot_bad");
  const std::string png = dir.file("bad.png");
  struct Case {
    std::vector<std::string> args;
    std::string says;
  };
  const std::vector<Case> cases{
      {{dir.file("missing.nc")}, "missing.nc: no such file"},
      {{run.file, "--field", "q"}, "has no field 'q'; it has T, u, v, w, p"},
      {{run.file, "--plane", "z=1.5"}, "--plane z=1.5: outside the domain (z from 0 to 1)"},
      {{run.file, "--plane", "x=-0.1"}, "outside the domain (x from 0 to 2)"},
      {{run.file, "--plane", "height=0.5"}, "--plane expects AXIS=VALUE"},
      {{run.file, "--time", "100"}, "--time 100: outside the snapshot records"},
      {{run.file, "--record", "5"}, "--record 5: the file holds 5 snapshot records"},
      {{run.file, "--series", "--diagnostics", "kinetic_energy,entropy"}, "has no diagnostic 'entropy'"},
      {{run.file, "--profiles"}, "has no profiles"},
      {{run.file, "--series", "--plane", "z=0.5"}, "--plane does not apply to --series"},
      {{run.file, "--no-such-flag"}, "unrecognized arguments: --no-such-flag"},
      {{source_path("cases/rayleigh_benard.json")}, "not a NetCDF file"},
  };
  for (const auto& c : cases) {
    std::vector<std::string> args{"plot"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    args.insert(args.end(), {"--output", png});
    const auto r = run_bouss(dir, args);
    SCOPED_TRACE(c.says);
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_EQ(count_lines(r.err), 1) << r.err;
    EXPECT_EQ(r.err.rfind("bouss: error: ", 0), 0u) << r.err;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
    EXPECT_FALSE(fs::exists(png));
  }
}

TEST(Plot, ABadMovieIsOneLineAndExitTwo) {
  SKIP_WITHOUT_PLOTTING_PYTHON();
  const SmallRun& run = small_run();
  ASSERT_EQ(run.code, 0) << run.err;
  ScratchDir dir("plot_bad_movie");
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases{
      {{"--movie", dir.file("T.gif")}, "expects a file name ending in .mp4"},
      {{"--movie", dir.file("no/such/T.mp4")}, "does not exist"},
      {{"--movie", dir.file("T.mp4"), "--fps", "0"}, "--fps expects 0.1 .. 120"},
      {{"--movie", dir.file("T.mp4"), "--time", "5"}, "--time does not apply to --movie"},
  };
  for (const auto& [args, says] : cases) {
    std::vector<std::string> all{"plot", run.file};
    all.insert(all.end(), args.begin(), args.end());
    const auto r = run_bouss(dir, all);
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_EQ(count_lines(r.err), 1) << r.err;
    EXPECT_NE(r.err.find(says), std::string::npos) << r.err;
  }
  EXPECT_FALSE(fs::exists(dir.file("T.mp4")));
  // An ffmpeg that fails (here: as on a full disk) is one line with its reason; no movie and
  // no partial file are left.
  const std::string fake = dir.file("ffmpeg");
  std::ofstream(fake) << "#!/bin/sh\ncat >/dev/null\necho 'No space left on device' >&2\nexit 1\n";
  fs::permissions(fake, fs::perms::owner_all);
  ::setenv("BOUSS_FFMPEG", fake.c_str(), 1);
  const auto r = run_bouss(dir, {"plot", run.file, "--movie", dir.file("T.mp4")});
  ::unsetenv("BOUSS_FFMPEG");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_EQ(count_lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("ffmpeg failed (No space left on device)"), std::string::npos) << r.err;
  for (const auto& e : fs::directory_iterator(dir.path()))
    EXPECT_EQ(e.path().string().find(".mp4"), std::string::npos) << e.path();
}

TEST(Plot, HelpIsTheScripts) {
  SKIP_WITHOUT_PLOTTING_PYTHON();
  const auto r = run_bouss(ScratchDir("plot_help"), {"plot", "--help"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("Usage: bouss plot [OPTIONS] file\n"), std::string::npos) << r.out;
  for (const char* flag : {"--series", "--profiles", "--movie", "--frames", "--plane", "--field", "--time", "--output"})
    EXPECT_NE(r.out.find(flag), std::string::npos) << flag;
}

// The README's python snippet runs as written against the default case's output (on a small
// grid: the files have the default case's names and variables) and writes its three pictures.
TEST(Plot, TheReadmeSnippetRunsAsWrittenAndSavesItsPictures) {
  SKIP_WITHOUT_PLOTTING_PYTHON();
  ScratchDir dir("readme_snippet");
  BoussProcess run({"run", source_path("cases/rayleigh_benard.json"), "--set", "grid.n=[16,16,8]", "--set",
                    "time.steps=30", "--backend", "cpu", "--progress", "0"},
                   dir.file("run.out"), dir.file("run.err"), {}, dir.path().string());
  const int status = run.wait();
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << run.err();
  const std::string readme = slurp(source_path("README.md"));
  const std::string open = "```python\n", close = "```";
  const std::size_t from = readme.find(open);
  ASSERT_NE(from, std::string::npos) << "README.md has a python snippet";
  const std::size_t to = readme.find(close, from + open.size());
  const std::string snippet = readme.substr(from + open.size(), to - from - open.size());
  std::ofstream(dir.file("snippet.py")) << snippet;
  const std::string cmd = "cd '" + dir.path().string() + "' && MPLBACKEND=Agg /usr/bin/python3 snippet.py >snippet.out 2>&1";
  EXPECT_EQ(std::system(cmd.c_str()), 0) << slurp(dir.file("snippet.out"));
  for (const char* png : {"T_slice.png", "nusselt.png", "T_mean.png"}) {
    const PngHeader h = read_png_header(dir.file(png));
    EXPECT_TRUE(h.valid) << png;
    EXPECT_GT(h.width, 100u) << png;
  }
}

