// Handles on an open NetCDF file's groups, dimensions, variables and attributes, over the
// NetCDF C API: the subset of NetCDF-C++'s classes that bouss uses, with its names.
//
// Why not NetCDF-C++ itself: it links the serial NetCDF library, and a build with MPI links
// the MPI-parallel one (the same symbols: Debian's libnetcdf_mpi), which cannot share a
// process with it. Every NetCDF call of bouss goes through the C API of the one library the
// build links; these classes only keep the definitions readable. A handle does not own the
// file (the caller opens and closes it, and sees every status): failures throw nc::Error,
// which carries the NetCDF status.
#pragma once

#include <netcdf.h>

#include <cstddef>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace bouss {

class Communicator;

// Whether every rank of `ranks` can write its own part of one NetCDF file at once: a build
// with parallel NetCDF (HDF5 over MPI-IO), several ranks under MPI, and MPI_THREAD_MULTIPLE,
// so that the IO threads' collective calls (on Communicator::io) run beside the time loop's.
// Otherwise rank 0 writes every file alone. Output streams and checkpoints both ask here.
bool ranks_write_one_file(const Communicator& ranks);

}  // namespace bouss

namespace bouss::nc {

// A failed NetCDF call: its status (NetCDF's, or a positive errno) and one line.
class Error : public std::runtime_error {
 public:
  Error(int status, const std::string& what) : std::runtime_error(what), status_(status) {}
  int errorCode() const { return status_; }

 private:
  int status_;
};

// Throws Error(status, "WHAT: nc_strerror(status)") when status is not NC_NOERR.
void check(int status, const std::string& what);

class Dim {
 public:
  Dim() = default;
  Dim(int ncid, int id) : ncid_(ncid), id_(id) {}
  bool isNull() const { return id_ < 0; }
  int getId() const { return id_; }
  std::string getName() const;
  std::size_t getSize() const;
  bool isUnlimited() const;

 private:
  int ncid_ = -1, id_ = -1;
};

// An attribute of a variable, or of the file (varid NC_GLOBAL).
class Att {
 public:
  Att(int ncid, int varid, std::string name) : ncid_(ncid), varid_(varid), name_(std::move(name)) {}
  const std::string& getName() const { return name_; }
  nc_type getType() const;
  std::size_t getAttLength() const;
  // The values converted to double or long long (nc_get_att_double / _longlong).
  void getValues(double* values) const;
  void getValues(long long* values) const;
  void getValues(unsigned long long* values) const;
  // Text, as stored (trailing NULs included).
  void getValues(std::string& text) const;

 private:
  int ncid_, varid_;
  std::string name_;
};

// What variables and the file share: attributes.
class Attributes {
 public:
  Attributes() = default;
  Attributes(int ncid, int varid) : ncid_(ncid), varid_(varid) {}
  void putAtt(const std::string& name, const std::string& text) const;
  void putAtt(const std::string& name, nc_type type, double value) const;
  void putAtt(const std::string& name, nc_type type, int value) const;
  void putAtt(const std::string& name, nc_type type, long long value) const;
  void putAtt(const std::string& name, nc_type type, std::size_t n, const double* values) const;
  void putAtt(const std::string& name, nc_type type, std::size_t n, const long long* values) const;
  void putAtt(const std::string& name, nc_type type, std::size_t n, const unsigned long long* values) const;
  // Every attribute by name.
  std::multimap<std::string, Att> getAtts() const;
  // The attribute `name`; null (no value) when there is none.
  bool hasAtt(const std::string& name) const;
  Att getAtt(const std::string& name) const;

 protected:
  int ncid_ = -1, varid_ = NC_GLOBAL;
};

class Var : public Attributes {
 public:
  Var() { varid_ = -1; }
  Var(int ncid, int id) : Attributes(ncid, id) {}
  bool isNull() const { return varid_ < 0; }
  int getId() const { return varid_; }
  std::string getName() const;
  nc_type getType() const;
  std::vector<Dim> getDims() const;
  // Chunked storage in chunks of `chunk` (file order), or contiguous (chunk empty).
  void setChunking(const std::vector<std::size_t>& chunk) const;
  std::vector<std::size_t> getChunking(bool* chunked) const;
  void setChecksum() const;  // Fletcher-32 on every chunk
  void setFill(double value) const;
  void setNoFill() const;
  void putVar(const double* values) const;
  void putVar(const std::vector<std::size_t>& start, const std::vector<std::size_t>& count, const double* values) const;
  void getVar(double* values) const;
  void getVar(const std::vector<std::size_t>& start, const std::vector<std::size_t>& count, double* values) const;

 private:
  int ncid() const { return ncid_; }
};

class Group : public Attributes {
 public:
  Group() = default;
  explicit Group(int ncid) : Attributes(ncid, NC_GLOBAL) {}
  int getId() const { return ncid_; }
  Dim addDim(const std::string& name, std::size_t size = NC_UNLIMITED) const;
  Var addVar(const std::string& name, nc_type type, const Dim& dim) const;
  Var addVar(const std::string& name, nc_type type, const std::vector<Dim>& dims) const;
  // Null when there is none of that name.
  Dim getDim(const std::string& name) const;
  Var getVar(const std::string& name) const;
};

// A file opened for reading, closed when this goes (tests, readers); throws Error when the
// file cannot be opened.
class ReadFile : public Group {
 public:
  explicit ReadFile(const std::string& path);
  ~ReadFile();
  ReadFile(const ReadFile&) = delete;
  ReadFile& operator=(const ReadFile&) = delete;
};

// The name of a NetCDF type ("double", "float", "int", ...).
std::string type_name(nc_type type);

}  // namespace bouss::nc
