// Reading NetCDF files back in tests: every variable as doubles, and a bit-for-bit comparison.
#pragma once

#include <netcdf.h>

#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <vector>

namespace bouss::test {

// Every variable of a NetCDF file, as doubles (empty map when the file cannot be opened).
inline std::map<std::string, std::vector<double>> read_variables(const std::string& path) {
  std::map<std::string, std::vector<double>> out;
  int nc = 0;
  if (nc_open(path.c_str(), NC_NOWRITE, &nc) != NC_NOERR) return out;
  int nvars = 0;
  nc_inq_nvars(nc, &nvars);
  for (int v = 0; v < nvars; ++v) {
    char name[NC_MAX_NAME + 1];
    int ndims = 0, dims[NC_MAX_VAR_DIMS];
    nc_inq_var(nc, v, name, nullptr, &ndims, dims, nullptr);
    std::size_t count = 1;
    for (int d = 0; d < ndims; ++d) {
      std::size_t len = 0;
      nc_inq_dimlen(nc, dims[d], &len);
      count *= len;
    }
    std::vector<double> values(count);
    if (count) nc_get_var_double(nc, v, values.data());
    out[name] = std::move(values);
  }
  nc_close(nc);
  return out;
}

// "" when both files hold the same variables with the same bits, else what differs first.
inline std::string bitwise_difference(const std::string& a, const std::string& b) {
  const auto va = read_variables(a), vb = read_variables(b);
  if (va.empty()) return "cannot read " + a;
  if (vb.empty()) return "cannot read " + b;
  for (const auto& [name, values] : va) {
    auto it = vb.find(name);
    if (it == vb.end()) return "variable " + name + " missing from " + b;
    if (it->second.size() != values.size())
      return "variable " + name + ": " + std::to_string(values.size()) + " values in " + a + ", " +
             std::to_string(it->second.size()) + " in " + b;
    for (std::size_t i = 0; i < values.size(); ++i) {
      std::uint64_t x, y;
      std::memcpy(&x, &values[i], 8);
      std::memcpy(&y, &it->second[i], 8);
      if (x != y)
        return "variable " + name + "[" + std::to_string(i) + "]: " + std::to_string(values[i]) + " vs " +
               std::to_string(it->second[i]);
    }
  }
  for (const auto& [name, values] : vb)
    if (!va.count(name)) return "variable " + name + " missing from " + a;
  return "";
}

}  // namespace bouss::test
