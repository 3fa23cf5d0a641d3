#include "io/run_identity.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <random>

namespace bouss {

std::string new_run_id() {
  std::random_device device;
  std::seed_seq seed{device(), device(), device(), device(),
                     unsigned(std::chrono::steady_clock::now().time_since_epoch().count()), unsigned(::getpid())};
  std::mt19937_64 mix(seed);
  char text[33];
  std::snprintf(text, sizeof text, "%016llx%016llx", static_cast<unsigned long long>(mix()),
                static_cast<unsigned long long>(mix()));
  return text;
}

}  // namespace bouss
