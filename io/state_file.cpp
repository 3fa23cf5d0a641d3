#include "io/state_file.hpp"

#include <netcdf.h>

#include <cmath>
#include <cstring>

#include "config/reference_profile.hpp"
#include "io/checkpoint.hpp"
#include "io/netcdf_attributes.hpp"

namespace bouss {

namespace {

[[noreturn]] void refuse(const std::string& path, const std::string& why) {
  throw CaseError(path + ": " + why);
}

struct Handle {
  int id = -1;
  ~Handle() {
    if (id >= 0) nc_close(id);
  }
};

bool has_attribute(int ncid, const char* name) { return nc_inq_att(ncid, NC_GLOBAL, name, nullptr, nullptr) == NC_NOERR; }

// One record of a field on (time, z, y, x), in double.
std::vector<double> read_record(const std::string& path, int ncid, const char* name, long record) {
  int var = -1;
  if (nc_inq_varid(ncid, name, &var) != NC_NOERR)
    refuse(path, std::string("has no field ") + name + " (a state needs T, u, v and w: write them in the stream "
                                                       "the run starts from)");
  int ndims = 0, dims[NC_MAX_VAR_DIMS];
  nc_inq_var(ncid, var, nullptr, nullptr, &ndims, dims, nullptr);
  if (ndims != 4) refuse(path, std::string("field ") + name + " is not on (time, z, y, x)");
  std::size_t start[4] = {std::size_t(record), 0, 0, 0}, count[4] = {1, 0, 0, 0};
  for (int d = 1; d < 4; ++d) nc_inq_dimlen(ncid, dims[d], &count[d]);
  std::vector<double> v(count[1] * count[2] * count[3]);
  if (const int status = nc_get_vara_double(ncid, var, start, count, v.data()); status != NC_NOERR)
    refuse(path, std::string("cannot read ") + name + " of record " + std::to_string(record) + ": " + nc_strerror(status));
  // A killed run's last record may hold fill values where it was never written (io/record_check.hpp).
  // (Its _FillValue where it has one, else NetCDF's default.)
  nc_type type = NC_DOUBLE;
  nc_inq_vartype(ncid, var, &type);
  double fill = type == NC_FLOAT ? double(NC_FILL_FLOAT) : NC_FILL_DOUBLE;
  int attributes = 0;
  nc_inq_varnatts(ncid, var, &attributes);
  for (int i = 0; i < attributes; ++i) {
    char att[NC_MAX_NAME + 1];
    if (nc_inq_attname(ncid, var, i, att) == NC_NOERR && std::strcmp(att, "_FillValue") == 0)
      nc_get_att_double(ncid, var, att, &fill);
  }
  for (const double x : v)
    if (x == fill || !std::isfinite(x))
      refuse(path, "record " + std::to_string(record) + " is not complete (" + name + " holds " +
                       (x == fill ? "fill values" : "NaN or Inf") +
                       "): a killed run's last record; take an earlier one (\"record\") or run bouss recover on the file");
  return v;
}

StateFile read_checkpoint_state(const std::string& path) {
  StateFile s;
  s.path = path;
  Checkpoint ck;
  try {
    ck = read_checkpoint(path);
  } catch (const std::exception& e) {
    refuse(path, e.what());
  }
  s.source = parse_case(ck.case_json, path + " (its case)");
  s.time = ck.time;
  for (CheckpointArray& a : ck.arrays) {
    if (a.name == "u") s.u = std::move(a.values);
    if (a.name == "v") s.v = std::move(a.values);
    if (a.name == "w") s.w = std::move(a.values);
    if (a.name == "theta") s.T = std::move(a.values);
  }
  if (s.T.empty() || s.u.empty() || s.v.empty() || s.w.empty()) refuse(path, "lacks theta, u, v or w");
  // T = theta + T_ref(z) of the checkpoint's own case, on its cell centres.
  const Case& c = s.source;
  const ReferenceProfile ref = reference_profile(c);
  const std::size_t level = std::size_t(c.n[0]) * c.n[1];
  for (int k = 0; k < c.n[2]; ++k) {
    const double z = c.centre(2, k);
    for (std::size_t p = 0; p < level; ++p) s.T[std::size_t(k) * level + p] += ref.at(z);
  }
  return s;
}

}  // namespace

StateFile read_state_file(const std::string& path, long record) {
  Handle nc;
  if (const int status = nc_open(path.c_str(), NC_NOWRITE, &nc.id); status != NC_NOERR)
    refuse(path, std::string("cannot be read as a NetCDF file: ") + nc_strerror(status));
  if (has_attribute(nc.id, "bouss_checkpoint_format")) {
    if (record != 0 && record != -1) refuse(path, "is a checkpoint: it holds one state (record 0 or -1)");
    return read_checkpoint_state(path);
  }
  if (!has_attribute(nc.id, "case_json")) refuse(path, "is not a bouss output file or checkpoint (no case_json attribute)");
  if (has_attribute(nc.id, "region"))
    refuse(path, "holds a plane (" + text_attribute(nc.id, NC_GLOBAL, "region") + "), not the whole domain's state");
  if (has_attribute(nc.id, "averaging")) refuse(path, "holds time averages, not a state: start from a file of snapshots");
  StateFile s;
  s.path = path;
  s.source = parse_case(text_attribute(nc.id, NC_GLOBAL, "case_json"), path + " (its case)");
  int time_dim = -1, time_var = -1;
  if (nc_inq_dimid(nc.id, "time", &time_dim) != NC_NOERR || nc_inq_varid(nc.id, "time", &time_var) != NC_NOERR)
    refuse(path, "has no snapshot records (no time dimension): it holds profiles or a series alone");
  std::size_t records = 0;
  nc_inq_dimlen(nc.id, time_dim, &records);
  s.records = long(records);
  const long r = record < 0 ? long(records) + record : record;
  if (r < 0 || r >= long(records))
    refuse(path, "has " + std::to_string(records) + " records: record " + std::to_string(record) + " is not one of them");
  s.record = r;
  const std::size_t at = std::size_t(r);
  if (nc_get_var1_double(nc.id, time_var, &at, &s.time) != NC_NOERR || !std::isfinite(s.time) || s.time == NC_FILL_DOUBLE)
    refuse(path, "record " + std::to_string(r) + " is not complete (its time was never written): a killed run's last "
                 "record; take an earlier one (\"record\") or run bouss recover on the file");
  s.T = read_record(path, nc.id, "T", r);
  s.u = read_record(path, nc.id, "u", r);
  s.v = read_record(path, nc.id, "v", r);
  s.w = read_record(path, nc.id, "w", r);
  int var = -1;
  nc_type type = NC_DOUBLE;
  if (nc_inq_varid(nc.id, "T", &var) == NC_NOERR) nc_inq_vartype(nc.id, var, &type);
  s.single = type == NC_FLOAT;
  // Quantized (output.compression.significant_digits): NetCDF's attribute on the variable.
  int attributes = 0;
  nc_inq_varnatts(nc.id, var, &attributes);
  for (int i = 0; i < attributes; ++i) {
    char name[NC_MAX_NAME + 1];
    int digits = 0;
    if (nc_inq_attname(nc.id, var, i, name) == NC_NOERR && std::strncmp(name, "_Quantize", 9) == 0 &&
        nc_get_att_int(nc.id, var, name, &digits) == NC_NOERR)
      s.significant_digits = digits;
  }
  return s;
}

}  // namespace bouss
