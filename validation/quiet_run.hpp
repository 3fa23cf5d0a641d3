// The runs a validation tool makes (onset's growth rates, front's front speeds): nothing is
// written (no output stream, no checkpoint, no diagnostics series), and progress, when the
// tool asks for it, goes to the tool's own callback about every `progress_seconds`.
#pragma once

#include <functional>

#include "config/case.hpp"
#include "run/run.hpp"

namespace bouss {

inline Case quiet_case(const Case& c) {
  Case quiet = c;
  quiet.output.streams.clear();
  quiet.checkpoint = CheckpointParams{};
  return quiet;
}

// No progress lines when `progress` is empty.
inline RunControl quiet_control(std::function<void(const Run&)> progress, double progress_seconds) {
  RunControl control;
  control.series = false;
  control.progress_seconds.reset();
  if (progress) {
    control.progress_seconds = progress_seconds;
    control.progress = std::move(progress);
  }
  return control;
}

}  // namespace bouss
