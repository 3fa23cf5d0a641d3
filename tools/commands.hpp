// The subcommands of the `bouss` executable (tools/main.cpp parses the command line).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace bouss {

struct RunOptions {
  std::string case_file;
  std::string backend;  // "" = the case's
  std::vector<std::string> overrides;
  std::optional<std::string> output;
  double progress_seconds = 5;
};

struct BenchOptions {
  std::string case_file;
  std::string backend;
  std::vector<std::string> overrides;
  int steps = 20;
  int warmup = 5;
  bool json = false;
};

// Each returns the process exit code: 0 done, 1 failed during the run, 2 bad input.
int run_command(const RunOptions& o);
int bench_command(const BenchOptions& o);

// One-line error to stderr.
void print_error(const std::string& message);

}  // namespace bouss
