// The --set override engine: "key.path=VALUE" edits of a case's JSON before it is
// validated (VALUE as JSON, or else as a string), and `--output FILE` written as one
// (output_file_override, declared with the case in config/case.hpp). Internal to the case reader.
#pragma once

#include <string>
#include <vector>

#include "config/json_check.hpp"

namespace bouss::case_file {

// Sets each override's value in `root`, in order, creating objects along its path; numeric
// keys index existing arrays. Throws CaseError "SOURCE: --set \"TEXT\": ..." for an override
// that is malformed or whose path cannot be followed.
void apply_overrides(json& root, const std::vector<std::string>& overrides, const std::string& source);

}  // namespace bouss::case_file
