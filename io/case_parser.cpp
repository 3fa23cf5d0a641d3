// Reads a case file (JSON), applies --set overrides and validates every key, producing
// the Case the solver runs. Every problem becomes one CaseError line:
//   SOURCE: /json/pointer: what was expected, got X
#include <algorithm>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <sys/stat.h>

#include "grid/shape_rules.hpp"
#include "io/case.hpp"
#include "physics/units.hpp"

namespace bouss {
namespace {

// Ordered, so that the provenance copy (Case::json_text) keeps the file's key order.
using json = nlohmann::ordered_json;
using Names = std::vector<std::string>;
using Faces = std::array<FaceCondition, 6>;
using Tokens = std::vector<std::string>;

const Names face_names = {"x_lo", "x_hi", "y_lo", "y_hi", "z_lo", "z_hi"};
constexpr int z_lo = 4, z_hi = 5;

// ---------------------------------------------------------------------------
// Text helpers

constexpr std::size_t max_shown_chars = 60;

std::string dump_compact(const json& v) {
  return v.dump(-1, ' ', false, json::error_handler_t::replace);
}

// A value as shown after "got": compact JSON, cut (at a UTF-8 boundary) when long.
std::string describe(const json& v) {
  std::string s = dump_compact(v);
  if (s.size() <= max_shown_chars) return s;
  std::size_t cut = max_shown_chars - 3;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
  return s.substr(0, cut) + "...";
}

// Shortest round-trip form, without a trailing ".0" (3, 0.1, 1e-05); "inf" for infinity.
std::string format_number(double x) {
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  std::string s = dump_compact(json(x));
  if (s.size() > 2 && s.compare(s.size() - 2, 2, ".0") == 0) s.resize(s.size() - 2);
  return s;
}

std::string quote(const std::string& s) { return dump_compact(json(s)); }

std::string quoted_list(const Names& names) {
  std::string out;
  for (const auto& name : names) out += (out.empty() ? "" : ", ") + quote(name);
  return out;
}

// "\"a\"" for one allowed value, "one of \"a\", \"b\"" for several.
std::string one_of(const Names& names) {
  return names.size() == 1 ? quote(names[0]) : "one of " + quoted_list(names);
}

bool contains(const Names& names, const std::string& s) {
  return std::find(names.begin(), names.end(), s) != names.end();
}

std::string json_pointer(const Tokens& tokens) {
  std::string p;
  for (const auto& token : tokens) {
    p += '/';
    for (char ch : token) {
      if (ch == '~')
        p += "~0";
      else if (ch == '/')
        p += "~1";
      else
        p += ch;
    }
  }
  return p.empty() ? "/" : p;
}

std::size_t levenshtein(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t substitution = diagonal + (a[i - 1] == b[j - 1] ? 0 : 1);
      diagonal = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, substitution});
    }
  }
  return row[b.size()];
}

// The known name closest to `key`, when it is close enough to be a plausible typo.
std::optional<std::string> nearest_name(const std::string& key, const Names& known) {
  std::optional<std::string> best;
  std::size_t best_distance = std::numeric_limits<std::size_t>::max();
  for (const auto& name : known) {
    const std::size_t d = levenshtein(key, name);
    if (d < best_distance) {
      best = name;
      best_distance = d;
    }
  }
  const std::size_t limit = std::max<std::size_t>(2, key.size() / 3);
  if (best && best_distance <= limit && best_distance < key.size()) return best;
  return std::nullopt;
}

// ---------------------------------------------------------------------------
// Syntax check before parsing. nlohmann::json::parse throws out_of_range (no position)
// for numbers beyond double range, silently reads a number below it (1e-400) as 0, and
// silently keeps the last of duplicate keys; this SAX pass reports all three with their
// JSON path, and syntax errors with their byte offset.

// Arrays and objects may nest at most this deep (a case needs 4 levels). nlohmann's DOM
// parser, dump() and comparisons recurse once per level, so that a document such as
// "[[[[...]]]]" 100000 deep overflows the stack; the SAX pass below reads iteratively and
// stops at the first level too deep, before any DOM is built.
constexpr std::size_t max_json_depth = 64;

struct JsonProblem {
  enum class Kind { syntax, overflow, underflow, duplicate_key, too_deep };
  Kind kind = Kind::syntax;
  std::size_t byte = 0;  // syntax: characters read, the offending one included
  std::string reason;    // syntax: the parser's description
  Tokens path;           // overflow, underflow, duplicate_key, too_deep: where
  std::string token;     // overflow, underflow: the number as written
};

// Whether a number as written has a non-zero digit before its exponent (1e-400 has, 0e5 not).
bool nonzero_literal(const std::string& literal) {
  for (char ch : literal) {
    if (ch == 'e' || ch == 'E') break;
    if (ch >= '1' && ch <= '9') return true;
  }
  return false;
}

class JsonChecker : public nlohmann::json_sax<json> {
 public:
  // base_depth: how many arrays and objects enclose the text (an override's value).
  explicit JsonChecker(std::size_t base_depth = 0) : base_depth_(base_depth) {}
  const std::optional<JsonProblem>& problem() const { return problem_; }

  bool null() override { return value(); }
  bool boolean(bool) override { return value(); }
  bool number_integer(number_integer_t) override { return value(); }
  bool number_unsigned(number_unsigned_t) override { return value(); }
  bool number_float(number_float_t x, const string_t& literal) override {
    value();
    if (x == 0.0 && nonzero_literal(literal)) {
      Tokens path = frames_.empty() ? Tokens{} : enclosing_path(frames_.back().token);
      problem_ = JsonProblem{JsonProblem::Kind::underflow, 0, "", std::move(path), literal};
      return false;
    }
    return true;
  }
  bool string(string_t&) override { return value(); }
  bool binary(binary_t&) override { return value(); }
  bool start_object(std::size_t) override { return open(true); }
  bool end_object() override { return close(); }
  bool start_array(std::size_t) override { return open(false); }
  bool end_array() override { return close(); }

  bool key(string_t& k) override {
    Frame& frame = frames_.back();
    if (!frame.keys.insert(k).second) {
      problem_ = JsonProblem{JsonProblem::Kind::duplicate_key, 0, "", enclosing_path(k), ""};
      return false;
    }
    frame.token = k;
    return true;
  }

  bool parse_error(std::size_t position, const std::string& last_token,
                   const nlohmann::detail::exception& ex) override {
    constexpr int number_overflow = 406;
    if (ex.id == number_overflow) {
      // Reported in place of the value, so an array's index has not advanced yet.
      std::string token = frames_.empty() ? "" : frames_.back().token;
      if (!frames_.empty() && !frames_.back().object) token = std::to_string(frames_.back().count);
      Tokens path = frames_.empty() ? Tokens{} : enclosing_path(token);
      problem_ = JsonProblem{JsonProblem::Kind::overflow, 0, "", std::move(path), last_token};
    } else {
      problem_ = JsonProblem{JsonProblem::Kind::syntax, position, ex.what(), {}, ""};
    }
    return false;
  }

