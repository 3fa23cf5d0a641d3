// bouss recover: every complete record of an output file (a killed run's partial file, or
// any bouss output) copied into a clean new file with the same metadata (docs/output.md,
// "Kills").
#pragma once

#include <string>

#include "io/record_check.hpp"

namespace bouss {

// Where `bouss recover FILE` writes by default: FILE's final name (less .<pid>[.<n>].partial)
// with .nc replaced by .recovered.nc: out/rb.nc.1234.partial -> out/rb.recovered.nc.
std::string recovered_path_for(const std::string& file);

struct Recovery {
  bool completed_flush = false;  // the killed writer's last flush was completed from its journal
  RecordSurvey survey;           // every record of the file, and which were left out
};

// Completes the last flush of FILE from its journal (io/flush_journal.hpp), then writes
// OUTPUT (under a partial name, renamed at the end) through NetcdfWriter with the case and
// output stream recorded in FILE (its case_json): the same definitions, every complete
// record in order (io/record_check.hpp), FILE's global attributes, and a history line.
// Throws CaseError (one line naming the file) for a FILE that is missing, not a bouss
// output, or still being written, and for an OUTPUT that exists (nothing is replaced);
// std::runtime_error for a failure while writing OUTPUT. A NetCDF call: in a process
// without an IO thread, or on it.
Recovery recover_output(const std::string& file, const std::string& output);

// "kept 453 of 455 records and 455 of 455 diagnostics records; record 453: p holds fill
// values (the run was killed while writing it); ..." (at most `listed` damaged records named).
std::string describe_recovery(const Recovery& r, int listed = 5);

}  // namespace bouss
