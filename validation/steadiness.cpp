#include "validation/steadiness.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <stdexcept>

#include "model/diagnostics.hpp"
#include "run/run.hpp"

namespace bouss {

double diagnostic_value(const Diagnostics& d, const std::string& name) {
  const FlowDiagnostic* f = find_flow_diagnostic(name);
  if (!f || !f->steady_measure) throw std::invalid_argument("no diagnostic named " + name);
  return f->of(d);
}

SteadinessWindow::SteadinessWindow(std::string diagnostic, bool judge_nusselt_agreement, int samples)
    : diagnostic_(std::move(diagnostic)), judge_agreement_(judge_nusselt_agreement), samples_(samples) {}

void SteadinessWindow::observe(const Simulation& sim) {
  // Sampling point k of the window is at the fraction 1 - w + w k / samples of the run.
  const double f = progress_fraction(sim), w = steady_window_fraction;
  if (next_ > samples_ || f < 1 - w + w * next_ / samples_ - 1e-12) return;
  record(sim);
  while (next_ <= samples_ && f >= 1 - w + w * next_ / samples_ - 1e-12) ++next_;
}

void SteadinessWindow::finish(const Simulation& sim) {
  if (last_step_ != sim.steps_done()) record(sim);
}

void SteadinessWindow::record(const Simulation& sim) {
  times_.push_back(sim.time());
  values_.push_back(sim.diagnostics());
  last_step_ = sim.steps_done();
}

SteadinessJudgement SteadinessWindow::judge() const {
  SteadinessJudgement j;
  j.samples = int(values_.size());
  if (values_.empty()) {
    j.reason = "no step in the last 20% of the run to judge";
    return j;
  }
  j.window_begin = times_.front();
  j.window_end = times_.back();
  const std::vector<std::string> watched =
      watches_nusselt() ? std::vector<std::string>{"nusselt_bottom", "nusselt_top", "nusselt_volume"}
                        : std::vector<std::string>{diagnostic_};
  j.drift = 0;
  for (const std::string& name : watched) {
    double lo = INFINITY, hi = -INFINITY, last = NAN;
    for (const Diagnostics& d : values_) {
      last = diagnostic_value(d, name);
      lo = std::fmin(lo, last);
      hi = std::fmax(hi, last);
    }
    // A quantity that does not change at all (zero included) has no drift.
    const double drift = !std::isfinite(last) ? NAN : hi == lo ? 0.0 : (hi - lo) / std::fabs(last);
    j.drift = std::isnan(drift) || std::isnan(j.drift) ? NAN : std::fmax(j.drift, drift);
  }
  if (watches_nusselt() && judge_agreement_) {
    const Nusselt& nu = values_.back().nusselt;
    const double lo = std::min({nu.bottom, nu.top, nu.volume}), hi = std::max({nu.bottom, nu.top, nu.volume});
    j.nusselt_spread = (hi - lo) / std::fabs((nu.bottom + nu.top + nu.volume) / 3);
  }
  std::string why;
  auto add = [&why](const std::string& s) { why += (why.empty() ? "" : "; ") + s; };
  if (j.samples < 2) add("only one step in the last 20% of the run");
  if (std::isnan(j.drift)) add(diagnostic_ + " is not a finite number");
  else if (j.drift > steady_tolerance)
    add(fmt::format("{} moved by {:.1e} of {} over t in [{:.4g}, {:.4g}] (steady: at most {:.0e})",
                    watches_nusselt() ? "the Nusselt numbers" : diagnostic_.c_str(), j.drift,
                    watches_nusselt() ? "themselves" : "itself", j.window_begin, j.window_end, steady_tolerance));
  if (!std::isnan(j.nusselt_spread) && j.nusselt_spread > steady_tolerance)
    add(fmt::format("the bottom, top and volume Nusselt numbers differ by {:.1e} of their mean (steady: at most {:.0e})",
                    j.nusselt_spread, steady_tolerance));
  j.steady = why.empty();
  j.reason = why;
  return j;
}

}  // namespace bouss
