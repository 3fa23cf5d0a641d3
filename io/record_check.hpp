// Which records of an output file are complete: the one check of `bouss recover` (what it
// keeps) and of a restart that continues a file (it copies no damaged record), so that the
// two agree (docs/output.md, "Kills").
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace bouss {

struct DamagedRecord {
  long index = 0;
  std::string why;  // "p holds fill values", "T, u do not read (NetCDF: HDF error)"
};

struct RecordSurvey {
  long records = 0;         // snapshot records: the length of time (profile_time for profiles alone)
  long series_records = 0;  // records of the diagnostics series (diagnostic_time), 0 without one
  std::vector<DamagedRecord> damaged;         // snapshot records that are not complete, by index
  std::vector<DamagedRecord> damaged_series;  // the same for the diagnostics series
  std::vector<long> complete_records() const;
  std::vector<long> complete_series_records() const;
};

// Reads snapshot records [0, records) and series records [0, series_records) of every
// variable on the record dimensions of the open NetCDF file `ncid` (all of them for a count
// < 0; a count beyond the dimension's length counts the missing records as damaged) and says
// which are complete. A snapshot record is complete when every variable on time and
// profile_time reads it without error, its time is not a fill value, and its fields (an
// averaged stream's moments among them), profiles and time bounds (time_bnds,
// profile_time_bnds) hold no fill value anywhere; a scalar beside them (`step`) may hold the fill value
// only while it has held nothing but fill values before (a key that began later). A series
// record is complete when every variable on diagnostic_time reads it without error and, by
// the same rule as a scalar, holds a value. A NetCDF call: from the IO thread, or a process
// without one.
//
// `visit`, when given, sees every multidimensional variable's record (a field, moment or
// profile; not the time bounds) that read, as it is read: its name, the record and the values in the file's type, so that a
// copy can write them with no second read (a restart's copy_records_from). It sees records
// before their check is complete: a copy that must hold complete records alone throws when
// the survey finds a damaged one.
using RecordVisitor = std::function<void(const std::string& name, long record, const void* values)>;
RecordSurvey survey_records(int ncid, long records = -1, long series_records = -1, const RecordVisitor& visit = {});

// "record 453: p holds fill values (the run was killed while writing it)"; `kind` is
// "record" or "diagnostics record".
std::string describe(const DamagedRecord& d, const std::string& kind);

}  // namespace bouss
