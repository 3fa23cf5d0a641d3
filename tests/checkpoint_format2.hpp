// Checkpoints in format 2, as builds before format 3 wrote them, for the tests that check
// that they still read and restart.
#pragma once

#include <gtest/gtest.h>
#include <netcdf.h>

#include <regex>
#include <string>
#include <vector>

#include "io/checkpoint.hpp"

namespace bouss::test {

// A checkpoint in format 2 (docs/checkpoint.md, "Format version"), as builds before format 3
// wrote it: HDF5's Fletcher-32 checksum on each chunk, no checksums of bouss's own, no region
// arrays.
inline void write_format_2(const std::string& path, const Checkpoint& c) {
  int ncid = -1;
  ASSERT_EQ(nc_create(path.c_str(), NC_CLOBBER | NC_NETCDF4, &ncid), NC_NOERR);
  const auto text = [&](int varid, const char* name, const std::string& t) {
    ASSERT_EQ(nc_put_att_text(ncid, varid, name, t.size(), t.data()), NC_NOERR);
  };
  const int two = 2;
  ASSERT_EQ(nc_put_att_int(ncid, NC_GLOBAL, "bouss_checkpoint_format", NC_INT, 1, &two), NC_NOERR);
  text(NC_GLOBAL, "bouss_build", c.provenance);
  text(NC_GLOBAL, "case_json", c.case_json);
  text(NC_GLOBAL, "case_source", c.case_source);
  ASSERT_EQ(nc_put_att_double(ncid, NC_GLOBAL, "time", NC_DOUBLE, 1, &c.time), NC_NOERR);
  ASSERT_EQ(nc_put_att_double(ncid, NC_GLOBAL, "last_dt", NC_DOUBLE, 1, &c.last_dt), NC_NOERR);
  const long long counts[3] = {c.step, c.output_records, c.series_records};
  const char* count_names[3] = {"step", "output_records", "series_records"};
  for (int i = 0; i < 3; ++i) ASSERT_EQ(nc_put_att_longlong(ncid, NC_GLOBAL, count_names[i], NC_INT64, 1, &counts[i]), NC_NOERR);
  std::string list;
  for (const auto& arr : c.arrays) list += (list.empty() ? "" : " ") + arr.name;
  text(NC_GLOBAL, "bouss_arrays", list);
  for (const auto& kv : c.state)
    ASSERT_EQ(nc_put_att_double(ncid, NC_GLOBAL, ("state." + kv.first).c_str(), NC_DOUBLE, 1, &kv.second), NC_NOERR);
  for (const auto& kv : c.text) text(NC_GLOBAL, ("text." + kv.first).c_str(), kv.second);
  int dims[2][3];
  const char* names[2][3] = {{"x", "y", "z"}, {"xf", "yf", "zf"}};
  for (int f = 0; f < 2; ++f)
    for (int a = 0; a < 3; ++a) ASSERT_EQ(nc_def_dim(ncid, names[f][a], std::size_t(c.n[a] + f), &dims[f][a]), NC_NOERR);
  std::vector<int> vars;
  for (const auto& arr : c.arrays) {
    int on[3], rank = 3, varid = -1;
    if (arr.stagger == CheckpointArray::flat_array) {
      ASSERT_EQ(nc_def_dim(ncid, (arr.name + "_values").c_str(), arr.values.size(), &on[0]), NC_NOERR);
      rank = 1;
    } else {
      for (int a = 2; a >= 0; --a) on[2 - a] = dims[arr.stagger == a ? 1 : 0][a];
    }
    ASSERT_EQ(nc_def_var(ncid, arr.name.c_str(), NC_DOUBLE, rank, on, &varid), NC_NOERR);
    ASSERT_EQ(nc_def_var_fletcher32(ncid, varid, NC_FLETCHER32), NC_NOERR);
    vars.push_back(varid);
  }
  for (std::size_t i = 0; i < vars.size(); ++i)
    ASSERT_EQ(nc_put_var_double(ncid, vars[i], c.arrays[i].values.data()), NC_NOERR);
  ASSERT_EQ(nc_close(ncid), NC_NOERR);
}


// A format 3 checkpoint's contents as format 2 held them: each stream's time-average sums
// (region arrays average_sumI[.N], then average_profiles[.N]) as one flat array,
// average_sums[.N], each sum over its whole box in turn, then the profiles' moments.
inline Checkpoint as_format_2(const Checkpoint& c) {
  Checkpoint v2 = c;
  v2.arrays.clear();
  std::vector<std::pair<std::string, std::vector<double>>> flat;  // by stream suffix, in order
  const std::regex sum("average_sum[0-9]+(\\.[0-9]+)?"), profiles("average_profiles(\\.[0-9]+)?");
  for (const CheckpointArray& arr : c.arrays) {
    std::smatch m;
    if (!std::regex_match(arr.name, m, sum) && !std::regex_match(arr.name, m, profiles)) {
      v2.arrays.push_back(arr);
      continue;
    }
    const std::string suffix = m[1];
    auto it = flat.begin();
    while (it != flat.end() && it->first != suffix) ++it;
    if (it == flat.end()) it = flat.insert(flat.end(), {suffix, {}});
    it->second.insert(it->second.end(), arr.values.begin(), arr.values.end());
  }
  for (auto& [suffix, values] : flat)
    v2.arrays.push_back({"average_sums" + suffix, CheckpointArray::flat_array, std::move(values), Box{}});
  return v2;
}

}  // namespace bouss::test
