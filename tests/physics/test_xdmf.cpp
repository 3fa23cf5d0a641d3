// The XDMF description of an output file (io/xdmf): written from files that NetcdfWriter
// wrote in this process, then checked by tests/check_xdmf.py, which reads the NetCDF-4 file
// as HDF5 (python3-h5py) the way an XDMF reader does and evaluates every DataItem.
#include <gtest/gtest.h>
#include <netcdf.h>

#include <sys/wait.h>

#include <array>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "io/file_util.hpp"
#include "io/netcdf_writer.hpp"
#include "io/xdmf.hpp"
#include "process.hpp"
#include "scratch_dir.hpp"

namespace fs = std::filesystem;
using namespace bouss;
using bouss::test::ScratchDir;

namespace {

Case box(std::array<int, 3> n, std::vector<std::string> fields) {
  Case c;
  c.name = "xdmf";
  c.source = "cases/xdmf.json";
  c.json_text = "{}";
  c.n = n;
  c.extent = {{{0.0, 2.0}, {-1.0, 0.5}, {0.0, 1.0}}};
  c.physics.units = Units::free_fall;
  c.output.streams = {OutputStream{}};
  c.output.streams.at(0).fields = std::move(fields);
  return c;
}

// Values that differ between fields, records and cells, so that a wrong dataset, record or
// offset shows.
std::vector<SnapshotField> record(const Case& c, int r) {
  std::vector<SnapshotField> out;
  for (const auto& name : c.output.streams.at(0).fields) {
    std::array<size_t, 3> n{size_t(c.n[0]), size_t(c.n[1]), size_t(c.n[2])};
    if (name == "u") ++n[0];
    if (name == "v") ++n[1];
    if (name == "w") ++n[2];
    std::vector<double> v(n[0] * n[1] * n[2]);
    for (size_t i = 0; i < v.size(); ++i) v[i] = std::sin(0.7 * double(i) + name[0]) + 10.0 * r;
    out.push_back({name, std::move(v)});
  }
  return out;
}

void write_output(const std::string& path, const Case& c, const std::vector<double>& times) {
  NetcdfWriter w(path, c);
  for (size_t r = 0; r < times.size(); ++r) w.write(times[r], record(c, int(r)), {{"step", 10.0 * r}});
  w.write_series(0.0, {{"kinetic_energy", 1.0}});
  w.close();
}

struct Checked {
  int status = -1;
  std::string output;
};

// Runs tests/check_xdmf.py on XDMF (with --expect when given) and returns its exit status
// and what it printed.
Checked check_xdmf(const ScratchDir& dir, const std::string& xdmf, const std::string& expect = "") {
  const std::string log = dir.file("check_xdmf.log");
  const std::string command = "/usr/bin/python3 '" + bouss::test::source_path("tests/check_xdmf.py") + "' '" + xdmf +
                              "'" + (expect.empty() ? "" : " --expect " + expect) + " > '" + log + "' 2>&1";
  const int status = std::system(command.c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, bouss::test::slurp(log)};
}

// Opens a finished file for changes (the tests give it what a later bouss writes).
class Reopened {
 public:
  explicit Reopened(const std::string& path) { EXPECT_EQ(nc_open(path.c_str(), NC_WRITE, &id_), NC_NOERR); }
  ~Reopened() { nc_close(id_); }
  int id() const { return id_; }
  int var(const char* name) const {
    int v = -1;
    EXPECT_EQ(nc_inq_varid(id_, name, &v), NC_NOERR) << name;
    return v;
  }
  int dim(const char* name) const {
    int d = -1;
    EXPECT_EQ(nc_inq_dimid(id_, name, &d), NC_NOERR) << name;
    return d;
  }

 private:
  int id_ = -1;
};

void replace_in_file(const std::string& path, const std::string& from, const std::string& to) {
  std::string text = bouss::test::slurp(path);
  const size_t at = text.find(from);
  ASSERT_NE(at, std::string::npos) << from;
  text.replace(at, from.size(), to);
  std::ofstream(path, std::ios::trunc) << text;
}

}  // namespace

