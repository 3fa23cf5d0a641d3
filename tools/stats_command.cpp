// bouss stats: the statistics of a run's diagnostics series (validation/series_statistics.hpp).
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "io/series_reader.hpp"
#include "tools/commands.hpp"
#include "validation/series_statistics.hpp"

namespace bouss {
namespace {

nlohmann::json number(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); }

}  // namespace

int stats_command(const StatsOptions& o) {
  SeriesFile file;
  try {
    file = read_series(o.file);
  } catch (const std::exception& e) {
    print_error(e.what());
    return 2;
  }
  std::vector<const SeriesVariable*> chosen;
  if (o.variables.empty()) {
    for (const SeriesVariable& v : file.variables) chosen.push_back(&v);
  } else {
    for (const std::string& name : o.variables) {
      const SeriesVariable* found = nullptr;
      for (const SeriesVariable& v : file.variables)
        if (v.name == name) found = &v;
      if (!found) {
        std::string names;
        for (const SeriesVariable& v : file.variables) names += (names.empty() ? "" : ", ") + v.name;
        print_error(o.file + ": no series variable " + name + " (it has " + names + ")");
        return 2;
      }
      chosen.push_back(found);
    }
  }
  const std::size_t n = file.time.size();
  nlohmann::json out = {{"file", o.file}, {"records", n}, {"variables", nlohmann::json::object()}};
  if (!o.json) {
    if (n == 0) std::printf("%s: no records of the diagnostics series\n", o.file.c_str());
    else
      std::printf("%s: %zu records of the diagnostics series, t = %.6g .. %.6g%s%s\n", o.file.c_str(), n,
                  file.time.front(), file.time.back(), file.time_units.empty() ? "" : " ", file.time_units.c_str());
    std::printf("%-28s %-6s %12s %14s %12s %12s %9s %8s\n", "variable", "steady", "from t", "mean", "std",
                "sem of mean", "n_eff", "tau");
  }
  std::vector<std::string> notes;
  for (const SeriesVariable* v : chosen) {
    const SeriesStatistics s = series_statistics(file.time, v->values);
    out["variables"][v->name] = {{"steady", s.steady},        {"start", number(s.start_time)}, {"mean", number(s.mean)},
                                 {"std", number(s.std)},        {"sem", number(s.sem)},          {"n_eff", number(s.n_eff)},
                                 {"tau_records", number(s.tau)}, {"samples", s.samples},          {"reason", s.reason}};
    if (!o.json) {
      std::printf("%-28s %-6s %12.6g %14.8g %12.4g %12.4g %9.1f %8.1f\n", v->name.c_str(), s.steady ? "yes" : "no",
                  s.start_time, s.mean, s.std, s.sem, s.n_eff, s.tau);
      if (!s.steady) notes.push_back(v->name + ": not steady: " + s.reason);
    }
  }
  if (o.json) {
    std::printf("%s\n", out.dump(2).c_str());
  } else {
    for (const std::string& line : notes) std::printf("%s\n", line.c_str());
    std::printf("(sem: the standard error of the mean from the integral time tau, in records; n_eff = records / tau;"
                " not steady: the whole series' statistics)\n");
  }
  return 0;
}

}  // namespace bouss