 private:
  struct Frame {
    bool object = true;
    std::set<std::string> keys;  // objects: keys seen so far
    std::string token;           // the member or element being read
    std::size_t count = 0;       // arrays: elements seen so far
  };

  // A value starts; inside an array it is the next element.
  bool value() {
    if (!frames_.empty() && !frames_.back().object) {
      frames_.back().token = std::to_string(frames_.back().count++);
    }
    return true;
  }
  bool open(bool object) {
    value();
    if (base_depth_ + frames_.size() + 1 > max_json_depth) {
      Tokens path = frames_.empty() ? Tokens{} : enclosing_path(frames_.back().token);
      problem_ = JsonProblem{JsonProblem::Kind::too_deep, 0, "", std::move(path), ""};
      return false;
    }
    frames_.push_back(Frame{object, {}, "", 0});
    return true;
  }
  bool close() {
    frames_.pop_back();
    return true;
  }
  // Path of `last` inside the innermost open container.
  Tokens enclosing_path(const std::string& last) const {
    Tokens path;
    for (std::size_t i = 0; i + 1 < frames_.size(); ++i) path.push_back(frames_[i].token);
    path.push_back(last);
    return path;
  }

  std::size_t base_depth_ = 0;
  std::vector<Frame> frames_;
  std::optional<JsonProblem> problem_;
};

std::optional<JsonProblem> check_json(const std::string& text, std::size_t base_depth = 0) {
  JsonChecker checker(base_depth);
  json::sax_parse(text, &checker);
  return checker.problem();
}

// 1-based line and column of the character at which a syntax error was found.
std::pair<std::size_t, std::size_t> line_and_column(const std::string& text, std::size_t byte) {
  const std::size_t index = std::min(byte > 0 ? byte - 1 : 0, text.size());
  const std::size_t line = 1 + std::count(text.begin(), text.begin() + index, '\n');
  const std::size_t newline = index == 0 ? std::string::npos : text.rfind('\n', index - 1);
  const std::size_t line_start = newline == std::string::npos ? 0 : newline + 1;
  return {line, index - line_start + 1};
}

// nlohmann's message without its "[json.exception...] parse error at ...: syntax error
// while parsing X - " preamble, e.g. "unexpected ','; expected '[', '{', or a literal".
std::string short_reason(const std::string& message) {
  std::string reason = message;
  const std::size_t column = reason.find(", column ");
  if (column != std::string::npos) {
    const std::size_t colon = reason.find(": ", column);
    if (colon != std::string::npos) reason = reason.substr(colon + 2);
  }
  const std::string preamble = "syntax error while parsing ";
  const std::size_t dash = reason.find(" - ");
  if (reason.compare(0, preamble.size(), preamble) == 0 && dash != std::string::npos) {
    reason = reason.substr(dash + 3);
  }
  return reason;
}

// Message (after "SOURCE: ") for an overflowing number or duplicate key under `prefix`.
std::string describe_value_problem(const JsonProblem& problem, Tokens prefix) {
  prefix.insert(prefix.end(), problem.path.begin(), problem.path.end());
  if (problem.kind == JsonProblem::Kind::overflow) {
    return json_pointer(prefix) + ": expected a finite number, got " + problem.token +
           " (beyond the range of a double)";
  }
  if (problem.kind == JsonProblem::Kind::too_deep) {
    return json_pointer(prefix) + ": expected at most " + std::to_string(max_json_depth) +
           " levels of nested arrays and objects, got an array or object one level deeper";
  }
  if (problem.kind == JsonProblem::Kind::underflow) {
    return json_pointer(prefix) + ": expected a number within the range of a double, got " + problem.token +
           " (below the smallest double: it would read as 0)";
  }
  return json_pointer(prefix) + ": duplicate key; each key may appear only once";
}

json parse_json(const std::string& text, const std::string& source) {
  if (const auto problem = check_json(text)) {
    if (problem->kind != JsonProblem::Kind::syntax) {
      throw CaseError(source + ": " + describe_value_problem(*problem, {}));
    }
    const auto [line, column] = line_and_column(text, problem->byte);
    throw CaseError(source + ": malformed JSON at line " + std::to_string(line) + ", column " +
                    std::to_string(column) + ": " + short_reason(problem->reason));
  }
  return json::parse(text);
}

// ---------------------------------------------------------------------------
// --set overrides: "key.path=VALUE", VALUE as JSON or else as a string.

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

// ---------------------------------------------------------------------------
// Validator: typed access to members that knows the JSON path for messages.

struct NumberRule {
  const char* description;
  double lo, hi;
  bool lo_open, hi_open;
  bool admits(double x) const {
    return std::isfinite(x) && (lo_open ? x > lo : x >= lo) && (hi_open ? x < hi : x <= hi);
  }
};

constexpr double infinity = std::numeric_limits<double>::infinity();
const NumberRule any_number{"a number", -infinity, infinity, false, false};
const NumberRule positive{"a positive number", 0.0, infinity, true, false};
const NumberRule nonnegative{"a non-negative number", 0.0, infinity, false, false};

struct IntRule {
  const char* description;
  std::int64_t lo, hi;
};

constexpr std::int64_t int64_max = std::numeric_limits<std::int64_t>::max();
const IntRule positive_int{"a positive integer", 1, int64_max};
const IntRule nonnegative_int{"a non-negative integer", 0, int64_max};
const IntRule positive_int32{"a positive integer", 1, INT_MAX};
const IntRule nonnegative_int32{"a non-negative integer", 0, INT_MAX};