TEST(Xdmf, CheckerAndH5pyArePresent) {
  // The checker needs python3-h5py (tools/setup.sh installs it).
  EXPECT_EQ(std::system("/usr/bin/python3 -c 'import h5py, numpy' 2>/dev/null"), 0)
      << "python3-h5py and python3-numpy are needed: tools/setup.sh installs them";
}

TEST(Xdmf, EveryRecordOnTheCellsWithTheVelocityVector) {
  ScratchDir dir("xdmf");
  const Case c = box({6, 5, 4}, {"T", "u", "v", "w", "p"});
  const std::string nc = dir.file("run.nc");
  write_output(nc, c, {0.0, 0.5, 1.25});
  const std::string xdmf = xdmf_path_for(nc);
  EXPECT_EQ(xdmf, nc + ".xdmf2");
  write_xdmf(nc, xdmf);

  const Checked r = check_xdmf(dir, xdmf, "T,p,velocity");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("ok: 3 grids of 6 x 5 x 4 cells"), std::string::npos) << r.output;
  const std::string text = bouss::test::slurp(xdmf);
  EXPECT_NE(text.find(">run.nc:/T<"), std::string::npos);  // the bare name: they lie side by side
  EXPECT_EQ(text.find(dir.path().string()), std::string::npos);
  EXPECT_NE(text.find("<Time Value=\"1.25\"/>"), std::string::npos);
  EXPECT_FALSE(fs::exists(partial_path(xdmf)));
}

TEST(Xdmf, StretchedCoordinatesAreTheFilesOwn) {
  // x, y and z may be stretched: the XDMF points at the face coordinates the file holds.
  ScratchDir dir("xdmf");
  Case c = box({4, 3, 5}, {"T", "w"});
  c.axis_faces[0] = {0.0, 0.1, 0.3, 0.6, 1.0};
  for (int k = 0; k <= 5; ++k) c.axis_faces[2].push_back(0.5 * (1.0 - std::cos(std::acos(-1.0) * k / 5.0)));
  const std::string nc = dir.file("stretched.nc");
  write_output(nc, c, {0.0, 1.0});
  write_xdmf(nc, xdmf_path_for(nc));
  const Checked r = check_xdmf(dir, xdmf_path_for(nc), "T,w_c");
  EXPECT_EQ(r.status, 0) << r.output;
  const std::string xdmf = bouss::test::slurp(xdmf_path_for(nc));
  for (const char* faces : {"stretched.nc:/xf", "stretched.nc:/yf", "stretched.nc:/zf"})
    EXPECT_NE(xdmf.find(faces), std::string::npos) << faces << " in " << xdmf;
}

TEST(Xdmf, APlaneOfOneCellAlongZ) {
  ScratchDir dir("xdmf");
  const Case c = box({8, 8, 1}, {"T", "u", "v", "w", "p"});
  const std::string nc = dir.file("plane.nc");
  write_output(nc, c, {0.0, 2.0});
  write_xdmf(nc, xdmf_path_for(nc));
  const Checked r = check_xdmf(dir, xdmf_path_for(nc), "T,p,velocity");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("ok: 2 grids of 8 x 8 x 1 cells"), std::string::npos) << r.output;
  // One layer of cells between the two z faces.
  EXPECT_NE(bouss::test::slurp(xdmf_path_for(nc)).find("Dimensions=\"2 9 9\""), std::string::npos);
}

