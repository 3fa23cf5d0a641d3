// The diagnostics series of an output file (docs/output.md, "The diagnostics series"): every
// variable whose one dimension is diagnostic_time, with the times (`bouss stats`).
#pragma once

#include <string>
#include <vector>

namespace bouss {

struct SeriesVariable {
  std::string name, long_name, units;
  std::vector<double> values;  // fill values read as NaN
};

struct SeriesFile {
  // diagnostic_time: the complete records alone (io/record_check.hpp: a killed run's
  // unfinished flush is left out)
  std::vector<double> time;
  std::string time_units;
  std::vector<SeriesVariable> variables;  // in the file's order
};

// Throws std::runtime_error naming the file when it does not open as NetCDF or holds no
// diagnostics series.
SeriesFile read_series(const std::string& path);

}  // namespace bouss
