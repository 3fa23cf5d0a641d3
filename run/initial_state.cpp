#include "run/initial_state.hpp"

#include <spdlog/spdlog.h>

#include <cmath>

#include "config/reference_profile.hpp"
#include "grid/gather.hpp"
#include "grid/remap.hpp"
#include "io/io_thread.hpp"
#include "model/simulation.hpp"
#include "run/restart_compatibility.hpp"

namespace bouss {

namespace {

// A case's cells along each axis.
std::array<RemapAxis, 3> cell_axes(const Case& c) {
  std::array<RemapAxis, 3> axes;
  for (int a = 0; a < 3; ++a) {
    axes[a].periodic = c.periodic(a);
    for (int i = 0; i <= c.n[a]; ++i) axes[a].faces.push_back(c.face(a, i));
  }
  return axes;
}

// The points of a face field along `faces_axis` of a case: its faces there, the centres
// elsewhere; of one period where periodic (face n left out) for a source, every face for a target.
std::array<PointAxis, 3> source_points(const std::array<RemapAxis, 3>& g, int faces_axis) {
  std::array<PointAxis, 3> p;
  for (int a = 0; a < 3; ++a) {
    p[a].period = g[a].periodic ? g[a].faces.back() - g[a].faces.front() : 0;
    p[a].points = a == faces_axis ? g[a].faces : g[a].centres();
    if (a == faces_axis && g[a].periodic) p[a].points.pop_back();
  }
  return p;
}
std::array<std::vector<double>, 3> target_points(const std::array<RemapAxis, 3>& g, int faces_axis) {
  std::array<std::vector<double>, 3> p;
  for (int a = 0; a < 3; ++a) p[a] = a == faces_axis ? g[a].faces : g[a].centres();
  return p;
}

// The values less their last plane along `axis` (a periodic face field's face n).
std::vector<double> drop_last_plane(const std::vector<double>& v, std::array<int, 3> n, int axis) {
  std::vector<double> out;
  out.reserve(v.size());
  for (int k = 0; k < n[2]; ++k)
    for (int j = 0; j < n[1]; ++j)
      for (int i = 0; i < n[0]; ++i) {
        const int at[3] = {i, j, k};
        if (at[axis] == n[axis] - 1) continue;
        out.push_back(v[std::size_t(i) + std::size_t(n[0]) * (std::size_t(j) + std::size_t(n[1]) * k)]);
      }
  return out;
}

// Face field `axis` (u, v, w) of the source carried onto the target's faces.
std::vector<double> carry_faces(const std::vector<double>& values, const std::array<RemapAxis, 3>& from,
                                const std::array<RemapAxis, 3>& to, int axis) {
  std::array<int, 3> n{from[0].cells(), from[1].cells(), from[2].cells()};
  n[axis] += 1;
  const std::vector<double> one_period = from[axis].periodic ? drop_last_plane(values, n, axis) : values;
  return interpolate_points(one_period, source_points(from, axis), target_points(to, axis));
}

}  // namespace

StateFile read_initial_state(const Case& c) {
  const InitialFromFile& f = *c.initial.from;
  // On the IO thread, which makes every NetCDF call of the process (io/io_thread.hpp).
  StateFile s;
  try {
    s = IoThread::instance().call([&] { return read_state_file(f.path, f.record); });
  } catch (const CaseError& e) {
    throw CaseError(c.source + ": /initial/from: " + e.what());  // the case and the key that named the file
  }
  const std::vector<std::string> differences =
      restart_differences(s.source, c, RestartScope::initial_state, "", f.path + "'s run");
  if (!differences.empty())
    throw CaseError(c.source + ": /initial/from: " + differences.front() +
                    (differences.size() > 1 ? " (and " + std::to_string(differences.size() - 1) + " more)" : "") +
                    ": a run starts from a state of the same domain and boundaries");
  if (f.continue_time && c.time.end && !(*c.time.end > s.time))
    throw CaseError(c.source + ": /time/end: " + fmt::format("{:g}", *c.time.end) +
                    " is not after the time the run continues from (" + fmt::format("{:g}", s.time) + ", record " +
                    std::to_string(s.record) + " of " + f.path + ", initial.continue_time): give a later end");
  return s;
}

void start_from_state(Simulation& sim, const Case& c, const StateFile& s) {
  const std::array<RemapAxis, 3> from = cell_axes(s.source), to = cell_axes(c);
  const bool same_grid = from[0].faces == to[0].faces && from[1].faces == to[1].faces && from[2].faces == to[2].faces;
  // T as theta = T - T_ref(z) of this case, on its cell centres.
  std::vector<double> theta = remap_cells(s.T, from, to);
  const ReferenceProfile ref = reference_profile(c);
  const std::vector<double> zc = to[2].centres();
  const std::size_t level = std::size_t(c.n[0]) * c.n[1];
  for (std::size_t p = 0; p < theta.size(); ++p) theta[p] -= ref.at(zc[p / level]);
  std::vector<std::pair<std::string, std::vector<double>>> arrays;
  const Grid& g = sim.grid();
  auto add = [&](const std::string& name, std::vector<double> whole) {
    arrays.emplace_back(name, block_of_whole(whole, field_named(name).stagger, g));
  };
  add("u", carry_faces(s.u, from, to, 0));
  add("v", carry_faces(s.v, from, to, 1));
  add("w", carry_faces(s.w, from, to, 2));
  add("theta", theta);
  // No pressure and no tendencies: the first step is forward Euler (steps = 0).
  for (const std::string& name : sim.state_names())
    if (name != "u" && name != "v" && name != "w" && name != "theta" && name != "p_previous") {
      const Stagger st = field_named(name).stagger;
      std::array<int, 3> n = c.n;
      if (st != Stagger::centre) n[int(st) - 1] += 1;
      add(name, std::vector<double>(std::size_t(n[0]) * n[1] * n[2], 0.0));
    }
  const double time = c.initial.from->continue_time ? s.time : 0.0;
  sim.restore(arrays, time, 0.0, 0, 0);
  if (!same_grid) sim.project(1.0);  // dt cancels: u -= grad(phi) with lap(phi) = div u
  spdlog::info("initial state: {} record {} of {} (t = {:.6g}{}{}), {} onto {}x{}x{}{}", s.path, s.record, s.records,
               s.time, s.single ? ", float" : "",
               s.significant_digits ? ", quantized to " + std::to_string(s.significant_digits) + " digits" : "",
               same_grid ? "the same grid" : "carried", c.n[0], c.n[1], c.n[2],
               same_grid ? "" : " and projected");
}

}  // namespace bouss
