// The file of an averaged output stream (OutputStream::average): each record the time means
// over its interval, with CF time bounds and cell_methods, and one covariance variable per
// moment; a restart continues it and `bouss recover` keeps its complete records with their
// bounds; a stream of snapshots has none of it.
#include <gtest/gtest.h>
#include <netcdf.h>

#include <algorithm>
#include <array>
#include <fstream>
#include <iterator>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "config/case.hpp"
#include "config/fields.hpp"
#include "io/netcdf_writer.hpp"
#include "io/output_recovery.hpp"
#include "io/record_check.hpp"
#include "io/xdmf.hpp"
#include "netcdf_compare.hpp"
#include "scratch_dir.hpp"

namespace bouss {
namespace {

using test::ScratchDir;

// A 4 x 3 x 2 box in SI units; its one stream writes T and w_c, the profiles T_mean and T_rms,
// and, when `average` is not empty, the time averages that it asks for.
Case box_case(const std::string& file, const std::string& average, const std::string& precision = "double") {
  std::string output = R"({"file": ")" + file + R"(", "interval": 1, "fields": ["T", "w_c"],
                           "profiles": ["T_mean", "T_rms"], "precision": ")" + precision + "\"";
  if (!average.empty()) output += R"(, "average": )" + average;
  output += "}";
  return parse_case(R"({
    "name": "box",
    "grid": {"n": [4, 3, 2], "extent": [[0, 4], [0, 3], [0, 1]]},
    "physics": {"nu": 0.01, "kappa": 0.02, "buoyancy": 9.81},
    "boundaries": {
      "x_lo": "periodic", "x_hi": "periodic", "y_lo": "periodic", "y_hi": "periodic",
      "z_lo": {"velocity": "no_slip", "temperature": {"fixed": 1}},
      "z_hi": {"velocity": "no_slip", "temperature": {"fixed": 0}}
    },
    "time": {"steps": 10},
    "output": )" + output + "}",
                    "cases/box.json");
}

const char* const kMoments = R"({"every_steps": 2, "moments": ["w_c*T", "T*T"]})";
constexpr size_t kCells = 4 * 3 * 2;

// Values of a grid variable (a field or a moment) at a record, distinct per variable, exact
// in float as in double.
std::vector<double> grid_values(const std::string& name, int record) {
  const double tag = name == "T" ? 0.25 : name == "w_c" ? 0.5 : name == "T_variance" ? 0.375 : 0.125;
  std::vector<double> v(kCells);
  for (size_t i = 0; i < kCells; ++i) v[i] = 100.0 * record + double(i) + tag;
  return v;
}

// T_mean then T_rms, each on the 2 cell levels.
std::vector<double> profile_values(int record) { return {record + 0.5, record + 0.75, record + 1.5, record + 1.75}; }

// The grid variables of the stream: its fields, then its moments' variables.
std::vector<std::string> grid_variables(const OutputStream& s) {
  std::vector<std::string> names = s.fields;
  for (const auto& m : s.average.moments) names.push_back(moment_variable(m));
  return names;
}

// One record through the slab path the run driver takes; `skip` is left unwritten (a run
// killed before its slab).
void write_record(NetcdfWriter& w, const OutputStream& s, int record, std::optional<NetcdfWriter::TimeBounds> bounds,
                  const std::string& skip = "") {
  const double time = bounds ? (*bounds)[1] : 0.5 * record;
  w.begin_record(time, {{"step", 10.0 * (record + 1)}}, bounds);
  for (const auto& name : grid_variables(s)) {
    if (name == skip) continue;
    const std::vector<double> v = grid_values(name, record);
    if (s.precision == Precision::single_precision) {
      const std::vector<float> narrow(v.begin(), v.end());
      w.write_slab(name, 0, 2, narrow.data());
    } else {
      w.write_slab(name, 0, 2, v.data());
    }
  }
  w.write_profiles(profile_values(record).data());
  w.end_record();
}

// Two averaged records over [0, 1] and [1, 2.5], closed into `path`.
void write_two_records(const std::string& path, const Case& c) {
  NetcdfWriter w(path, c);
  write_record(w, c.output.streams.front(), 0, NetcdfWriter::TimeBounds{0.0, 1.0});
  write_record(w, c.output.streams.front(), 1, NetcdfWriter::TimeBounds{1.0, 2.5});
  EXPECT_EQ(w.records(), 2);
  w.close();
}

