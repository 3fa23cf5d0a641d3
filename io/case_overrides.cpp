// The --set override engine (io/case_overrides.hpp) and `--output FILE` as an override.
#include "io/case_overrides.hpp"

#include <algorithm>
#include <cstddef>
#include <optional>

#include "io/case.hpp"
#include "io/case_validator.hpp"

namespace bouss::case_file {
namespace {

struct Override {
  Tokens keys;
  json value;
};

std::string trim(const std::string& s) {
  const auto first = s.find_first_not_of(" \t");
  if (first == std::string::npos) return "";
  return s.substr(first, s.find_last_not_of(" \t") - first + 1);
}

std::optional<std::size_t> parse_index(const std::string& s) {
  constexpr std::size_t max_digits = 9;
  if (s.empty() || s.size() > max_digits) return std::nullopt;
  if (!std::all_of(s.begin(), s.end(), [](char ch) { return ch >= '0' && ch <= '9'; })) {
    return std::nullopt;
  }
  return std::stoul(s);
}

Override parse_override(const std::string& text, const std::string& source) {
  const std::string prefix = source + ": --set " + quote(text) + ": ";
  const std::size_t eq = text.find('=');
  const std::string key = eq == std::string::npos ? "" : trim(text.substr(0, eq));
  if (key.empty()) throw CaseError(prefix + "expected key.path=VALUE");

  Override o;
  for (std::size_t start = 0;;) {
    const std::size_t dot = key.find('.', start);
    o.keys.push_back(key.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
    if (o.keys.back().empty()) throw CaseError(prefix + "expected key.path=VALUE");
    if (dot == std::string::npos) break;
    start = dot + 1;
  }

  // The value sits inside the root and one object or array per key but the last.
  if (o.keys.size() > max_json_depth) {
    throw CaseError(prefix + "expected a key path of at most " + std::to_string(max_json_depth) +
                    " components (the nesting limit), got " + std::to_string(o.keys.size()));
  }
  const std::string value_text = text.substr(eq + 1);
  const auto problem = check_json(value_text, o.keys.size());
  if (!problem) {
    o.value = json::parse(value_text);
  } else if (problem->kind == JsonProblem::Kind::syntax) {
    o.value = value_text;  // not JSON: a bare string, as in backend=cpu
  } else {
    throw CaseError(source + ": " + describe_value_problem(*problem, o.keys));
  }
  return o;
}

// Sets the value, creating objects along the path; numeric keys index existing arrays.
void apply_override(json& root, const Override& o, const std::string& text,
                    const std::string& source) {
  const std::string prefix = source + ": --set " + quote(text) + ": ";
  json* node = &root;
  Tokens at;
  for (const auto& key : o.keys) {
    if (node->is_null()) *node = json::object();
    if (node->is_object()) {
      node = &(*node)[key];
    } else if (node->is_array()) {
      const auto index = parse_index(key);
      if (!index || *index >= node->size()) {
        throw CaseError(prefix + "expected an index below " + std::to_string(node->size()) +
                        " into the array at " + json_pointer(at) + ", got " + quote(key));
      }
      node = &(*node)[*index];
    } else {
      throw CaseError(prefix + "expected an object or array at " + json_pointer(at) + " to set " +
                      quote(key) + " in, got " + describe(*node));
    }
    at.push_back(key);
  }
  *node = o.value;
}

}  // namespace

void apply_overrides(json& root, const std::vector<std::string>& overrides, const std::string& source) {
  for (const auto& text : overrides) apply_override(root, parse_override(text, source), text, source);
}

}  // namespace bouss::case_file

namespace bouss {

using case_file::dump_compact;
using case_file::json;
using case_file::Validator;

std::string output_file_override(const std::string& case_path, const std::string& file) {
  json root;
  try {
    root = json::parse(read_case_text(case_path));
  } catch (const std::exception&) {
    // load_case reports what is wrong with the file.
  }
  const json* output = root.is_object() ? Validator::find(root, "output") : nullptr;
  const std::string value = dump_compact(json(file));
  if (output && output->is_array())
    return output->empty() ? "output=[{\"file\":" + value + "}]" : "output.0.file=" + value;
  return "output.file=" + value;
}

}  // namespace bouss
