// NetCDF-4 / CF-1.8 output: write a small case, read it back with the NetCDF-C++ API.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include "io/netcdf_handles.hpp"
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <fcntl.h>
#include <netcdf.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <functional>

#include "model/diagnostics.hpp"
#include "io/build_info.hpp"
#include "io/netcdf_writer.hpp"
#include "scratch_dir.hpp"

namespace fs = std::filesystem;
using namespace bouss;

namespace {

using TempDir = bouss::test::ScratchDir;

Case small_case() {
  Case c;
  c.source = "cases/test_small.json";
  c.json_text = "{\n  \"name\": \"small\",\n  \"grid\": {\"n\": [4, 3, 2]},\n  \"note\": \"\\u00e9 \\\"quoted\\\"\"\n}\n";
  c.name = "small";
  c.description = "a 4x3x2 test box";
  c.n = {4, 3, 2};
  c.extent = {{{-1.0, 3.0}, {0.0, 1.5}, {0.25, 1.25}}};
  c.physics.units = Units::free_fall;
  c.physics.rayleigh = 1.0e6;
  c.physics.prandtl = 0.71;
  c.physics.nu = std::sqrt(0.71 / 1.0e6);
  c.physics.kappa = 1.0 / std::sqrt(0.71 * 1.0e6);
  c.physics.buoyancy = 1.0;
  c.physics.reference_temperature = 0.5;
  c.output.streams = {OutputStream{}};
  c.output.streams.at(0).file = "unused.nc";
  c.output.streams.at(0).fields = {"T", "u", "v", "w", "p"};
  c.output.streams.at(0).diagnostics = true;
  return c;
}

// Extents of a field: n plus one along its staggered axis.
std::array<size_t, 3> field_extent(const Case& c, const std::string& name) {
  std::array<size_t, 3> n{size_t(c.n[0]), size_t(c.n[1]), size_t(c.n[2])};
  if (name == "u") ++n[0];
  if (name == "v") ++n[1];
  if (name == "w") ++n[2];
  return n;
}

std::vector<double> field_values(const Case& c, const std::string& name, int record) {
  auto n = field_extent(c, name);
  std::vector<double> v(n[0] * n[1] * n[2]);
  const double salt = name[0] * 0.001;  // distinct per field
  for (size_t i = 0; i < v.size(); ++i) v[i] = std::sin(double(i) + salt) + record + salt;
  return v;
}

std::vector<SnapshotField> record_fields(const Case& c, int record) {
  std::vector<SnapshotField> out;
  for (const auto& f : c.output.streams.at(0).fields) out.push_back({f, field_values(c, f, record)});
  return out;
}

std::string text_att(const nc::Var& v, const std::string& name) {
  std::string s;
  v.getAtt(name).getValues(s);
  return s;
}

std::string text_att(const nc::Group& f, const std::string& name) {
  std::string s;
  f.getAtt(name).getValues(s);
  return s;
}

double double_att(const nc::Group& f, const std::string& name) {
  double d = 0;
  f.getAtt(name).getValues(&d);
  return d;
}

bool has_att(const nc::Var& v, const std::string& name) {
  return v.getAtts().count(name) > 0;
}

std::vector<double> read_all(const nc::Var& v) {
  size_t total = 1;
  for (const auto& d : v.getDims()) total *= d.getSize();
  std::vector<double> out(total);
  v.getVar(out.data());
  return out;
}

// The descriptions a run hands its writer: the flow's diagnostics (model/diagnostics.hpp).
std::vector<DiagnosticInfo> flow_info() {
  std::vector<DiagnosticInfo> info;
  for (const FlowDiagnostic& d : flow_diagnostics()) info.push_back(d.info);
  return info;
}

void write_two_records(const std::string& path, const Case& c, bool replaces = false) {
  NetcdfWriter w(path, c);
  w.describe_diagnostics(flow_info());
  w.write(0.0, record_fields(c, 0), {{"kinetic_energy", 0.125}, {"step", 0.0}});
  w.write(0.75, record_fields(c, 1),
          {{"kinetic_energy", 0.5}, {"step", 10.0}, {"max_divergence", 3.0e-12}});
  EXPECT_EQ(w.records(), 2);
  EXPECT_EQ(w.path(), path);
  EXPECT_EQ(w.partial_path(), path + "." + std::to_string(getpid()) + ".partial");
  EXPECT_TRUE(fs::exists(w.partial_path()));
  EXPECT_EQ(fs::exists(path), replaces);
  EXPECT_FALSE(w.closed());
  w.close();
  EXPECT_TRUE(w.closed());
  EXPECT_FALSE(fs::exists(w.partial_path()));
  EXPECT_TRUE(fs::exists(path));
}

}  // namespace

