// JSON text checked before it is parsed: a SAX pass that reports what nlohmann::json would
// let through or report without a place (numbers beyond or below the range of a double,
// duplicate keys, nesting too deep) with their JSON path, and syntax errors with their line
// and column. Internal to the case reader (config/case_parser.cpp, config/case_overrides.cpp).
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace bouss::case_file {

// Ordered, so that the provenance copy (Case::json_text) keeps the file's key order.
using json = nlohmann::ordered_json;
// A JSON path as its keys and array indices, outermost first.
using Tokens = std::vector<std::string>;

// Arrays and objects may nest at most this deep (a case needs 4 levels). nlohmann's DOM
// parser, dump() and comparisons recurse once per level, so that a document such as
// "[[[[...]]]]" 100000 deep overflows the stack; the SAX pass reads iteratively and stops
// at the first level too deep, before any DOM is built.
constexpr std::size_t max_json_depth = 64;

struct JsonProblem {
  enum class Kind { syntax, overflow, underflow, duplicate_key, too_deep };
  Kind kind = Kind::syntax;
  std::size_t byte = 0;  // syntax: characters read, the offending one included
  std::string reason;    // syntax: the parser's description
  Tokens path;           // overflow, underflow, duplicate_key, too_deep: where
  std::string token;     // overflow, underflow: the number as written
};

// The first problem in `text`, if any. base_depth: how many arrays and objects enclose the
// text (an override's value).
std::optional<JsonProblem> check_json(const std::string& text, std::size_t base_depth = 0);

// The RFC 6901 pointer of a path ("/" for the root).
std::string json_pointer(const Tokens& tokens);

// Message (after "SOURCE: ") for a problem other than syntax, its path under `prefix`.
std::string describe_value_problem(const JsonProblem& problem, Tokens prefix);

// The text parsed, or CaseError "SOURCE: ..." naming the first problem (syntax errors with
// their line and column).
json parse_json(const std::string& text, const std::string& source);

}  // namespace bouss::case_file