// The value as an integer, if it is one (2 and 2.0 are; 2.5, "2" and 1e30 are not).
std::optional<std::int64_t> as_integer(const json& v) {
  if (v.is_number_integer() && !v.is_number_unsigned()) return v.get<std::int64_t>();
  if (v.is_number_unsigned()) {
    const auto u = v.get<std::uint64_t>();
    if (u <= static_cast<std::uint64_t>(int64_max)) return static_cast<std::int64_t>(u);
    return std::nullopt;
  }
  if (v.is_number_float()) {
    const double x = v.get<double>();
    constexpr double limit = 9.2e18;  // safely inside int64
    if (std::isfinite(x) && x == std::floor(x) && std::abs(x) < limit) {
      return static_cast<std::int64_t>(x);
    }
  }
  return std::nullopt;
}

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
  std::string pointer(const std::string& key = "") const {
    Tokens tokens = tokens_;
    if (!key.empty()) tokens.push_back(key);
    return json_pointer(tokens);
  }

  // "SOURCE: /json/pointer", the start of every message about member `key`.
  std::string where(const std::string& key = "") const { return source_ + ": " + pointer(key); }

  [[noreturn]] void fail(const std::string& key, const std::string& message) const {
    throw CaseError(where(key) + ": " + message);
  }
  // For a problem found here whose cause the case gives elsewhere (an absolute pointer).
  [[noreturn]] void fail_at(const std::string& pointer, const std::string& message) const {
    throw CaseError(source_ + ": " + pointer + ": " + message);
  }
  [[noreturn]] void fail_expected(const std::string& key, const std::string& expected,
                                  const json& got) const {
    fail(key, "expected " + expected + ", got " + describe(got));
  }

  void check_no_unknown_keys(const json& object, const Names& known) const {
    for (auto it = object.begin(); it != object.end(); ++it) {
      if (contains(known, it.key())) continue;
      const auto near = nearest_name(it.key(), known);
      fail(it.key(), near ? "unknown key; did you mean " + quote(*near) + "?"
                          : "unknown key; expected one of " + quoted_list(known));
    }
  }

  // --- members
  static const json* find(const json& object, const std::string& key) {
    const auto it = object.find(key);
    return it == object.end() ? nullptr : &*it;
  }
  const json& require(const json& object, const std::string& key,
                      const std::string& expected) const {
    const json* member = find(object, key);
    if (!member) fail(key, "missing required key; expected " + expected);
    return *member;
  }

  const json& require_object(const json& object, const std::string& key) const {
    return get_object(require(object, key, "an object"), key);
  }
  const json* optional_object(const json& object, const std::string& key) const {
    const json* member = find(object, key);
    return member ? &get_object(*member, key) : nullptr;
  }
  double require_number(const json& object, const std::string& key, const NumberRule& rule) const {
    return get_number(require(object, key, rule.description), key, rule);
  }
  std::optional<double> optional_number(const json& object, const std::string& key,
                                        const NumberRule& rule) const {
    const json* member = find(object, key);
    return member ? std::optional<double>(get_number(*member, key, rule)) : std::nullopt;
  }
  std::optional<std::int64_t> optional_int(const json& object, const std::string& key,
                                           const IntRule& rule) const {
    const json* member = find(object, key);
    return member ? std::optional<std::int64_t>(get_int(*member, key, rule)) : std::nullopt;
  }
  std::string require_nonempty_string(const json& object, const std::string& key) const {
    const json& member = require(object, key, "a non-empty string");
    if (!member.is_string() || member.get<std::string>().empty()) {
      fail_expected(key, "a non-empty string", member);
    }
    return member.get<std::string>();
  }
  std::optional<std::string> optional_string(const json& object, const std::string& key) const {
    const json* member = find(object, key);
    if (!member) return std::nullopt;
    if (!member->is_string()) fail_expected(key, "a string", *member);
    return member->get<std::string>();
  }
  std::string require_string_in(const json& object, const std::string& key,
                                const Names& allowed) const {
    return get_string_in(require(object, key, one_of(allowed)), key, allowed);
  }
  std::optional<std::string> optional_string_in(const json& object, const std::string& key,
                                                const Names& allowed) const {
    const json* member = find(object, key);
    return member ? std::optional<std::string>(get_string_in(*member, key, allowed)) : std::nullopt;
  }

  std::optional<bool> optional_bool(const json& object, const std::string& key) const {
    const json* member = find(object, key);
    if (!member) return std::nullopt;
    if (!member->is_boolean()) fail_expected(key, "true or false", *member);
    return member->get<bool>();
  }

  // --- values (`key` names the value for messages)
  const json& get_object(const json& value, const std::string& key) const {
    if (!value.is_object()) fail_expected(key, "an object", value);
    return value;
  }
  double get_number(const json& value, const std::string& key, const NumberRule& rule) const {
    if (!value.is_number() || !rule.admits(value.get<double>())) {
      fail_expected(key, rule.description, value);
    }
    return value.get<double>();
  }
  std::int64_t get_int(const json& value, const std::string& key, const IntRule& rule) const {
    const auto x = as_integer(value);
    if (!x || *x < rule.lo) fail_expected(key, rule.description, value);
    if (*x > rule.hi) {
      fail_expected(
          key, std::string(rule.description) + " no larger than " + std::to_string(rule.hi), value);
    }
    return *x;
  }
  std::string get_string_in(const json& value, const std::string& key, const Names& allowed) const {
    if (!value.is_string() || !contains(allowed, value.get<std::string>())) {
      fail_expected(key, one_of(allowed), value);
    }
    return value.get<std::string>();
  }

 private:
  std::string source_;
  Tokens tokens_;
};

// ---------------------------------------------------------------------------
// grid

// The integers of /grid/n as written; grid_shape_problem decides whether they make a grid.
std::array<std::int64_t, 3> parse_grid_size(const Validator& v, const json& grid) {
  const std::string expected = "3 positive integers";
  const json& given = v.require(grid, "n", expected);
  if (!given.is_array() || given.size() != 3) v.fail_expected("n", expected, given);
  std::array<std::int64_t, 3> n{};
  for (int a = 0; a < 3; ++a) {
    const auto x = as_integer(given[a]);
    if (!x) v.fail_expected("n", expected, given);
    n[a] = *x;
  }
  return n;
}

std::array<std::array<double, 2>, 3> parse_extent(Validator& v, const json& grid) {
  const std::string expected = "3 [lo, hi] pairs of numbers";
  const json& given = v.require(grid, "extent", expected);
  if (!given.is_array() || given.size() != 3) v.fail_expected("extent", expected, given);
  const auto scope = v.enter("extent");
  const char* axes = "xyz";
  std::array<std::array<double, 2>, 3> extent{};
  for (int a = 0; a < 3; ++a) {
    const std::string index = std::to_string(a);
    const std::string lo = std::string(1, axes[a]) + "0", hi = std::string(1, axes[a]) + "1";
    const std::string pair = "[" + lo + ", " + hi + "]";
    const json& range = given[a];
    if (!range.is_array() || range.size() != 2 || !range[0].is_number() || !range[1].is_number()) {
      v.fail_expected(index, pair + " with 2 numbers", range);
    }
    extent[a] = {range[0].get<double>(), range[1].get<double>()};
    if (!(extent[a][0] < extent[a][1])) {
      v.fail_expected(index, pair + " with " + lo + " < " + hi, range);
    }
  }
  return extent;
}

// The operators divide by h and h^2 (h = L/n): every cell size must be a normal number whose
// 1/h^2 is finite, and every coordinate finite.
void check_cell_sizes(Validator& v, const json& grid, const Case& c) {
  const json& given = grid.at("extent");
  const auto scope = v.enter("extent");
  const char* axes = "xyz";
  for (int a = 0; a < 3; ++a) {
    const std::string axis(1, axes[a]);
    const std::string index = std::to_string(a);
    const std::string pair = "[" + axis + "0, " + axis + "1]";
    if (!std::isfinite(c.extent[a][0]) || !std::isfinite(c.extent[a][1])) {
      v.fail_expected(index, pair + " with finite numbers", given[a]);
    }
    const double h = c.spacing(a), inverse_h2 = 1.0 / (h * h);
    if (!std::isnormal(h) || !std::isfinite(inverse_h2)) {
      v.fail(index, "expected " + pair + " whose " + axis + " cell size h = (" + axis + "1 - " + axis + "0)/n" +
                        axis + " is a normal number with 1/h^2 finite, got " + describe(given[a]) + ", whose " +
                        axis + " cells are h = " + format_number(h) + " wide (1/h^2 = " +
                        format_number(inverse_h2) + ")");
    }
  }
}

