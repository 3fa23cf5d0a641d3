// Reading NetCDF files back in tests: every variable as doubles, and a bit-for-bit comparison.
#pragma once

#include <netcdf.h>

#include <cstdint>
#include <cstring>
#include <map>
#include <set>
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


// "" when both files have the same dimensions, the same variables (type, dimensions) and the
// same attributes (global and every variable's: type, length and bytes), but the global
// attributes named in `ignored`; else what differs first. The values: read_variables.
inline std::string layout_difference(const std::string& a, const std::string& b, const std::set<std::string>& ignored) {
  struct Open {
    int id = -1;
    explicit Open(const std::string& p) {
      if (nc_open(p.c_str(), NC_NOWRITE, &id) != NC_NOERR) id = -1;
    }
    ~Open() {
      if (id >= 0) nc_close(id);
    }
  } fa(a), fb(b);
  if (fa.id < 0 || fb.id < 0) return "cannot open " + (fa.id < 0 ? a : b);
  // Everything of one file, one line per item, in a canonical order.
  const auto describe = [&](int nc) {
    std::map<std::string, std::string> items;
    const auto attributes = [&](int var, const std::string& owner) {
      int natts = 0;
      nc_inq_varnatts(nc, var, &natts);
      for (int i = 0; i < natts; ++i) {
        char name[NC_MAX_NAME + 1] = {};
        nc_inq_attname(nc, var, i, name);
        if (var == NC_GLOBAL && ignored.count(name)) continue;
        nc_type type = 0;
        std::size_t len = 0;
        nc_inq_att(nc, var, name, &type, &len);
        std::size_t size = 0;
        nc_inq_type(nc, type, nullptr, &size);
        std::string bytes(len * size, '\0');
        if (type != NC_STRING) nc_get_att(nc, var, name, bytes.data());
        items[owner + ":" + name] = std::to_string(type) + "/" + std::to_string(len) + "/" + bytes;
      }
    };
    attributes(NC_GLOBAL, "");
    int ndims = 0, nvars = 0;
    nc_inq_ndims(nc, &ndims);
    for (int d = 0; d < ndims; ++d) {
      char name[NC_MAX_NAME + 1] = {};
      std::size_t len = 0;
      nc_inq_dim(nc, d, name, &len);
      items[std::string("dimension ") + name] = std::to_string(len);
    }
    nc_inq_nvars(nc, &nvars);
    for (int v = 0; v < nvars; ++v) {
      char name[NC_MAX_NAME + 1] = {};
      nc_type type = 0;
      int vd = 0, dims[NC_MAX_VAR_DIMS];
      nc_inq_var(nc, v, name, &type, &vd, dims, nullptr);
      std::string on = std::to_string(type) + " (";
      for (int d = 0; d < vd; ++d) {
        char dn[NC_MAX_NAME + 1] = {};
        nc_inq_dimname(nc, dims[d], dn);
        on += std::string(d ? ", " : "") + dn;
      }
      items[std::string("variable ") + name] = on + ")";
      attributes(v, name);
    }
    return items;
  };
  const auto ia = describe(fa.id), ib = describe(fb.id);
  for (const auto& [key, value] : ia) {
    const auto it = ib.find(key);
    if (it == ib.end()) return key + " missing from " + b;
    if (it->second != value) return key + " differs";
  }
  for (const auto& [key, value] : ib)
    if (!ia.count(key)) return key + " missing from " + a;
  return "";
}

}  // namespace bouss::test
