// The --set override engine (config/case_overrides.hpp) and `--output FILE` as an override.
#include "config/case_overrides.hpp"

#include <algorithm>
#include <cstddef>
#include <filesystem>
#include <optional>

#include "config/case.hpp"
#include "config/case_validator.hpp"

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

namespace {

std::string without_nc(const std::string& path) {
  return path.size() > 3 && path.compare(path.size() - 3, 3, ".nc") == 0 ? path.substr(0, path.size() - 3) : path;
}

// Where `--output FILE` puts a name of the run other than the first stream's file (`name`: a
// stream's file or the checkpoint stem; `first`: the case's first stream's file).
std::string follow_output(const std::string& name, const std::string& first, const std::string& file) {
  const std::string old_stem = without_nc(first), new_stem = without_nc(file);
  if (!old_stem.empty() && name.size() > old_stem.size() && name.compare(0, old_stem.size(), old_stem) == 0)
    return new_stem + name.substr(old_stem.size());
  const std::filesystem::path beside = std::filesystem::path(file).parent_path();
  const std::string own = std::filesystem::path(new_stem).filename().string() + "_" +
                          std::filesystem::path(name).filename().string();
  return (beside / own).string();
}

}  // namespace

std::vector<std::string> stream_file_overrides(const std::string& case_path, const std::vector<std::string>& overrides,
                                               const std::vector<std::string>& files) {
  // The output's form after the case's own overrides: one object, or a list.
  json root;
  try {
    root = json::parse(read_case_text(case_path));
    case_file::apply_overrides(root, overrides, case_path);
  } catch (const std::exception&) {
    // load_case reports what is wrong with the file.
  }
  const json* output = root.is_object() ? Validator::find(root, "output") : nullptr;
  const bool list = output && output->is_array();
  std::vector<std::string> out;
  for (std::size_t k = 0; k < files.size(); ++k) {
    if (files[k].empty()) continue;
    const std::string value = dump_compact(json(files[k]));
    if (list && output->empty() && k == 0) out.push_back("output=[{\"file\":" + value + "}]");
    else if (list) out.push_back("output." + std::to_string(k) + ".file=" + value);
    else if (k == 0) out.push_back("output.file=" + value);
  }
  return out;
}

std::vector<std::string> output_file_overrides(const std::string& case_path, const std::vector<std::string>& overrides,
                                               const std::string& file) {
  Case c;
  try {
    c = load_case(case_path, overrides);
  } catch (const std::exception&) {
    return stream_file_overrides(case_path, overrides, {file});  // load_case reports what is wrong
  }
  std::vector<std::string> files{file};
  const std::string first = c.output.streams.empty() ? std::string() : c.output.streams.front().file;
  for (std::size_t k = 1; k < c.output.streams.size(); ++k) files.push_back(follow_output(c.output.streams[k].file, first, file));
  std::vector<std::string> out = stream_file_overrides(case_path, overrides, files);
  if (!c.checkpoint.file.empty())
    out.push_back("checkpoint.file=" + dump_compact(json(follow_output(c.checkpoint.file, first, file))));
  return out;
}

}  // namespace bouss