// ---------------------------------------------------------------------------
// boundaries

std::string describe_temperature(const FaceCondition& f) {
  switch (f.temperature) {
    case TemperatureBC::periodic:
      return "periodic";
    case TemperatureBC::insulating:
      return "insulating";
    case TemperatureBC::fixed:
      return "fixed at " + format_number(f.temperature_value);
    case TemperatureBC::conducting:
      return "conducting";
  }
  return "";
}

std::string describe_plates(const Faces& faces) {
  return "z_lo " + describe_temperature(faces[z_lo]) + ", z_hi " +
         describe_temperature(faces[z_hi]);
}

bool plates_fixed(const Faces& faces) {
  return faces[z_lo].temperature == TemperatureBC::fixed &&
         faces[z_hi].temperature == TemperatureBC::fixed;
}

void parse_face_temperature(Validator& v, const json& face, FaceCondition& f) {
  const std::string expected = "\"insulating\", \"conducting\" or {\"fixed\": NUMBER}";
  const json& given = v.require(face, "temperature", expected);
  if (given.is_string() && given == "insulating") {
    f.temperature = TemperatureBC::insulating;
    return;
  }
  if (given.is_string() && given == "conducting") {
    f.temperature = TemperatureBC::conducting;
    return;
  }
  if (!given.is_object()) v.fail_expected("temperature", expected, given);
  const auto scope = v.enter("temperature");
  v.check_no_unknown_keys(given, {"fixed"});
  f.temperature = TemperatureBC::fixed;
  f.temperature_value = v.require_number(given, "fixed", any_number);
}

FaceCondition parse_face(Validator& v, const json& boundaries, const std::string& name) {
  const std::string expected =
      "\"periodic\" or an object {\"velocity\": ..., \"temperature\": ...}";
  const json& given = v.require(boundaries, name, expected);
  FaceCondition f;  // periodic by default
  if (given.is_string() && given == "periodic") return f;
  if (!given.is_object()) v.fail_expected(name, expected, given);
  const auto scope = v.enter(name);
  v.check_no_unknown_keys(given, {"velocity", "temperature"});
  const std::string velocity = v.require_string_in(given, "velocity", {"no_slip", "free_slip"});
  f.velocity = velocity == "no_slip" ? VelocityBC::no_slip : VelocityBC::free_slip;
  parse_face_temperature(v, given, f);
  return f;
}

// Periodicity is a property of an axis: the high face must match the low one.
void check_periodic_pairs(const Validator& v, const json& boundaries, const Faces& faces) {
  for (int a = 0; a < 3; ++a) {
    const FaceCondition& lo = faces[2 * a];
    if (lo.periodic() == faces[2 * a + 1].periodic()) continue;
    const std::string& lo_name = face_names[2 * a];
    const std::string& hi_name = face_names[2 * a + 1];
    v.fail_expected(hi_name,
                    lo.periodic()
                        ? "\"periodic\" like " + lo_name + " (periodic faces come in pairs)"
                        : "a wall like " + lo_name + " (periodic faces come in pairs)",
                    boundaries.at(hi_name));
  }
}

// A conducting wall carries the conduction profile between the plates: it needs fixed
// plate temperatures, and is a side wall (x or y).
void check_conducting_walls(Validator& v, const json& boundaries, const Faces& faces) {
  for (int f = 0; f < 6; ++f) {
    if (faces[f].temperature != TemperatureBC::conducting) continue;
    const bool fixed_plates = faces[4].temperature == TemperatureBC::fixed && faces[5].temperature == TemperatureBC::fixed;
    if (f >= 4 || !fixed_plates) {
      const auto scope = v.enter(face_names[f]);
      v.fail_expected("temperature",
                      f >= 4 ? "\"insulating\" or {\"fixed\": NUMBER} (\"conducting\" is for side walls)"
                             : "fixed temperatures on z_lo and z_hi for a \"conducting\" side wall",
                      boundaries.at(face_names[f]).at("temperature"));
    }
  }
}

Faces parse_boundaries(Validator& v, const json& root) {
  const json& boundaries = v.require_object(root, "boundaries");
  const auto scope = v.enter("boundaries");
  v.check_no_unknown_keys(boundaries, face_names);
  Faces faces;
  for (int f = 0; f < 6; ++f) faces[f] = parse_face(v, boundaries, face_names[f]);
  check_periodic_pairs(v, boundaries, faces);
  check_conducting_walls(v, boundaries, faces);
  return faces;
}

// ---------------------------------------------------------------------------
// physics

const Names dimensional_keys = {"nu", "kappa", "buoyancy"};
const Names nondimensional_keys = {"rayleigh", "prandtl", "units"};

// Which form the object uses: decided by its first form-specific key; a later key of
// the other form is the error.
bool uses_dimensional_form(const Validator& v, const json& physics) {
  std::optional<bool> dimensional;
  std::string deciding_key;
  for (auto it = physics.begin(); it != physics.end(); ++it) {
    const bool is_dimensional = contains(dimensional_keys, it.key());
    if (!is_dimensional && !contains(nondimensional_keys, it.key())) continue;
    if (!dimensional) {
      dimensional = is_dimensional;
      deciding_key = it.key();
    } else if (*dimensional != is_dimensional) {
      v.fail(it.key(),
             "expected either the dimensional form (nu, kappa, buoyancy) or the "
             "nondimensional form (rayleigh, prandtl, units), got " +
                 quote(it.key()) + " mixed with " + quote(deciding_key));
    }
  }
  if (!dimensional) {
    v.fail_expected("",
                    "either nu, kappa, buoyancy (dimensional) or rayleigh, prandtl, units "
                    "(nondimensional)",
                    physics);
  }
  return *dimensional;
}

// One input of the formulas for nu, kappa and buoyancy, for a message that blames it.
struct FormulaInput {
  std::string pointer;  // where the case gives it
  std::string shown;    // what follows "got"
  std::string symbol;   // its name in the formulas
  double value;
};

// A coefficient the solver uses, proportional to the product of input^power over `factors`.
struct DerivedCoefficient {
  std::string name;
  double value;
  bool zero_allowed;
  std::vector<std::pair<const FormulaInput*, double>> factors;
};

// Why the solver cannot use the coefficient, if it cannot: a viscosity, diffusivity or
// buoyancy that is 0, subnormal or infinite stalls or breaks the step (dt limits divide by
// them; a subnormal loses its digits).
std::optional<std::string> coefficient_problem(double x, bool zero_allowed) {
  if (std::isnan(x)) return "not a number";
  if (std::isinf(x)) return "overflow";
  if (x == 0.0) return zero_allowed ? std::nullopt : std::optional<std::string>("underflow");
  if (!std::isnormal(x)) return "subnormal";
  return std::nullopt;
}

