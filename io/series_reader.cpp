// The diagnostics series of an output file: see io/series_reader.hpp.
#include "io/series_reader.hpp"

#include <netcdf.h>

#include <cmath>
#include <stdexcept>
#include <utility>

#include "io/netcdf_attributes.hpp"
#include "io/record_check.hpp"

namespace bouss {
namespace {

constexpr const char* series_dimension = "diagnostic_time";

// The variable's fill value (or NetCDF's default for its type) as a double.
template <class T>
double fill_of(int ncid, int var, T fill) {
  int no_fill = 0;
  nc_inq_var_fill(ncid, var, &no_fill, &fill);
  return double(fill);
}

// A variable's values as double, its fill value as NaN.
std::vector<double> read_values(int ncid, int var, nc_type type, size_t n) {
  std::vector<double> v(n);
  if (n > 0 && nc_get_var_double(ncid, var, v.data()) != NC_NOERR) throw std::runtime_error("does not read");
  const double fill = type == NC_FLOAT ? fill_of<float>(ncid, var, NC_FILL_FLOAT)
                      : type == NC_INT ? fill_of<int>(ncid, var, NC_FILL_INT)
                                       : fill_of<double>(ncid, var, NC_FILL_DOUBLE);
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
        values = read_values(ncid, v, type, n);
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
    // A killed run's file: its complete series records alone, by the check bouss recover and
    // a restart make (io/record_check.hpp).
    const std::vector<long> complete = survey_records(ncid, 0, -1).complete_series_records();
    const auto keep = [&](std::vector<double>& values) {
      std::vector<double> kept;
      for (long r : complete) kept.push_back(values[std::size_t(r)]);
      values = std::move(kept);
    };
    keep(out.time);
    for (SeriesVariable& v : out.variables) keep(v.values);
  } catch (...) {
    nc_close(ncid);
    throw;
  }
  nc_close(ncid);
  return out;
}

}  // namespace bouss