TEST(Xdmf, OnlyTheFieldsTheFileHas) {
  // Without all three components there is no vector: each face field is its cell mean.
  ScratchDir dir("xdmf");
  const Case c = box({4, 4, 3}, {"w", "T"});
  const std::string nc = dir.file("subset.nc");
  write_output(nc, c, {0.0});
  {
    // Variables that are no field on the cells: a profile, and a field on edges.
    Reopened f(nc);
    ASSERT_EQ(nc_redef(f.id()), NC_NOERR);
    int v = -1;
    const int profile[2] = {f.dim("time"), f.dim("z")}, edges[4] = {f.dim("time"), f.dim("z"), f.dim("yf"), f.dim("xf")};
    ASSERT_EQ(nc_def_var(f.id(), "T_mean", NC_DOUBLE, 2, profile, &v), NC_NOERR);
    ASSERT_EQ(nc_def_var(f.id(), "vorticity_z", NC_DOUBLE, 4, edges, &v), NC_NOERR);
    ASSERT_EQ(nc_enddef(f.id()), NC_NOERR);
  }
  write_xdmf(nc, xdmf_path_for(nc));
  const Checked r = check_xdmf(dir, xdmf_path_for(nc), "T,w_c");
  EXPECT_EQ(r.status, 0) << r.output;
  const std::string text = bouss::test::slurp(xdmf_path_for(nc));
  EXPECT_EQ(text.find("Name=\"velocity\""), std::string::npos);
  EXPECT_NE(text.find("Not shown (not a field on the cells): T_mean(time, z)"), std::string::npos);
  EXPECT_NE(text.find("Not shown (not a field on the cells): vorticity_z(time, z, yf, xf)"), std::string::npos);
}

TEST(Xdmf, TheFilesOwnCellVelocityIsTheVector) {
  // A file with u_c, v_c and w_c (written by the simulation when a case asks for them)
  // shows them as the vector, not the means of u, v, w; they differ here on purpose.
  ScratchDir dir("xdmf");
  const Case c = box({5, 4, 3}, {"T", "u", "v", "w"});
  const std::string nc = dir.file("centred.nc");
  write_output(nc, c, {0.0, 0.75});
  {
    Reopened f(nc);
    ASSERT_EQ(nc_redef(f.id()), NC_NOERR);
    const int dims[4] = {f.dim("time"), f.dim("z"), f.dim("y"), f.dim("x")};
    std::vector<int> ids;
    for (const char* name : {"u_c", "v_c", "w_c"}) {
      int v = -1;
      ASSERT_EQ(nc_def_var(f.id(), name, NC_DOUBLE, 4, dims, &v), NC_NOERR);
      ids.push_back(v);
    }
    ASSERT_EQ(nc_enddef(f.id()), NC_NOERR);
    std::vector<double> values(5 * 4 * 3);
    for (size_t r = 0; r < 2; ++r)
      for (size_t k = 0; k < 3; ++k) {
        for (size_t i = 0; i < values.size(); ++i) values[i] = 100.0 * (k + 1) + i + 1000.0 * r;
        const size_t start[4] = {r, 0, 0, 0}, count[4] = {1, 3, 4, 5};
        ASSERT_EQ(nc_put_vara_double(f.id(), ids[k], start, count, values.data()), NC_NOERR);
      }
  }
  write_xdmf(nc, xdmf_path_for(nc));
  const Checked r = check_xdmf(dir, xdmf_path_for(nc), "T,velocity");
  EXPECT_EQ(r.status, 0) << r.output;
  const std::string text = bouss::test::slurp(xdmf_path_for(nc));
  EXPECT_NE(text.find("centred.nc:/u_c"), std::string::npos);
  EXPECT_EQ(text.find("centred.nc:/u<"), std::string::npos);
}