// Names the input that pushes a coefficient furthest the way it left the range: the largest
// |power * log(value)| of the right sign.
void check_coefficients(const Validator& v, const std::vector<DerivedCoefficient>& coefficients) {
  for (const auto& c : coefficients) {
    const auto problem = coefficient_problem(c.value, c.zero_allowed);
    if (!problem) continue;
    const double direction = *problem == "overflow" ? 1.0 : -1.0;
    const FormulaInput* blamed = c.factors.front().first;
    double furthest = -infinity;
    for (const auto& [input, power] : c.factors) {
      const double push = direction * power * std::log(std::abs(input->value));
      if (push > furthest) {
        furthest = push;
        blamed = input;
      }
    }
    std::string others;
    for (const auto& factor : c.factors) {
      if (factor.first == blamed) continue;
      others += (others.empty() ? "with " : ", ") + factor.first->symbol + " = " + format_number(factor.first->value);
    }
    v.fail_at(blamed->pointer, "expected a value for which " + c.name + " is " +
                                   (c.zero_allowed ? "0 or a finite normal number" : "a finite normal number") +
                                   ", got " + blamed->shown + ", which " + (others.empty() ? "" : others + " ") +
                                   "gives " + c.name + " = " + format_number(c.value) + " (" + *problem + ")");
  }
}

PhysicsParams parse_dimensional(const Validator& v, const json& physics) {
  PhysicsParams p;
  p.units = Units::dimensional;
  p.nu = v.require_number(physics, "nu", positive);
  p.kappa = v.require_number(physics, "kappa", positive);
  p.buoyancy = v.require_number(physics, "buoyancy", any_number);
  // The coefficients are the values given: they must be normal (buoyancy may be 0).
  const auto input = [&](const std::string& key, double value) {
    return FormulaInput{v.pointer(key), describe(physics.at(key)), key, value};
  };
  const FormulaInput nu = input("nu", p.nu), kappa = input("kappa", p.kappa), buoyancy = input("buoyancy", p.buoyancy);
  check_coefficients(v, {{"nu", p.nu, false, {{&nu, 1.0}}},
                         {"kappa", p.kappa, false, {{&kappa, 1.0}}},
                         {"buoyancy", p.buoyancy, true, {{&buoyancy, 1.0}}}});
  return p;
}

// Coefficients from Ra = alpha g |dT| H^3 / (nu kappa) and Pr = nu / kappa, scaled so that
// the time unit is H^2/kappa (diffusive) or H/U with U = sqrt(alpha g |dT| H) (free_fall).
PhysicsParams parse_nondimensional(const Validator& v, const json& root, const json& physics, const Faces& faces,
                                   double height) {
  const double ra = v.require_number(physics, "rayleigh", positive);
  const double pr = v.require_number(physics, "prandtl", positive);
  const std::string units = v.require_string_in(physics, "units", {"diffusive", "free_fall"});
  if (!plates_fixed(faces) || faces[z_lo].temperature_value == faces[z_hi].temperature_value) {
    v.fail("rayleigh",
           "expected fixed, differing temperatures on boundaries z_lo and z_hi (the "
           "Rayleigh number is defined by their difference), got " +
               describe_plates(faces));
  }
  const double t_lo = faces[z_lo].temperature_value, t_hi = faces[z_hi].temperature_value;
  // dT is blamed on the plate further from 0, and shown with the other one.
  const int plate = std::abs(t_hi) >= std::abs(t_lo) ? z_hi : z_lo, other = z_lo + z_hi - plate;
  const std::string plate_pointer = "/boundaries/" + face_names[plate] + "/temperature/fixed";
  const json& plate_given = root.at("boundaries").at(face_names[plate]).at("temperature").at("fixed");
  const std::string other_plate =
      face_names[other] + " fixed at " + format_number(faces[other].temperature_value);
  if (!std::isfinite(t_lo - t_hi)) {
    v.fail_at(plate_pointer, "expected a temperature whose difference from the other plate's is finite (it "
                             "defines the Rayleigh number), got " + describe(plate_given) + " with " + other_plate);
  }
  const Units form = units == "diffusive" ? Units::diffusive : Units::free_fall;
  const PhysicsParams p = physics_from_rayleigh(ra, pr, form, height, t_lo - t_hi);

  const double dt = std::abs(t_lo - t_hi);
  const FormulaInput in_ra{v.pointer("rayleigh"), describe(physics.at("rayleigh")), "Ra", ra};
  const FormulaInput in_pr{v.pointer("prandtl"), describe(physics.at("prandtl")), "Pr", pr};
  const FormulaInput in_h{"/grid/extent/2", describe(root.at("grid").at("extent").at(2)) + " (H = " + format_number(height) + ")",
                          "H", height};
  const FormulaInput in_dt{plate_pointer, describe(plate_given) + " (dT = " + format_number(dt) + " with " + other_plate + ")",
                           "dT", dt};
  // Each input by its RayleighInput; the powers are physics/units.hpp's.
  const FormulaInput* inputs[] = {&in_ra, &in_pr, &in_h, &in_dt};
  std::vector<DerivedCoefficient> coefficients;
  for (const CoefficientScaling& scaling : rayleigh_scalings(form)) {
    DerivedCoefficient c{scaling.name, p.*scaling.value, false, {}};
    for (const auto& [input, power] : scaling.powers) c.factors.emplace_back(inputs[static_cast<int>(input)], power);
    coefficients.push_back(std::move(c));
  }
  check_coefficients(v, coefficients);
  return p;
}

double default_reference_temperature(const Faces& faces) {
  if (!plates_fixed(faces)) return 0.0;
  return 0.5 * (faces[z_lo].temperature_value + faces[z_hi].temperature_value);
}

PhysicsParams parse_physics(Validator& v, const json& root, const Faces& faces, double height) {
  const json& physics = v.require_object(root, "physics");
  const auto scope = v.enter("physics");
  Names known = dimensional_keys;
  known.insert(known.end(), nondimensional_keys.begin(), nondimensional_keys.end());
  known.push_back("reference_temperature");
  v.check_no_unknown_keys(physics, known);
  PhysicsParams p = uses_dimensional_form(v, physics)
                        ? parse_dimensional(v, physics)
                        : parse_nondimensional(v, root, physics, faces, height);
  p.reference_temperature = v.optional_number(physics, "reference_temperature", any_number)
                                .value_or(default_reference_temperature(faces));
  return p;
}

// ---------------------------------------------------------------------------
// initial

InitialCondition default_initial(const Faces& faces) {
  InitialCondition ic;
  if (plates_fixed(faces)) {
    ic.profile = TemperatureProfile::conduction;
    ic.bottom = faces[z_lo].temperature_value;
    ic.top = faces[z_hi].temperature_value;
  } else {
    ic.profile = TemperatureProfile::uniform;
    ic.value = 0.0;
  }
  return ic;
}

