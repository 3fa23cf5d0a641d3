// NetCDF-4 output following CF-1.8: one file per run, an unlimited time dimension,
// staggered C-grid fields on their own coordinates. The file is written under
// FILE.partial and renamed to FILE by close(), so a crash or a full disk never leaves
// a corrupt file under the final name, and an existing FILE survives until then.
#pragma once

#include <array>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "io/case.hpp"

namespace bouss {

// Interior values of one field, C order with x fastest: index = i + nx_f*(j + ny_f*k),
// where (nx_f, ny_f, nz_f) are the field's own extents (n, plus one along its staggered axis).
struct SnapshotField {
  std::string name;            // "T", "u", "v", "w" or "p"
  std::vector<double> values;  // size nx_f*ny_f*nz_f
};

class NetcdfWriter {
 public:
  // Creates FILE.partial with dimensions, coordinates, attributes and the case JSON.
  // Throws std::runtime_error naming the path when it cannot be created.
  NetcdfWriter(const std::string& path, const Case& c);
  ~NetcdfWriter();  // without close(): FILE.partial is removed, FILE untouched
  NetcdfWriter(const NetcdfWriter&) = delete;
  NetcdfWriter& operator=(const NetcdfWriter&) = delete;

  // Appends one record along time. Fields named in the case's output.fields must be given;
  // scalars (e.g. "kinetic_energy", "max_divergence") become variables on (time).
  void write(double time, const std::vector<SnapshotField>& fields,
             const std::map<std::string, double>& scalars);
  // Appends one record to the diagnostics series, a second unlimited dimension
  // `diagnostic_time` (written every few steps, more often than snapshots). Each key
  // becomes a variable on it, with known diagnostics described (Nusselt numbers, ...).
  void write_series(double time, const std::map<std::string, double>& values);
  // Flushes, closes and renames FILE.partial to FILE.
  void close();

  const std::string& path() const { return path_; }
  int records() const { return records_; }
  int series_records() const { return series_records_; }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::string path_;
  int records_ = 0;
  int series_records_ = 0;
};

// Checks before a run that FILE can be written: creates missing parent folders, and
// creates and removes FILE.partial. Throws std::runtime_error with one line naming
// the path and the reason.
void check_output_writable(const std::string& path);

}  // namespace bouss