TEST(Xdmf, CheckerFailsOnAWrongDatasetShapeOrOffset) {
  // The check above is worth something only if it fails on a wrong XDMF.
  ScratchDir dir("xdmf");
  const Case c = box({4, 3, 2}, {"T", "u", "v", "w", "p"});
  const std::string nc = dir.file("run.nc");
  write_output(nc, c, {0.0, 1.0});
  const std::string xdmf = xdmf_path_for(nc);
  struct Mutation {
    const char* what;
    std::string from, to;
  };
  const std::vector<Mutation> mutations = {
      {"a dataset that does not exist", ">run.nc:/T<", ">run.nc:/Tx<"},
      {"a wrong shape of a dataset", "Dimensions=\"2 2 3 5\"", "Dimensions=\"2 2 3 4\""},
      {"the wrong record", "1 0 0 0  1 1 1 1  1 2 3 4", "0 0 0 0  1 1 1 1  1 2 3 4"},
      {"the wrong face of each cell", "0 0 0 1  1 1 1 1  1 2 3 4", "0 0 0 0  1 1 1 1  1 2 3 4"},
      {"another dataset of the same shape", ">run.nc:/p<", ">run.nc:/T<"},
      {"a coordinate that is not the faces", ">run.nc:/yf<", ">run.nc:/xf<"},
      {"a wrong time", "<Time Value=\"1\"/>", "<Time Value=\"2\"/>"},
  };
  for (const auto& m : mutations) {
    SCOPED_TRACE(m.what);
    write_xdmf(nc, xdmf);
    ASSERT_EQ(check_xdmf(dir, xdmf).status, 0);
    replace_in_file(xdmf, m.from, m.to);
    const Checked r = check_xdmf(dir, xdmf);
    EXPECT_EQ(r.status, 1) << r.output;
  }
}

TEST(Xdmf, ANetcdfFileInAnotherFolderByItsRelativePath) {
  ScratchDir dir("xdmf");
  const Case c = box({3, 3, 3}, {"T"});
  fs::create_directories(dir.path() / "out");
  const std::string nc = dir.file("run.nc");
  write_output(nc, c, {0.0});
  const std::string xdmf = dir.file("out/view.xdmf2");
  write_xdmf(nc, xdmf);
  EXPECT_NE(bouss::test::slurp(xdmf).find(">../run.nc:/T<"), std::string::npos);
}

TEST(Xdmf, APartialFileWhileItsWriterHoldsIt) {
  // A run can describe its partial file after each snapshot, in the process that writes it.
  ScratchDir dir("xdmf");
  const Case c = box({4, 3, 2}, {"T", "u", "v", "w", "p"});
  NetcdfWriter w(dir.file("live.nc"), c);
  w.write(0.0, record(c, 0), {});
  w.write(0.5, record(c, 1), {});
  const std::string xdmf = xdmf_path_for(w.partial_path());
  write_xdmf(w.partial_path(), xdmf);
  const Checked r = check_xdmf(dir, xdmf, "T,p,velocity");
  EXPECT_EQ(r.status, 0) << r.output;
  w.close();
}

TEST(Xdmf, RefusesWithOneLineNamingTheFile) {
  ScratchDir dir("xdmf");
  auto refusal = [&](const std::string& nc) {
    try {
      write_xdmf(nc, dir.file("out.xdmf2"));
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::string missing = dir.file("missing.nc");
  EXPECT_EQ(refusal(missing).rfind("XDMF for " + missing + ": cannot open it: ", 0), 0u) << refusal(missing);

  const std::string classic = dir.file("classic.nc");
  int id = -1;
  ASSERT_EQ(nc_create(classic.c_str(), NC_CLOBBER, &id), NC_NOERR);
  ASSERT_EQ(nc_close(id), NC_NOERR);
  EXPECT_NE(refusal(classic).find("not a NetCDF-4 (HDF5) file"), std::string::npos) << refusal(classic);

  const std::string empty = dir.file("empty.nc");
  {
    NetcdfWriter w(empty, box({2, 2, 2}, {"T"}));
    w.close();
  }
  EXPECT_EQ(refusal(empty), "XDMF for " + empty + ": it holds no snapshot yet");
  EXPECT_FALSE(fs::exists(dir.file("out.xdmf2")));
  for (const auto& s : {refusal(missing), refusal(classic), refusal(empty)})
    EXPECT_EQ(s.find('\n'), std::string::npos) << s;
}
