#include <cstdio>
#include <string>

#include "tools/commands.hpp"

namespace bouss {

void print_error(const std::string& message) {
  std::fprintf(stderr, "bouss: error: %s\n", message.c_str());
  std::fflush(stderr);
}

}  // namespace bouss