TEST(NetcdfOutput, RoundTripsFieldsCoordinatesAndAttributes) {
  TempDir dir;
  const Case c = small_case();
  const std::string path = dir.file("run.nc");
  write_two_records(path, c);

  nc::ReadFile f(path);
  int format = 0;
  ASSERT_EQ(nc_inq_format(f.getId(), &format), NC_NOERR);
  EXPECT_EQ(format, NC_FORMAT_NETCDF4);

  // Dimensions.
  EXPECT_TRUE(f.getDim("time").isUnlimited());
  EXPECT_EQ(f.getDim("time").getSize(), 2u);
  EXPECT_EQ(f.getDim("x").getSize(), 4u);
  EXPECT_EQ(f.getDim("y").getSize(), 3u);
  EXPECT_EQ(f.getDim("z").getSize(), 2u);
  EXPECT_EQ(f.getDim("xf").getSize(), 5u);
  EXPECT_EQ(f.getDim("yf").getSize(), 4u);
  EXPECT_EQ(f.getDim("zf").getSize(), 3u);
  EXPECT_EQ(f.getDim("nv").getSize(), 2u);

  // Global attributes.
  EXPECT_EQ(text_att(f, "Conventions"), "CF-1.8");
  EXPECT_EQ(text_att(f, "title"), "small");
  EXPECT_EQ(text_att(f, "case_file"), c.source);
  EXPECT_EQ(text_att(f, "case_json"), c.json_text);
  EXPECT_EQ(text_att(f, "units_system"), "free_fall");
  EXPECT_EQ(text_att(f, "source").rfind("bouss", 0), 0u);
  const std::string history = text_att(f, "history");
  ASSERT_GE(history.size(), 20u);
  EXPECT_EQ(history[4], '-');
  EXPECT_EQ(history[10], 'T');
  EXPECT_EQ(history[19], 'Z');
  EXPECT_EQ(double_att(f, "nu"), c.physics.nu);
  EXPECT_EQ(double_att(f, "kappa"), c.physics.kappa);
  EXPECT_EQ(double_att(f, "buoyancy"), 1.0);
  EXPECT_EQ(double_att(f, "reference_temperature"), 0.5);
  EXPECT_EQ(double_att(f, "reference_temperature_gradient"), 0.0);  // no fixed plates: constant
  EXPECT_EQ(double_att(f, "reference_height"), 0.75);                // the middle of z in [0.25, 1.25]
  EXPECT_EQ(double_att(f, "rayleigh"), 1.0e6);
  EXPECT_EQ(double_att(f, "prandtl"), 0.71);

  // Time.
  nc::Var t = f.getVar("time");
  EXPECT_EQ(read_all(t), (std::vector<double>{0.0, 0.75}));
  // Nondimensional: no units (CF: dimensionless; xarray labels by long_name alone, no "[1]"),
  // and units_note says in which scales.
  EXPECT_FALSE(has_att(t, "units"));
  EXPECT_EQ(text_att(t, "axis"), "T");
  EXPECT_FALSE(has_att(t, "calendar"));  // simulation time, plain units
  EXPECT_EQ(text_att(t, "long_name"), "time");
  EXPECT_FALSE(has_att(t, "standard_name"));
  EXPECT_NE(text_att(t, "units_note").find("free-fall"), std::string::npos);

  // Coordinates: centres lo + (i + 1/2) h, faces lo + i h.
  const char* axes[3] = {"x", "y", "z"};
  const char* letters[3] = {"X", "Y", "Z"};
  for (int a = 0; a < 3; ++a) {
    SCOPED_TRACE(axes[a]);
    const double lo = c.extent[a][0], hi = c.extent[a][1], h = (hi - lo) / c.n[a];
    nc::Var xc = f.getVar(axes[a]);
    nc::Var xf = f.getVar(std::string(axes[a]) + "f");
    auto centres = read_all(xc);
    auto faces = read_all(xf);
    ASSERT_EQ(centres.size(), size_t(c.n[a]));
    ASSERT_EQ(faces.size(), size_t(c.n[a] + 1));
    for (int i = 0; i < c.n[a]; ++i) EXPECT_DOUBLE_EQ(centres[i], lo + (i + 0.5) * h);
    for (int i = 0; i <= c.n[a]; ++i) EXPECT_DOUBLE_EQ(faces[i], lo + i * h);
    EXPECT_EQ(faces.front(), lo);
    EXPECT_EQ(faces.back(), hi);
    // x and y carry no axis attribute: ParaView's NetCDF reader takes axis = "X"/"Y" for
    // longitude and latitude and draws a spherical shell (docs/output.md); z keeps "Z".
    if (a == 2) {
      EXPECT_EQ(text_att(xc, "axis"), letters[a]);
      EXPECT_EQ(text_att(xf, "axis"), letters[a]);
    } else {
      EXPECT_FALSE(has_att(xc, "axis"));
      EXPECT_FALSE(has_att(xf, "axis"));
    }
    // CF cell bounds: AXIS_bnds(AXIS, nv) holds the two faces of each cell; faces have none.
    const std::string bounds = std::string(axes[a]) + "_bnds";
    EXPECT_EQ(text_att(xc, "bounds"), bounds);
    EXPECT_FALSE(has_att(xf, "bounds"));
    nc::Var b = f.getVar(bounds);
    ASSERT_FALSE(b.isNull());
    std::vector<std::string> bdims;
    for (const auto& d : b.getDims()) bdims.push_back(d.getName());
    EXPECT_EQ(bdims, (std::vector<std::string>{axes[a], "nv"}));
    auto cell_bounds = read_all(b);
    ASSERT_EQ(cell_bounds.size(), 2 * size_t(c.n[a]));
    for (int i = 0; i < c.n[a]; ++i) {
      EXPECT_EQ(cell_bounds[2 * i], faces[i]);
      EXPECT_EQ(cell_bounds[2 * i + 1], faces[i + 1]);
    }
    EXPECT_FALSE(has_att(xc, "units"));
    EXPECT_FALSE(has_att(xf, "units"));
    EXPECT_EQ(text_att(xc, "long_name"), std::string(axes[a]) + " (cell centre)");
    EXPECT_EQ(text_att(xf, "long_name"), std::string(axes[a]) + " (cell face)");
    EXPECT_FALSE(has_att(xc, "standard_name"));  // nondimensional: no CF standard name
    double shift = 0;
    xf.getAtt("c_grid_axis_shift").getValues(&shift);
    EXPECT_EQ(shift, -0.5);
    EXPECT_FALSE(has_att(xc, "c_grid_axis_shift"));
  }

  // Fields: dimensions, attributes, bitwise values of both records.
  const std::map<std::string, std::vector<std::string>> dims = {
      {"T", {"time", "z", "y", "x"}},  {"p", {"time", "z", "y", "x"}},
      {"u", {"time", "z", "y", "xf"}}, {"v", {"time", "z", "yf", "x"}},
      {"w", {"time", "zf", "y", "x"}}};
  for (const auto& name : c.output.streams.at(0).fields) {
    SCOPED_TRACE(name);
    nc::Var v = f.getVar(name);
    ASSERT_FALSE(v.isNull());
    EXPECT_EQ(v.getType(), NC_DOUBLE);
    std::vector<std::string> got;
    for (const auto& d : v.getDims()) got.push_back(d.getName());
    EXPECT_EQ(got, dims.at(name));
    EXPECT_FALSE(has_att(v, "units"));
    EXPECT_FALSE(text_att(v, "long_name").empty());
    EXPECT_NE(text_att(v, "units_note").find("free-fall units"), std::string::npos);

    bool chunked = false;
    const std::vector<size_t> chunks = v.getChunking(&chunked);
    EXPECT_TRUE(chunked);
    auto n = field_extent(c, name);
    EXPECT_EQ(chunks, (std::vector<size_t>{1, n[2], n[1], n[0]}));

    auto all = read_all(v);
    const size_t rec = n[0] * n[1] * n[2];
    ASSERT_EQ(all.size(), 2 * rec);
    for (int r = 0; r < 2; ++r) {
      auto expect = field_values(c, name, r);
      EXPECT_EQ(std::memcmp(all.data() + r * rec, expect.data(), rec * sizeof(double)), 0)
          << "record " << r;
    }
  }
  EXPECT_EQ(text_att(f.getVar("T"), "long_name"), "temperature");
  EXPECT_EQ(text_att(f.getVar("u"), "long_name"), "x velocity");

  // Scalar series: missing entries read as the fill value.
  EXPECT_EQ(read_all(f.getVar("kinetic_energy")), (std::vector<double>{0.125, 0.5}));
  EXPECT_EQ(read_all(f.getVar("step")), (std::vector<double>{0.0, 10.0}));
  auto div = read_all(f.getVar("max_divergence"));
  ASSERT_EQ(div.size(), 2u);
  EXPECT_EQ(div[0], NC_FILL_DOUBLE);
  EXPECT_EQ(div[1], 3.0e-12);
  EXPECT_EQ(text_att(f.getVar("kinetic_energy"), "long_name"),
            "volume-averaged kinetic energy per unit mass");
  EXPECT_FALSE(has_att(f.getVar("max_divergence"), "units"));
  std::vector<std::string> sdims;
  for (const auto& d : f.getVar("step").getDims()) sdims.push_back(d.getName());
  EXPECT_EQ(sdims, std::vector<std::string>{"time"});
}