void parse_initial_temperature(Validator& v, const json& temperature, const Faces& faces,
                               InitialCondition& ic) {
  const auto scope = v.enter("temperature");
  const std::string profile =
      v.require_string_in(temperature, "profile", {"uniform", "linear", "conduction"});
  if (profile == "uniform") {
    v.check_no_unknown_keys(temperature, {"profile", "value"});
    ic.profile = TemperatureProfile::uniform;
    ic.value = v.require_number(temperature, "value", any_number);
  } else if (profile == "linear") {
    v.check_no_unknown_keys(temperature, {"profile", "bottom", "top"});
    ic.profile = TemperatureProfile::linear;
    ic.bottom = v.require_number(temperature, "bottom", any_number);
    ic.top = v.require_number(temperature, "top", any_number);
  } else {
    v.check_no_unknown_keys(temperature, {"profile"});
    if (!plates_fixed(faces)) {
      v.fail("profile",
             "expected fixed temperatures on boundaries z_lo and z_hi for the "
             "\"conduction\" profile, got " +
                 describe_plates(faces));
    }
    ic.profile = TemperatureProfile::conduction;
    ic.bottom = faces[z_lo].temperature_value;
    ic.top = faces[z_hi].temperature_value;
  }
}

void parse_perturbation(Validator& v, const json& perturbation, InitialCondition& ic) {
  const auto scope = v.enter("perturbation");
  v.check_no_unknown_keys(perturbation, {"amplitude", "seed", "shape", "mode"});
  ic.perturbation_amplitude =
      v.optional_number(perturbation, "amplitude", nonnegative).value_or(0.0);
  ic.seed =
      static_cast<std::uint64_t>(v.optional_int(perturbation, "seed", nonnegative_int).value_or(1));
  const std::string shape = v.optional_string_in(perturbation, "shape", {"random", "mode"}).value_or("random");
  ic.perturbation_shape = shape == "mode" ? PerturbationShape::mode : PerturbationShape::random;
  if (const json* mode = Validator::find(perturbation, "mode")) {
    const std::string expected = "2 non-negative numbers [wavelengths along x, along y]";
    if (!mode->is_array() || mode->size() != 2 || !(*mode)[0].is_number() || !(*mode)[1].is_number() ||
        (*mode)[0].get<double>() < 0 || (*mode)[1].get<double>() < 0 || !std::isfinite((*mode)[0].get<double>()) ||
        !std::isfinite((*mode)[1].get<double>()))
      v.fail_expected("mode", expected, *mode);
    if (ic.perturbation_shape != PerturbationShape::mode) {
      if (const json* given = Validator::find(perturbation, "shape"))
        v.fail_expected("shape", "\"mode\" when \"mode\" is given", *given);
      v.fail("shape", "missing key; expected \"mode\" when \"mode\" is given");
    }
    ic.mode = {(*mode)[0].get<double>(), (*mode)[1].get<double>()};
  }
}

InitialCondition parse_initial(Validator& v, const json& root, const Faces& faces) {
  InitialCondition ic = default_initial(faces);
  const json* initial = v.optional_object(root, "initial");
  if (!initial) return ic;
  const auto scope = v.enter("initial");
  v.check_no_unknown_keys(*initial, {"temperature", "perturbation"});
  if (const json* t = v.optional_object(*initial, "temperature")) {
    parse_initial_temperature(v, *t, faces, ic);
  }
  if (const json* p = v.optional_object(*initial, "perturbation")) parse_perturbation(v, *p, ic);
  return ic;
}

// ---------------------------------------------------------------------------
// time, pressure, precision, output

TimeParams parse_time(Validator& v, const json& root) {
  const json& time = v.require_object(root, "time");
  const auto scope = v.enter("time");
  v.check_no_unknown_keys(time, {"steps", "end", "cfl", "dt"});
  TimeParams t;
  t.steps = v.optional_int(time, "steps", positive_int);
  t.end = v.optional_number(time, "end", positive);
  if (!t.steps && !t.end) v.fail_expected("", "at least one of \"steps\" and \"end\"", time);
  const NumberRule cfl_range{"a number in (0, 2]", 0.0, 2.0, true, false};
  t.cfl = v.optional_number(time, "cfl", cfl_range).value_or(0.5);
  t.dt = v.optional_number(time, "dt", positive);
  return t;
}

PressureParams parse_pressure(Validator& v, const json& root) {
  PressureParams p;
  const json* pressure = v.optional_object(root, "pressure");
  if (!pressure) return p;
  const auto scope = v.enter("pressure");
  v.check_no_unknown_keys(*pressure, {"solver", "tolerance", "max_cycles", "pre_sweeps", "post_sweeps", "omega",
                                      "fmg", "mixed_precision", "cuda_graphs", "cpu_coarse_cells",
                                      "max_failures"});
  p.solver = v.optional_string_in(*pressure, "solver", {"multigrid"}).value_or(p.solver);
  const NumberRule tolerance_range{"a number in (0, 1)", 0.0, 1.0, true, true};
  p.tolerance = v.optional_number(*pressure, "tolerance", tolerance_range).value_or(p.tolerance);
  p.max_cycles = static_cast<int>(
      v.optional_int(*pressure, "max_cycles", positive_int32).value_or(p.max_cycles));
  p.pre_sweeps = static_cast<int>(
      v.optional_int(*pressure, "pre_sweeps", nonnegative_int32).value_or(p.pre_sweeps));
  p.post_sweeps = static_cast<int>(
      v.optional_int(*pressure, "post_sweeps", nonnegative_int32).value_or(p.post_sweeps));
  const NumberRule omega_range{"a number in (0, 2)", 0.0, 2.0, true, true};
  p.omega = v.optional_number(*pressure, "omega", omega_range).value_or(p.omega);
  p.fmg = v.optional_bool(*pressure, "fmg").value_or(p.fmg);
  p.mixed_precision = v.optional_bool(*pressure, "mixed_precision");
  p.cuda_graphs = v.optional_bool(*pressure, "cuda_graphs").value_or(p.cuda_graphs);
  if (const auto cells = v.optional_int(*pressure, "cpu_coarse_cells", nonnegative_int)) p.cpu_coarse_cells = *cells;
  p.max_failures = static_cast<int>(
      v.optional_int(*pressure, "max_failures", positive_int32).value_or(p.max_failures));
  if (p.pre_sweeps == 0 && p.post_sweeps == 0) {
    v.fail("",
           "expected at least one smoothing sweep (pre_sweeps + post_sweeps > 0), got "
           "pre_sweeps 0 and post_sweeps 0");
  }
  return p;
}

