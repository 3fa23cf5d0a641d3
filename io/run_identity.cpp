#include "io/run_identity.hpp"

#include <netcdf.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <random>
#include <stdexcept>

namespace bouss {

std::string new_run_id() {
  std::random_device device;
  std::seed_seq seed{device(), device(), device(), device(),
                     unsigned(std::chrono::steady_clock::now().time_since_epoch().count()), unsigned(::getpid())};
  std::mt19937_64 mix(seed);
  char text[33];
  std::snprintf(text, sizeof text, "%016llx%016llx", static_cast<unsigned long long>(mix()),
                static_cast<unsigned long long>(mix()));
  return text;
}

std::string file_text_attribute(const std::string& path, const std::string& name) {
  int ncid = -1;
  const int status = nc_open(path.c_str(), NC_NOWRITE, &ncid);
  if (status != NC_NOERR) throw std::runtime_error("cannot read " + path + ": " + nc_strerror(status));
  std::string value;
  size_t length = 0;
  nc_type type = NC_NAT;
  if (nc_inq_att(ncid, NC_GLOBAL, name.c_str(), &type, &length) == NC_NOERR && type == NC_CHAR) {
    value.assign(length, '\0');
    if (length > 0 && nc_get_att_text(ncid, NC_GLOBAL, name.c_str(), &value[0]) != NC_NOERR) value.clear();
  }
  nc_close(ncid);
  return value;
}

}  // namespace bouss
