#include <cstdio>
#include <string>

#include "config/case.hpp"
#include "parallel/communicator.hpp"
#include "tools/commands.hpp"

namespace bouss {

void print_error(const std::string& message) {
  // Under several ranks every rank agrees on an error (run/run.cpp Run::agree): the first says it.
  const auto world = Communicator::world();
  if (world->rank() != 0) return;
  std::fprintf(stderr, "bouss: error: %s\n", message.c_str());
  std::fflush(stderr);
}

double parse_wall_time(const std::string& text, const std::string& flag) {
  int h = 0, m = 0, sec = 0;
  char tail = 0;
  const int fields = std::sscanf(text.c_str(), "%d:%d:%d%c", &h, &m, &sec, &tail);
  const bool ok = (fields == 2 || fields == 3) && h >= 0 && m >= 0 && m < 60 && sec >= 0 && sec < 60 &&
                  text.find_first_not_of("0123456789:") == std::string::npos;
  if (!ok || (h == 0 && m == 0 && sec == 0))
    throw CaseError(flag + " " + text + ": expected a wall time HH:MM or HH:MM:SS greater than zero");
  return 3600.0 * h + 60.0 * m + sec;
}

}  // namespace bouss