std::string parse_precision(const Validator& v, const json& root) {
  const json* precision = Validator::find(root, "precision");
  if (!precision || *precision == "double") return "double";
  if (*precision == "single") {
    v.fail_expected("precision", "\"double\" (single precision arrives in a later release)",
                    *precision);
  }
  v.fail_expected("precision", "\"double\"", *precision);
}

// Distinct names from `allowed` in the array at `key`; `fallback` when it is missing.
Names parse_names(Validator& v, const json& object, const std::string& key, const Names& allowed,
                  const Names& fallback) {
  const json* given = Validator::find(object, key);
  if (!given) return fallback;
  const std::string expected = "an array of distinct names from " + quoted_list(allowed);
  if (!given->is_array()) v.fail_expected(key, expected, *given);
  const auto scope = v.enter(key);
  Names names;
  for (std::size_t i = 0; i < given->size(); ++i) {
    const std::string index = std::to_string(i);
    const std::string name = v.get_string_in((*given)[i], index, allowed);
    if (contains(names, name)) v.fail(index, "expected distinct names, got " + quote(name) + " twice");
    names.push_back(name);
  }
  return names;
}

// "region": {"z": 0.5}: the plane of cells that holds the coordinate.
OutputRegion parse_region(Validator& v, const json& stream, const Case& c) {
  OutputRegion r;
  const json* region = v.optional_object(stream, "region");
  if (!region) return r;
  const std::string expected = "one of \"x\", \"y\", \"z\" with the plane's coordinate, as {\"z\": 0.5}";
  if (region->size() != 1) v.fail_expected("region", expected, *region);
  const auto scope = v.enter("region");
  const std::string axis = region->begin().key();
  if (axis != "x" && axis != "y" && axis != "z") v.fail(axis, "unknown key; expected " + expected);
  r.axis = axis == "x" ? 0 : axis == "y" ? 1 : 2;
  const double lo = c.extent[r.axis][0], hi = c.extent[r.axis][1];
  const NumberRule inside{"a coordinate inside the domain", lo, hi, false, false};
  const json& value = region->begin().value();
  if (!value.is_number() || !inside.admits(value.get<double>()))
    v.fail_expected(axis, "a coordinate inside the domain, " + format_number(lo) + " <= " + axis + " <= " +
                              format_number(hi),
                    value);
  r.coordinate = value.get<double>();
  const int n = c.n[r.axis];
  r.index = std::clamp(int(std::floor((r.coordinate - lo) / c.spacing(r.axis))), 0, n - 1);
  return r;
}

OutputCompression parse_compression(Validator& v, const json& stream, const std::string& precision) {
  OutputCompression z;
  const json* compression = v.optional_object(stream, "compression");
  if (!compression) return z;
  const auto scope = v.enter("compression");
  v.check_no_unknown_keys(*compression, {"deflate", "shuffle", "significant_digits"});
  const IntRule level{"a zlib level from 1 to 9", 1, 9};
  z.deflate = static_cast<int>(v.get_int(v.require(*compression, "deflate", level.description), "deflate", level));
  z.shuffle = v.optional_bool(*compression, "shuffle").value_or(z.shuffle);
  const IntRule digits{precision == "float" ? "a number of significant digits from 1 to 7 (float)"
                                            : "a number of significant digits from 1 to 15 (double)",
                       1, precision == "float" ? 7 : 15};
  if (const auto d = v.optional_int(*compression, "significant_digits", digits)) z.significant_digits = int(*d);
  return z;
}

// One stream: `index` its place in the list (-1 for the single-object form).
OutputStream parse_stream(Validator& v, const json& stream, const Case& c, int index,
                          std::int64_t& diagnostics_interval_steps) {
  OutputStream o;
  v.check_no_unknown_keys(stream, {"file", "interval", "interval_steps", "fields", "profiles", "precision", "region",
                                   "compression", "diagnostics", "diagnostics_interval_steps"});
  if (index <= 0) o.file = "output/" + c.name + ".nc";
  if (index > 0) o.file = v.require_nonempty_string(stream, "file");
  else o.file = v.optional_string(stream, "file").value_or(o.file);
  o.interval = v.optional_number(stream, "interval", positive);
  o.interval_steps = v.optional_int(stream, "interval_steps", positive_int);
  const json* all_profiles = Validator::find(stream, "profiles");
  if (all_profiles && all_profiles->is_boolean()) o.profiles = all_profiles->get<bool>() ? profile_names() : Names{};
  else o.profiles = parse_names(v, stream, "profiles", profile_names(), {});
  // Profiles alone, unless fields are asked for too.
  o.fields = parse_names(v, stream, "fields", output_field_names(), o.profiles.empty() ? o.fields : Names{});
  if (o.fields.empty() && o.profiles.empty()) {
    const json* given = Validator::find(stream, "fields");
    v.fail_expected(given ? "fields" : "profiles",
                    "at least one field or profile (set \"file\" to \"\" or \"output\" to [] for no output)",
                    given ? *given : json::array());
  }
  o.precision = v.optional_string_in(stream, "precision", {"double", "float"}).value_or(o.precision);
  o.region = parse_region(v, stream, c);
  if (o.region.axis == 2 && !o.profiles.empty())
    v.fail("profiles", "profiles span the whole height, and this stream's region is the plane z = " +
                           format_number(o.region.coordinate) + ": write them in a stream of their own");
  o.compression = parse_compression(v, stream, o.precision);
  // The series: in the stream that says so, else in the first (the caller settles it).
  const std::optional<bool> holds = v.optional_bool(stream, "diagnostics");
  o.diagnostics = holds.value_or(false);
  if (const auto d = v.optional_int(stream, "diagnostics_interval_steps", positive_int)) {
    if (!holds.value_or(index <= 0))
      v.fail("diagnostics_interval_steps", "this stream does not hold the diagnostics series (give it \"diagnostics\": true)");
    diagnostics_interval_steps = *d;
  }
  if (!holds && index <= 0) o.diagnostics = true;  // provisional: a later stream may claim it
  return o;
}

// "output": one stream (an object; "file": "" for none) or a list of streams ([] for none).
OutputParams parse_output(Validator& v, const json& root, const Case& c) {
  OutputParams out;
  const json* output = Validator::find(root, "output");
  if (!output) {
    out.streams.push_back(OutputStream{});
    out.streams[0].file = "output/" + c.name + ".nc";
    out.streams[0].diagnostics = true;
    return out;
  }
  if (!output->is_object() && !output->is_array())
    v.fail_expected("output", "an object (one output stream) or an array of them", *output);
  const auto scope = v.enter("output");
  if (output->is_object()) {
    OutputStream s = parse_stream(v, *output, c, -1, out.diagnostics_interval_steps);
    if (!s.file.empty()) out.streams.push_back(std::move(s));
    return out;
  }
  std::vector<std::string> seen;  // the files, as absolute paths
  int claims = 0;                 // streams that say "diagnostics": true
  for (std::size_t i = 0; i < output->size(); ++i) {
    const std::string index = std::to_string(i);
    const json& stream = v.get_object((*output)[i], index);
    const auto in = v.enter(index);
    OutputStream s = parse_stream(v, stream, c, int(i), out.diagnostics_interval_steps);
    if (s.file.empty()) v.fail_expected("file", "a non-empty file name in a list of streams", json(s.file));
    std::error_code ec;
    const std::string path = std::filesystem::absolute(s.file, ec).lexically_normal().string();
    if (contains(seen, path)) v.fail("file", "expected a file of its own, got " + quote(s.file) + ", which an earlier stream writes");
    seen.push_back(path);
    const json* says = Validator::find(stream, "diagnostics");
    if (says && *says == true) {
      if (++claims > 1)
        v.fail("diagnostics", "the diagnostics series goes to one stream; an earlier stream holds it already");
      if (i > 0 && !Validator::find((*output)[0], "diagnostics")) out.streams[0].diagnostics = false;
    }
    out.streams.push_back(std::move(s));
  }
  return out;
}

