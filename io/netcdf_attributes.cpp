#include "io/netcdf_attributes.hpp"

#include <netcdf.h>

#include <stdexcept>

namespace bouss {

std::string text_attribute(int ncid, int varid, const std::string& name) {
  size_t length = 0;
  nc_type type = NC_NAT;
  if (nc_inq_att(ncid, varid, name.c_str(), &type, &length) != NC_NOERR || type != NC_CHAR) return "";
  std::string value(length, '\0');
  if (length > 0 && nc_get_att_text(ncid, varid, name.c_str(), &value[0]) != NC_NOERR) return "";
  while (!value.empty() && value.back() == '\0') value.pop_back();
  return value;
}

std::string file_text_attribute(const std::string& path, const std::string& name) {
  int ncid = -1;
  const int status = nc_open(path.c_str(), NC_NOWRITE, &ncid);
  if (status != NC_NOERR) throw std::runtime_error("cannot read " + path + ": " + nc_strerror(status));
  const std::string value = text_attribute(ncid, NC_GLOBAL, name);
  nc_close(ncid);
  return value;
}

}  // namespace bouss
