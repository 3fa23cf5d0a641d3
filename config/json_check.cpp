// JSON text checked before it is parsed (config/json_check.hpp): nlohmann::json::parse throws
// out_of_range (no position) for numbers beyond double range, silently reads a number below
// it (1e-400) as 0, and silently keeps the last of duplicate keys; the SAX pass here reports
// all three with their JSON path, and syntax errors with their byte offset.
#include "config/json_check.hpp"

#include <algorithm>
#include <set>
#include <utility>

#include "config/case.hpp"

namespace bouss::case_file {
namespace {

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

}  // namespace

std::optional<JsonProblem> check_json(const std::string& text, std::size_t base_depth) {
  JsonChecker checker(base_depth);
  json::sax_parse(text, &checker);
  return checker.problem();
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

}  // namespace bouss::case_file
