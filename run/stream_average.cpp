#include "run/stream_average.hpp"

#include <spdlog/fmt/fmt.h>

#include <algorithm>
#include <stdexcept>

#include "grid/gather.hpp"
#include "model/simulation.hpp"
#include "physics/profiles.hpp"
#include "physics/time_average.hpp"
#include "run/stream_output.hpp"

namespace bouss {

// The sums: one for each field item (its mean); for each moment the sum of the product and
// those of its two factors (a field item's when the stream writes that field, else one of
// its own); the profiles' moments last.
void StreamAverage::lay_out(const OutputStream& s, const StreamPlan& plan, int nz, const LocalBox& local,
                            std::vector<Sum>& sums, std::vector<Output>& outputs, std::size_t& profile_offset,
                            std::size_t& total) {
  total = 0;
  auto add = [&](const std::string& a, int axis_a, const std::string& b, int axis_b, Stagger st, const Box& whole) {
    Sum sum{a, b, axis_a, axis_b, st, whole, local(whole, st), total, 0};
    sum.count = std::size_t(sum.box.cells());
    total += sum.count;
    sums.push_back(sum);
    return int(sums.size()) - 1;
  };
  // The sum of one output field over a box (a factor of a moment: its sum if there is one).
  auto field_sum = [&](const std::string& field, const Box& whole) {
    for (std::size_t i = 0; i < plan.items.size(); ++i) {
      if (!plan.items[i].moment.empty() || plan.items[i].field != field || outputs[i].sum < 0) continue;
      const Sum& sum = sums[std::size_t(outputs[i].sum)];
      if (sum.whole.lo == whole.lo && sum.whole.hi == whole.hi) return outputs[i].sum;
    }
    const auto [source, axis] = field_source(field);
    return add(source, axis, "", -1, Stagger::centre, whole);
  };
  outputs.assign(plan.items.size(), Output{});
  for (std::size_t i = 0; i < plan.items.size(); ++i) {
    const StreamPlan::Item& item = plan.items[i];
    if (item.moment.empty())
      outputs[i].sum = add(item.source, item.average_axis, "", -1, field_named(item.field).stagger, item.box);
  }
  for (std::size_t i = 0; i < plan.items.size(); ++i) {
    const StreamPlan::Item& item = plan.items[i];
    if (item.moment.empty()) continue;
    const auto [a, b] = moment_factors(item.moment);
    const auto [source_a, axis_a] = field_source(a);
    const auto [source_b, axis_b] = field_source(b);
    outputs[i].ab = add(source_a, axis_a, source_b, axis_b, Stagger::centre, item.box);
    outputs[i].a = field_sum(a, item.box);
    outputs[i].b = field_sum(b, item.box);
  }
  profile_offset = total;
  if (!s.profiles.empty()) total += profile_moment_values(nz);
}

// This rank's points of a box of the whole grid, in its own indices: its share of a partition
// of the points (a sum's points no two ranks both hold).
StreamAverage::LocalBox StreamAverage::local_of(const Grid& part) {
  return [&part](const Box& whole, Stagger st) {
    Box b = intersect(whole, supplied_box_in_whole(part, st));
    if (const auto& d = part.decomposition)
      for (int a = 0; a < 3; ++a) b.lo[a] -= d->offset[a], b.hi[a] -= d->offset[a];
    return b;
  };
}

double StreamAverage::bytes(const OutputStream& s, const StreamPlan& plan, const Grid& part) {
  if (!s.average.enabled) return 0;
  std::vector<Sum> sums;
  std::vector<Output> outputs;
  std::size_t profile_offset = 0, total = 0;
  lay_out(s, plan, part.layout.n[2], local_of(part), sums, outputs, profile_offset, total);
  return double(std::max<std::size_t>(total, 1)) * sizeof(double) + sizeof(AveragingClock) + (s.profiles.empty() ? 0 : level_sums_bytes(part.layout.n[2]));
}

StreamAverage::StreamAverage(const OutputStream& s, const StreamPlan& plan, Simulation& sim)
    : backend_(sim.backend()), decomposition_(sim.grid().decomposition), stream_(s), nz_(sim.grid().layout.n[2]) {
  lay_out(s, plan, nz_, local_of(sim.grid()), sums_, outputs_, profile_offset_, values_);
  // The profiles' level sums from the step's own state check (one rank).
  if (!s.profiles.empty()) sim.keep_level_sums();
  data_ = static_cast<double*>(backend_.allocate(std::max<std::size_t>(values_, 1) * sizeof(double)));
  clock_ = static_cast<AveragingClock*>(backend_.allocate(sizeof(AveragingClock)));
  const AveragingClock zero{};
  copy_bytes(clock_, backend_, &zero, Backend::cpu(), sizeof zero);
  open(sim);
}

StreamAverage::~StreamAverage() {
  backend_.synchronize();  // no kernel of this stream's still reads its sums
  backend_.deallocate(data_);
  backend_.deallocate(clock_);
}

void StreamAverage::open(const Simulation& sim) {
  if (values_) clear_sums(backend_, data_, values_);
  start_time_ = sim.time();
  start_step_ = sim.steps_done();
  samples_ = 0;
}

void StreamAverage::sample(const Simulation& sim) {
  for (const Sum& s : sums_)
    if (s.count) sim.accumulate(s.a, s.axis_a, s.b, s.axis_b, s.box, &clock_->weight, data_ + s.offset);
  if (!stream_.profiles.empty()) sim.accumulate_profiles(clock_, data_ + profile_offset_);  // every rank
}

void StreamAverage::at_step_start(const Simulation& sim, const Schedule& schedule, bool lands) {
  const int every = stream_.average.every_steps;
  if ((sim.steps_done() - start_step_) % every != 0) return;
  SampleHorizon horizon;
  horizon.steps = int(std::min<std::int64_t>(every, schedule.steps_to_next(sim.steps_done())));
  horizon.until = schedule.next_time();
  horizon.lands = lands;
  plan_sample_on(backend_, clock_, sim.step_clock(), samples_ == 0, every, horizon);
  sample(sim);
  ++samples_;
}

void StreamAverage::close(const Simulation& sim) {
  if (samples_ == 0) throw std::logic_error("StreamAverage::close: the window holds no sample");
  plan_closing_sample_on(backend_, clock_, sim.step_clock());
  sample(sim);
}

template <class T>
void StreamAverage::item_into_impl(std::size_t item, const Box& box, T* dst) const {
  const Output& o = outputs_.at(item);
  const Sum& first = sums_[std::size_t(o.sum >= 0 ? o.sum : o.ab)];  // every sum of an output has its box
  const std::size_t plane = std::size_t(first.box.extent(0)) * std::size_t(first.box.extent(1));
  const std::size_t offset = std::size_t(box.lo[2] - first.box.lo[2]) * plane, n = std::size_t(box.cells());
  auto at = [&](int sum) { return data_ + sums_[std::size_t(sum)].offset + offset; };
  if (o.sum >= 0) time_mean_into(backend_, at(o.sum), n, clock_, dst);
  else time_covariance_into(backend_, at(o.ab), at(o.a), at(o.b), n, clock_, dst);
}

void StreamAverage::item_into(std::size_t item, const Box& box, float* dst) const { item_into_impl(item, box, dst); }
void StreamAverage::item_into(std::size_t item, const Box& box, double* dst) const { item_into_impl(item, box, dst); }

void StreamAverage::profiles_into(double* dst) const {
  profiles_from_moments(backend_, stream_.profiles, nz_, data_ + profile_offset_, &clock_->total, dst);
}

// What the sums hold, in words (the whole boxes: the same on any rank count): a
// checkpoint's window is taken only by the same layout.
std::string StreamAverage::layout_text() const {
  std::string text = fmt::format("every {} steps; profiles {}", stream_.average.every_steps, stream_.profiles.size());
  for (const Sum& s : sums_)
    text += fmt::format("; {}{}{} [{},{},{}]..[{},{},{}]", s.a, s.b.empty() ? "" : "*", s.b, s.whole.lo[0],
                        s.whole.lo[1], s.whole.lo[2], s.whole.hi[0], s.whole.hi[1], s.whole.hi[2]);
  for (const std::string& p : stream_.profiles) text += "; " + p;
  return text;
}

// Each sum as a region array over its whole box, "average_sumI" (every rank its own points
// of it where the ranks write the file together, else gathered onto rank 0); the profiles'
// moments as a flat array, "average_profiles" (rank 0's: every rank holds the same).
void StreamAverage::save(Checkpoint& ck, const std::function<std::string(const std::string&)>& key,
                         bool by_block) const {
  std::vector<double> mine(values_);
  if (values_) copy_bytes(mine.data(), Backend::cpu(), data_, backend_, values_ * sizeof(double));
  const Communicator& ranks = backend_.ranks();
  for (std::size_t i = 0; i < sums_.size(); ++i) {
    const Sum& s = sums_[i];
    CheckpointArray arr{key("average_sum" + std::to_string(i)), int(s.stagger) - 1, {}, s.whole};
    const double* values = mine.data() + s.offset;
    if (by_block || ranks.alone()) {
      arr.values.assign(values, values + s.count);
    } else {
      std::vector<char> pieces;
      ranks.gatherv(values, s.count * sizeof(double), &pieces, 0);
      if (ranks.rank() != 0) continue;
      arr.values.resize(std::size_t(s.whole.cells()));
      place_pieces(pieces.data(), sizeof(double), s.whole, *decomposition_, ranks.size(), s.stagger,
                   reinterpret_cast<char*>(arr.values.data()));
    }
    ck.arrays.push_back(std::move(arr));
  }
  if (values_ > profile_offset_ && ranks.rank() == 0)
    ck.arrays.push_back({key("average_profiles"), CheckpointArray::flat_array,
                         std::vector<double>(mine.begin() + std::ptrdiff_t(profile_offset_), mine.end()), Box{}});
  AveragingClock c;
  copy_bytes(&c, Backend::cpu(), clock_, backend_, sizeof c);
  ck.state[key("average_last")] = c.last;
  ck.state[key("average_weight")] = c.weight;
  ck.state[key("average_total")] = c.total;
  ck.state[key("average_start_time")] = start_time_;
  ck.state[key("average_start_step")] = double(start_step_);
  ck.state[key("average_samples")] = double(samples_);
  ck.text[key("average_layout")] = layout_text();
}

bool StreamAverage::restore(const Checkpoint& ck, const std::function<std::string(const std::string&)>& key) {
  const auto layout = ck.text.find(key("average_layout"));
  if (layout == ck.text.end() || layout->second != layout_text()) return false;
  const auto array = [&](const std::string& name) -> const CheckpointArray* {
    for (const CheckpointArray& a : ck.arrays)
      if (a.name == name) return &a;
    return nullptr;
  };
  std::vector<double> mine;
  mine.reserve(values_);
  if (const CheckpointArray* flat = array(key("average_sums"))) {
    // Format 2: every sum over its whole box, then the profiles' moments, in one flat array
    // (read whole by every rank).
    std::size_t whole_values = values_ - profile_offset_;
    for (const Sum& s : sums_) whole_values += std::size_t(s.whole.cells());
    if (flat->values.size() != whole_values) return false;
    std::size_t at = 0;
    for (const Sum& s : sums_) {
      const std::vector<double> box(flat->values.begin() + std::ptrdiff_t(at),
                                    flat->values.begin() + std::ptrdiff_t(at + std::size_t(s.whole.cells())));
      at += std::size_t(s.whole.cells());
      Box part = s.box;  // this rank's points, in the whole grid's indices
      if (const auto& d = decomposition_)
        for (int a = 0; a < 3; ++a) part.lo[a] += d->offset[a], part.hi[a] += d->offset[a];
      const std::vector<double> values = s.count ? part_of_box(box, s.whole, part) : std::vector<double>{};
      mine.insert(mine.end(), values.begin(), values.end());
    }
    mine.insert(mine.end(), flat->values.begin() + std::ptrdiff_t(at), flat->values.end());
  } else {
    // Each sum's region array, read as this rank's share of it (its own points).
    for (std::size_t i = 0; i < sums_.size(); ++i) {
      const Sum& s = sums_[i];
      const CheckpointArray* a = array(key("average_sum" + std::to_string(i)));
      if (!a || a->region.lo != s.whole.lo || a->region.hi != s.whole.hi || a->stagger != int(s.stagger) - 1 ||
          a->values.size() != s.count)
        return false;
      mine.insert(mine.end(), a->values.begin(), a->values.end());
    }
    if (values_ > profile_offset_) {
      const CheckpointArray* p = array(key("average_profiles"));
      if (!p || p->values.size() != values_ - profile_offset_) return false;
      mine.insert(mine.end(), p->values.begin(), p->values.end());
    }
  }
  if (values_) copy_bytes(data_, backend_, mine.data(), Backend::cpu(), values_ * sizeof(double));
  const AveragingClock c{ck.state.at(key("average_last")), ck.state.at(key("average_weight")),
                         ck.state.at(key("average_total"))};
  copy_bytes(clock_, backend_, &c, Backend::cpu(), sizeof c);
  start_time_ = ck.state.at(key("average_start_time"));
  start_step_ = std::int64_t(ck.state.at(key("average_start_step")));
  samples_ = std::int64_t(ck.state.at(key("average_samples")));
  return true;
}

}  // namespace bouss