// Text attribute of a variable (NC_GLOBAL for the file's own); "<none>" when it has none.
std::string text_att(int nc, int var, const std::string& name) {
  size_t len = 0;
  nc_type type = NC_NAT;
  if (nc_inq_att(nc, var, name.c_str(), &type, &len) != NC_NOERR || type != NC_CHAR) return "<none>";
  std::string s(len, '\0');
  nc_get_att_text(nc, var, name.c_str(), s.data());
  while (!s.empty() && s.back() == '\0') s.pop_back();
  return s;
}

std::string var_att(int nc, const std::string& var, const std::string& name) {
  int id = -1;
  if (nc_inq_varid(nc, var.c_str(), &id) != NC_NOERR) return "<no variable " + var + ">";
  return text_att(nc, id, name);
}

std::vector<std::string> dim_names(int nc, const std::string& var) {
  int id = -1, ndims = 0, dims[NC_MAX_VAR_DIMS];
  std::vector<std::string> out;
  if (nc_inq_varid(nc, var.c_str(), &id) != NC_NOERR) return out;
  nc_inq_var(nc, id, nullptr, nullptr, &ndims, dims, nullptr);
  for (int d = 0; d < ndims; ++d) {
    char name[NC_MAX_NAME + 1] = {};
    nc_inq_dimname(nc, dims[d], name);
    out.push_back(name);
  }
  return out;
}

