// The flow state another run left in a file, for a run that starts from it (initial.from:
// config/case.hpp InitialFromFile): one record of a bouss output file's T, u, v and w, or a
// checkpoint's state (T as theta + the checkpoint case's T_ref(z)), in double on their own
// points, with the case that run ran. Every refusal is one CaseError line naming the file:
// not a NetCDF file, not bouss's (no case_json), a plane or an averaged file, a field
// missing, a record not in the file or not complete (fill values or no time: a killed run's
// last record).
#pragma once

#include <string>
#include <vector>

#include "config/case.hpp"

namespace bouss {

struct StateFile {
  std::string path;
  Case source;              // the case the file's run ran (its case_json)
  long record = 0;          // the record read (0 for a checkpoint)
  long records = 1;         // the file's records
  double time = 0;          // the record's time
  bool single = false;      // its fields are stored in float
  int significant_digits = 0;  // quantized to so many digits (0: not)
  // Interior values, x fastest, on their own extents: T on the cells, u, v, w on their faces.
  std::vector<double> T, u, v, w;
};

// `record` counted from the end when negative (-1: the last). A NetCDF call: from the IO
// thread (io/io_thread.hpp), or a process without one.
StateFile read_state_file(const std::string& path, long record);

}  // namespace bouss