// Stretched axes write their own faces, the centres midway between them and the CF bounds.
TEST(NetcdfOutput, StretchedAxesWriteTheirFacesCentresAndBounds) {
  TempDir dir;
  Case c = small_case();
  c.axis_faces = {std::vector<double>{-1.0, -0.5, 0.75, 2.0, 3.0}, std::vector<double>{0.0, 0.25, 1.0, 1.5},
                  std::vector<double>{0.25, 0.5, 1.25}};
  const std::string path = dir.file("stretched.nc");
  write_two_records(path, c);
  nc::ReadFile f(path);
  for (int a = 0; a < 3; ++a) {
    const std::string axis(1, "xyz"[a]);
    SCOPED_TRACE(axis);
    const std::vector<double> faces = read_all(f.getVar(axis + "f")), centres = read_all(f.getVar(axis)),
                              bounds = read_all(f.getVar(axis + "_bnds"));
    EXPECT_EQ(faces, c.axis_faces[a]);
    ASSERT_EQ(centres.size(), std::size_t(c.n[a]));
    for (int i = 0; i < c.n[a]; ++i) {
      EXPECT_EQ(centres[i], 0.5 * (faces[i] + faces[i + 1]));
      EXPECT_EQ(bounds[2 * i], faces[i]);
      EXPECT_EQ(bounds[2 * i + 1], faces[i + 1]);
    }
  }
}

TEST(NetcdfOutput, DimensionalUnitsAndFieldSubset) {
  TempDir dir;
  Case c = small_case();
  c.physics.units = Units::dimensional;
  c.physics.rayleigh.reset();
  c.physics.prandtl.reset();
  c.output.streams.at(0).fields = {"T", "w"};
  const std::string path = dir.file("dim.nc");
  {
    NetcdfWriter w(path, c);
    w.describe_diagnostics(flow_info());
    w.write(2.5, record_fields(c, 0), {{"my_diag_value", 7.0}, {"kinetic_energy", 0.25}});
    w.close();
  }
  nc::ReadFile f(path);
  EXPECT_EQ(text_att(f, "units_system"), "dimensional");
  EXPECT_TRUE(f.getAtts().count("rayleigh") == 0);
  EXPECT_TRUE(f.getAtts().count("prandtl") == 0);
  EXPECT_TRUE(f.getVar("u").isNull());
  EXPECT_TRUE(f.getVar("p").isNull());
  EXPECT_EQ(text_att(f.getVar("time"), "units"), "s");
  EXPECT_EQ(text_att(f.getVar("time"), "standard_name"), "time");
  EXPECT_EQ(text_att(f.getVar("x"), "units"), "m");
  EXPECT_EQ(text_att(f.getVar("zf"), "units"), "m");
  EXPECT_EQ(text_att(f.getVar("x"), "standard_name"), "projection_x_coordinate");
  EXPECT_EQ(text_att(f.getVar("T"), "units"), "K");
  EXPECT_EQ(text_att(f.getVar("w"), "units"), "m s-1");
  EXPECT_FALSE(has_att(f.getVar("my_diag_value"), "units"));  // dimensionless even in a dimensional run
  EXPECT_FALSE(has_att(f.getVar("T"), "units_note"));
  EXPECT_EQ(text_att(f.getVar("my_diag_value"), "long_name"), "my diag value");
  EXPECT_EQ(read_all(f.getVar("my_diag_value")), std::vector<double>{7.0});
  EXPECT_EQ(text_att(f.getVar("kinetic_energy"), "units"), "m2 s-2");
  EXPECT_EQ(read_all(f.getVar("w")), field_values(c, "w", 0));
}

