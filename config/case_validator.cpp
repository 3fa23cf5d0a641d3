// The case validator and its message text (config/case_validator.hpp).
#include "config/case_validator.hpp"

#include <algorithm>
#include <cstddef>

#include "config/case.hpp"

namespace bouss::case_file {
namespace {

constexpr std::size_t max_shown_chars = 60;

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

}  // namespace

// ---------------------------------------------------------------------------
// Text for messages

std::string dump_compact(const json& v) {
  return v.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string describe(const json& v) {
  std::string s = dump_compact(v);
  if (s.size() <= max_shown_chars) return s;
  std::size_t cut = max_shown_chars - 3;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
  return s.substr(0, cut) + "...";
}

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

std::string one_of(const Names& names) {
  return names.size() == 1 ? quote(names[0]) : "one of " + quoted_list(names);
}

bool contains(const Names& names, const std::string& s) {
  return std::find(names.begin(), names.end(), s) != names.end();
}

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

// ---------------------------------------------------------------------------
// Validator

std::string Validator::pointer(const std::string& key) const {
  Tokens tokens = tokens_;
  if (!key.empty()) tokens.push_back(key);
  return json_pointer(tokens);
}

std::string Validator::where(const std::string& key) const { return source_ + ": " + pointer(key); }

void Validator::fail(const std::string& key, const std::string& message) const {
  throw CaseError(where(key) + ": " + message);
}

void Validator::fail_at(const std::string& pointer, const std::string& message) const {
  throw CaseError(source_ + ": " + pointer + ": " + message);
}

void Validator::fail_expected(const std::string& key, const std::string& expected, const json& got) const {
  fail(key, "expected " + expected + ", got " + describe(got));
}

void Validator::check_no_unknown_keys(const json& object, const Names& known) const {
  for (auto it = object.begin(); it != object.end(); ++it) {
    if (contains(known, it.key())) continue;
    const auto near = nearest_name(it.key(), known);
    fail(it.key(), near ? "unknown key; did you mean " + quote(*near) + "?"
                        : "unknown key; expected one of " + quoted_list(known));
  }
}

// --- members

const json* Validator::find(const json& object, const std::string& key) {
  const auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

const json& Validator::require(const json& object, const std::string& key, const std::string& expected) const {
  const json* member = find(object, key);
  if (!member) fail(key, "missing required key; expected " + expected);
  return *member;
}

const json& Validator::require_object(const json& object, const std::string& key) const {
  return get_object(require(object, key, "an object"), key);
}

const json* Validator::optional_object(const json& object, const std::string& key) const {
  const json* member = find(object, key);
  return member ? &get_object(*member, key) : nullptr;
}

double Validator::require_number(const json& object, const std::string& key, const NumberRule& rule) const {
  return get_number(require(object, key, rule.description), key, rule);
}

std::optional<double> Validator::optional_number(const json& object, const std::string& key,
                                                 const NumberRule& rule) const {
  const json* member = find(object, key);
  return member ? std::optional<double>(get_number(*member, key, rule)) : std::nullopt;
}

std::optional<std::int64_t> Validator::optional_int(const json& object, const std::string& key,
                                                    const IntRule& rule) const {
  const json* member = find(object, key);
  return member ? std::optional<std::int64_t>(get_int(*member, key, rule)) : std::nullopt;
}

std::string Validator::require_nonempty_string(const json& object, const std::string& key) const {
  const json& member = require(object, key, "a non-empty string");
  if (!member.is_string() || member.get<std::string>().empty()) {
    fail_expected(key, "a non-empty string", member);
  }
  return member.get<std::string>();
}

std::optional<std::string> Validator::optional_string(const json& object, const std::string& key) const {
  const json* member = find(object, key);
  if (!member) return std::nullopt;
  if (!member->is_string()) fail_expected(key, "a string", *member);
  return member->get<std::string>();
}

std::string Validator::require_string_in(const json& object, const std::string& key, const Names& allowed) const {
  return get_string_in(require(object, key, one_of(allowed)), key, allowed);
}

std::optional<std::string> Validator::optional_string_in(const json& object, const std::string& key,
                                                         const Names& allowed) const {
  const json* member = find(object, key);
  return member ? std::optional<std::string>(get_string_in(*member, key, allowed)) : std::nullopt;
}

std::optional<bool> Validator::optional_bool(const json& object, const std::string& key) const {
  const json* member = find(object, key);
  if (!member) return std::nullopt;
  if (!member->is_boolean()) fail_expected(key, "true or false", *member);
  return member->get<bool>();
}

// --- values

const json& Validator::get_object(const json& value, const std::string& key) const {
  if (!value.is_object()) fail_expected(key, "an object", value);
  return value;
}

double Validator::get_number(const json& value, const std::string& key, const NumberRule& rule) const {
  if (!value.is_number() || !rule.admits(value.get<double>())) {
    fail_expected(key, rule.description, value);
  }
  return value.get<double>();
}

std::int64_t Validator::get_int(const json& value, const std::string& key, const IntRule& rule) const {
  const auto x = as_integer(value);
  if (!x || *x < rule.lo) fail_expected(key, rule.description, value);
  if (*x > rule.hi) {
    fail_expected(key, std::string(rule.description) + " no larger than " + std::to_string(rule.hi), value);
  }
  return *x;
}

std::string Validator::get_string_in(const json& value, const std::string& key, const Names& allowed) const {
  if (!value.is_string() || !contains(allowed, value.get<std::string>())) {
    fail_expected(key, one_of(allowed), value);
  }
  return value.get<std::string>();
}

}  // namespace bouss::case_file