// The message of what `f` throws ("" when nothing).
template <class F>
std::string refusal(F&& f) {
  try {
    f();
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

void expect_one_line_saying(const std::string& message, const std::vector<std::string>& words) {
  ASSERT_FALSE(message.empty()) << "nothing was refused";
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  for (const auto& w : words) EXPECT_NE(message.find(w), std::string::npos) << "'" << w << "' not in: " << message;
}

TEST(AveragedOutputFile, RecordsTheirIntervalsMeansAndMomentsInCfTerms) {
  ScratchDir dir("averaged");
  const std::string path = dir.file("box.nc");
  const Case c = box_case(path, kMoments);
  write_two_records(path, c);

  const auto v = test::read_variables(path);
  ASSERT_FALSE(v.empty());
  EXPECT_EQ(v.at("time"), (std::vector<double>{1.0, 2.5}));
  EXPECT_EQ(v.at("time_bnds"), (std::vector<double>{0.0, 1.0, 1.0, 2.5}));
  EXPECT_EQ(v.at("profile_time"), (std::vector<double>{1.0, 2.5}));
  EXPECT_EQ(v.at("profile_time_bnds"), (std::vector<double>{0.0, 1.0, 1.0, 2.5}));
  for (const char* name : {"T", "w_c", "T_variance", "w_c_T_covariance"}) {
    std::vector<double> both = grid_values(name, 0);
    const std::vector<double> second = grid_values(name, 1);
    both.insert(both.end(), second.begin(), second.end());
    EXPECT_EQ(v.at(name), both) << name;
  }
  EXPECT_EQ(v.at("step"), (std::vector<double>{10.0, 20.0}));

  int nc = -1;
  ASSERT_EQ(nc_open(path.c_str(), NC_NOWRITE, &nc), NC_NOERR);
  EXPECT_EQ(var_att(nc, "time", "bounds"), "time_bnds");
  EXPECT_EQ(var_att(nc, "profile_time", "bounds"), "profile_time_bnds");
  EXPECT_EQ(dim_names(nc, "time_bnds"), (std::vector<std::string>{"time", "nv"}));
  EXPECT_EQ(dim_names(nc, "profile_time_bnds"), (std::vector<std::string>{"profile_time", "nv"}));
  EXPECT_EQ(var_att(nc, "T", "cell_methods"), "time: mean");
  EXPECT_EQ(var_att(nc, "w_c", "cell_methods"), "time: mean");
  EXPECT_EQ(var_att(nc, "T_mean", "cell_methods"), "x: y: time: mean");
  EXPECT_EQ(var_att(nc, "T_rms", "cell_methods"), "x: y: time: standard_deviation");

  // The moments: on the cell centres of the records, described as CF asks.
  for (const char* m : {"T_variance", "w_c_T_covariance"}) {
    EXPECT_EQ(dim_names(nc, m), (std::vector<std::string>{"time", "z", "y", "x"})) << m;
    EXPECT_EQ(var_att(nc, m, "grid_location"), "cell centre") << m;
  }
  EXPECT_EQ(var_att(nc, "T_variance", "long_name"), "variance of T over each record's interval");
  EXPECT_EQ(var_att(nc, "w_c_T_covariance", "long_name"), "covariance of w_c and T over each record's interval");
  EXPECT_EQ(var_att(nc, "T_variance", "units"), "K K");
  EXPECT_EQ(var_att(nc, "w_c_T_covariance", "units"), "m s-1 K");
  EXPECT_EQ(var_att(nc, "T_variance", "cell_methods"), "time: variance");
  EXPECT_EQ(var_att(nc, "w_c_T_covariance", "cell_methods"),
            "time: mean (comment: the mean of the product of the two fluctuations about their means over the "
            "interval)");
  EXPECT_EQ(text_att(nc, NC_GLOBAL, "averaging"),
            "time means over each record's interval [time_bnds], trapezoidal in time, sampled every 2 steps on "
            "the device");
  nc_close(nc);
}

TEST(AveragedOutputFile, RmsProfilesAndEveryStepAreNamedAsCfAsks) {
  ScratchDir dir("averaged");
  const std::string path = dir.file("rms.nc");
  Case c = box_case(path, "true");
  c.output.streams.front().profiles = {"u_rms", "v_rms", "w_rms", "wT_mean"};
  c.output.streams.front().fields = {"T"};
  {
    NetcdfWriter w(path, c);
    w.close();
  }
  int nc = -1;
  ASSERT_EQ(nc_open(path.c_str(), NC_NOWRITE, &nc), NC_NOERR);
  for (const char* p : {"u_rms", "v_rms", "w_rms"})
    EXPECT_EQ(var_att(nc, p, "cell_methods"), "x: y: time: root_mean_square") << p;
  EXPECT_EQ(var_att(nc, "wT_mean", "cell_methods"), "x: y: time: mean");
  EXPECT_EQ(text_att(nc, NC_GLOBAL, "averaging"),
            "time means over each record's interval [time_bnds], trapezoidal in time, sampled every step on the "
            "device");
  nc_close(nc);
}

TEST(AveragedOutputFile, MomentsAreStoredLikeTheCentredFields) {
  ScratchDir dir("averaged");
  const std::string path = dir.file("float.nc");
  Case c = box_case(path, kMoments, "float");
  c.output.streams.front().compression.deflate = 3;
  c.output.streams.front().compression.shuffle = true;
  write_two_records(path, c);
  int nc = -1;
  ASSERT_EQ(nc_open(path.c_str(), NC_NOWRITE, &nc), NC_NOERR);
  auto storage = [&](const char* name) {
    int id = -1;
    nc_inq_varid(nc, name, &id);
    nc_type type = NC_NAT;
    nc_inq_vartype(nc, id, &type);
    int contiguous = -1, shuffle = -1, deflate = -1, level = -1;
    size_t chunks[4] = {};
    nc_inq_var_chunking(nc, id, &contiguous, chunks);
    nc_inq_var_deflate(nc, id, &shuffle, &deflate, &level);
    std::ostringstream os;
    os << "type " << type << " contiguous " << contiguous << " chunks " << chunks[0] << " " << chunks[1] << " "
       << chunks[2] << " " << chunks[3] << " shuffle " << shuffle << " deflate " << deflate << " level " << level;
    return os.str();
  };
  EXPECT_EQ(storage("T_variance"), storage("T"));
  EXPECT_EQ(storage("w_c_T_covariance"), storage("T"));
  EXPECT_NE(storage("T").find("type 5 "), std::string::npos) << storage("T");  // NC_FLOAT
  nc_close(nc);
}

TEST(AveragedOutputFile, ARecordNeedsBoundsExactlyWhenTheStreamAverages) {
  ScratchDir dir("averaged");
  {
    const Case c = box_case(dir.file("avg.nc"), kMoments);
    NetcdfWriter w(dir.file("avg.nc"), c);
    expect_one_line_saying(refusal([&] { w.begin_record(1.0, {{"step", 1.0}}); }), {"averaged", "bounds"});
    expect_one_line_saying(refusal([&] { w.begin_record(1.0, {}, NetcdfWriter::TimeBounds{2.0, 1.0}); }),
                           {"ends before it starts"});
    EXPECT_EQ(w.records(), 0);
    // Refused before anything was written: the writer goes on.
    write_record(w, c.output.streams.front(), 0, NetcdfWriter::TimeBounds{0.0, 1.0});
    EXPECT_EQ(w.records(), 1);
    w.close();
  }
  {
    const Case c = box_case(dir.file("snap.nc"), "");
    NetcdfWriter w(dir.file("snap.nc"), c);
    expect_one_line_saying(refusal([&] { w.begin_record(1.0, {}, NetcdfWriter::TimeBounds{0.0, 1.0}); }),
                           {"bounds", "snapshots"});
    EXPECT_EQ(w.records(), 0);
    write_record(w, c.output.streams.front(), 0, std::nullopt);
    EXPECT_EQ(w.records(), 1);
    w.close();
  }
}

TEST(AveragedOutputFile, ASnapshotStreamHasNoBoundsNoAveragingAndItsOwnCellMethods) {
  ScratchDir dir("averaged");
  const std::string path = dir.file("snap.nc");
  const Case c = box_case(path, "");
  {
    NetcdfWriter w(path, c);
    write_record(w, c.output.streams.front(), 0, std::nullopt);
    w.close();
  }
  const auto v = test::read_variables(path);
  EXPECT_EQ(v.count("time_bnds"), 0u);
  EXPECT_EQ(v.count("profile_time_bnds"), 0u);
  int nc = -1;
  ASSERT_EQ(nc_open(path.c_str(), NC_NOWRITE, &nc), NC_NOERR);
  EXPECT_EQ(text_att(nc, NC_GLOBAL, "averaging"), "<none>");
  EXPECT_EQ(var_att(nc, "time", "bounds"), "<none>");
  EXPECT_EQ(var_att(nc, "profile_time", "bounds"), "<none>");
  EXPECT_EQ(var_att(nc, "T", "cell_methods"), "<none>");
  EXPECT_EQ(var_att(nc, "T_mean", "cell_methods"), "x: y: mean");
  EXPECT_EQ(var_att(nc, "T_rms", "cell_methods"), "x: y: mean");
  nc_close(nc);
}

TEST(AveragedOutputFile, ARestartCopiesTheRecordsWithTheirBoundsAndMoments) {
  ScratchDir dir("averaged");
  const std::string old_path = dir.file("old.nc"), new_path = dir.file("new.nc");
  // Single precision: the bounds stay double and are no field of the wrong precision.
  const Case c = box_case(old_path, kMoments, "float");
  write_two_records(old_path, c);
  {
    NetcdfWriter w(new_path, c);
    w.copy_records_from(old_path, 2, 0);
    EXPECT_EQ(w.records(), 2);
    w.close();
  }
  EXPECT_EQ(test::bitwise_difference(old_path, new_path), "");
  const auto copied = test::read_variables(new_path);
  EXPECT_EQ(copied.at("time_bnds"), (std::vector<double>{0.0, 1.0, 1.0, 2.5}));
  EXPECT_EQ(copied.at("profile_time_bnds"), (std::vector<double>{0.0, 1.0, 1.0, 2.5}));

  // One record of two, and the run goes on from there.
  const std::string third = dir.file("third.nc");
  {
    NetcdfWriter w(third, c);
    w.copy_records_from(old_path, 1, 0);
    write_record(w, c.output.streams.front(), 1, NetcdfWriter::TimeBounds{1.0, 3.0});
    EXPECT_EQ(w.records(), 2);
    w.close();
  }
  EXPECT_EQ(test::read_variables(third).at("time_bnds"), (std::vector<double>{0.0, 1.0, 1.0, 3.0}));
}

TEST(AveragedOutputFile, ARestartRefusesOtherMomentsOrAveraging) {
  ScratchDir dir("averaged");
  const std::string old_path = dir.file("old.nc");
  write_two_records(old_path, box_case(old_path, kMoments));

  auto copy_into = [&](const Case& c, const std::string& name) {
    return refusal([&] {
      NetcdfWriter w(dir.file(name), c);
      w.copy_records_from(old_path, 2, 0);
    });
  };
  expect_one_line_saying(copy_into(box_case(old_path, R"({"every_steps": 2, "moments": ["T*T"]})"), "fewer.nc"),
                         {"cannot continue the earlier output", "moments", "T_variance, w_c_T_covariance",
                          "--output NEW"});
  expect_one_line_saying(copy_into(box_case(old_path, ""), "snap.nc"),
                         {"cannot continue the earlier output", "time averages", "snapshots", "--output NEW"});
  EXPECT_FALSE(std::ifstream(dir.file("fewer.nc")).good());

  // And an averaged run does not continue a file of snapshots.
  const std::string snap_path = dir.file("snapshots.nc");
  const Case snap = box_case(snap_path, "");
  {
    NetcdfWriter w(snap_path, snap);
    write_record(w, snap.output.streams.front(), 0, std::nullopt);
    w.close();
  }
  expect_one_line_saying(refusal([&] {
                           NetcdfWriter w(dir.file("avg.nc"), box_case(snap_path, "true"));
                           w.copy_records_from(snap_path, 1, 0);
                         }),
                         {"it holds snapshots, this run writes time averages"});
}

TEST(AveragedOutputFile, ARecordIsCompleteOnlyWithEveryMomentAndTheBoundsAreNoField) {
  ScratchDir dir("averaged");
  const std::string path = dir.file("killed.nc");
  const Case c = box_case(path, kMoments);
  std::string partial;
  {
    NetcdfWriter w(path, c);
    partial = w.partial_path();
    write_record(w, c.output.streams.front(), 0, NetcdfWriter::TimeBounds{0.0, 1.0});
    write_record(w, c.output.streams.front(), 1, NetcdfWriter::TimeBounds{1.0, 2.5}, "w_c_T_covariance");
  }  // destroyed unclosed, as a killed run leaves it
  int nc = -1;
  ASSERT_EQ(nc_open(partial.c_str(), NC_NOWRITE, &nc), NC_NOERR);
  std::vector<std::string> visited;
  const RecordSurvey s = survey_records(nc, -1, -1, [&](const std::string& name, long r, const void*) {
    if (r == 0) visited.push_back(name);
  });
  nc_close(nc);
  EXPECT_EQ(s.records, 2);
  ASSERT_EQ(s.damaged.size(), 1u);
  EXPECT_EQ(s.damaged[0].index, 1);
  EXPECT_EQ(s.damaged[0].why, "w_c_T_covariance holds fill values");
  std::sort(visited.begin(), visited.end());
  EXPECT_EQ(visited, (std::vector<std::string>{"T", "T_mean", "T_rms", "T_variance", "w_c", "w_c_T_covariance"}));

  // bouss recover keeps the complete record, its bounds with it.
  const std::string recovered = dir.file("recovered.nc");
  const Recovery r = recover_output(partial, recovered);
  EXPECT_EQ(r.survey.complete_records(), (std::vector<long>{0}));
  const auto v = test::read_variables(recovered);
  EXPECT_EQ(v.at("time"), (std::vector<double>{1.0}));
  EXPECT_EQ(v.at("time_bnds"), (std::vector<double>{0.0, 1.0}));
  EXPECT_EQ(v.at("profile_time_bnds"), (std::vector<double>{0.0, 1.0}));
  EXPECT_EQ(v.at("T_variance"), grid_values("T_variance", 0));
}

TEST(AveragedOutputFile, ParaViewSeesTheMomentsAsCellFieldsAndNotTheBounds) {
  ScratchDir dir("averaged");
  const std::string path = dir.file("box.nc");
  write_two_records(path, box_case(path, kMoments));
  write_xdmf(path, xdmf_path_for(path));
  std::ifstream in(xdmf_path_for(path));
  const std::string xml((std::istreambuf_iterator<char>(in)), {});
  for (const char* name : {"T", "w_c", "T_variance", "w_c_T_covariance"})
    EXPECT_NE(xml.find("<Attribute Name=\"" + std::string(name) + "\" AttributeType=\"Scalar\" Center=\"Cell\">"),
              std::string::npos)
        << name;
  EXPECT_EQ(xml.find("time_bnds"), std::string::npos) << xml;
  EXPECT_NE(xml.find("<Time Value=\"2.5\"/>"), std::string::npos);
}

}  // namespace
}  // namespace bouss