// The lock exchange's Grashof form: its inputs beside the coefficients, nondimensional units.
TEST(NetcdfOutput, BuoyancyUnitsRecordTheGrashofForm) {
  TempDir dir;
  Case c = small_case();
  c.physics.units = Units::buoyancy;
  c.physics.rayleigh.reset();
  c.physics.prandtl.reset();
  c.physics.grashof = 1.25e6;
  c.physics.schmidt = 0.71;
  c.physics.reduced_gravity = 1.0;
  const std::string path = dir.file("lock.nc");
  {
    NetcdfWriter w(path, c);
    w.write(0.0, record_fields(c, 0), {});
    w.close();
  }
  nc::ReadFile f(path);
  EXPECT_EQ(text_att(f, "units_system"), "buoyancy");
  EXPECT_EQ(double_att(f, "grashof"), 1.25e6);
  EXPECT_EQ(double_att(f, "schmidt"), 0.71);
  EXPECT_EQ(double_att(f, "reduced_gravity"), 1.0);
  EXPECT_EQ(f.getAtts().count("reynolds"), 0u);
  EXPECT_EQ(f.getAtts().count("rayleigh"), 0u);
  EXPECT_EQ(f.getAtts().count("prandtl"), 0u);
  EXPECT_FALSE(has_att(f.getVar("T"), "units"));
  EXPECT_NE(text_att(f.getVar("T"), "units_note").find("u_b = sqrt(g' h)"), std::string::npos);
}

TEST(NetcdfOutput, RejectsBadRecords) {
  TempDir dir;
  const Case c = small_case();
  const std::string path = dir.file("bad.nc");
  NetcdfWriter w(path, c);
  auto fields = record_fields(c, 0);
  fields[1].values.pop_back();  // u: 5*3*2 - 1 values
  try {
    w.write(0.0, fields, {});
    FAIL() << "expected an exception";
  } catch (const std::runtime_error& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find(path), std::string::npos) << msg;
    EXPECT_NE(msg.find("'u'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("29"), std::string::npos) << msg;
    EXPECT_NE(msg.find("30"), std::string::npos) << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  }
  auto unknown = record_fields(c, 0);
  unknown.push_back({"q", {1.0}});
  EXPECT_THROW(w.write(0.0, unknown, {}), std::runtime_error);
  auto missing = record_fields(c, 0);
  missing.pop_back();
  EXPECT_THROW(w.write(0.0, missing, {}), std::runtime_error);
  EXPECT_THROW(w.write(0.0, record_fields(c, 0), {{"x", 1.0}}), std::runtime_error);
  EXPECT_EQ(w.records(), 0);
  w.write(0.0, record_fields(c, 0), {});
  EXPECT_EQ(w.records(), 1);
}

TEST(NetcdfOutput, WithoutCloseThePartialFileKeepsItsRecords) {
  TempDir dir;
  const Case c = small_case();
  const std::string path = dir.file("abandoned.nc");
  std::string partial;
  {
    NetcdfWriter w(path, c);
    partial = w.partial_path();
    w.write(0.0, record_fields(c, 0), {{"kinetic_energy", 1.0}});
    w.write(0.5, record_fields(c, 1), {{"kinetic_energy", 2.0}});
    w.write_series(0.25, {{"nusselt_top", 1.5}});
    EXPECT_TRUE(fs::exists(partial));
  }
  EXPECT_FALSE(fs::exists(path));
  ASSERT_TRUE(fs::exists(partial)) << "a failed run's partial file holds what was written";
  nc::ReadFile f(partial);
  EXPECT_EQ(f.getDim("time").getSize(), 2u);
  EXPECT_EQ(f.getDim("diagnostic_time").getSize(), 1u);
  EXPECT_EQ(read_all(f.getVar("kinetic_energy")), (std::vector<double>{1.0, 2.0}));
  EXPECT_EQ(read_all(f.getVar("T")).size(), 2 * 4 * 3 * 2u);
}

TEST(NetcdfOutput, ExistingFileSurvivesUntilClose) {
  TempDir dir;
  const Case c = small_case();
  const std::string path = dir.file("existing.nc");
  const std::string old_content = "previous run's output\n";
  { std::ofstream(path) << old_content; }
  auto read_text = [&] {
    std::ifstream in(path);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  std::string partial;
  {
    NetcdfWriter w(path, c);
    partial = w.partial_path();
    w.write(0.0, record_fields(c, 0), {});
    EXPECT_EQ(read_text(), old_content);
  }
  EXPECT_EQ(read_text(), old_content);
  EXPECT_TRUE(fs::exists(partial));
  fs::remove(partial);

  // close() replaces it.
  write_two_records(path, c, /*replaces=*/true);
  nc::ReadFile f(path);
  EXPECT_EQ(f.getDim("time").getSize(), 2u);
}

TEST(NetcdfOutput, ConstructorFailsWithOneLineNamingThePath) {
  TempDir dir;
  const std::string path = dir.file("no/such/folder/run.nc");
  try {
    NetcdfWriter w(path, small_case());
    FAIL() << "expected an exception";
  } catch (const std::runtime_error& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find(path), std::string::npos) << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  }
}

TEST(NetcdfOutput, CheckOutputWritableCreatesFolders) {
  TempDir dir;
  const std::string path = dir.file("a/b/c/run.nc");
  EXPECT_NO_THROW(check_output_writable(path));
  EXPECT_TRUE(fs::is_directory(dir.path() / "a" / "b" / "c"));
  EXPECT_TRUE(fs::is_empty(dir.path() / "a" / "b" / "c")) << "the probe file is removed again";
  EXPECT_NO_THROW(check_output_writable(""));
}

TEST(NetcdfOutput, CheckOutputWritableReportsUnwritablePath) {
  const std::string path = "/proc/bouss_test/x.nc";
  try {
    check_output_writable(path);
    FAIL() << "expected an exception";
  } catch (const std::runtime_error& e) {
    std::string msg = e.what();
    EXPECT_EQ(msg.rfind("output file " + path + " cannot be written: ", 0), 0u) << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  }
  TempDir dir;
  EXPECT_THROW(check_output_writable(dir.path().string()), std::runtime_error);  // a folder
}

// ---------------------------------------------------------------------------------------
// Surviving failures: partial files, flushes, full disks, concurrent writers, restarts.

namespace {

// The length of a dimension of a file, read with the C API; -1 when the file cannot be
// opened or has no such dimension.
long dim_length_of(const std::string& path, const char* dim) {
  int ncid = -1, id = -1;
  size_t len = 0;
  if (nc_open(path.c_str(), NC_NOWRITE, &ncid) != NC_NOERR) return -1;
  const bool ok = nc_inq_dimid(ncid, dim, &id) == NC_NOERR && nc_inq_dimlen(ncid, id, &len) == NC_NOERR;
  nc_close(ncid);
  return ok ? long(len) : -1;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::string describe(int wait_status) {
  if (WIFEXITED(wait_status)) return "exit " + std::to_string(WEXITSTATUS(wait_status));
  if (WIFSIGNALED(wait_status)) return "signal " + std::to_string(WTERMSIG(wait_status));
  return "status " + std::to_string(wait_status);
}

// Runs `body` in a forked child that ends with std::exit(its result), so that the exit
// handlers (HDF5's among them) run as they do when `bouss` ends; returns the wait status.
int in_child(const std::function<int()>& body) {
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid == 0) {
    int code = 90;
    try {
      code = body();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "child: unexpected exception: %s\n", e.what());
      code = 91;
    }
    std::exit(code);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return status;
}

// Every record of every field of a file equals what record_fields() wrote, bit for bit.
void expect_records(const std::string& path, const Case& c, int records) {
  nc::ReadFile f(path);
  ASSERT_EQ(f.getDim("time").getSize(), size_t(records)) << path;
  for (const auto& name : c.output.streams.at(0).fields) {
    const auto all = read_all(f.getVar(name));
    const auto n = field_extent(c, name);
    const size_t rec = n[0] * n[1] * n[2];
    ASSERT_EQ(all.size(), rec * records) << name;
    for (int r = 0; r < records; ++r) {
      const auto expect = field_values(c, name, r);
      EXPECT_EQ(std::memcmp(all.data() + r * rec, expect.data(), rec * sizeof(double)), 0) << name << " record " << r;
    }
  }
}

// Descriptors of this process open on `path` (Linux): where HDF5 reads and writes it.
std::vector<int> descriptors_of(const std::string& path) {
  struct stat want{};
  std::vector<int> fds;
  if (stat(path.c_str(), &want) != 0) return fds;
  for (const auto& e : fs::directory_iterator("/proc/self/fd")) {
    const int fd = std::atoi(e.path().filename().c_str());
    struct stat st{};
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_dev == want.st_dev && st.st_ino == want.st_ino)
      fds.push_back(fd);
  }
  return fds;
}

// A 1 MiB tmpfs on a folder, for as long as this object lives (root only).
class SmallTmpfs {
 public:
  explicit SmallTmpfs(const fs::path& dir) : dir_(dir) {
    fs::create_directories(dir_);
    mounted_ = mount("tmpfs", dir_.c_str(), "tmpfs", 0, "size=1m") == 0;
    if (!mounted_) reason_ = std::strerror(errno);
  }
  ~SmallTmpfs() {
    if (mounted_) umount2(dir_.c_str(), MNT_DETACH);
  }
  bool mounted() const { return mounted_; }
  const std::string& reason() const { return reason_; }

 private:
  fs::path dir_;
  bool mounted_ = false;
  std::string reason_;
};

}  // namespace

