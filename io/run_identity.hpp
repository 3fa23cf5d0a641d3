// The identity of a run: a random id made when a run starts from its initial state and kept
// by every restart that continues it, so that a run and its continuations share it and no
// other run does. Every output file carries it as the global attribute `bouss_run_id`, every
// checkpoint as `text.run_id`; a restart that would continue a file refuses a checkpoint of
// another run (run/run.cpp), and a run tells its own checkpoints from an earlier run's.
#pragma once

#include <string>

#include "io/netcdf_attributes.hpp"  // file_text_attribute, to read them

namespace bouss {

// 32 hexadecimal digits from the system's random source (and the time and pid).
std::string new_run_id();

// The attribute names: an output file's and a checkpoint's.
constexpr const char* output_run_id_attribute = "bouss_run_id";
constexpr const char* checkpoint_run_id_key = "run_id";  // Checkpoint::text key (attribute text.run_id)

}  // namespace bouss