// Checkpoints are named STEM.checkpoint.<step>.nc; the stem defaults to the output file's
// path without ".nc", so with no output file the case must name one.
CheckpointParams parse_checkpoint(Validator& v, const json& root, const OutputParams& output) {
  CheckpointParams c;
  const json* checkpoint = v.optional_object(root, "checkpoint");
  if (!checkpoint) return c;
  const auto scope = v.enter("checkpoint");
  v.check_no_unknown_keys(*checkpoint, {"interval", "interval_steps", "file", "keep"});
  c.interval = v.optional_number(*checkpoint, "interval", positive);
  c.interval_steps = v.optional_int(*checkpoint, "interval_steps", positive_int);
  c.file = v.optional_string(*checkpoint, "file").value_or(c.file);
  c.keep = static_cast<int>(v.optional_int(*checkpoint, "keep", positive_int32).value_or(c.keep));
  if (c.enabled() && c.file.empty() && output.streams.empty()) {
    const std::string expected =
        "a non-empty file stem when there is no output file (checkpoints are named "
        "STEM.checkpoint.<step>.nc)";
    if (const json* given = Validator::find(*checkpoint, "file")) v.fail_expected("file", expected, *given);
    v.fail("file", "missing key; expected " + expected);
  }
  return c;
}

// ---------------------------------------------------------------------------
// the whole case

// A case file is a few KiB; load_case reads no more than this, so that /dev/zero or a data
// file named by mistake is refused instead of filling memory.
constexpr std::size_t max_case_file_bytes = std::size_t(4) << 20;  // 4 MiB, as the message says

// `root` is an object (checked before the overrides were applied).
Case validate_case(Validator& v, const json& root) {
  v.check_no_unknown_keys(root, {"name", "description", "grid", "physics", "boundaries", "initial",
                                 "time", "pressure", "precision", "output", "checkpoint", "backend"});
  Case c;
  c.name = v.require_nonempty_string(root, "name");
  c.description = v.optional_string(root, "description").value_or("");
  const json& grid = v.require_object(root, "grid");
  std::array<std::int64_t, 3> n{};
  {
    const auto scope = v.enter("grid");
    v.check_no_unknown_keys(grid, {"n", "extent"});
    n = parse_grid_size(v, grid);
    c.extent = parse_extent(v, grid);
  }
  // The shape's rules need the boundaries (a one-cell axis must be periodic).
  c.faces = parse_boundaries(v, root);
  {
    const auto scope = v.enter("grid");
    if (const auto problem = grid_shape_problem(n, {c.periodic(0), c.periodic(1), c.periodic(2)})) v.fail("n", *problem);
    for (int a = 0; a < 3; ++a) c.n[a] = static_cast<int>(n[a]);
    check_cell_sizes(v, grid, c);
  }
  c.physics = parse_physics(v, root, c.faces, c.length(2));
  c.initial = parse_initial(v, root, c.faces);
  c.time = parse_time(v, root);
  c.pressure = parse_pressure(v, root);
  c.precision = parse_precision(v, root);
  c.output = parse_output(v, root, c);
  c.checkpoint = parse_checkpoint(v, root, c.output);
  c.backend = v.optional_string_in(root, "backend", {"auto", "cuda", "cpu"}).value_or("auto");
  return c;
}

}  // namespace

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

const std::vector<std::string>& output_field_names() {
  static const std::vector<std::string> names = {"T", "u", "v", "w", "p", "u_c", "v_c", "w_c"};
  return names;
}

const std::vector<std::string>& profile_names() {
  static const std::vector<std::string> names = {"T_mean", "T_rms", "u_rms", "v_rms", "w_rms", "wT_mean"};
  return names;
}

Case parse_case(const std::string& text, const std::string& source,
                const std::vector<std::string>& overrides) {
  json root = parse_json(text, source);
  Validator v(source);
  if (!root.is_object()) v.fail_expected("", "a JSON object holding the case's keys", root);
  for (const auto& text_of_override : overrides) {
    apply_override(root, parse_override(text_of_override, source), text_of_override, source);
  }
  Case c;
  try {
    c = validate_case(v, root);
  } catch (const json::exception& e) {
    // Every check above reports through CaseError; this keeps a slip in a check from
    // reaching the user as a library exception.
    throw CaseError(source + ": invalid case: " + e.what());
  }
  c.source = source;
  c.json_text = root.dump(2, ' ', false, json::error_handler_t::replace);
  return c;
}

std::string read_case_text(const std::string& path) {
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (!file) throw CaseError(path + ": cannot read case file: " + std::strerror(errno));
  // A folder opens for reading on Linux (reading it fails): say what it is.
  struct stat info {};
  if (fstat(fileno(file), &info) == 0 && S_ISDIR(info.st_mode)) {
    std::fclose(file);
    throw CaseError(path + ": cannot read case file: it is a directory");
  }
  // Read at most one byte past the limit, whatever the file claims to be (/dev/zero and
  // pipes report size 0).
  std::string text;
  char buffer[65536];
  while (text.size() <= max_case_file_bytes) {
    const std::size_t want = std::min(sizeof buffer, max_case_file_bytes + 1 - text.size());
    const std::size_t got = std::fread(buffer, 1, want, file);
    if (got == 0) break;
    text.append(buffer, got);
  }
  const int error = std::ferror(file) ? (errno != 0 ? errno : EIO) : 0;
  std::fclose(file);
  if (error != 0) throw CaseError(path + ": cannot read case file: " + std::strerror(error));
  if (text.size() > max_case_file_bytes) throw CaseError(path + ": larger than 4 MiB: not a case file");
  return text;
}

Case load_case(const std::string& path, const std::vector<std::string>& overrides) {
  return parse_case(read_case_text(path), path, overrides);
}

void check_grid_shape(const std::array<int, 3>& n, const std::array<bool, 3>& periodic, const std::string& where) {
  if (const auto problem = grid_shape_problem({n[0], n[1], n[2]}, periodic)) throw CaseError(where + ": " + *problem);
}

}  // namespace bouss