TEST(NetcdfOutput, PartialNameIsPerProcessAndFlushedRecordsSurviveAKill) {
  // Each order ends with the other kind of record, so both write() and write_series()
  // must flush what they wrote.
  for (const bool snapshots_last : {true, false}) {
    SCOPED_TRACE(snapshots_last ? "snapshots last" : "diagnostics records last");
    TempDir dir;
    const Case c = small_case();
    const std::string path = dir.file("killed.nc");
    const std::string name_file = dir.file("partial_name");
    std::fflush(nullptr);
    const pid_t pid = fork();
    if (pid == 0) {
      try {
        NetcdfWriter w(path, c);
        std::ofstream(name_file) << w.partial_path();
        auto snapshots = [&] {
          for (int r = 0; r < 3; ++r) w.write(0.5 * r, record_fields(c, r), {{"step", 10.0 * r}});
        };
        auto series = [&] {
          for (int s = 0; s < 5; ++s) w.write_series(0.1 * s, {{"kinetic_energy", 1.0 + s}});
        };
        if (snapshots_last) {
          series();
          snapshots();
        } else {
          snapshots();
          series();
        }
        raise(SIGKILL);  // while w is open: no close, no destructor, no exit handler
      } catch (...) {
        _exit(1);
      }
      _exit(2);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << describe(status);
    const std::string partial = slurp(name_file);
    EXPECT_EQ(partial, path + "." + std::to_string(pid) + ".partial");
    ASSERT_TRUE(fs::exists(partial));
    EXPECT_FALSE(fs::exists(path));
    expect_records(partial, c, 3);
    nc::ReadFile f(partial);
    EXPECT_EQ(read_all(f.getVar("step")), (std::vector<double>{0.0, 10.0, 20.0}));
    ASSERT_FALSE(f.getVar("kinetic_energy").isNull());
    EXPECT_EQ(read_all(f.getVar("kinetic_energy")), (std::vector<double>{1.0, 2.0, 3.0, 4.0, 5.0}));
  }
}

TEST(NetcdfOutput, TwoWritersOfOneFileInOneProcessDoNotDisturbEachOther) {
  TempDir dir;
  const Case c = small_case();
  const std::string path = dir.file("shared.nc");
  NetcdfWriter a(path, c);
  std::string b_partial;
  {
    NetcdfWriter b(path, c);
    b_partial = b.partial_path();
    EXPECT_NE(a.partial_path(), b_partial);
    a.write(0.0, record_fields(c, 0), {});
    b.write(0.0, record_fields(c, 0), {});
    b.write(1.0, record_fields(c, 1), {});
    b.write(2.0, record_fields(c, 2), {});
  }  // b fails (no close): its partial file stays, a goes on
  a.write(1.0, record_fields(c, 1), {});
  a.close();
  expect_records(path, c, 2);
  expect_records(b_partial, c, 3);
}

TEST(NetcdfOutput, TwoProcessesWritingOneFileDoNotDisturbEachOther) {
  TempDir dir;
  const Case c = small_case();
  const std::string path = dir.file("shared.nc");
  NetcdfWriter mine(path, c);
  mine.write(0.0, record_fields(c, 0), {});
  const int status = in_child([&] {
    NetcdfWriter theirs(path, c);
    if (theirs.partial_path() == mine.partial_path()) return 3;
    for (int r = 0; r < 3; ++r) theirs.write(r, record_fields(c, r), {});
    theirs.close();
    return 0;
  });
  ASSERT_EQ(describe(status), "exit 0");
  expect_records(path, c, 3);  // the other run finished first
  mine.write(1.0, record_fields(c, 1), {});
  expect_records(mine.partial_path(), c, 2);
  mine.close();  // the last close wins, atomically
  expect_records(path, c, 2);
}

TEST(NetcdfOutput, AWriterNeverTouchesPartialFilesItDidNotCreate) {
  TempDir dir;
  const Case c = small_case();
  const std::string path = dir.file("run.nc");
  // Another run's partial file, an old-style one, and one that a killed run with this
  // process's pid left (pids repeat, in containers especially).
  const std::vector<std::string> others = {path + ".999999.partial", path + ".partial",
                                           path + "." + std::to_string(getpid()) + ".partial"};
  for (const auto& o : others) std::ofstream(o) << "another run's data " << o;
  check_output_writable(path);
  {
    NetcdfWriter w(path, c);
    EXPECT_EQ(w.partial_path(), path + "." + std::to_string(getpid()) + ".2.partial");
    w.write(0.0, record_fields(c, 0), {});
    w.close();
  }
  {
    NetcdfWriter abandoned(path, c);
    abandoned.write(0.0, record_fields(c, 0), {});
    fs::remove(abandoned.partial_path());
  }
  for (const auto& o : others) EXPECT_EQ(slurp(o), "another run's data " + o);
  expect_records(path, c, 1);
}

TEST(NetcdfOutput, WriterRefusesAnOutputThatIsNotARegularFile) {
  TempDir dir;
  const Case c = small_case();
  const std::string fifo = dir.file("pipe.nc");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  for (const std::string& bad : {fifo, dir.path().string(), std::string("/dev/null")}) {
    try {
      NetcdfWriter w(bad, c);  // refused before opening: a fifo would block here
      ADD_FAILURE() << "expected an exception for " << bad;
    } catch (const std::runtime_error& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find(bad), std::string::npos) << msg;
      EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
    }
  }
  struct stat st{};
  ASSERT_EQ(stat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
  ASSERT_EQ(stat("/dev/null", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
  EXPECT_EQ(std::distance(fs::directory_iterator(dir.path()), fs::directory_iterator()), 1) << "nothing but the fifo";
}

TEST(NetcdfOutput, CloseNeverReplacesANonRegularFileAndKeepsTheData) {
  TempDir dir;
  const Case c = small_case();
  const std::string path = dir.file("became_a_pipe.nc");
  NetcdfWriter w(path, c);
  w.write(0.0, record_fields(c, 0), {});
  ASSERT_EQ(mkfifo(path.c_str(), 0600), 0);  // appears while the run is going
  try {
    w.close();
    FAIL() << "expected an exception";
  } catch (const std::runtime_error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find(path), std::string::npos) << msg;
    EXPECT_NE(msg.find("the complete output is in " + w.partial_path()), std::string::npos) << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  }
  struct stat st{};
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
  expect_records(w.partial_path(), c, 1);
}

TEST(NetcdfOutput, SymbolicLinkToARegularFileIsWrittenThrough) {
  TempDir dir;
  const Case c = small_case();
  fs::create_directories(dir.path() / "scratch");
  const std::string target = dir.file("scratch/run.nc");
  const std::string link = dir.file("run.nc");
  std::ofstream(target) << "the previous run";
  fs::create_symlink(target, link);
  check_output_writable(link);
  {
    NetcdfWriter w(link, c);
    // The partial file lies beside the target, so the rename stays in one file system.
    EXPECT_EQ(fs::path(w.partial_path()).parent_path(), fs::canonical(dir.path() / "scratch"));
    w.write(0.0, record_fields(c, 0), {});
    EXPECT_EQ(slurp(target), "the previous run");
    w.close();
  }
  EXPECT_TRUE(fs::is_symlink(link)) << "the link stays";
  EXPECT_EQ(fs::read_symlink(link), target);
  expect_records(target, c, 1);

  // Links to anything but a regular file are refused, by the check and by the writer.
  const std::string fifo = dir.file("scratch/pipe");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  fs::create_symlink(fifo, dir.path() / "to_pipe.nc");
  fs::create_symlink(dir.path() / "scratch", dir.path() / "to_folder.nc");
  fs::create_symlink(dir.path() / "scratch" / "missing.nc", dir.path() / "dangling.nc");
  for (const char* name : {"to_pipe.nc", "to_folder.nc", "dangling.nc"}) {
    const std::string p = dir.file(name);
    EXPECT_THROW(check_output_writable(p), std::runtime_error) << name;
    try {
      NetcdfWriter w(p, c);
      ADD_FAILURE() << "expected an exception for " << name;
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find("symbolic link"), std::string::npos) << e.what();
    }
    EXPECT_TRUE(fs::is_symlink(p));
  }
  EXPECT_FALSE(fs::exists(dir.path() / "scratch" / "missing.nc"));
}

TEST(NetcdfOutput, FullDiskEndsWithOneLineAndKeepsEarlierRecords) {
  TempDir dir;
  SmallTmpfs disk(dir.path() / "disk");
  if (!disk.mounted()) GTEST_SKIP() << "cannot mount a 1 MiB tmpfs here (" << disk.reason() << "); needs root";
  const Case c = small_case();
  const std::string path = dir.file("disk/run.nc");
  check_output_writable(path);
  std::string partial, message;
  long written = 0;
  {
    NetcdfWriter w(path, c);
    partial = w.partial_path();
    try {
      for (int r = 0; r < 100000; ++r) {
        w.write(r, record_fields(c, r), {{"step", double(r)}});
        w.write_series(r, {{"kinetic_energy", double(r)}});
      }
    } catch (const std::runtime_error& e) {
      message = e.what();
    }
    written = w.records();
  }
  ASSERT_FALSE(message.empty()) << "1 MiB filled without an error";
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  EXPECT_NE(message.find(path), std::string::npos) << message;
  EXPECT_NE(message.find(partial), std::string::npos) << message;
  EXPECT_NE(message.find("No space left on device"), std::string::npos) << message;
  EXPECT_GT(written, 10);
  expect_records(partial, c, int(written));
  EXPECT_FALSE(fs::exists(path));
}

TEST(NetcdfOutput, FileSizeLimitEndsWithOneLineNoCrashAndKeepsEarlierRecords) {
  // RLIMIT_FSIZE (ulimit -f) makes a write fail with EFBIG, as a full disk does with
  // ENOSPC, without root. SIGXFSZ is ignored, as `trap "" XFSZ` does in a shell.
  TempDir dir;
  const Case c = small_case();
  const std::string path = dir.file("limited.nc");
  const std::string report = dir.file("report");
  const int status = in_child([&] {
    std::signal(SIGXFSZ, SIG_IGN);
    struct rlimit r{};
    getrlimit(RLIMIT_FSIZE, &r);
    r.rlim_cur = 400 << 10;
    if (setrlimit(RLIMIT_FSIZE, &r) != 0) return 4;
    NetcdfWriter w(path, c);
    std::string message;
    try {
      for (int k = 0; k < 100000; ++k) {
        w.write(k, record_fields(c, k), {{"step", double(k)}});
        w.write_series(k, {{"kinetic_energy", double(k)}});
      }
    } catch (const std::runtime_error& e) {
      message = e.what();
    }
    std::ofstream(report) << w.records() << "\n" << w.partial_path() << "\n" << message;
    return 0;  // the writer closes its handle quietly, then the exit handlers run
  });
  ASSERT_EQ(describe(status), "exit 0") << "no crash at exit";
  std::istringstream in(slurp(report));
  long written = -1;
  std::string partial, message, extra;
  in >> written;
  in.ignore();
  std::getline(in, partial);
  std::getline(in, message);
  EXPECT_FALSE(std::getline(in, extra)) << "one line: " << message << "\n" << extra;
  EXPECT_NE(message.find(path), std::string::npos) << message;
  EXPECT_NE(message.find(partial), std::string::npos) << message;
  EXPECT_NE(message.find("File too large"), std::string::npos) << message;
  EXPECT_GT(written, 5);
  expect_records(partial, c, int(written));
}

TEST(NetcdfOutput, AnIoErrorInsideHdf5EndsWithOneLineAndNoCrashAtExit) {
  // An error that no check foresees: HDF5's descriptor is made read-only under it, so its
  // next flush fails (EBADF) inside HDF5. Closing such a file fails in HDF5 1.10 and left a
  // half-destroyed file ID that HDF5's exit handler crashed on (SIGSEGV, exit 139).
  TempDir dir;
  const Case c = small_case();
  const std::string path = dir.file("io_error.nc");
  const std::string report = dir.file("report");
  const int status = in_child([&] {
    NetcdfWriter w(path, c);
    w.write(0.0, record_fields(c, 0), {{"step", 0.0}});
    w.write(1.0, record_fields(c, 1), {{"step", 1.0}});
    const std::vector<int> fds = descriptors_of(w.partial_path());
    if (fds.empty()) return 5;
    const int read_only = open(w.partial_path().c_str(), O_RDONLY);
    for (int fd : fds) dup2(read_only, fd);
    close(read_only);
    std::string message;
    try {
      w.write(2.0, record_fields(c, 2), {{"step", 2.0}});
    } catch (const std::runtime_error& e) {
      message = e.what();
    }
    bool later_refused = false;
    try {
      w.write(3.0, record_fields(c, 3), {});
    } catch (const std::runtime_error&) {
      later_refused = true;
    }
    std::ofstream(report) << w.records() << "\n" << later_refused << "\n" << w.partial_path() << "\n" << message;
    return 0;
  });
  ASSERT_EQ(describe(status), "exit 0") << "no crash at exit";
  std::istringstream in(slurp(report));
  long written = -1;
  bool later_refused = false;
  std::string partial, message, extra;
  in >> written >> later_refused;
  in.ignore();
  std::getline(in, partial);
  std::getline(in, message);
  EXPECT_FALSE(std::getline(in, extra)) << "one line: " << message << "\n" << extra;
  EXPECT_EQ(written, 2);
  EXPECT_TRUE(later_refused);
  EXPECT_NE(message.find(path), std::string::npos) << message;
  EXPECT_NE(message.find(partial), std::string::npos) << message;
  EXPECT_NE(message.find("Bad file descriptor"), std::string::npos) << "the system's reason: " << message;
  expect_records(partial, c, 2);
}

TEST(NetcdfOutput, CopyRecordsFromContinuesAnEarlierOutputBitForBit) {
  TempDir dir;
  const Case c = small_case();
  const std::string old_path = dir.file("first.nc");
  {
    NetcdfWriter w(old_path, c);
    w.write(0.0, record_fields(c, 0), {{"step", 0.0}});
    w.write(0.5, record_fields(c, 1), {{"step", 5.0}, {"late_scalar", 7.5}});  // defined on first use
    w.write(1.0, record_fields(c, 2), {{"step", 10.0}, {"late_scalar", 8.5}});
    for (int s = 0; s < 30; ++s) {
      std::map<std::string, double> v = {{"kinetic_energy", 0.1 * s}, {"growth_rate", s == 0 ? NAN : 0.01 * s}};
      if (s >= 4) v["late_series"] = -double(s);
      w.write_series(0.05 * s, v);
    }
    w.close();
  }
  const std::string new_path = dir.file("continued.nc");
  {
    NetcdfWriter w(new_path, c);
    w.copy_records_from(old_path, 2, 20);
    EXPECT_EQ(w.records(), 2);
    EXPECT_EQ(w.series_records(), 20);
    w.append_history("restarted from " + old_path + " at snapshot 2");
    w.write(0.75, record_fields(c, 2), {{"step", 7.0}});  // continues at index 2
    w.write_series(0.99, {{"kinetic_energy", 42.0}});
    w.close();
  }
  nc::ReadFile a(old_path), b(new_path);
  EXPECT_EQ(b.getDim("time").getSize(), 3u);
  EXPECT_EQ(b.getDim("diagnostic_time").getSize(), 21u);
  auto prefix = [](std::vector<double> v, size_t n) {
    v.resize(n);
    return v;
  };
  auto same_bits = [](const std::vector<double>& x, const std::vector<double>& y) {
    return x.size() == y.size() && std::memcmp(x.data(), y.data(), x.size() * sizeof(double)) == 0;
  };
  for (const auto& name : c.output.streams.at(0).fields) {
    const auto n = field_extent(c, name);
    const size_t rec = n[0] * n[1] * n[2];
    EXPECT_TRUE(same_bits(prefix(read_all(b.getVar(name)), 2 * rec), prefix(read_all(a.getVar(name)), 2 * rec))) << name;
  }
  EXPECT_EQ(read_all(b.getVar("time")), (std::vector<double>{0.0, 0.5, 0.75}));
  EXPECT_EQ(read_all(b.getVar("step")), (std::vector<double>{0.0, 5.0, 7.0}));
  const auto late = read_all(b.getVar("late_scalar"));  // created by the copy
  ASSERT_EQ(late.size(), 3u);
  EXPECT_EQ(late[0], NC_FILL_DOUBLE);
  EXPECT_EQ(late[1], 7.5);
  EXPECT_EQ(late[2], NC_FILL_DOUBLE);
  for (const char* s : {"diagnostic_time", "kinetic_energy", "growth_rate", "late_series"}) {
    const auto got = read_all(b.getVar(s));
    ASSERT_EQ(got.size(), 21u) << s;
    EXPECT_TRUE(same_bits(prefix(got, 20), prefix(read_all(a.getVar(s)), 20))) << s;  // NaN and fill included
  }
  EXPECT_EQ(read_all(b.getVar("kinetic_energy"))[20], 42.0);
  const std::string history = text_att(b, "history");
  EXPECT_NE(history.find("\n"), std::string::npos) << history;
  EXPECT_NE(history.find(": restarted from " + old_path + " at snapshot 2"), std::string::npos) << history;
  EXPECT_EQ(history.back(), '2') << "appended at the end";
}

TEST(NetcdfOutput, CopyRecordsFromRefusesAnotherRunsOutput) {
  TempDir dir;
  const Case c = small_case();
  const std::string old_path = dir.file("first.nc");
  {
    NetcdfWriter w(old_path, c);
    w.write(0.0, record_fields(c, 0), {});
    w.write_series(0.0, {{"kinetic_energy", 1.0}});
    w.close();
  }
  std::ofstream(dir.file("not_netcdf.nc")) << "plain text";
  Case fewer_fields = c;
  fewer_fields.output.streams.at(0).fields = {"T", "w"};
  Case other_grid = c;
  other_grid.n = {4, 3, 3};
  Case other_extent = c;
  other_extent.extent[0][1] = 5.0;
  struct Refusal {
    const char* what;
    Case writer_case;
    std::string old_file;
    long records, series;
    const char* says;
  };
  const std::vector<Refusal> refusals = {
      {"missing file", c, dir.file("missing.nc"), 1, 0, "No such file"},
      {"not NetCDF", c, dir.file("not_netcdf.nc"), 1, 0, "not_netcdf.nc"},
      {"fewer snapshots", c, old_path, 2, 0, "holds 1 snapshots"},
      {"fewer diagnostics records", c, old_path, 1, 2, "holds 1 diagnostics records"},
      {"other fields", fewer_fields, old_path, 1, 1, "its output fields are T, p, u, v, w, this run writes T, w"},
      {"other grid", other_grid, old_path, 1, 1, "its grid is 4 x 3 x 2 cells, this run's is 4 x 3 x 3"},
      {"other coordinates", other_extent, old_path, 1, 1, "coordinate x differs"},
  };
  for (const auto& r : refusals) {
    SCOPED_TRACE(r.what);
    NetcdfWriter w(dir.file("new.nc"), r.writer_case);
    try {
      w.copy_records_from(r.old_file, r.records, r.series);
      ADD_FAILURE() << "expected an exception";
    } catch (const std::runtime_error& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find(r.old_file), std::string::npos) << msg;
      EXPECT_NE(msg.find(r.says), std::string::npos) << msg;
      EXPECT_NE(msg.find("`--output NEW` starts a new file instead"), std::string::npos) << msg;
      EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
    }
    EXPECT_EQ(w.records(), 0);
    fs::remove(w.partial_path());
  }
  // Only into a new, empty file.
  NetcdfWriter w(dir.file("busy.nc"), c);
  w.write(0.0, record_fields(c, 0), {});
  EXPECT_THROW(w.copy_records_from(old_path, 1, 0), std::runtime_error);
}

TEST(NetcdfOutput, EveryFileRecordsTheBuildThatWroteIt) {
  TempDir dir;
  const Case c = small_case();
  const std::string path = dir.file("provenance.nc");
  {
    NetcdfWriter w(path, c);
    w.close();
  }
  nc::ReadFile f(path);
  EXPECT_EQ(text_att(f, "bouss_build"), build_provenance());
  EXPECT_EQ(text_att(f, "bouss_build").rfind("bouss ", 0), 0u);
  EXPECT_EQ(text_att(f, "source").rfind("bouss", 0), 0u);
  EXPECT_EQ(f.getDim("time").getSize(), 0u);
}
