// Horizontally averaged profiles of the flow, computed on the fields' backend with no host
// loop and no device sync, for output streams to write every few steps (docs/output.md).
// <q>_h is the mean over the n[0] x n[1] interior cells (or z-faces) of one level:
//
//   T_mean   <T>_h                                   nz cell levels k = 0..nz-1
//   T_rms    sqrt(max(0, <T^2>_h - <T>_h^2))         nz cell levels (rms about the horizontal mean)
//   u_rms    sqrt(<(u(i)^2 + u(i+1)^2) / 2>_h)       nz cell levels (each cell's two x-faces: the
//   v_rms    sqrt(<(v(j)^2 + v(j+1)^2) / 2>_h)       nz cell levels  right mean for periodic and wall sides alike)
//   w_rms    sqrt(<w^2>_h)                           nz+1 z-faces k = 0..nz
//   wT_mean  <w(k) (T(k) + T(k-1)) / 2>_h            nz+1 z-faces (the advective heat flux,
//                                                    physics/operators_kernels.hpp; the ghost
//                                                    cells below and above the box close it;
//                                                    of theta, plus w T_ref on the face)
//
// The sums are in double whatever the precision of the fields. One pass computes all six
// sums of every level (grid/reduce.hpp reduce_levels_to_scratch), one small kernel turns the
// named ones into means and rms values. T is summed shifted by the level's first cell, so
// that T_rms keeps its digits where it is small against <T>_h (a perturbation of the
// conduction state), instead of the sqrt(machine epsilon) * |T| of the unshifted formula.
//
// Workspace: none for the caller to keep. The per-level sums (6 doubles per level) live in
// the backend's scratch memory, just past CUB's temporary storage, from the reduction to
// the kernel that follows it on the same stream; the scratch grows to its largest size once
// and is kept, so a call allocates only when the scratch must grow (a first call). Call it
// from the thread that queues the backend's work; before capturing it in a CUDA graph, call
// it once outside the capture (a capture cannot allocate).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "grid/grid.hpp"
#include "config/case.hpp"
#include "physics/flow.hpp"
#include "physics/time_average_kernels.hpp"

namespace bouss {

// The horizontally averaged profiles an output stream may write (docs/output.md) are
// profile_table() of config/fields.hpp: T_mean T_rms u_rms v_rms w_rms wT_mean, in that order.
// True for those on the nz+1 z-faces (w_rms and wT_mean); the others are on the nz cell levels.
// Throws std::invalid_argument for a name not in profile_names().
bool profile_on_faces(const std::string& name);
// Values of the named profiles together: nz or nz+1 each. Throws std::invalid_argument for
// an unknown or repeated name.
std::size_t profile_values(const std::vector<std::string>& names, int nz);

// Computes the named profiles of the flow (ghosts filled) into dst, profile_values(names, nz)
// doubles in the memory of the fields' backend, one profile after the other in `names`
// order, each from its lowest level up; queued on the backend's stream (no sync: on the GPU,
// dst is ready once the stream reaches this point). Throws std::invalid_argument for an
// unknown or repeated name.
// f.T holds theta = T - T_ref(z) (physics/flow.hpp): the profiles are of T.
template <class R>
void horizontal_profiles_into(const Grid& g, const FlowFields<R>& f, const ReferenceProfile& reference,
                              const std::vector<std::string>& names, double* dst);

// Time averages of the profiles (an averaged output stream, docs/output.md "Averaged
// records"): accumulate_profile_moments adds the clock's weight (backend memory: the
// sample's, physics/time_average_kernels.hpp) times the moments of every level (its means of T,
// T^2 about <T>_h, <T>_h^2 about the window's first, u^2, v^2, w^2 and w T) to acc,
// profile_moment_values(nz) doubles in backend
// memory; profiles_from_moments turns the sums over a total weight *total into the named
// profiles, as horizontal_profiles_into lays them out: means over the levels and the
// interval, and T_rms about the mean over both. Queued; no sync (one rank).
std::size_t profile_moment_values(int nz);
template <class R>
void accumulate_profile_moments(const Grid& g, const FlowFields<R>& f, const ReferenceProfile& reference,
                                const AveragingClock* clock, double* acc);
void profiles_from_moments(const Backend& backend, const std::vector<std::string>& names, int nz, const double* acc,
                           const double* total, double* dst);

// The same sums, made in the step's own state check (physics/flow.hpp state_rate_into: the one
// pass that reads u, v, w and T after each step), so that profiles averaged every step cost
// no pass of their own: state_rate_and_level_sums_into writes the state check's value into
// *rate, the same value, and the level sums of every level into `sums` (level_sums_bytes(nz)
// of backend memory); accumulate_profile_moments_from adds the clock's weight times their
// moments to acc, as accumulate_profile_moments does, while the fields are those the sums
// were made of. One rank (the sums of several ranks combine through the host: there
// accumulate_profile_moments makes its own).
std::size_t level_sums_bytes(int nz);
template <class R>
void state_rate_and_level_sums_into(const Grid& g, const FlowFields<R>& f, const ReferenceProfile& reference,
                                    double* rate, void* sums);
template <class R>
void accumulate_profile_moments_from(const Grid& g, const FlowFields<R>& f, const ReferenceProfile& reference,
                                     const void* sums, const AveragingClock* clock, double* acc);

}  // namespace bouss
