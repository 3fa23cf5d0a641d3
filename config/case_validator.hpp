// The case validator: typed access to the members of a JSON case that knows each member's
// JSON path, so that every problem becomes one CaseError line
//   SOURCE: /json/pointer: what was expected, got X
// and the text helpers those lines are made of (quote, describe, format_number,
// nearest_name, ...). Internal to the case reader; the schema is config/case_parser.cpp.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "config/json_check.hpp"

namespace bouss::case_file {

using Names = std::vector<std::string>;

// ---------------------------------------------------------------------------
// Text for messages

// Compact JSON (invalid UTF-8 replaced).
std::string dump_compact(const json& v);
// A value as shown after "got": compact JSON, cut (at a UTF-8 boundary) when long.
std::string describe(const json& v);
// Shortest round-trip form, without a trailing ".0" (3, 0.1, 1e-05); "inf" for infinity.
std::string format_number(double x);
// A string as a JSON string literal: "name".
std::string quote(const std::string& s);
// "\"a\", \"b\", \"c\"".
std::string quoted_list(const Names& names);
// "\"a\"" for one allowed value, "one of \"a\", \"b\"" for several.
std::string one_of(const Names& names);
bool contains(const Names& names, const std::string& s);
// The known name closest to `key`, when it is close enough to be a plausible typo.
std::optional<std::string> nearest_name(const std::string& key, const Names& known);

// ---------------------------------------------------------------------------
// What a number or integer member may hold, and how a message says it

struct NumberRule {
  const char* description;
  double lo, hi;
  bool lo_open, hi_open;
  bool admits(double x) const {
    return std::isfinite(x) && (lo_open ? x > lo : x >= lo) && (hi_open ? x < hi : x <= hi);
  }
};

inline constexpr double infinity = std::numeric_limits<double>::infinity();
inline constexpr NumberRule any_number{"a number", -infinity, infinity, false, false};
inline constexpr NumberRule positive{"a positive number", 0.0, infinity, true, false};
inline constexpr NumberRule nonnegative{"a non-negative number", 0.0, infinity, false, false};

struct IntRule {
  const char* description;
  std::int64_t lo, hi;
};

inline constexpr std::int64_t int64_max = std::numeric_limits<std::int64_t>::max();
inline constexpr IntRule positive_int{"a positive integer", 1, int64_max};
inline constexpr IntRule nonnegative_int{"a non-negative integer", 0, int64_max};
inline constexpr IntRule positive_int32{"a positive integer", 1, std::numeric_limits<int>::max()};
inline constexpr IntRule nonnegative_int32{"a non-negative integer", 0, std::numeric_limits<int>::max()};

// The value as an integer, if it is one (2 and 2.0 are; 2.5, "2" and 1e30 are not).
std::optional<std::int64_t> as_integer(const json& v);

// ---------------------------------------------------------------------------
// Validator: typed access to members that knows the JSON path for messages.

class Validator {
 public:
  explicit Validator(std::string source) : source_(std::move(source)) {}

  // While alive, paths are inside `token` (a key or array index) of the current location.
  class Scope {
   public:
    Scope(Tokens& tokens, const std::string& token) : tokens_(tokens) { tokens_.push_back(token); }
    ~Scope() { tokens_.pop_back(); }
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    Tokens& tokens_;
  };
  [[nodiscard]] Scope enter(const std::string& token) { return Scope(tokens_, token); }

  // JSON pointer of the current location, or of member `key` inside it.
  std::string pointer(const std::string& key = "") const;
  // "SOURCE: /json/pointer", the start of every message about member `key`.
  std::string where(const std::string& key = "") const;

  [[noreturn]] void fail(const std::string& key, const std::string& message) const;
  // For a problem found here whose cause the case gives elsewhere (an absolute pointer).
  [[noreturn]] void fail_at(const std::string& pointer, const std::string& message) const;
  [[noreturn]] void fail_expected(const std::string& key, const std::string& expected, const json& got) const;

  // Fails on the first key of `object` not in `known`, suggesting the nearest known one.
  void check_no_unknown_keys(const json& object, const Names& known) const;

  // --- members
  static const json* find(const json& object, const std::string& key);
  const json& require(const json& object, const std::string& key, const std::string& expected) const;
  const json& require_object(const json& object, const std::string& key) const;
  const json* optional_object(const json& object, const std::string& key) const;
  double require_number(const json& object, const std::string& key, const NumberRule& rule) const;
  std::optional<double> optional_number(const json& object, const std::string& key, const NumberRule& rule) const;
  std::optional<std::int64_t> optional_int(const json& object, const std::string& key, const IntRule& rule) const;
  std::string require_nonempty_string(const json& object, const std::string& key) const;
  std::optional<std::string> optional_string(const json& object, const std::string& key) const;
  std::string require_string_in(const json& object, const std::string& key, const Names& allowed) const;
  std::optional<std::string> optional_string_in(const json& object, const std::string& key,
                                                const Names& allowed) const;
  std::optional<bool> optional_bool(const json& object, const std::string& key) const;

  // --- values (`key` names the value for messages)
  const json& get_object(const json& value, const std::string& key) const;
  double get_number(const json& value, const std::string& key, const NumberRule& rule) const;
  std::int64_t get_int(const json& value, const std::string& key, const IntRule& rule) const;
  std::string get_string_in(const json& value, const std::string& key, const Names& allowed) const;

 private:
  std::string source_;
  Tokens tokens_;
};

}  // namespace bouss::case_file
