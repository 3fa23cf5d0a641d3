// The time averages of an averaged output stream (config/case.hpp OutputAverage; docs/output.md
// "Averaged records"): weighted sums on the device of every field of the stream over its
// region, of the products its moments name and of the profiles' level moments, one window a
// record, sampled at the start of a step (Simulation::at_step_start: the state the step
// starts from) every `every_steps` steps and closed by the state of the record's step, with
// the trapezoidal weights of physics/time_average_kernels.hpp. Nothing crosses to the host
// but a checkpoint's copy of the sums.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "config/case.hpp"
#include "grid/backend.hpp"
#include "grid/box.hpp"
#include "grid/decomposition.hpp"
#include "grid/grid.hpp"
#include "grid/layout.hpp"
#include "io/checkpoint.hpp"
#include "physics/time_average_kernels.hpp"
#include "run/schedule.hpp"

namespace bouss {

class Simulation;
struct StreamPlan;

class StreamAverage {
 public:
  // The sums of stream s laid out by its plan (run/stream_output.hpp plan_stream), cleared;
  // the window opens at the simulation's current state (whose state check then also makes
  // the profiles' level sums, for a stream with profiles: Simulation::keep_level_sums).
  StreamAverage(const OutputStream& s, const StreamPlan& plan, Simulation& sim);
  ~StreamAverage();
  StreamAverage(const StreamAverage&) = delete;
  StreamAverage& operator=(const StreamAverage&) = delete;

  // Backend memory the sums of stream s take on the rank of block `part` (the memory estimate).
  static double bytes(const OutputStream& s, const StreamPlan& plan, const Grid& part);

  // At the start of a step: samples the state it starts from when due (the window's first
  // step, then every every_steps steps).
  // `schedule`: the stream's, which says where the window ends (the half ahead of a sample
  // taken every N steps stops there); `lands`: the run's steps land on its times.
  void at_step_start(const Simulation& sim, const Schedule& schedule, bool lands);
  // Whether the window holds a sample (a record of it may be written).
  bool has_samples() const { return samples_ > 0; }
  double window_start() const { return start_time_; }
  // Closes the window with the current state (the record's); then the means below; then open().
  void close(const Simulation& sim);
  // The mean of plan item `item` (a field) or its covariance (a moment) over `box` into dst
  // (backend memory), in float or double: box, in this rank's own indices, holds whole
  // z-planes of this rank's points of the item's box (a slab of a record).
  void item_into(std::size_t item, const Box& box, float* dst) const;
  void item_into(std::size_t item, const Box& box, double* dst) const;
  // The stream's profiles over the window, as Simulation::profiles_into lays them out.
  void profiles_into(double* dst) const;
  // Opens a new window at the simulation's current state (after a record).
  void open(const Simulation& sim);

  // A checkpoint's copy, its names made by `key` (stream_checkpoint_key): each sum as a
  // region array over its whole box, this rank's points of it where the ranks write the file
  // by block, else gathered onto rank 0 (collective); the profiles' moments as a flat array
  // (rank 0's); the window's clock and counts as state, and the layout as text (what restore
  // checks; the same on any rank count).
  void save(Checkpoint& ck, const std::function<std::string(const std::string&)>& key, bool by_block) const;
  // Takes the window from a checkpoint written with the same layout, whose region arrays
  // hold this rank's own points of each sum (read with the rank's shares, on any rank count;
  // a format 2 checkpoint's one flat array of whole sums also serves); false when it holds
  // none (or another stream's: the window then opens at the restart).
  bool restore(const Checkpoint& ck, const std::function<std::string(const std::string&)>& key);

 private:
  struct Sum {
    std::string a, b;  // the factors (b empty: the sum of a alone)
    int axis_a = -1, axis_b = -1;
    Stagger stagger;    // where its points sit (its output's)
    Box whole;          // its points, the whole grid's indices
    Box box;            // this rank's of them, its own indices (the whole box on one rank)
    std::size_t offset = 0, count = 0;  // in data_
  };
  // This rank's points of a box of the whole grid (its own indices).
  using LocalBox = std::function<Box(const Box& whole, Stagger s)>;
  static LocalBox local_of(const Grid& part);
  struct Output {  // what plan item i is made from
    int sum = -1;            // a mean: this sum
    int ab = -1, a = -1, b = -1;  // a covariance: these sums
  };
  static void lay_out(const OutputStream& s, const StreamPlan& plan, int nz, const LocalBox& local,
                      std::vector<Sum>& sums, std::vector<Output>& outputs, std::size_t& profile_offset,
                      std::size_t& total);
  std::string layout_text() const;
  template <class T>
  void item_into_impl(std::size_t item, const Box& box, T* dst) const;
  void sample(const Simulation& sim);

  Backend backend_;
  std::shared_ptr<const Decomposition> decomposition_;  // the grid's cut over the ranks (null: one rank)
  OutputStream stream_;
  std::vector<Sum> sums_;
  std::vector<Output> outputs_;
  std::size_t profile_offset_ = 0, values_ = 0;
  int nz_ = 0;
  double* data_ = nullptr;          // every sum, then the profiles' moments
  AveragingClock* clock_ = nullptr;  // backend memory
  double start_time_ = 0;
  std::int64_t start_step_ = 0;
  std::int64_t samples_ = 0;
};

}  // namespace bouss
