// NetCDF-4 / CF-1.8 output: write a small case, read it back with the NetCDF-C++ API.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <netcdf>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "io/netcdf_writer.hpp"

namespace fs = std::filesystem;
using namespace bouss;

namespace {

class TempDir {
 public:
  TempDir() {
    std::random_device rd;
    std::ostringstream os;
    os << "bouss_test_netcdf_" << std::hex << rd() << rd();
    path_ = fs::temp_directory_path() / os.str();
    fs::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  std::string file(const std::string& name) const { return (path_ / name).string(); }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

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
  c.output.file = "unused.nc";
  c.output.fields = {"T", "u", "v", "w", "p"};
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
  for (const auto& f : c.output.fields) out.push_back({f, field_values(c, f, record)});
  return out;
}

std::string text_att(const netCDF::NcVar& v, const std::string& name) {
  std::string s;
  v.getAtt(name).getValues(s);
  return s;
}

std::string text_att(const netCDF::NcFile& f, const std::string& name) {
  std::string s;
  f.getAtt(name).getValues(s);
  return s;
}

double double_att(const netCDF::NcFile& f, const std::string& name) {
  double d = 0;
  f.getAtt(name).getValues(&d);
  return d;
}

bool has_att(const netCDF::NcVar& v, const std::string& name) {
  return v.getAtts().count(name) > 0;
}

std::vector<double> read_all(const netCDF::NcVar& v) {
  size_t total = 1;
  for (const auto& d : v.getDims()) total *= d.getSize();
  std::vector<double> out(total);
  v.getVar(out.data());
  return out;
}

void write_two_records(const std::string& path, const Case& c, bool replaces = false) {
  NetcdfWriter w(path, c);
  w.write(0.0, record_fields(c, 0), {{"kinetic_energy", 0.125}, {"step", 0.0}});
  w.write(0.75, record_fields(c, 1),
          {{"kinetic_energy", 0.5}, {"step", 10.0}, {"max_divergence", 3.0e-12}});
  EXPECT_EQ(w.records(), 2);
  EXPECT_EQ(w.path(), path);
  EXPECT_TRUE(fs::exists(path + ".partial"));
  EXPECT_EQ(fs::exists(path), replaces);
  w.close();
  EXPECT_FALSE(fs::exists(path + ".partial"));
  EXPECT_TRUE(fs::exists(path));
}

}  // namespace

TEST(NetcdfOutput, RoundTripsFieldsCoordinatesAndAttributes) {
  TempDir dir;
  const Case c = small_case();
  const std::string path = dir.file("run.nc");
  write_two_records(path, c);

  netCDF::NcFile f(path, netCDF::NcFile::read);
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
  EXPECT_EQ(double_att(f, "rayleigh"), 1.0e6);
  EXPECT_EQ(double_att(f, "prandtl"), 0.71);

  // Time.
  netCDF::NcVar t = f.getVar("time");
  EXPECT_EQ(read_all(t), (std::vector<double>{0.0, 0.75}));
  EXPECT_EQ(text_att(t, "units"), "1");
  EXPECT_EQ(text_att(t, "axis"), "T");
  EXPECT_EQ(text_att(t, "long_name"), "time");
  EXPECT_FALSE(has_att(t, "standard_name"));
  EXPECT_NE(text_att(t, "units_note").find("free-fall"), std::string::npos);

  // Coordinates: centres lo + (i + 1/2) h, faces lo + i h.
  const char* axes[3] = {"x", "y", "z"};
  const char* letters[3] = {"X", "Y", "Z"};
  for (int a = 0; a < 3; ++a) {
    SCOPED_TRACE(axes[a]);
    const double lo = c.extent[a][0], hi = c.extent[a][1], h = (hi - lo) / c.n[a];
    netCDF::NcVar xc = f.getVar(axes[a]);
    netCDF::NcVar xf = f.getVar(std::string(axes[a]) + "f");
    auto centres = read_all(xc);
    auto faces = read_all(xf);
    ASSERT_EQ(centres.size(), size_t(c.n[a]));
    ASSERT_EQ(faces.size(), size_t(c.n[a] + 1));
    for (int i = 0; i < c.n[a]; ++i) EXPECT_DOUBLE_EQ(centres[i], lo + (i + 0.5) * h);
    for (int i = 0; i <= c.n[a]; ++i) EXPECT_DOUBLE_EQ(faces[i], lo + i * h);
    EXPECT_EQ(faces.front(), lo);
    EXPECT_EQ(faces.back(), hi);
    EXPECT_EQ(text_att(xc, "axis"), letters[a]);
    EXPECT_EQ(text_att(xf, "axis"), letters[a]);
    EXPECT_EQ(text_att(xc, "units"), "1");
    EXPECT_EQ(text_att(xf, "units"), "1");
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
  for (const auto& name : c.output.fields) {
    SCOPED_TRACE(name);
    netCDF::NcVar v = f.getVar(name);
    ASSERT_FALSE(v.isNull());
    EXPECT_EQ(v.getType(), netCDF::ncDouble);
    std::vector<std::string> got;
    for (const auto& d : v.getDims()) got.push_back(d.getName());
    EXPECT_EQ(got, dims.at(name));
    EXPECT_EQ(text_att(v, "units"), "1");
    EXPECT_FALSE(text_att(v, "long_name").empty());
    EXPECT_NE(text_att(v, "units_note").find("free-fall units"), std::string::npos);

    netCDF::NcVar::ChunkMode mode;
    std::vector<size_t> chunks(4);
    v.getChunkingParameters(mode, chunks);
    EXPECT_EQ(mode, netCDF::NcVar::nc_CHUNKED);
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
  EXPECT_EQ(text_att(f.getVar("max_divergence"), "units"), "1");
  std::vector<std::string> sdims;
  for (const auto& d : f.getVar("step").getDims()) sdims.push_back(d.getName());
  EXPECT_EQ(sdims, std::vector<std::string>{"time"});
}

TEST(NetcdfOutput, DimensionalUnitsAndFieldSubset) {
  TempDir dir;
  Case c = small_case();
  c.physics.units = Units::dimensional;
  c.physics.rayleigh.reset();
  c.physics.prandtl.reset();
  c.output.fields = {"T", "w"};
  const std::string path = dir.file("dim.nc");
  {
    NetcdfWriter w(path, c);
    w.write(2.5, record_fields(c, 0), {{"my_diag_value", 7.0}, {"kinetic_energy", 0.25}});
    w.close();
  }
  netCDF::NcFile f(path, netCDF::NcFile::read);
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
  EXPECT_EQ(text_att(f.getVar("my_diag_value"), "units"), "1");
  EXPECT_FALSE(has_att(f.getVar("T"), "units_note"));
  EXPECT_EQ(text_att(f.getVar("my_diag_value"), "long_name"), "my diag value");
  EXPECT_EQ(read_all(f.getVar("my_diag_value")), std::vector<double>{7.0});
  EXPECT_EQ(text_att(f.getVar("kinetic_energy"), "units"), "m2 s-2");
  EXPECT_EQ(read_all(f.getVar("w")), field_values(c, "w", 0));
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

TEST(NetcdfOutput, WithoutCloseNothingIsLeft) {
  TempDir dir;
  const Case c = small_case();
  const std::string path = dir.file("abandoned.nc");
  {
    NetcdfWriter w(path, c);
    w.write(0.0, record_fields(c, 0), {{"kinetic_energy", 1.0}});
    EXPECT_TRUE(fs::exists(path + ".partial"));
  }
  EXPECT_FALSE(fs::exists(path));
  EXPECT_FALSE(fs::exists(path + ".partial"));
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
  {
    NetcdfWriter w(path, c);
    w.write(0.0, record_fields(c, 0), {});
    EXPECT_EQ(read_text(), old_content);
  }
  EXPECT_EQ(read_text(), old_content);
  EXPECT_FALSE(fs::exists(path + ".partial"));

  // close() replaces it.
  write_two_records(path, c, /*replaces=*/true);
  netCDF::NcFile f(path, netCDF::NcFile::read);
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
  EXPECT_FALSE(fs::exists(path));
  EXPECT_FALSE(fs::exists(path + ".partial"));
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
