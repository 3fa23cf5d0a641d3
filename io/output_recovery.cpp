// bouss recover: see io/output_recovery.hpp.
#include "io/output_recovery.hpp"

#include <netcdf.h>

#include <algorithm>
#include <filesystem>
#include <regex>
#include <vector>

#include "config/case.hpp"
#include "config/fields.hpp"
#include "io/file_util.hpp"
#include "io/flush_journal.hpp"
#include "io/netcdf_attributes.hpp"
#include "io/netcdf_writer.hpp"

namespace bouss {
namespace {

namespace fs = std::filesystem;

// FILE's name once complete: less .<pid>.partial or .<pid>.<n>.partial.
std::string final_name(const std::string& file) {
  static const std::regex partial(R"(^(.*?)\.[0-9]+(\.[0-9]+)?\.partial$)");
  std::smatch m;
  return std::regex_match(file, m, partial) ? m[1].str() : file;
}

// What the file holds, to find its stream in its case.
struct FileContents {
  std::string case_json;
  std::vector<std::string> fields, profiles;  // sorted
  std::vector<std::string> moments;           // an averaged stream's moment variables (T_variance, ...), sorted
  bool averaged = false;                      // time averages: time (or profile_time) has bounds
  bool single = false;                        // fields stored as float
  std::string region;                         // the global attribute, "" for the whole domain
};

FileContents read_contents(const std::string& file) {
  int ncid = -1;
  if (const int s = nc_open(file.c_str(), NC_NOWRITE, &ncid); s != NC_NOERR)
    throw CaseError(file + ": cannot be read as a NetCDF-4 file (" + nc_strerror(s) +
                    "); nothing of it can be recovered (a run killed before its file's header was flushed "
                    "leaves such a file, holding no record)");
  FileContents c;
  c.case_json = text_attribute(ncid, NC_GLOBAL, "case_json");
  c.region = text_attribute(ncid, NC_GLOBAL, "region");
  // The time bounds of an averaged stream (time_bnds, profile_time_bnds) are no fields.
  std::vector<std::string> bounds;
  for (const char* coordinate : {"time", "profile_time"}) {
    int id = -1;
    if (nc_inq_varid(ncid, coordinate, &id) == NC_NOERR) bounds.push_back(text_attribute(ncid, id, "bounds"));
  }
  std::vector<std::string> moment_variables;
  for (const std::string& m : moment_names()) moment_variables.push_back(moment_variable(m));
  int nvars = 0;
  nc_inq_nvars(ncid, &nvars);
  for (int v = 0; v < nvars; ++v) {
    char name[NC_MAX_NAME + 1] = {};
    int ndims = 0, dimids[NC_MAX_VAR_DIMS];
    nc_type type = NC_NAT;
    if (nc_inq_var(ncid, v, name, &type, &ndims, dimids, nullptr) != NC_NOERR || ndims < 2) continue;
    if (std::count(bounds.begin(), bounds.end(), name) > 0) {
      c.averaged = true;
      continue;
    }
    char first[NC_MAX_NAME + 1] = {};
    nc_inq_dimname(ncid, dimids[0], first);
    if (std::string(first) == "time") {
      const bool moment = std::count(moment_variables.begin(), moment_variables.end(), name) > 0;
      (moment ? c.moments : c.fields).push_back(name);
      c.single = type == NC_FLOAT;
    }
    if (std::string(first) == "profile_time") c.profiles.push_back(name);
  }
  nc_close(ncid);
  std::sort(c.fields.begin(), c.fields.end());
  std::sort(c.moments.begin(), c.moments.end());
  std::sort(c.profiles.begin(), c.profiles.end());
  return c;
}

bool holds(const OutputStream& s, const FileContents& f) {
  std::vector<std::string> fields = s.fields, profiles = s.profiles, moments;
  for (const std::string& m : s.average.moments) moments.push_back(moment_variable(m));
  std::sort(fields.begin(), fields.end());
  std::sort(profiles.begin(), profiles.end());
  std::sort(moments.begin(), moments.end());
  if (fields != f.fields || profiles != f.profiles || moments != f.moments) return false;
  if (s.average.enabled != f.averaged) return false;
  if ((!fields.empty() || !moments.empty()) && (s.precision == Precision::single_precision) != f.single) return false;
  if (s.region.whole()) return f.region.empty();
  const char* axis = s.region.axis == 0 ? "x" : s.region.axis == 1 ? "y" : "z";
  return f.region.find("(cell " + std::to_string(s.region.index) + " along " + axis + ")") != std::string::npos;
}

}  // namespace

std::string recovered_path_for(const std::string& file) {
  const std::string name = final_name(file);
  const std::string ext = ".nc";
  if (name.size() > ext.size() && name.compare(name.size() - ext.size(), ext.size(), ext) == 0)
    return name.substr(0, name.size() - ext.size()) + ".recovered.nc";
  return name + ".recovered.nc";
}

Recovery recover_output(const std::string& file, const std::string& output) {
  switch (path_kind(file)) {
    case PathKind::regular: break;
    case PathKind::missing: throw CaseError(file + ": no such file");
    default: throw CaseError(file + ": not a regular file");
  }
  if (path_kind(output) != PathKind::missing || is_symlink(output))
    throw CaseError(output + ": exists; bouss recover never replaces a file: name another with --output");
  Recovery r;
  try {
    r.completed_flush = replay_flush_journal(file);
  } catch (const std::runtime_error& e) {
    throw CaseError(e.what());
  }
  const FileContents contents = read_contents(file);
  if (contents.case_json.empty())
    throw CaseError(file + ": not a bouss output file (it has no case_json attribute to rebuild its definitions from)");
  const Case c = parse_case(contents.case_json, file + " (its case_json)");
  const std::string base = fs::path(final_name(file)).filename().string();
  // The stream that holds what the file does; of two alike, the one of the file's name.
  const OutputStream* stream = nullptr;
  bool same_name = false;
  for (const OutputStream& s : c.output.streams) {
    if (!holds(s, contents)) continue;
    const bool same = fs::path(s.file).filename().string() == base;
    if (!stream || (same && !same_name)) {
      stream = &s;
      same_name = same;
    }
  }
  if (!stream)
    throw CaseError(file + ": none of the output streams of its case_json holds what the file does (its fields, "
                    "profiles, averaging, moments, precision and region)");
  std::error_code ec;
  const fs::path folder = fs::path(output).parent_path();
  if (!folder.empty()) fs::create_directories(folder, ec);
  NetcdfWriter w(output, c, *stream);
  w.never_replace();
  r.survey = w.copy_complete_records_from(file);
  w.append_history("recovered from " + file + " by bouss recover: " + describe_recovery(r, 3));
  w.close();
  return r;
}

std::string describe_recovery(const Recovery& r, int listed) {
  const RecordSurvey& s = r.survey;
  const auto kept = [](long all, size_t bad) { return std::to_string(all - long(bad)) + " of " + std::to_string(all); };
  std::string text = "kept " + kept(s.records, s.damaged.size()) + " records";
  if (s.series_records > 0 || !s.damaged_series.empty())
    text += " and " + kept(s.series_records, s.damaged_series.size()) + " diagnostics records";
  int named = 0;
  const size_t all = s.damaged.size() + s.damaged_series.size();
  for (const DamagedRecord& d : s.damaged)
    if (named++ < listed) text += "; " + describe(d, "record");
  for (const DamagedRecord& d : s.damaged_series)
    if (named++ < listed) text += "; " + describe(d, "diagnostics record");
  if (all > size_t(listed)) text += "; and " + std::to_string(all - size_t(listed)) + " more left out";
  return text;
}

}  // namespace bouss
