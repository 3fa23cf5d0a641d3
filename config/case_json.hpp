// A validated case written back as JSON, every key with the value the run uses (defaults
// filled in): what `bouss check` prints. Parsing it again gives the same Case.
#pragma once

#include <nlohmann/json.hpp>

#include "config/case.hpp"

namespace bouss {

nlohmann::ordered_json case_to_json(const Case& c);

}  // namespace bouss
