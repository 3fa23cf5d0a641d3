// The diagnostics series of an output file: see io/series_reader.hpp.
#include "io/series_reader.hpp"

#include <netcdf.h>

#include <cmath>
#include <stdexcept>

namespace bouss {
namespace {

constexpr const char* series_dimension = "diagnostic_time";

std::string text_attribute(int ncid, int var, const char* name) {
  size_t len = 0;
  nc_type type = NC_NAT;
  if (nc_inq_att(ncid, var, name, &type, &len) != NC_NOERR || type != NC_CHAR) return "";
  std::string s(len, '\0');
  if (nc_get_att_text(ncid, var, name, s.data()) != NC_NOERR) return "";
  while (!s.empty() && s.back() == '\0') s.pop_back();
  return s;
}

// A variable's values as double, its fill value (or NetCDF's default) as NaN.
std::vector<double> read_values(int ncid, int var, size_t n) {
  std::vector<double> v(n);
  if (n > 0 && nc_get_var_double(ncid, var, v.data()) != NC_NOERR) throw std::runtime_error("does not read");
  double fill = NC_FILL_DOUBLE;
  int no_fill = 0;
  nc_type type = NC_NAT;
  nc_inq_vartype(ncid, var, &type);
  if (type == NC_FLOAT) {
    float f = NC_FILL_FLOAT;
    if (nc_inq_var_fill(ncid, var, &no_fill, &f) == NC_NOERR) fill = f;
  } else {
    nc_inq_var_fill(ncid, var, &no_fill, &fill);
  }
  for (double& x : v)
    if (x == fill) x = NAN;
  return v;
}

}  // namespace

SeriesFile read_series(const std::string& path) {
  int ncid = -1;
  if (const int e = nc_open(path.c_str(), NC_NOWRITE, &ncid); e != NC_NOERR)
    throw std::runtime_error(path + ": does not open as NetCDF (" + nc_strerror(e) + ")");
  SeriesFile out;
  try {
    int dim = -1;
    if (nc_inq_dimid(ncid, series_dimension, &dim) != NC_NOERR)
      throw std::runtime_error(path + ": holds no diagnostics series (no dimension diagnostic_time: a file of bouss run "
                                      "with \"diagnostics\": true)");
    size_t n = 0;
    nc_inq_dimlen(ncid, dim, &n);
    int nvars = 0;
    nc_inq_nvars(ncid, &nvars);
    for (int v = 0; v < nvars; ++v) {
      char name[NC_MAX_NAME + 1] = {};
      int ndims = 0, dims[NC_MAX_VAR_DIMS];
      nc_type type = NC_NAT;
      if (nc_inq_var(ncid, v, name, &type, &ndims, dims, nullptr) != NC_NOERR || ndims != 1 || dims[0] != dim) continue;
      if (type != NC_DOUBLE && type != NC_FLOAT && type != NC_INT) continue;
      std::vector<double> values;
      try {
        values = read_values(ncid, v, n);
      } catch (const std::exception&) {
        throw std::runtime_error(path + ": the series variable " + name + " does not read");
      }
      if (std::string(name) == series_dimension) {
        out.time = std::move(values);
        out.time_units = text_attribute(ncid, v, "units");
        continue;
      }
      out.variables.push_back({name, text_attribute(ncid, v, "long_name"), text_attribute(ncid, v, "units"),
                               std::move(values)});
    }
    if (out.time.size() != n) throw std::runtime_error(path + ": holds no diagnostic_time coordinate");
    // A killed run's file may end in records whose time was never written (fill values).
    std::size_t complete = 0;
    while (complete < n && std::isfinite(out.time[complete])) ++complete;
    out.time.resize(complete);
    for (SeriesVariable& v : out.variables) v.values.resize(complete);
  } catch (...) {
    nc_close(ncid);
    throw;
  }
  nc_close(ncid);
  return out;
}

}  // namespace bouss
