// Handles over the NetCDF C API: see io/netcdf_handles.hpp.
#include "io/netcdf_handles.hpp"

#include "parallel/communicator.hpp"

namespace bouss::nc {

void check(int status, const std::string& what) {
  if (status != NC_NOERR) throw Error(status, what + ": " + nc_strerror(status));
}

std::string Dim::getName() const {
  char name[NC_MAX_NAME + 1] = {};
  check(nc_inq_dimname(ncid_, id_, name), "dimension name");
  return name;
}

std::size_t Dim::getSize() const {
  std::size_t n = 0;
  check(nc_inq_dimlen(ncid_, id_, &n), "dimension size");
  return n;
}

bool Dim::isUnlimited() const {
  int count = 0;
  check(nc_inq_unlimdims(ncid_, &count, nullptr), "unlimited dimensions");
  std::vector<int> ids(std::size_t(count > 0 ? count : 0));
  if (count > 0) check(nc_inq_unlimdims(ncid_, &count, ids.data()), "unlimited dimensions");
  for (const int id : ids)
    if (id == id_) return true;
  return false;
}

nc_type Att::getType() const {
  nc_type t = NC_NAT;
  check(nc_inq_atttype(ncid_, varid_, name_.c_str(), &t), "attribute " + name_);
  return t;
}

std::size_t Att::getAttLength() const {
  std::size_t n = 0;
  check(nc_inq_attlen(ncid_, varid_, name_.c_str(), &n), "attribute " + name_);
  return n;
}

void Att::getValues(double* values) const {
  check(nc_get_att_double(ncid_, varid_, name_.c_str(), values), "attribute " + name_);
}

void Att::getValues(long long* values) const {
  check(nc_get_att_longlong(ncid_, varid_, name_.c_str(), values), "attribute " + name_);
}

void Att::getValues(unsigned long long* values) const {
  check(nc_get_att_ulonglong(ncid_, varid_, name_.c_str(), values), "attribute " + name_);
}

void Att::getValues(std::string& text) const {
  text.assign(getAttLength(), '\0');
  if (!text.empty()) check(nc_get_att_text(ncid_, varid_, name_.c_str(), &text[0]), "attribute " + name_);
}

void Attributes::putAtt(const std::string& name, const std::string& text) const {
  check(nc_put_att_text(ncid_, varid_, name.c_str(), text.size(), text.data()), "attribute " + name);
}

void Attributes::putAtt(const std::string& name, nc_type type, double value) const {
  check(nc_put_att_double(ncid_, varid_, name.c_str(), type, 1, &value), "attribute " + name);
}

void Attributes::putAtt(const std::string& name, nc_type type, int value) const {
  check(nc_put_att_int(ncid_, varid_, name.c_str(), type, 1, &value), "attribute " + name);
}

void Attributes::putAtt(const std::string& name, nc_type type, long long value) const {
  check(nc_put_att_longlong(ncid_, varid_, name.c_str(), type, 1, &value), "attribute " + name);
}

void Attributes::putAtt(const std::string& name, nc_type type, std::size_t n, const double* values) const {
  check(nc_put_att_double(ncid_, varid_, name.c_str(), type, n, values), "attribute " + name);
}

void Attributes::putAtt(const std::string& name, nc_type type, std::size_t n, const long long* values) const {
  check(nc_put_att_longlong(ncid_, varid_, name.c_str(), type, n, values), "attribute " + name);
}

void Attributes::putAtt(const std::string& name, nc_type type, std::size_t n, const unsigned long long* values) const {
  check(nc_put_att_ulonglong(ncid_, varid_, name.c_str(), type, n, values), "attribute " + name);
}

std::multimap<std::string, Att> Attributes::getAtts() const {
  int count = 0;
  if (varid_ == NC_GLOBAL)
    check(nc_inq_natts(ncid_, &count), "attributes");
  else
    check(nc_inq_varnatts(ncid_, varid_, &count), "attributes");
  std::multimap<std::string, Att> atts;
  for (int i = 0; i < count; ++i) {
    char name[NC_MAX_NAME + 1] = {};
    check(nc_inq_attname(ncid_, varid_, i, name), "attribute name");
    atts.emplace(name, Att(ncid_, varid_, name));
  }
  return atts;
}

bool Attributes::hasAtt(const std::string& name) const {
  int id = -1;
  return nc_inq_attid(ncid_, varid_, name.c_str(), &id) == NC_NOERR;
}

Att Attributes::getAtt(const std::string& name) const {
  int id = -1;
  check(nc_inq_attid(ncid_, varid_, name.c_str(), &id), "attribute " + name);
  return Att(ncid_, varid_, name);
}

std::string Var::getName() const {
  char name[NC_MAX_NAME + 1] = {};
  check(nc_inq_varname(ncid_, varid_, name), "variable name");
  return name;
}

nc_type Var::getType() const {
  nc_type t = NC_NAT;
  check(nc_inq_vartype(ncid_, varid_, &t), "variable " + getName());
  return t;
}

std::vector<Dim> Var::getDims() const {
  int n = 0;
  check(nc_inq_varndims(ncid_, varid_, &n), "variable " + getName());
  std::vector<int> ids(std::size_t(n > 0 ? n : 0));
  if (n > 0) check(nc_inq_vardimid(ncid_, varid_, ids.data()), "variable " + getName());
  std::vector<Dim> dims;
  for (const int id : ids) dims.emplace_back(ncid_, id);
  return dims;
}

void Var::setChunking(const std::vector<std::size_t>& chunk) const {
  check(nc_def_var_chunking(ncid_, varid_, chunk.empty() ? NC_CONTIGUOUS : NC_CHUNKED, chunk.empty() ? nullptr : chunk.data()),
        "chunks of " + getName());
}

std::vector<std::size_t> Var::getChunking(bool* chunked) const {
  std::vector<std::size_t> chunk(getDims().size());
  int storage = 0;
  check(nc_inq_var_chunking(ncid_, varid_, &storage, chunk.data()), "chunks of " + getName());
  if (chunked) *chunked = storage == NC_CHUNKED;
  return chunk;
}

void Var::setChecksum() const {
  check(nc_def_var_fletcher32(ncid_, varid_, NC_FLETCHER32), "checksum of " + getName());
}

void Var::setFill(double value) const {
  check(nc_def_var_fill(ncid_, varid_, 0, &value), "fill value of " + getName());
}

void Var::setNoFill() const { check(nc_def_var_fill(ncid_, varid_, 1, nullptr), "fill of " + getName()); }

void Var::putVar(const double* values) const {
  check(nc_put_var_double(ncid_, varid_, values), "cannot write " + getName());
}

void Var::putVar(const std::vector<std::size_t>& start, const std::vector<std::size_t>& count,
                 const double* values) const {
  check(nc_put_vara_double(ncid_, varid_, start.data(), count.data(), values), "cannot write " + getName());
}

void Var::getVar(double* values) const { check(nc_get_var_double(ncid_, varid_, values), "cannot read " + getName()); }

void Var::getVar(const std::vector<std::size_t>& start, const std::vector<std::size_t>& count, double* values) const {
  check(nc_get_vara_double(ncid_, varid_, start.data(), count.data(), values), "cannot read " + getName());
}

Dim Group::addDim(const std::string& name, std::size_t size) const {
  int id = -1;
  check(nc_def_dim(ncid_, name.c_str(), size, &id), "dimension " + name);
  return Dim(ncid_, id);
}

Var Group::addVar(const std::string& name, nc_type type, const Dim& dim) const {
  return addVar(name, type, std::vector<Dim>{dim});
}

Var Group::addVar(const std::string& name, nc_type type, const std::vector<Dim>& dims) const {
  std::vector<int> ids;
  for (const Dim& d : dims) ids.push_back(d.getId());
  int id = -1;
  check(nc_def_var(ncid_, name.c_str(), type, int(ids.size()), ids.data(), &id), "variable " + name);
  return Var(ncid_, id);
}

Dim Group::getDim(const std::string& name) const {
  int id = -1;
  if (nc_inq_dimid(ncid_, name.c_str(), &id) != NC_NOERR) return Dim();
  return Dim(ncid_, id);
}

Var Group::getVar(const std::string& name) const {
  int id = -1;
  if (nc_inq_varid(ncid_, name.c_str(), &id) != NC_NOERR) return Var();
  return Var(ncid_, id);
}

ReadFile::ReadFile(const std::string& path) {
  int id = -1;
  check(nc_open(path.c_str(), NC_NOWRITE, &id), "cannot open " + path);
  ncid_ = id;
}

ReadFile::~ReadFile() {
  if (ncid_ >= 0) nc_close(ncid_);
}

std::string type_name(nc_type type) {
  switch (type) {
    case NC_BYTE: return "byte";
    case NC_CHAR: return "char";
    case NC_SHORT: return "short";
    case NC_INT: return "int";
    case NC_FLOAT: return "float";
    case NC_DOUBLE: return "double";
    case NC_UBYTE: return "ubyte";
    case NC_USHORT: return "ushort";
    case NC_UINT: return "uint";
    case NC_INT64: return "int64";
    case NC_UINT64: return "uint64";
    case NC_STRING: return "string";
    default: return "type " + std::to_string(type);
  }
}

}  // namespace bouss::nc

namespace bouss {

bool ranks_write_one_file(const Communicator& ranks) {
#ifdef BOUSS_HAVE_PARALLEL_NETCDF
  return !ranks.alone() && ranks.mpi_comm() && ranks.threads_multiple();
#else
  (void)ranks;
  return false;
#endif
}

}  // namespace bouss
