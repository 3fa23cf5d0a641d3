// Which records of an output file are complete: see io/record_check.hpp.
#include "io/record_check.hpp"

#include <netcdf.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <vector>

#include "io/netcdf_attributes.hpp"

namespace bouss {
namespace {

struct RecordVariable {
  int id = -1;
  std::string name;
  nc_type type = NC_NAT;
  std::vector<size_t> shape;  // one record's extent along every dimension after the first
  size_t length = 0;          // of its record dimension
  // A bounds variable (an averaged stream's time_bnds: the one its coordinate's `bounds`
  // attribute names) is judged as a field is but is no field: a copy writes it itself.
  enum Kind { coordinate, field, bounds, scalar } kind = scalar;
  bool seen_value = false;    // a scalar has held a value at an earlier record
  std::vector<unsigned char> fill;
  // A one-dimensional variable's values are read in blocks: records [block_start, +block_n).
  std::vector<unsigned char> block;
  size_t block_start = 0, block_n = 0;
  size_t single_until = 0;  // a block that did not read: its records one at a time
  size_t values() const {
    size_t n = 1;
    for (size_t s : shape) n *= s;
    return n;
  }
  size_t bytes() const { return type == NC_FLOAT ? sizeof(float) : type == NC_DOUBLE ? sizeof(double) : 0; }
};

// The variables whose first dimension is one of `dims`.
std::vector<RecordVariable> record_variables(int ncid, const std::vector<std::string>& dims) {
  std::vector<RecordVariable> out;
  int nvars = 0;
  nc_inq_nvars(ncid, &nvars);
  for (int v = 0; v < nvars; ++v) {
    char name[NC_MAX_NAME + 1] = {};
    int ndims = 0;
    int dimids[NC_MAX_VAR_DIMS];
    RecordVariable rv;
    if (nc_inq_var(ncid, v, name, &rv.type, &ndims, dimids, nullptr) != NC_NOERR || ndims < 1) continue;
    char first[NC_MAX_NAME + 1] = {};
    nc_inq_dimname(ncid, dimids[0], first);
    if (std::find(dims.begin(), dims.end(), first) == dims.end()) continue;
    rv.id = v;
    rv.name = name;
    nc_inq_dimlen(ncid, dimids[0], &rv.length);
    for (int d = 1; d < ndims; ++d) {
      size_t len = 0;
      nc_inq_dimlen(ncid, dimids[d], &len);
      rv.shape.push_back(len);
    }
    rv.kind = rv.name == first ? RecordVariable::coordinate : ndims > 1 ? RecordVariable::field : RecordVariable::scalar;
    if (rv.bytes() > 0) {
      rv.fill.resize(rv.bytes());
      int no_fill = 0;
      if (nc_inq_var_fill(ncid, v, &no_fill, rv.fill.data()) != NC_NOERR || no_fill) rv.fill.clear();
    }
    out.push_back(std::move(rv));
  }
  for (const RecordVariable& c : out) {
    if (c.kind != RecordVariable::coordinate) continue;
    const std::string name = text_attribute(ncid, c.id, "bounds");
    for (RecordVariable& b : out)
      if (!name.empty() && b.name == name && b.kind == RecordVariable::field) b.kind = RecordVariable::bounds;
  }
  return out;
}

long dimension_length(int ncid, const char* name) {
  int id = -1;
  size_t len = 0;
  if (nc_inq_dimid(ncid, name, &id) != NC_NOERR || nc_inq_dimlen(ncid, id, &len) != NC_NOERR) return -1;
  return long(len);
}

// Whether any of the n values (of `Word`'s size) has the fill value's bits: compared as
// whole words, a record of a field is scanned at memory speed.
template <class Word>
bool holds_fill_word(const unsigned char* data, const unsigned char* fill, size_t n) {
  Word f, x;
  std::memcpy(&f, fill, sizeof f);
  bool found = false;
  for (size_t i = 0; i < n; ++i) {
    std::memcpy(&x, data + i * sizeof x, sizeof x);
    found |= x == f;
  }
  return found;
}

bool holds_fill(const RecordVariable& v, const std::vector<unsigned char>& data, size_t n) {
  if (v.fill.empty()) return false;
  if (v.bytes() == sizeof(std::uint64_t)) return holds_fill_word<std::uint64_t>(data.data(), v.fill.data(), n);
  return holds_fill_word<std::uint32_t>(data.data(), v.fill.data(), n);
}

std::string join(const std::vector<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

// What is wrong with record `r` of `vars` (all on one record dimension), "" when nothing.
// The one check of a record, for the snapshot records and the series alike.
std::string record_damage(int ncid, std::vector<RecordVariable>& vars, long r, std::vector<unsigned char>& buffer,
                          const RecordVisitor& visit) {
  std::map<std::string, std::vector<std::string>> unreadable;  // reason -> variables
  std::vector<std::string> missing, fills, no_time;
  for (RecordVariable& v : vars) {
    if (size_t(r) >= v.length) {
      missing.push_back(v.name);
      continue;
    }
    std::vector<size_t> start(1 + v.shape.size(), 0), count(1, 1);
    start[0] = size_t(r);
    count.insert(count.end(), v.shape.begin(), v.shape.end());
    const size_t n = v.values();
    if (v.bytes() == 0) {  // a type the writer does not use: read, not judged
      continue;
    }
    buffer.resize(n * v.bytes());
    int status = NC_NOERR;
    if (v.shape.empty()) {
      // One value a record: from a block of up to kBlock records (one call for many records
      // of a long series), or alone when the block does not read (a damaged record in it).
      constexpr size_t kBlock = 65536;
      if (size_t(r) >= v.single_until && (size_t(r) < v.block_start || size_t(r) >= v.block_start + v.block_n)) {
        v.block_start = size_t(r);
        v.block_n = std::min(kBlock, v.length - size_t(r));
        v.block.resize(v.block_n * v.bytes());
        if (nc_get_vara(ncid, v.id, &v.block_start, &v.block_n, v.block.data()) != NC_NOERR) {
          v.single_until = v.block_start + v.block_n;
          v.block_n = 0;
        }
      }
      if (v.block_n > 0)
        std::memcpy(buffer.data(), v.block.data() + (size_t(r) - v.block_start) * v.bytes(), v.bytes());
      else
        status = nc_get_vara(ncid, v.id, start.data(), count.data(), buffer.data());
    } else {
      status = nc_get_vara(ncid, v.id, start.data(), count.data(), buffer.data());
    }
    if (status != NC_NOERR) {
      unreadable[nc_strerror(status)].push_back(v.name);
      continue;
    }
    if (visit && v.kind == RecordVariable::field) visit(v.name, r, buffer.data());
    const bool fill = holds_fill(v, buffer, n);
    switch (v.kind) {
      case RecordVariable::coordinate:
        if (fill) no_time.push_back(v.name);
        break;
      case RecordVariable::field:
      case RecordVariable::bounds:
        if (fill) fills.push_back(v.name);
        break;
      case RecordVariable::scalar:
        if (fill && v.seen_value) fills.push_back(v.name);
        v.seen_value = v.seen_value || !fill;
        break;
    }
  }
  std::vector<std::string> parts;
  for (const auto& [reason, names] : unreadable)
    parts.push_back(join(names) + (names.size() > 1 ? " do" : " does") + " not read (" + reason + ")");
  if (!missing.empty()) parts.push_back(join(missing) + (missing.size() > 1 ? " have" : " has") + " no such record");
  if (!no_time.empty()) parts.push_back("its " + join(no_time) + " is a fill value");
  if (!fills.empty()) parts.push_back(join(fills) + (fills.size() > 1 ? " hold" : " holds") + " fill values");
  std::string why;
  for (const auto& p : parts) why += (why.empty() ? "" : "; ") + p;
  return why;
}

std::vector<DamagedRecord> survey(int ncid, const std::vector<std::string>& dims, long count,
                                  const RecordVisitor& visit) {
  std::vector<RecordVariable> vars = record_variables(ncid, dims);
  std::vector<DamagedRecord> out;
  std::vector<unsigned char> buffer;
  if (vars.empty()) {
    for (long r = 0; r < count; ++r) out.push_back({r, "the file has no " + join(dims) + " records"});
    return out;
  }
  for (long r = 0; r < count; ++r) {
    std::string why = record_damage(ncid, vars, r, buffer, visit);
    if (!why.empty()) out.push_back({r, why});
  }
  return out;
}

std::vector<long> complete(long n, const std::vector<DamagedRecord>& damaged) {
  std::vector<long> out;
  size_t d = 0;
  for (long r = 0; r < n; ++r) {
    while (d < damaged.size() && damaged[d].index < r) ++d;
    if (d < damaged.size() && damaged[d].index == r) continue;
    out.push_back(r);
  }
  return out;
}

}  // namespace

std::vector<long> RecordSurvey::complete_records() const { return complete(records, damaged); }
std::vector<long> RecordSurvey::complete_series_records() const { return complete(series_records, damaged_series); }

RecordSurvey survey_records(int ncid, long records, long series_records, const RecordVisitor& visit) {
  RecordSurvey s;
  const long time = dimension_length(ncid, "time"), profile_time = dimension_length(ncid, "profile_time");
  s.records = records >= 0 ? records : std::max<long>(0, std::max(time, profile_time));
  s.series_records = series_records >= 0 ? series_records : std::max<long>(0, dimension_length(ncid, "diagnostic_time"));
  s.damaged = survey(ncid, {"time", "profile_time"}, s.records, visit);
  s.damaged_series = survey(ncid, {"diagnostic_time"}, s.series_records, {});
  return s;
}

std::string describe(const DamagedRecord& d, const std::string& kind) {
  const bool fills_only = d.why.find("not read") == std::string::npos && d.why.find("no such record") == std::string::npos;
  return kind + " " + std::to_string(d.index) + ": " + d.why + (fills_only ? " (the run was killed while writing it)" : "");
}

}  // namespace bouss
